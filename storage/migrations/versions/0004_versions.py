"""The documents' versions in shards of their own (#43): a document's write seals one
shard of 256 documents' versions and the root record that lists the shards, instead of a
root record that grows with every document of the vault (``storage.versions``). A vault
at this revision is refused by a Hearth from before it, which would read every document
as not written by Hearth.

Revision ID: 0004_versions
Revises: 0003_documents
"""

import sqlalchemy as sa
from alembic import op

revision = "0004_versions"
down_revision = "0003_documents"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "versions",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("payload", sa.LargeBinary, nullable=False),
    )


def downgrade() -> None:
    op.drop_table("versions")
