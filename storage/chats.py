"""The chat store: chats and their messages in SQLite, through SQLAlchemy.

Every public method opens and closes its own session, so no session outlives a call
or crosses a thread. Callers get frozen records, never live ORM objects.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sqlalchemy import Engine, create_engine, delete, event, func, select, update
from sqlalchemy.exc import DatabaseError
from sqlalchemy.orm import Session, sessionmaker

from storage.models import Base, ChatRow, MessageRow, SchemaInfo

SCHEMA_VERSION = "1"

# Message states. "streaming" is only ever seen on disk after a crash; opening the
# store turns it into "interrupted" so the partial answer is shown as such.
COMPLETE = "complete"
STREAMING = "streaming"
INTERRUPTED = "interrupted"
FAILED = "failed"


class StoreError(Exception):
    """The database cannot be used (damaged, locked, unreadable). The message is for the user."""


@dataclass(frozen=True)
class Chat:
    id: int
    title: str
    created_at: float
    updated_at: float


@dataclass(frozen=True)
class Message:
    id: int
    chat_id: int
    position: int
    role: str
    content: str
    status: str
    stats: dict[str, Any] = field(default_factory=dict)


def _chat(row: ChatRow) -> Chat:
    return Chat(row.id, row.title, row.created_at, row.updated_at)


def _message(row: MessageRow) -> Message:
    stats = json.loads(row.stats) if row.stats else {}
    return Message(row.id, row.chat_id, row.position, row.role, row.content, row.status, stats)


def _set_pragmas(dbapi_connection: Any, _record: Any) -> None:
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA journal_mode=WAL")
    # FULL: a commit that returned survives a crash of the process and of the OS.
    cursor.execute("PRAGMA synchronous=FULL")
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.execute("PRAGMA secure_delete=ON")
    cursor.close()


class ChatStore:
    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self._engine: Engine = create_engine(f"sqlite:///{self.path}")
        event.listen(self._engine, "connect", _set_pragmas)
        self._sessions = sessionmaker(self._engine, expire_on_commit=False)
        try:
            Base.metadata.create_all(self._engine)
            with self._session() as s:
                if s.get(SchemaInfo, "version") is None:
                    s.add(SchemaInfo(key="version", value=SCHEMA_VERSION))
                # A crash while an answer streamed leaves it "streaming": say what happened.
                s.execute(
                    update(MessageRow)
                    .where(MessageRow.status == STREAMING)
                    .values(status=INTERRUPTED)
                )
        except DatabaseError as exc:
            self._engine.dispose()
            raise StoreError(
                f"The chat database {self.path} cannot be opened: it is damaged or not a "
                f"Hearth database ({exc.orig})."
            ) from exc

    @contextmanager
    def _session(self) -> Iterator[Session]:
        with self._sessions.begin() as session:
            yield session

    # Chats -------------------------------------------------------------------------
    def create_chat(self, title: str = "New chat") -> Chat:
        now = time.time()
        with self._session() as s:
            row = ChatRow(title=title, created_at=now, updated_at=now)
            s.add(row)
            s.flush()
            return _chat(row)

    def list_chats(self) -> list[Chat]:
        with self._session() as s:
            rows = s.scalars(select(ChatRow).order_by(ChatRow.updated_at.desc(), ChatRow.id.desc()))
            return [_chat(r) for r in rows]

    def get_chat(self, chat_id: int) -> Chat | None:
        with self._session() as s:
            row = s.get(ChatRow, chat_id)
            return _chat(row) if row else None

    def rename_chat(self, chat_id: int, title: str) -> None:
        with self._session() as s:
            s.execute(update(ChatRow).where(ChatRow.id == chat_id).values(title=title))

    def delete_chat(self, chat_id: int) -> None:
        with self._session() as s:
            s.execute(delete(MessageRow).where(MessageRow.chat_id == chat_id))
            s.execute(delete(ChatRow).where(ChatRow.id == chat_id))

    # Messages ----------------------------------------------------------------------
    def add_message(self, chat_id: int, role: str, content: str, status: str = COMPLETE) -> Message:
        now = time.time()
        with self._session() as s:
            last = s.scalar(
                select(func.max(MessageRow.position)).where(MessageRow.chat_id == chat_id)
            )
            row = MessageRow(
                chat_id=chat_id,
                position=(last or 0) + 1,
                role=role,
                content=content,
                status=status,
                created_at=now,
            )
            s.add(row)
            s.execute(update(ChatRow).where(ChatRow.id == chat_id).values(updated_at=now))
            s.flush()
            return _message(row)

    def update_message(
        self,
        message_id: int,
        *,
        content: str | None = None,
        status: str | None = None,
        stats: dict[str, Any] | None = None,
    ) -> None:
        values: dict[str, Any] = {}
        if content is not None:
            values["content"] = content
        if status is not None:
            values["status"] = status
        if stats is not None:
            values["stats"] = json.dumps(stats)
        if values:
            with self._session() as s:
                s.execute(update(MessageRow).where(MessageRow.id == message_id).values(**values))

    def delete_message(self, message_id: int) -> None:
        with self._session() as s:
            s.execute(delete(MessageRow).where(MessageRow.id == message_id))

    def messages(self, chat_id: int) -> list[Message]:
        with self._session() as s:
            rows = s.scalars(
                select(MessageRow)
                .where(MessageRow.chat_id == chat_id)
                .order_by(MessageRow.position)
            )
            return [_message(r) for r in rows]

    def close(self) -> None:
        """Fold the WAL back into the database file and release the connections."""
        try:
            with self._engine.connect() as conn:
                conn.exec_driver_sql("PRAGMA wal_checkpoint(TRUNCATE)")
        finally:
            self._engine.dispose()
