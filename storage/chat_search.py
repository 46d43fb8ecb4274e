"""Searching the chats, in memory only: which chats say something, and where.

Every message's text is decrypted on the first search and kept in memory, never written
anywhere; the store tells the search of each message it writes or deletes after that, and
closing the store drops the text. ``storage.chats`` owns one (``ChatStore.search``) and
hands it its reads: the list of chats, and a message row read as the store reads it.
"""

from __future__ import annotations

from collections.abc import Callable

from sqlalchemy import Engine, select

from storage import schema
from storage.chat_tree import Chat, Message


class ChatSearch:
    def __init__(self, engine: Engine, list_chats: Callable[[], list[Chat]],
                 read: Callable[[int, int, int, bytes], Message]) -> None:
        """``read``: a message row (id, chat, position, payload) as the store reads it."""
        self._engine = engine
        self._list_chats = list_chats
        self._read = read
        self._texts: dict[int, tuple[int, str]] | None = None  # message id: (chat id, text)

    def chats(self, query: str, limit: int = 200) -> list[int]:
        """Ids of chats whose title or messages contain ``query`` (case-insensitive).

        The decrypted text is kept in memory after the first search and never written
        anywhere; closing the store drops it.
        """
        needle = query.casefold().strip()
        if not needle:
            return [c.id for c in self._list_chats()]
        hits: set[int] = {chat_id for chat_id, text in self._searchable().values()
                          if needle in text.casefold()}
        ordered = [c.id for c in self._list_chats() if c.id in hits or needle in c.title.casefold()]
        return ordered[:limit]

    def matching_message(self, chat_id: int, query: str) -> int | None:
        """The first message of the chat (in any version or branch) that contains
        ``query``: where a search hit is, when the chat shows another version."""
        needle = query.casefold().strip()
        if not needle:
            return None
        found = [mid for mid, (cid, text) in self._searchable().items()
                 if cid == chat_id and needle in text.casefold()]
        return min(found) if found else None

    def _searchable(self) -> dict[int, tuple[int, str]]:
        """Every message's chat and text, decrypted once, in memory only."""
        if self._texts is None:
            m = schema.messages.c
            with self._engine.connect() as conn:
                rows = conn.execute(select(m.id, m.chat_id, m.position, m.payload)).all()
            self._texts = {}
            for row in rows:
                message = self._read(*row)
                self._texts[message.id] = (message.chat_id, message.content)
        return self._texts

    # What the store tells it, once its change committed ----------------------------
    def written(self, message_id: int, chat_id: int, content: str) -> None:
        if self._texts is not None:
            self._texts[message_id] = (chat_id, content)

    def message_deleted(self, message_id: int) -> None:
        if self._texts is not None:
            self._texts.pop(message_id, None)

    def chat_deleted(self, chat_id: int) -> None:
        if self._texts is not None:
            self._texts = {k: v for k, v in self._texts.items() if v[0] != chat_id}

    def clear(self) -> None:
        """Forget every text (the store closes)."""
        self._texts = None
