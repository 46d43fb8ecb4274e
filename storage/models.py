"""SQLAlchemy tables for chats and messages.

Ordering uses an explicit ``position`` per chat instead of timestamps so that a
regenerated answer takes exactly the place of the one it replaces.
"""

from __future__ import annotations

from sqlalchemy import ForeignKey, Integer, String, Text
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column


class Base(DeclarativeBase):
    pass


class SchemaInfo(Base):
    __tablename__ = "schema_info"

    key: Mapped[str] = mapped_column(String(64), primary_key=True)
    value: Mapped[str] = mapped_column(String(256))


class ChatRow(Base):
    __tablename__ = "chats"
    # Row ids are never reused: a deleted message's id must not name a new one.
    __table_args__ = {"sqlite_autoincrement": True}

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    title: Mapped[str] = mapped_column(Text)
    created_at: Mapped[float]
    updated_at: Mapped[float]


class MessageRow(Base):
    __tablename__ = "messages"
    __table_args__ = {"sqlite_autoincrement": True}

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    chat_id: Mapped[int] = mapped_column(ForeignKey("chats.id", ondelete="CASCADE"), index=True)
    position: Mapped[int]
    role: Mapped[str] = mapped_column(String(16))
    content: Mapped[str] = mapped_column(Text)
    status: Mapped[str] = mapped_column(String(16))
    stats: Mapped[str | None] = mapped_column(Text, nullable=True)
    created_at: Mapped[float]
