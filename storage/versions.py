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

The documents' versions are kept in shards (the ``versions`` table, ``SHARD_ROWS``
documents each), each sealed with a version of its own that the root lists: a document's
write seals its shard and the root, small both, where one root holding every document's
version took milliseconds to read and write again at ten thousand documents, and a
tenth of a second at a hundred thousand. A shard put back, removed or damaged lists
nothing: its documents read as damaged, as they would with the root put back.

Every new version, of a row or of a shard, is the root's count of versions given plus one
(``CLOCK``), not the row's last version plus one: a row whose listed version was lost (its
shard put back or damaged, the root removed) and then written again gets a version above
any that a copy of the vault holds, so that copy does not pass for it afterwards.

A vault from before the root (rows without ``_v``) is adopted: those rows are listed at
version 0, the root is written at the first change (its count above every version a
row or shard carries). A row that carries a version while
the root is missing or damaged was written under a root that is gone: it is not listed,
so it reads as damaged, and neither is a row without one then (one put back from a copy
older than the root reads the same). A root from before the shards (the documents' versions in it) is
read as it is, and its documents go into shards at the first change; such a root over a
vault that has shards is an older copy put back (the copy kept before the upgrade), and
reads as a damaged root.

A shard that read as put back, removed or damaged and is then written again (a document of
it saved) lists only the rows written since; it keeps the reason (``LOST``) until every
row of its range is listed again (the others saved or deleted), so "Check vault" goes on
naming the shard, and its unlisted rows as rows whose version was lost with it, not as
rows that Hearth never wrote. The root does the same when it was lost itself (removed,
damaged or put back while rows carry versions): "Check vault" names it, and its rows as
lost with it; the root written again keeps the reason while a row of the small tables is
unlisted, and each shard written with it keeps it (``ROOT_LOST``) for its own rows.
"""

from __future__ import annotations

import json
from collections.abc import Collection, Iterable
from contextlib import suppress
from typing import Any

from sqlalchemy import Connection, delete, insert, select, update

from i18n import translate
from storage import schema
from storage.crypto import Binding, DamagedVault, FieldCipher

ROOT_ROW = 2  # in the preferences table (row 1 is the preferences themselves)
TRACKED = ("models", "preferences", "collections", "documents")
SHARDED = ("documents",)  # the tables whose versions are kept in shards (a vault holds many)
SHARD_ROWS = 256  # rows per shard: a shard's row id in ``versions`` is row id // SHARD_ROWS + 1
SHARDS = "shards"  # the root's key for each sharded table's shards and their versions
# The root's count of the versions it gave: each new version of a row or a shard is the
# next, so it is above every version any earlier copy of the vault holds, even for a row
# whose listed version was lost (its shard put back or damaged, or the root removed).
CLOCK = "clock"
VERSION = "_v"
# A shard's note that it was put back ("older") or missing or damaged ("damaged") when it
# was written again: the rows it does not list lost their versions with it.
LOST = "lost"
# A shard's reason when it was written again after the root was lost (its rows unlisted).
ROOT_LOST = "root"


class Root(dict[str, dict[int, int]]):
    """Each tracked table's rows and the versions they must have; and why a row is not
    listed where a shard or the root itself was lost (what a read and the check say)."""

    def __init__(self, listed: dict[str, dict[int, int]]) -> None:
        super().__init__(listed)
        self.lost_root: str | None = None  # the root was lost ("older", "damaged") with its rows
        # each sharded table's shards whose listed rows were lost, and why (``LOST``)
        self.lost: dict[str, dict[int, str]] = {table: {} for table in SHARDED}

    def why_unlisted(self, table: str, row_id: int) -> str:
        """Why ``row_id`` of ``table`` is not listed, in the user's words."""
        reason = self.lost[table].get(_shard(row_id)) if table in SHARDED else self.lost_root
        if reason == ROOT_LOST or (reason is not None and table not in SHARDED):
            return lost_with_root(table, row_id)
        return lost_with_shard(table, row_id, _shard(row_id)) if reason is not None else not_written(table, row_id)


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


def _number(value: Any) -> int:
    """A version as a row carries it (0 for anything that is not a whole number)."""
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def _shard(row_id: int) -> int:
    """The ``versions`` row that lists ``row_id``'s version."""
    return row_id // SHARD_ROWS + 1


def older_copy(table: str, row_id: int) -> str:
    return translate("storage.versions", "{table} row {row} is an older copy of itself (put back from an "
                     "earlier copy of the vault)").format(table=table, row=row_id)


def not_written(table: str, row_id: int) -> str:
    return translate("storage.versions", "{table} row {row} was not written there by Hearth (added outside "
                     "Hearth, or from another copy of the vault)").format(table=table, row=row_id)


def lost_shard(shard: int, reason: str) -> str:
    if reason == "older":
        return translate("storage.versions", "versions row {row} was an older copy of itself (put back from an "
                         "earlier copy of the vault) when Hearth wrote it again: the documents it no longer "
                         "lists read as damaged").format(row=shard)
    if reason == ROOT_LOST:
        return translate("storage.versions", "versions row {row} was written again after preferences row 2, "
                         "the record of versions, was lost: the documents it does not list read as "
                         "damaged").format(row=shard)
    return translate("storage.versions", "versions row {row} was missing or damaged when Hearth wrote it "
                     "again: the documents it no longer lists read as damaged").format(row=shard)


def lost_root(reason: str | None) -> str:
    """The check's line for a root that was lost: ``reason`` None while it still is."""
    if reason is None:
        return translate("storage.versions", "preferences row 2, the record of versions, is missing or damaged "
                         "(removed, or put back from an earlier copy of the vault)")
    if reason == "older":
        return translate("storage.versions", "preferences row 2, the record of versions, was an older copy of "
                         "itself when Hearth wrote it again: the rows it no longer lists read as damaged")
    return translate("storage.versions", "preferences row 2, the record of versions, was missing or damaged "
                     "when Hearth wrote it again: the rows it no longer lists read as damaged")


def lost_with_root(table: str, row_id: int) -> str:
    return translate("storage.versions", "{table} row {row} lost its version with preferences row 2, the record "
                     "of versions (removed, damaged or put back)").format(table=table, row=row_id)


def lost_with_shard(table: str, row_id: int, shard: int) -> str:
    return translate("storage.versions", "{table} row {row} lost its version with versions row {shard} (put "
                     "back, removed or damaged)").format(table=table, row=row_id, shard=shard)


class _Read:
    """The root record and the shards one call read, in its transaction: what a change
    writes back (only the shards it touched, and the root)."""

    def __init__(self, root: Root, shards: dict[str, dict[int, int]], whole: bool, clock: int) -> None:
        self.root = root  # each table's rows' versions: of the shards read, for a sharded one
        self.shards = shards  # each sharded table's shards and their versions
        self.whole = whole  # read whole (a root from before the shards, or none): every shard is written
        self.clock = clock  # the highest version given (``CLOCK``)
        self.touched: dict[str, set[int]] = {table: set() for table in SHARDED}
        self.problems: list[str] = []  # shards listed that are gone, damaged or older copies

    def next_version(self) -> int:
        self.clock += 1
        return self.clock


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

    def load(self, conn: Connection, tables: Collection[str] = TRACKED, row_ids: Iterable[int] | None = None) -> Root:
        """The versions every tracked row must have. Of the sharded tables, only those in
        ``tables`` (the others' are left empty), and of those only the shards holding
        ``row_ids``, when given."""
        return self._read(conn, tables, row_ids).root

    def _read(self, conn: Connection, tables: Collection[str], row_ids: Iterable[int] | None) -> _Read:
        """The root, with the shards of ``tables`` (those holding ``row_ids`` alone, if given)."""
        blob = conn.scalar(select(schema.preferences.c.payload).where(schema.preferences.c.id == ROOT_ROW))
        data = self._open("preferences", ROOT_ROW, blob, ()) if blob is not None else None
        try:
            if data is None:
                raise ValueError("no root")
            root = {t: {int(k): int(v) for k, v in (data.get(t) or {}).items()} for t in TRACKED}
            listed = data.get(SHARDS) or {}
            shards = {t: {int(k): int(v) for k, v in (listed.get(t) or {}).items()} for t in SHARDED}
            whole = SHARDS not in data
            # A root from before the shards lists every version it gave; since them, it counts.
            clock = max((n for rows in root.values() for n in rows.values()), default=0) if whole \
                else int(data[CLOCK])
        except (TypeError, ValueError, AttributeError, KeyError):
            return self._adopted(conn, "damaged")
        if whole and conn.scalar(select(schema.versions.c.id).limit(1)) is not None:
            # A root without shards over a vault that has them: an older copy put back (the
            # copy kept before the upgrade to them, say), not one to convert.
            return self._adopted(conn, "older")
        read = _Read(Root(root), shards, whole, clock)
        if data.get(LOST) in ("older", "damaged"):
            read.root.lost_root = data[LOST]
            read.problems.append(lost_root(data[LOST]))
        for table in SHARDED:
            if table not in tables or read.whole:
                continue
            wanted = sorted(shards[table]) if row_ids is None else sorted({_shard(r) for r in row_ids})
            self._shards(conn, table, wanted, read)
        return read

    def _shards(self, conn: Connection, table: str, wanted: list[int], read: _Read) -> None:
        """The rows' versions of ``table``'s shards ``wanted`` into ``read``; a shard that is
        gone, damaged or not at the version the root lists adds none (its rows read as
        damaged)."""
        listed = {shard: read.shards[table][shard] for shard in wanted if shard in read.shards[table]}
        if not listed:
            return
        v = schema.versions.c
        query = select(v.id, v.payload)
        if len(listed) < len(read.shards[table]):  # not all: those alone (one of a write, mostly)
            query = query.where(v.id.in_(list(listed)))
        blobs = dict(conn.execute(query).all())
        for shard, version in listed.items():
            data = self._open("versions", shard, blobs[shard], ()) if shard in blobs else None
            rows = None
            if data is not None and data.get("table") == table:
                with suppress(TypeError, ValueError, AttributeError):  # (rows that do not read: damaged)
                    rows = {int(k): int(n) for k, n in (data.get("rows") or {}).items()}
            if rows is None:
                read.problems.append(translate("storage.versions", "versions row {row} is missing or "
                                               "damaged").format(row=shard))
                read.root.lost[table][shard] = "damaged"
            elif data is not None and data.get(VERSION) != version:
                read.problems.append(older_copy("versions", shard))
                read.root.lost[table][shard] = "older"
            else:
                read.root[table].update({row: n for row, n in rows.items() if _shard(row) == shard})
                reason = data.get(LOST) if data is not None else None
                if reason in ("older", "damaged", ROOT_LOST):
                    read.problems.append(lost_shard(shard, reason))
                    read.root.lost[table][shard] = reason

    def _adopted(self, conn: Connection, reason: str) -> _Read:
        """No root (a vault from before it, or one removed, damaged or put back: ``reason``
        "damaged" or "older"): the rows that carry no version, at version 0, and a clock
        above every version a row or shard carries. Where a row or a shard carries a
        version, the vault was written under a root that is gone: no row is listed (a row
        without a version is then one put back from a copy older than the root, as likely
        as one never written since), the check says so, and the next write keeps the
        reason in the root and in the shards of the rows it lost."""
        root: dict[str, dict[int, int]] = {t: {} for t in TRACKED}
        clock = 0
        versioned = False  # a row or shard carries a version: the vault had a root
        present: dict[str, list[int]] = {t: [] for t in SHARDED}
        for table in TRACKED:
            for row_id, blob, bind in _rows(conn, table):
                if table in SHARDED:
                    present[table].append(row_id)
                data = self._open(table, row_id, blob, bind)
                if data is not None and VERSION not in data:
                    root[table][row_id] = 0
                elif data is not None:
                    clock = max(clock, _number(data[VERSION]))
                    versioned = True
        shards = conn.execute(select(schema.versions.c.id, schema.versions.c.payload)).all()
        for shard_id, blob in shards:
            data = self._open("versions", shard_id, blob, ())
            if data is not None:
                rows = data.get("rows")
                listed = list(rows.values()) if isinstance(rows, dict) else []
                clock = max(clock, _number(data.get(VERSION)), *(_number(n) for n in listed))
        if not (shards or versioned):
            return _Read(Root(root), {t: {} for t in SHARDED}, True, clock)
        read = _Read(Root({t: {} for t in TRACKED}), {t: {} for t in SHARDED}, True, clock)
        read.root.lost_root = reason
        read.problems.append(older_copy("preferences", ROOT_ROW) if reason == "older" else lost_root(None))
        for table in SHARDED:
            read.root.lost[table] = {_shard(row): ROOT_LOST for row in present[table]}
        return read

    def _write(self, conn: Connection, read: _Read) -> None:
        """The shards ``read`` touched (every one, read whole), each at its next version,
        and the root listing them."""
        for table in SHARDED:
            rows = read.root[table]
            touched = read.touched[table]
            if read.whole:  # (with the shards of rows lost with the root: to keep why)
                touched = touched | {_shard(row) for row in rows} | set(read.root.lost[table])
            grouped: dict[int, dict[str, int]] = {shard: {} for shard in touched}
            for row, version in rows.items():
                if _shard(row) in grouped:
                    grouped[_shard(row)][str(row)] = version
            for shard, listed in sorted(grouped.items()):
                version = read.next_version()
                read.shards[table][shard] = version
                record: dict[str, Any] = {"table": table, "rows": listed, VERSION: version}
                reason = read.root.lost[table].get(shard)
                if reason is not None and not self._all_listed(conn, table, shard, listed):
                    record[LOST] = reason
                plain = json.dumps(record, separators=(",", ":")).encode()
                self._put(conn, schema.versions, shard, self._cipher.encrypt(plain, "versions", "payload", shard))
        data: dict[str, Any] = {t: {str(k): v for k, v in rows.items()} for t, rows in read.root.items()
                                if t not in SHARDED}
        data[SHARDS] = {t: {str(k): v for k, v in read.shards[t].items()} for t in SHARDED}
        data[CLOCK] = read.clock
        if read.root.lost_root is not None and not self._small_listed(conn, read.root):
            data[LOST] = read.root.lost_root
        plain = json.dumps(data, separators=(",", ":")).encode()
        self._put(conn, schema.preferences, ROOT_ROW, self._cipher.encrypt(plain, "preferences", "payload", ROOT_ROW))

    @staticmethod
    def _all_listed(conn: Connection, table: str, shard: int, listed: dict[str, int]) -> bool:
        """Whether every row of ``table`` in ``shard``'s range is among ``listed``."""
        t = schema.metadata.tables[table]
        first = (shard - 1) * SHARD_ROWS
        present = conn.scalars(select(t.c.id).where(t.c.id >= first, t.c.id < first + SHARD_ROWS))
        return all(str(row) in listed for row in present)

    @staticmethod
    def _small_listed(conn: Connection, root: Root) -> bool:
        """Whether the root lists every row of the tables it lists itself (not sharded)."""
        for table in TRACKED:
            if table in SHARDED:
                continue
            t = schema.metadata.tables[table]
            query = select(t.c.id) if table != "preferences" else select(t.c.id).where(t.c.id != ROOT_ROW)
            if any(row_id not in root[table] for row_id in conn.scalars(query)):
                return False
        return True

    @staticmethod
    def _put(conn: Connection, table: Any, row_id: int, sealed: bytes) -> None:
        if conn.scalar(select(table.c.id).where(table.c.id == row_id)) is None:
            conn.execute(insert(table).values(id=row_id, payload=sealed))
        else:
            conn.execute(update(table).where(table.c.id == row_id).values(payload=sealed))

    def seal(self, conn: Connection, table: str, row_id: int, data: dict[str, Any], bind: Binding = ()) -> bytes:
        """``data`` sealed at its next version, the root raised to it (in ``conn``'s
        write transaction). A row that is not there (deleted meanwhile) is not listed:
        its update changes nothing, and the root must not wait for it."""
        read = self._read(conn, (table,), (row_id,))
        version = read.next_version()
        t = schema.metadata.tables[table]
        if conn.scalar(select(t.c.id).where(t.c.id == row_id)) is not None:
            read.root[table][row_id] = version
            if table in SHARDED:
                read.touched[table].add(_shard(row_id))
            self._write(conn, read)
        plain = json.dumps({**data, VERSION: version}, ensure_ascii=False, separators=(",", ":")).encode()
        return self._cipher.encrypt(plain, table, "payload", row_id, bind)

    def forget(self, conn: Connection, table: str, row_ids: list[int]) -> None:
        """Rows deleted in ``conn``'s transaction leave the root with them."""
        read = self._read(conn, (table,), row_ids)
        for row_id in row_ids:
            read.root[table].pop(row_id, None)
            if table in SHARDED:
                read.touched[table].add(_shard(row_id))
        self._write(conn, read)

    def delete(self, conn: Connection, table: str, where: Any) -> list[int]:
        """Delete the rows of ``table`` that ``where`` selects, and forget them."""
        t = schema.metadata.tables[table]
        ids = list(conn.scalars(select(t.c.id).where(where)))
        if ids:
            conn.execute(delete(t).where(where))  # (the same rows: one write transaction)
            self.forget(conn, table, ids)
        return ids

    @staticmethod
    def checked(root: Root, table: str, row_id: int, data: dict[str, Any]) -> dict[str, Any]:
        """``data`` without its version; DamagedVault when the root lists another."""
        version = data.pop(VERSION, 0)
        listed = root[table].get(row_id)
        if listed is None:
            raise DamagedVault(root.why_unlisted(table, row_id))
        if listed != version:
            raise DamagedVault(older_copy(table, row_id))
        return data

    def problems(self, conn: Connection) -> list[str]:
        """Every tracked row that is not at the version the root lists, and every listed
        row that is gone (for "Check vault"; rows that do not decrypt are its other check's)."""
        read = self._read(conn, TRACKED, None)
        root = read.root
        found: list[str] = list(read.problems)
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
