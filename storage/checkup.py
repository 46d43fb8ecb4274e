"""Check vault: decrypt every field where it stands, check each chat's list of messages
and every other row's version against the root record (``storage.versions``).

One function for the window's "Check vault" and ``python -m app check-vault``. Bugs
aside, a place it names was changed outside Hearth (moved, reordered, deleted, added
from another copy, put back from an older one) or damaged on the disk.
"""

from __future__ import annotations

from storage import schema
from storage.chats import ChatStore
from storage.db import snapshot
from storage.reseal import undecryptable
from storage.versions import RowVersions


def problems(store: ChatStore) -> list[str]:
    """Every place that does not read back as Hearth wrote it (empty when all is well).

    Safe on a background thread: it shares no state with the window's reads."""
    found = store.verify()  # chats and messages, and the chats' lists of messages
    others = [name for name in schema.SEALED if name not in ("chats", "messages")]
    with snapshot(store.vault.engine) as conn:
        found += undecryptable(conn, store.vault.cipher, others)
        found += RowVersions(store.vault.cipher).problems(conn)  # rows put back from a backup
    return found
