"""Document collections, documents and chunks for question answering.

Revision ID: 0003_documents
Revises: 0002_models
"""

import sqlalchemy as sa
from alembic import op

revision = "0003_documents"
down_revision = "0002_models"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "collections",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("payload", sa.LargeBinary, nullable=False),
        sqlite_autoincrement=True,
    )
    op.create_table(
        "documents",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("collection_id", sa.Integer, sa.ForeignKey("collections.id", ondelete="CASCADE"),
                  nullable=False, index=True),
        sa.Column("payload", sa.LargeBinary, nullable=False),
        sqlite_autoincrement=True,
    )
    op.create_table(
        "chunks",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("collection_id", sa.Integer, nullable=False, index=True),
        sa.Column("document_id", sa.Integer, sa.ForeignKey("documents.id", ondelete="CASCADE"),
                  nullable=False, index=True),
        sa.Column("payload", sa.LargeBinary, nullable=False),
        sa.Column("vector", sa.LargeBinary, nullable=False),
        sqlite_autoincrement=True,
    )


def downgrade() -> None:
    op.drop_table("chunks")
    op.drop_table("documents")
    op.drop_table("collections")
