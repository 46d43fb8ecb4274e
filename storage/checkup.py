"""Check vault: decrypt every field where it stands, check each chat's list of messages
and every other row's version against the root record (``storage.versions``).

One function for the window's "Check vault" and ``python -m app check-vault``. Bugs
aside, a place it names was changed outside Hearth (moved, reordered, deleted, added
from another copy, put back from an older one) or damaged on the disk. The chat store's
own check (``ChatStore.verify``) is here too, with the words for a message found where
its chat's list does not say it is, which the store also says when it reads one.
"""

from __future__ import annotations

from typing import Protocol

from sqlalchemy import Engine, select

from i18n import translate
from storage import schema
from storage.chat_payloads import Payloads
from storage.db import snapshot
from storage.reseal import undecryptable
from storage.vault import Vault
from storage.versions import RowVersions


class Checked(Protocol):
    """What the check needs of the chat store (``storage.chats.ChatStore``)."""

    @property
    def vault(self) -> Vault: ...

    def verify(self) -> list[str]: ...


def problems(store: Checked) -> list[str]:
    """Every place that does not read back as Hearth wrote it (empty when all is well).

    Safe on a background thread: what it shares with the window's reads (the row cache)
    is kept under its own lock."""
    found = store.verify()  # chats and messages, and the chats' lists of messages
    others = [name for name in schema.SEALED if name not in ("chats", "messages")]
    with snapshot(store.vault.engine) as conn:
        found += undecryptable(conn, store.vault.cipher, others)
        found += RowVersions(store.vault.cipher).problems(conn)  # rows put back from a backup
    return found


def chat_problems(engine: Engine, payloads: Payloads) -> list[str]:
    """Decrypt every chat and message payload; return the places that fail (empty when
    all is well): a payload that does not decrypt, a message its chat's list does not
    name or names at another version, and one the list names that is gone.

    Safe on a background thread: what it shares with the window's reads (the row cache)
    is kept under its own lock."""
    places: list[str] = []
    with snapshot(engine) as conn:
        chat_rows = conn.execute(select(schema.chats.c.id, schema.chats.c.payload)).all()
        m = schema.messages.c
        message_rows = conn.execute(select(m.id, m.chat_id, m.position, m.payload)).all()
    listed: dict[int, dict[str, int]] = {}
    for row_id, blob in chat_rows:
        data = payloads.unseal("chats", row_id, blob, places)
        if data is not None:
            listed[row_id] = data.get("messages") or {}
    found: dict[int, set[int]] = {}
    for row in message_rows:
        before = len(places)
        message_id, chat_id = row[0], row[1]
        data = payloads.unseal("messages", message_id, row[3], places, (chat_id, row[2]))
        found.setdefault(chat_id, set()).add(message_id)
        versions = listed.get(chat_id)
        if data is None or versions is None or len(places) > before:
            continue
        version = versions.get(str(message_id))
        if version is None:
            places.append(not_written(message_id, chat_id))
        elif data.get("version", 1) != version:
            places.append(older_copy(message_id, chat_id))
    for chat_id, versions in listed.items():
        for missing in sorted(set(map(int, versions)) - found.get(chat_id, set())):
            places.append(translate(
                "storage.chats", "message {message} of chat {chat} was deleted outside Hearth",
            ).format(message=missing, chat=chat_id))
    return places


def not_written(message_id: int, chat_id: int) -> str:
    return translate("storage.chats", "message {message} in chat {chat} was not written there by "
                     "Hearth (added outside Hearth, or from another copy of the vault)",
                     ).format(message=message_id, chat=chat_id)


def older_copy(message_id: int, chat_id: int) -> str:
    return translate("storage.chats", "message {message} in chat {chat} is an older copy of itself "
                     "(put back from an earlier copy of the vault)").format(message=message_id, chat=chat_id)
