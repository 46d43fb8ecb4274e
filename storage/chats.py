"""Chats and messages in the vault, every payload encrypted and bound to its row.

Each public method runs in its own short transaction on the calling thread; callers get
frozen records. A message's ciphertext is bound to its chat and position; each chat's
payload lists its messages with a version that every change of a message raises, so
``verify`` notices a message deleted outside Hearth, one added from another copy, and an
older copy of a message put back in place of the current one. A payload that does not decrypt (changed outside Hearth, or damaged)
does not take the rest down: its record comes back marked ``damaged`` and the place is
listed in ``damaged_places`` so the window can say so.

The store is the reads and writes; three parts it owns do the rest (#37): the sealing of
payloads and the plaintext kept of rows read (``storage.chat_payloads``), the search over
the chats' text (``storage.chat_search``, as ``ChatStore.search``) and the check of every
chat and message (``storage.checkup``). The records and the tree are ``storage.chat_tree``.

A chat is a tree. Each message follows a parent (the message before it, or the chat's
start); a regenerated answer is a sibling of the one before it (its versions), and an
edited question a sibling of the question it rewrites (a branch, the old one kept).
Which branch is shown is chosen at each fork; both the parents and the choices are in
the chat's encrypted payload, so the tree itself says nothing to someone without the
key, and a fork is as tamper-evident as the list of messages. A chat written before
trees were (no parents listed) reads as one line, in position order.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from sqlalchemy import Connection, delete, func, insert, select, update

from i18n import translate
from storage import schema
from storage.chat_payloads import Payloads
from storage.chat_search import ChatSearch
from storage.chat_tree import (  # noqa: F401 - the records and states, re-exported: callers import them from here
    COMPLETE,
    DAMAGED,
    FAILED,
    INTERRUPTED,
    ROOT,
    STREAMING,
    UNTITLED,
    Chat,
    Message,
    StoreError,
    Tree,
)
from storage.checkup import chat_problems, not_written, older_copy
from storage.db import inserted_id, snapshot
from storage.vault import Vault

log = logging.getLogger(__name__)
# A chat's tree and list of message versions: most of its row, and no part of its record.
NOT_IN_RECORD = frozenset({"messages", "parents", "chosen"})
# An import under way, or one that did not finish (``storage.chat_bulk``): its token is in a
# ``vault_meta`` row under this prefix, and in the sealed payload of each chat it wrote.
UNFINISHED_IMPORT = "import:"
IMPORT_MARK = "import"


def unfinished_imports(conn: Connection) -> set[str]:
    """The tokens of the imports whose chats are not shown (not finished, or not undone yet)."""
    key = schema.vault_meta.c.key
    found = conn.scalars(select(key).where(key.startswith(UNFINISHED_IMPORT, autoescape=True)))
    return {k[len(UNFINISHED_IMPORT):] for k in found}


class ChatStore:
    def __init__(self, vault: Vault) -> None:
        self.vault = vault
        self.path = vault.path
        self._engine = vault.engine
        self._streaming_here: set[int] = set()
        self.damaged_places: list[str] = []
        # Sealing and unsealing, the plaintext of rows read kept (a send reads the chat row
        # and the conversation many times); a payload that does not decrypt is noted here.
        self.payloads = Payloads(vault.cipher, self.damaged_places)
        # The search reads every message once: it does not fill the row cache (which keeps
        # the shown chat's rows), nor put plaintext back in it after a close.
        self.search = ChatSearch(self._engine, self.list_chats, self._searched)

    # Rows as records --------------------------------------------------------------
    def _chat(self, row_id: int, blob: bytes, places: list[str] | None = None,
              hidden: set[str] | frozenset[str] = frozenset()) -> Chat | None:
        """The chat's record; None for a chat of an import in ``hidden`` (not finished)."""
        data = self.payloads.unseal("chats", row_id, blob, places, skipped=NOT_IN_RECORD)
        if hidden and data is not None and data.get(IMPORT_MARK) in hidden:
            return None
        if data is None:
            title = translate("storage.chats", "⚠ Damaged chat")
            return Chat(row_id, title, 0.0, 0.0, False, True)
        return Chat(row_id, data["title"], data["created_at"], data["updated_at"],
                    data.get("pinned", False), False, data.get("settings") or {})

    def _searched(self, row_id: int, chat_id: int, position: int, blob: bytes) -> Message:
        """A message row read for the search: its plaintext not kept in the row cache."""
        return self._message(row_id, chat_id, position, blob, keep=False)

    def _message(self, row_id: int, chat_id: int, position: int, blob: bytes,
                 places: list[str] | None = None, listed: dict[str, int] | None = None,
                 keep: bool = True) -> Message:
        """``listed``: the chat's list of message versions; a message at another version
        (put back from a backup) or not on it reads as damaged, its place noted. ``keep``:
        its plaintext kept in the row cache."""
        data = self.payloads.unseal("messages", row_id, blob, places, (chat_id, position), keep=keep)
        if data is not None and listed is not None and listed.get(str(row_id)) != data.get("version", 1):
            found = self.damaged_places if places is None else places
            place = (older_copy(row_id, chat_id) if str(row_id) in listed
                     else not_written(row_id, chat_id))
            if place not in found:
                found.append(place)
            data = None
        if data is None:
            return Message(row_id, chat_id, position, "assistant", "", DAMAGED)
        status = data["status"]
        if status == STREAMING and row_id not in self._streaming_here:
            status = INTERRUPTED
        return Message(row_id, chat_id, position, data["role"], data["content"], status,
                       data.get("stats") or {}, data.get("created_at", 0.0))

    def _chat_data(self, conn: Connection, chat_id: int) -> dict[str, Any] | None:
        blob = conn.scalar(select(schema.chats.c.payload).where(schema.chats.c.id == chat_id))
        return None if blob is None else self.payloads.unseal("chats", chat_id, blob)

    def _write_chat(self, conn: Connection, chat_id: int, data: dict[str, Any]) -> None:
        sealed = self.payloads.seal("chats", chat_id, data, keep=True)
        conn.execute(update(schema.chats).where(schema.chats.c.id == chat_id).values(payload=sealed))

    def _touch_chat(self, conn: Connection, chat_id: int, listed: tuple[int, int | None] | None = None,
                    tree: Tree | None = None, **changes: Any) -> None:
        """Change a chat's payload; ``listed`` is (message id, its new version, or None
        for "deleted") for the chat's list of messages; ``tree`` its new tree."""
        data = self._chat_data(conn, chat_id)
        if data is None:
            raise StoreError(translate("storage.chats",
                                       "This chat is damaged and cannot be changed."))
        data.update(changes)
        if tree is not None:
            tree.dump(data)
        if listed is not None:
            versions = data.setdefault("messages", {})
            message_id, version = listed
            if version is None:
                versions.pop(str(message_id), None)
            else:
                versions[str(message_id)] = version
        self._write_chat(conn, chat_id, data)

    # Chats ------------------------------------------------------------------------
    def create_chat(self, title: str = UNTITLED, settings: dict[str, Any] | None = None) -> Chat:
        now = time.time()
        data: dict[str, Any] = {"title": title, "created_at": now, "updated_at": now, "pinned": False,
                                "messages": {}}
        if settings:
            data["settings"] = settings
        with self.vault.transaction() as conn:
            chat_id = inserted_id(conn.execute(insert(schema.chats).values(payload=b"")))
            self._write_chat(conn, chat_id, data)
        return Chat(chat_id, title, now, now, settings=dict(settings or {}))

    def list_chats(self) -> list[Chat]:
        """Pinned chats first, then the most recently used; not those of an import that has
        not finished (it shows all its chats at once, or none)."""
        with snapshot(self._engine) as conn:
            rows = conn.execute(select(schema.chats.c.id, schema.chats.c.payload)).all()
            hidden = unfinished_imports(conn)
        found = [chat for row_id, blob in rows if (chat := self._chat(row_id, blob, hidden=hidden)) is not None]
        found.sort(key=lambda c: (not c.pinned, -c.updated_at, -c.id))
        return found

    def get_chat(self, chat_id: int) -> Chat | None:
        with self._engine.connect() as conn:
            blob = conn.scalar(select(schema.chats.c.payload).where(schema.chats.c.id == chat_id))
        return None if blob is None else self._chat(chat_id, blob)  # (never hidden: asked by its id)

    def rename_chat(self, chat_id: int, title: str) -> None:
        with self.vault.transaction() as conn:
            self._touch_chat(conn, chat_id, title=title)

    def pin_chat(self, chat_id: int, pinned: bool) -> None:
        with self.vault.transaction() as conn:
            self._touch_chat(conn, chat_id, pinned=pinned)

    def set_chat_settings(self, chat_id: int, settings: dict[str, Any]) -> None:
        """Per-chat overrides: a system prompt and sampling values."""
        with self.vault.transaction() as conn:
            self._touch_chat(conn, chat_id, settings=settings)

    def draft(self, chat_id: int) -> str:
        """The chat's unsent text, kept (encrypted with the chat) over lock and restart."""
        with self._engine.connect() as conn:
            data = self._chat_data(conn, chat_id)
        found = data.get("draft") if data else None
        return found if isinstance(found, str) else ""

    def set_draft(self, chat_id: int, text: str) -> None:
        """Keep ``text`` as the chat's unsent text ("": none); the chat's place in the
        list does not change."""
        with self.vault.transaction() as conn:
            self._touch_chat(conn, chat_id, draft=text)

    def delete_chat(self, chat_id: int) -> None:
        """Gone for good: with secure_delete SQLite overwrites the freed pages."""
        with self.vault.transaction() as conn:
            conn.execute(delete(schema.messages).where(schema.messages.c.chat_id == chat_id))
            conn.execute(delete(schema.chats).where(schema.chats.c.id == chat_id))
        self.search.chat_deleted(chat_id)

    # Messages ---------------------------------------------------------------------
    def _tree_in(self, conn: Connection, chat_id: int) -> Tree:
        m = schema.messages.c
        ids = list(conn.scalars(select(m.id).where(m.chat_id == chat_id).order_by(m.position)))
        return Tree.of(self._chat_data(conn, chat_id), ids)

    def add_message(self, chat_id: int, role: str, content: str, status: str = COMPLETE,
                    stats: dict[str, Any] | None = None, parent: int | None = None,
                    show: bool = True) -> Message:
        """Add a message after ``parent`` (None: after the branch shown; ``ROOT``: as a
        first message). ``show=False`` adds it as a version or branch that is not shown
        until ``update_message(show=True)`` or ``choose``: a crash before then leaves the
        chat showing what it showed."""
        now = time.time()
        data = {"role": role, "content": content, "status": status, "stats": stats or {},
                "created_at": now, "version": 1}
        with self.vault.transaction() as conn:
            tree = self._tree_in(conn, chat_id)
            if parent is None:
                branch = tree.branch()
                parent = branch[-1] if branch else ROOT
            elif parent != ROOT and parent not in tree.parents:
                raise StoreError(translate("storage.chats",
                                           "The message this would follow is no longer there."))
            if not show and (shown := tree.shown_at(parent)) is not None:
                tree.chosen[parent] = shown
            last = conn.scalar(
                select(func.max(schema.messages.c.position)).where(schema.messages.c.chat_id == chat_id)
            )
            position = (last or 0) + 1
            message_id = inserted_id(conn.execute(
                insert(schema.messages).values(chat_id=chat_id, position=position, payload=b"")))
            conn.execute(
                update(schema.messages).where(schema.messages.c.id == message_id)
                .values(payload=self.payloads.seal("messages", message_id, data, (chat_id, position)))
            )
            tree.parents[message_id] = parent
            if show:
                tree.choose(message_id)
            self._touch_chat(conn, chat_id, (message_id, 1), tree, updated_at=now)
        if status == STREAMING:
            self._streaming_here.add(message_id)
        self.search.written(message_id, chat_id, content)
        versions = tuple(tree.children()[parent])
        return Message(message_id, chat_id, position, role, content, status, stats or {}, now,
                       parent, versions)

    def update_message(
        self,
        message_id: int,
        *,
        content: str | None = None,
        status: str | None = None,
        stats: dict[str, Any] | None = None,
        show: bool = False,
        checkpoint: bool = False,
    ) -> None:
        """Change a message; ``show``: and show its branch from now on, in the same
        transaction (a regenerated answer, once it is complete). ``checkpoint``: the words
        so far of an answer being written: the message row alone, its version unchanged
        (the chat's list is written when the answer ends, its version raised then)."""
        def change(data: dict[str, Any]) -> None:
            if content is not None:
                data["content"] = content
            if status is not None:
                data["status"] = status
            if stats is not None:
                data["stats"] = stats

        with self.vault.transaction() as conn:
            committed = [self._change_in(conn, message_id, change, raise_version=not checkpoint)]
            if show:
                self._choose_in(conn, message_id)
        self._after(committed)

    def choose(self, message_id: int) -> None:
        """Show the branch through this message (another version of an answer, or the
        other branch of an edited question) from now on."""
        with self.vault.transaction() as conn:
            self._choose_in(conn, message_id)

    def _choose_in(self, conn: Connection, message_id: int) -> None:
        chat_id = conn.scalar(select(schema.messages.c.chat_id).where(schema.messages.c.id == message_id))
        if chat_id is None:
            return
        tree = self._tree_in(conn, chat_id)
        tree.choose(message_id)
        self._touch_chat(conn, chat_id, tree=tree)

    def delete_message(self, message_id: int) -> None:
        """Delete one message; what followed it follows the message before it."""
        with self.vault.transaction() as conn:
            committed = [self._delete_in(conn, message_id)]
        self._after(committed)

    @staticmethod
    def _after(committed: list[Callable[[], None]]) -> None:
        """What the store remembers about the rows, updated once their change committed."""
        for remember in committed:
            remember()

    def _change_in(self, conn: Connection, message_id: int, change: Callable[[dict[str, Any]], None],
                   raise_version: bool = True) -> Callable[[], None]:
        """Rewrite one message's payload in the caller's transaction, its version raised
        in its chat's list (not for a streaming answer's checkpoint); returns what to
        remember once that commits."""
        row = conn.execute(
            select(schema.messages.c.chat_id, schema.messages.c.position, schema.messages.c.payload)
            .where(schema.messages.c.id == message_id)
        ).first()
        if row is None:
            return lambda: None
        bind = (row.chat_id, row.position)
        data = self.payloads.unseal("messages", message_id, row.payload, bind=bind)
        if data is None:
            raise StoreError(translate("storage.chats",
                                       "This message is damaged and cannot be changed."))
        change(data)
        checkpoint = not raise_version and data.get("status") == STREAMING
        if not checkpoint:
            data["version"] = data.get("version", 1) + 1
        conn.execute(
            update(schema.messages).where(schema.messages.c.id == message_id)
            .values(payload=self.payloads.seal("messages", message_id, data, bind))
        )
        if not checkpoint:
            self._touch_chat(conn, row.chat_id, (message_id, data["version"]))

        def remember() -> None:
            if data["status"] == STREAMING:
                self._streaming_here.add(message_id)  # continued: written here from now on
            else:
                self._streaming_here.discard(message_id)
            self.search.written(message_id, row.chat_id, data["content"])
        return remember

    def _delete_in(self, conn: Connection, message_id: int) -> Callable[[], None]:
        chat_id = conn.scalar(select(schema.messages.c.chat_id).where(schema.messages.c.id == message_id))
        if chat_id is not None and self._chat_data(conn, chat_id) is not None:
            tree = self._tree_in(conn, chat_id)
            tree.remove(message_id)
            self._touch_chat(conn, chat_id, (message_id, None), tree)
        conn.execute(delete(schema.messages).where(schema.messages.c.id == message_id))

        def remember() -> None:
            self._streaming_here.discard(message_id)
            self.search.message_deleted(message_id)
        return remember

    def messages(self, chat_id: int, through: int | None = None) -> list[Message]:
        """The chat's messages as shown, in order: the chosen branch, or the one through
        message ``through`` (an answer being regenerated is shown before it is chosen).
        Each says which of its versions it is."""
        m = schema.messages.c
        with snapshot(self._engine) as conn:  # the chat's list and its rows, one state
            data = self._chat_data(conn, chat_id)
            ids = list(conn.scalars(select(m.id).where(m.chat_id == chat_id).order_by(m.position)))
            tree = Tree.of(data, ids)
            listed = data.get("messages") if isinstance(data, dict) else None
            branch = tree.branch(through)
            rows = {row.id: row for row in conn.execute(
                select(m.id, m.chat_id, m.position, m.payload).where(m.chat_id == chat_id)
                .where(m.id.in_(branch))
            )}
        children = tree.children()
        found = []
        for message_id in branch:
            row = rows[message_id]
            message = self._message(row.id, row.chat_id, row.position, row.payload,
                                    listed=listed if isinstance(listed, dict) else None)
            parent = tree.parents[message_id]
            found.append(replace(message, parent=parent, versions=tuple(children[parent])))
        return found

    def abandon(self, message_id: int) -> None:
        """The answer being written here was given up: from now on it reads as stopped,
        even while its removal waits for disk space."""
        self._streaming_here.discard(message_id)

    def message_count(self) -> int:
        with self._engine.connect() as conn:
            return int(conn.scalar(select(func.count()).select_from(schema.messages)) or 0)

    # Checks -----------------------------------------------------------------------
    def verify(self) -> list[str]:
        """Decrypt every chat and message payload; return the places that fail (empty when
        all is well). The rest of the vault: ``storage.checkup.problems``.

        Safe on a background thread: it shares no state with the window's reads."""
        return chat_problems(self._engine, self.payloads)

    def close(self) -> None:
        self.search.clear()
        self.payloads.clear()
        self._streaming_here.clear()
        self.vault.close()
