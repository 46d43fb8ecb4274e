"""The encrypted vault: key record, chats and messages with encrypted payloads.

Revision ID: 0001_vault
Revises:
"""

import sqlalchemy as sa
from alembic import op

revision = "0001_vault"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "vault_meta",
        sa.Column("key", sa.Text, primary_key=True),
        sa.Column("value", sa.Text, nullable=False),
    )
    op.create_table(
        "chats",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("payload", sa.LargeBinary, nullable=False),
        sqlite_autoincrement=True,
    )
    op.create_table(
        "messages",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("chat_id", sa.Integer, sa.ForeignKey("chats.id", ondelete="CASCADE"), nullable=False),
        sa.Column("position", sa.Integer, nullable=False),
        sa.Column("payload", sa.LargeBinary, nullable=False),
        sqlite_autoincrement=True,
    )
    op.create_index("ix_messages_chat_position", "messages", ["chat_id", "position"])


def downgrade() -> None:
    op.drop_index("ix_messages_chat_position", table_name="messages")
    op.drop_table("messages")
    op.drop_table("chats")
    op.drop_table("vault_meta")
