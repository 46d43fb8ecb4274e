"""Searching the chats, in memory only: which chats say something, and where.

Every message's text is decrypted once and kept in memory, never written anywhere: by
``warm`` (the window calls it off the UI thread when the search box is first used) or by
the first search. The store tells the search of each message it writes or deletes after
that, and closing the store drops the text. A change told while ``warm`` reads (in
batches, which a cancel stops between) is kept and applied after it, so nothing written
meanwhile is missed. ``storage.chats`` owns one (``ChatStore.search``) and hands it its
reads: the list of chats, and a message row read as the store reads it.
"""

from __future__ import annotations

import threading
from collections.abc import Callable

from sqlalchemy import Engine, select

from storage import schema
from storage.chat_tree import Chat, Message

READ_BATCH = 1000  # message rows read at a time (a cancel is seen between: about 10 ms)
Change = tuple[str, int, int, str]  # ("written" | "message" | "chat", message id, chat id, text)


class ChatSearch:
    def __init__(self, engine: Engine, list_chats: Callable[[], list[Chat]],
                 read: Callable[[int, int, int, bytes], Message]) -> None:
        """``read``: a message row (id, chat, position, payload) as the store reads it."""
        self._engine = engine
        self._list_chats = list_chats
        self._read = read
        # message id: (chat id, text casefolded once, not at every search)
        self._texts: dict[int, tuple[int, str]] | None = None
        self._lock = threading.Condition()
        self._changes: list[Change] | None = None  # told while ``warm`` reads; None: no reading
        self._generation = 0  # ``clear`` starts another: texts read before it are dropped

    @property
    def ready(self) -> bool:
        """Whether the texts are in memory (a search decrypts nothing)."""
        with self._lock:
            return self._texts is not None

    def chats(self, query: str, limit: int = 200) -> list[int]:
        """Ids of chats whose title or messages contain ``query`` (case-insensitive).

        The decrypted text is kept in memory after the first search and never written
        anywhere; closing the store drops it.
        """
        needle = query.casefold().strip()
        if not needle:
            return [c.id for c in self._list_chats()]
        with self._lock:
            hits: set[int] = {chat_id for chat_id, text in self._searchable().values() if needle in text}
        ordered = [c.id for c in self._list_chats() if c.id in hits or needle in c.title.casefold()]
        return ordered[:limit]

    def matching_message(self, chat_id: int, query: str) -> int | None:
        """The first message of the chat (in any version or branch) that contains
        ``query``: where a search hit is, when the chat shows another version."""
        needle = query.casefold().strip()
        if not needle:
            return None
        with self._lock:
            found = [mid for mid, (cid, text) in self._searchable().items()
                     if cid == chat_id and needle in text]
        return min(found) if found else None

    def _searchable(self) -> dict[int, tuple[int, str]]:
        """Every message's chat and casefolded text (read now if no one has). Called with
        the lock held; waiting for a reader releases it."""
        while self._texts is None:
            if self._changes is None:
                self._lock.release()
                try:
                    self.warm()
                finally:
                    self._lock.acquire()
            else:
                self._lock.wait()  # another thread reads them
        return self._texts

    def warm(self, cancel: threading.Event | None = None) -> bool:
        """Decrypt every message's text into memory now, unless it is there or being read;
        False if ``cancel`` stopped it or the store closed meanwhile (nothing is kept then)."""
        with self._lock:
            while self._changes is not None:
                self._lock.wait()
            if self._texts is not None:
                return True
            self._changes, generation = [], self._generation
        texts: dict[int, tuple[int, str]] | None = None
        try:
            texts = self._read_all(cancel, generation)
        finally:
            with self._lock:
                changes, self._changes = self._changes or [], None
                kept = texts is not None and generation == self._generation
                if kept and texts is not None:
                    for change in changes:
                        self._apply(texts, change)
                    self._texts = texts
                self._lock.notify_all()
        return kept

    def _read_all(self, cancel: threading.Event | None, generation: int) -> dict[int, tuple[int, str]] | None:
        m = schema.messages.c
        texts: dict[int, tuple[int, str]] = {}
        last = 0
        while (cancel is None or not cancel.is_set()) and generation == self._generation:
            with self._engine.connect() as conn:
                rows = conn.execute(select(m.id, m.chat_id, m.position, m.payload).where(m.id > last)
                                    .order_by(m.id).limit(READ_BATCH)).all()
            if not rows:
                return texts
            last = rows[-1][0]
            for row in rows:
                message = self._read(*row)
                texts[message.id] = (message.chat_id, message.content.casefold())
        return None

    @staticmethod
    def _apply(texts: dict[int, tuple[int, str]], change: Change) -> None:
        kind, message_id, chat_id, text = change
        if kind == "written":
            texts[message_id] = (chat_id, text)
        elif kind == "message":
            texts.pop(message_id, None)
        else:
            for gone in [k for k, v in texts.items() if v[0] == chat_id]:
                del texts[gone]

    def _tell(self, change: Change) -> None:
        """A change applied, or kept for the reading under way; the text is casefolded only
        then (an answer's checkpoints are told its whole text so far)."""
        with self._lock:
            if self._texts is None and self._changes is None:
                return
            kind, message_id, chat_id, text = change
            change = (kind, message_id, chat_id, text.casefold())
            if self._texts is not None:
                self._apply(self._texts, change)
            elif self._changes is not None:
                self._changes.append(change)

    # What the store tells it, once its change committed ----------------------------
    def written(self, message_id: int, chat_id: int, content: str) -> None:
        self._tell(("written", message_id, chat_id, content))

    def message_deleted(self, message_id: int) -> None:
        self._tell(("message", message_id, 0, ""))

    def chat_deleted(self, chat_id: int) -> None:
        self._tell(("chat", 0, chat_id, ""))

    def clear(self) -> None:
        """Forget every text (the store closes); texts being read are dropped."""
        with self._lock:
            self._texts = None
            self._generation += 1
