"""One root record of versions for the rows that are not chats (#38 item 1).

Every row's ciphertext is bound to its place, so a row cannot be moved; but the same row
copied back from an automatic backup (same key, same place) decrypts. Chats list their
messages with versions (``storage.chats``); this does the same for the model library,
the preferences, the collections and the documents: each payload carries its version
(``_v``), and one sealed root record (the preferences table's row 2) lists every such
row with the version it must have. Each write raises both in one transaction; each read
compares them, so a row put back from a backup reads as damaged at once (and "Check
vault" names it), instead of bringing back a revoked token or a plain-``http`` engine.

What it cannot see: the whole file, or every listed row together with the root record,
put back from one backup (SECURITY.md, "What a copy of an older vault can do"). Passages
(chunks) are not listed: they are many, their document's record is, and a passage put
back from an older copy of its document is one the user had indexed.

A vault from before the root (rows without ``_v``) is adopted: those rows are listed at
version 0, the root is written at the first change. A row that carries a version while
the root is missing or damaged was written under a root that is gone: it is not listed,
so it reads as damaged.
"""

from __future__ import annotations

import json
from typing import Any

from sqlalchemy import Connection, delete, insert, select, update

from i18n import translate
from storage import schema
from storage.crypto import Binding, DamagedVault, FieldCipher

ROOT_ROW = 2  # in the preferences table (row 1 is the preferences themselves)
TRACKED = ("models", "preferences", "collections", "documents")
VERSION = "_v"

Root = dict[str, dict[int, int]]


def _rows(conn: Connection, table: str) -> list[tuple[int, bytes, Binding]]:
    """(row id, payload, binding) of every tracked row of ``table``."""
    if table == "documents":
        d = schema.documents.c
        return [(i, blob, (c,)) for i, c, blob in conn.execute(select(d.id, d.collection_id, d.payload)).all()]
    t = schema.metadata.tables[table]
    query = select(t.c.id, t.c.payload)
    if table == "preferences":
        query = query.where(t.c.id != ROOT_ROW)
    return [(i, blob, ()) for i, blob in conn.execute(query).all()]


def older_copy(table: str, row_id: int) -> str:
    return translate("storage.versions", "{table} row {row} is an older copy of itself (put back from an "
                     "earlier copy of the vault)").format(table=table, row=row_id)


def not_written(table: str, row_id: int) -> str:
    return translate("storage.versions", "{table} row {row} was not written there by Hearth (added outside "
                     "Hearth, or from another copy of the vault)").format(table=table, row=row_id)


class RowVersions:
    """The root record's reads and writes; each takes the caller's connection, so a
    row and the root change in one transaction."""

    def __init__(self, cipher: FieldCipher) -> None:
        self._cipher = cipher

    def _open(self, table: str, row_id: int, blob: bytes, bind: Binding) -> dict[str, Any] | None:
        try:
            data = json.loads(self._cipher.decrypt(blob, table, "payload", row_id, bind))
        except (DamagedVault, ValueError):
            return None
        return data if isinstance(data, dict) else None

    def load(self, conn: Connection) -> Root:
        """The versions every tracked row must have."""
        blob = conn.scalar(select(schema.preferences.c.payload).where(schema.preferences.c.id == ROOT_ROW))
        data = self._open("preferences", ROOT_ROW, blob, ()) if blob is not None else None
        if data is None:
            return self._adopted(conn)
        try:
            return {t: {int(k): int(v) for k, v in (data.get(t) or {}).items()} for t in TRACKED}
        except (TypeError, ValueError, AttributeError):
            return self._adopted(conn)

    def _adopted(self, conn: Connection) -> Root:
        """No root (a vault from before it, or one removed or damaged): the rows that carry
        no version, at version 0."""
        root: Root = {t: {} for t in TRACKED}
        for table in TRACKED:
            for row_id, blob, bind in _rows(conn, table):
                data = self._open(table, row_id, blob, bind)
                if data is not None and VERSION not in data:
                    root[table][row_id] = 0
        return root

    def _write(self, conn: Connection, root: Root) -> None:
        plain = json.dumps({t: {str(k): v for k, v in rows.items()} for t, rows in root.items()},
                           separators=(",", ":")).encode()
        sealed = self._cipher.encrypt(plain, "preferences", "payload", ROOT_ROW)
        p = schema.preferences.c
        if conn.scalar(select(p.id).where(p.id == ROOT_ROW)) is None:
            conn.execute(insert(schema.preferences).values(id=ROOT_ROW, payload=sealed))
        else:
            conn.execute(update(schema.preferences).where(p.id == ROOT_ROW).values(payload=sealed))

    def seal(self, conn: Connection, table: str, row_id: int, data: dict[str, Any], bind: Binding = ()) -> bytes:
        """``data`` sealed at its next version, the root raised to it (in ``conn``'s
        write transaction). A row that is not there (deleted meanwhile) is not listed:
        its update changes nothing, and the root must not wait for it."""
        root = self.load(conn)
        version = root[table].get(row_id, 0) + 1
        t = schema.metadata.tables[table]
        if conn.scalar(select(t.c.id).where(t.c.id == row_id)) is not None:
            root[table][row_id] = version
            self._write(conn, root)
        plain = json.dumps({**data, VERSION: version}, ensure_ascii=False, separators=(",", ":")).encode()
        return self._cipher.encrypt(plain, table, "payload", row_id, bind)

    def forget(self, conn: Connection, table: str, row_ids: list[int]) -> None:
        """Rows deleted in ``conn``'s transaction leave the root with them."""
        root = self.load(conn)
        for row_id in row_ids:
            root[table].pop(row_id, None)
        self._write(conn, root)

    def delete(self, conn: Connection, table: str, where: Any) -> list[int]:
        """Delete the rows of ``table`` that ``where`` selects, and forget them."""
        t = schema.metadata.tables[table]
        ids = list(conn.scalars(select(t.c.id).where(where)))
        if ids:
            conn.execute(delete(t).where(t.c.id.in_(ids)))
            self.forget(conn, table, ids)
        return ids

    @staticmethod
    def checked(root: Root, table: str, row_id: int, data: dict[str, Any]) -> dict[str, Any]:
        """``data`` without its version; DamagedVault when the root lists another."""
        version = data.pop(VERSION, 0)
        listed = root[table].get(row_id)
        if listed is None:
            raise DamagedVault(not_written(table, row_id))
        if listed != version:
            raise DamagedVault(older_copy(table, row_id))
        return data

    def problems(self, conn: Connection) -> list[str]:
        """Every tracked row that is not at the version the root lists, and every listed
        row that is gone (for "Check vault"; rows that do not decrypt are its other check's)."""
        root = self.load(conn)
        found: list[str] = []
        for table in TRACKED:
            present = set()
            for row_id, blob, bind in _rows(conn, table):
                present.add(row_id)
                data = self._open(table, row_id, blob, bind)
                if data is None:
                    continue
                try:
                    self.checked(root, table, row_id, data)
                except DamagedVault as exc:
                    found.append(str(exc))
            for missing in sorted(set(root[table]) - present):
                found.append(translate("storage.versions", "{table} row {row} was deleted outside Hearth")
                             .format(table=table, row=missing))
        return found
