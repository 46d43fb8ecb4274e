"""A whole chat written at once, as an import brings it (#40): one transaction for the
chat and all its messages, sealed and bound like any others (``ChatStore.add_message``
takes one transaction, and rewrites the chat's list, for each message: thousands of
imported messages would take minutes). A crash before the end leaves nothing of it."""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import insert, update

from storage import schema
from storage.chats import COMPLETE, ROOT, Chat, ChatStore, StoreError, Tree
from storage.db import inserted_id


@dataclass(frozen=True)
class Written:
    """One message to write: ``parent`` is an earlier one's ``key`` (None: the first)."""

    key: str
    parent: str | None
    role: str
    content: str
    created_at: float = 0.0
    stats: dict[str, Any] = field(default_factory=dict)


def add_whole_chat(store: ChatStore, title: str, created_at: float, messages: Sequence[Written],
                   shown: str | None = None) -> Chat:
    """Write the chat and its messages (parents before children), showing the branch
    through ``shown`` (the newest at each fork otherwise)."""
    now = time.time()
    created = created_at or now
    with store.vault.transaction() as conn:
        chat_id = inserted_id(conn.execute(insert(schema.chats).values(payload=b"")))
        ids: dict[str, int] = {}
        tree = Tree({}, {})
        for position, message in enumerate(messages, start=1):
            if message.key in ids or (message.parent is not None and message.parent not in ids):
                raise StoreError(f"message {position} of an import follows none written before it")
            written = {"role": message.role, "content": message.content, "status": COMPLETE,
                       "stats": message.stats, "created_at": message.created_at or created, "version": 1}
            message_id = inserted_id(conn.execute(
                insert(schema.messages).values(chat_id=chat_id, position=position, payload=b"")))
            conn.execute(update(schema.messages).where(schema.messages.c.id == message_id).values(
                payload=store.payloads.seal("messages", message_id, written, (chat_id, position))))
            ids[message.key] = message_id
            tree.parents[message_id] = ROOT if message.parent is None else ids[message.parent]
        if shown in ids:
            tree.choose(ids[shown])
        data: dict[str, Any] = {"title": title, "created_at": created, "updated_at": now, "pinned": False,
                                "messages": {str(i): 1 for i in ids.values()}}
        tree.dump(data)
        conn.execute(update(schema.chats).where(schema.chats.c.id == chat_id).values(
            payload=store.payloads.seal("chats", chat_id, data, keep=True)))
    for message, message_id in zip(messages, ids.values(), strict=True):
        store.search.written(message_id, chat_id, message.content)
    return Chat(chat_id, title, created, now)
