"""Re-encrypting every field of a vault, inside one transaction of the caller's.

Two callers: a passphrase change (a new data key, so that an old copy of the file and
the old passphrase open nothing written since) and the migration of a format-1 vault
(same key, the row bindings and vault id added). Either way the rows are read with one
cipher and written with the other in the caller's transaction: a crash before its commit
leaves every row as it was, readable with the key record that is still there.

A row that does not decrypt (damaged, or edited outside Hearth) is left as it is and
reported: it could not be read before and cannot be after.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from sqlalchemy import Connection, select, update

from storage import schema
from storage.crypto import Binding, DamagedVault, FieldCipher

PAGE = 500


def sealed_rows(conn: Connection, name: str, stop: Callable[[], None] = lambda: None
                ) -> Iterator[tuple[int, Binding, dict[str, bytes]]]:
    """Every row of table ``name``: its id, its binding and its sealed columns, a page at
    a time (so that the caller may update the rows it has been given)."""
    sealed, bound = schema.SEALED[name]
    table = schema.metadata.tables[name]
    columns = [table.c.id, *(table.c[c] for c in bound), *(table.c[c] for c in sealed)]
    last = 0
    while True:
        stop()
        rows = conn.execute(select(*columns).where(table.c.id > last).order_by(table.c.id).limit(PAGE)).all()
        if not rows:
            return
        for row in rows:
            yield row[0], tuple(row[1 : 1 + len(bound)]), dict(zip(sealed, row[1 + len(bound):], strict=True))
        last = rows[-1][0]


def reseal(conn: Connection, old: FieldCipher, new: FieldCipher,
           stop: Callable[[], None] = lambda: None) -> list[str]:
    """Re-encrypt every sealed column from ``old`` to ``new``; the places left as they were.

    ``stop`` is called before every page and may raise to end it (the vault is closing):
    the caller's transaction then rolls back, and nothing was changed."""
    damaged: list[str] = []
    for name in schema.SEALED:
        table = schema.metadata.tables[name]
        for row_id, bind, blobs in sealed_rows(conn, name, stop):
            values: dict[str, bytes] = {}
            for column, blob in blobs.items():
                try:
                    plain = old.decrypt(blob, name, column, row_id, bind)
                except DamagedVault as exc:
                    damaged.append(str(exc))
                    continue
                values[column] = new.encrypt(plain, name, column, row_id, bind)
            if values:
                conn.execute(update(table).where(table.c.id == row_id).values(**values))
    return damaged


def undecryptable(conn: Connection, cipher: FieldCipher, tables: Iterable[str]) -> list[str]:
    """The places in ``tables`` whose fields do not decrypt where they are (for check-vault)."""
    places: list[str] = []
    for name in tables:
        for row_id, bind, blobs in sealed_rows(conn, name):
            for column, blob in blobs.items():
                try:
                    cipher.decrypt(blob, name, column, row_id, bind)
                except DamagedVault as exc:
                    places.append(str(exc))
    return places


def add_message_lists(conn: Connection, cipher: FieldCipher) -> None:
    """Format 1 to 2: each chat's payload lists its messages (id → version), so that a
    message deleted, or put back from an older copy, outside Hearth is noticed."""
    c, m = schema.chats.c, schema.messages.c
    for chat_id, blob in conn.execute(select(c.id, c.payload)).all():
        try:
            data: dict[str, Any] = json.loads(cipher.decrypt(blob, "chats", "payload", chat_id))
        except DamagedVault:
            continue
        data["messages"] = {str(row_id): 1 for row_id in
                            conn.scalars(select(m.id).where(m.chat_id == chat_id).order_by(m.position))}
        sealed = cipher.encrypt(json.dumps(data, ensure_ascii=False, separators=(",", ":")).encode(),
                                "chats", "payload", chat_id)
        conn.execute(update(schema.chats).where(c.id == chat_id).values(payload=sealed))
