"""The model library and encrypted preferences.

Revision ID: 0002_models
Revises: 0001_vault
"""

import sqlalchemy as sa
from alembic import op

revision = "0002_models"
down_revision = "0001_vault"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "models",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("payload", sa.LargeBinary, nullable=False),
        sqlite_autoincrement=True,
    )
    op.create_table(
        "preferences",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("payload", sa.LargeBinary, nullable=False),
    )


def downgrade() -> None:
    op.drop_table("preferences")
    op.drop_table("models")
