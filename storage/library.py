"""The model library in the vault: which models the user has, their facts and settings.

Every entry is one encrypted payload (the model's name and path are private: they say
what the user works on). Copied models live in the models folder under their sha256,
so not even the file names there tell which models they are.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field, replace
from typing import Any

from sqlalchemy import insert, select, update

from storage import schema
from storage.chats import ChatStore
from storage.crypto import DamagedVault
from storage.db import inserted_id, snapshot
from storage.versions import ROOT_ROW, Root, RowVersions

COPY, REFERENCE, BUNDLED = "copy", "reference", "bundled"
PREFERENCES_ROW = 1
assert PREFERENCES_ROW != ROOT_ROW


@dataclass(frozen=True)
class LibraryEntry:
    id: int
    name: str
    path: str
    stored: str  # COPY | REFERENCE | BUNDLED
    sha256: str
    info: dict[str, Any]
    settings: dict[str, Any] = field(default_factory=dict)
    probe: dict[str, Any] = field(default_factory=dict)  # {"ok", "reason", "key", "memory"}
    added_at: float = 0.0

    def payload(self) -> dict[str, Any]:
        return {"name": self.name, "path": self.path, "stored": self.stored, "sha256": self.sha256,
                "info": self.info, "settings": self.settings, "probe": self.probe,
                "added_at": self.added_at}

    @property
    def usable(self) -> bool:
        return bool(self.probe.get("ok"))


class ModelLibrary:
    def __init__(self, store: ChatStore) -> None:
        self._store = store
        self._engine = store.vault.engine
        self._versions = RowVersions(store.vault.cipher)  # a row put back from a backup reads as damaged

    def _checked(self, root: Root, table: str, row_id: int, blob: bytes) -> dict[str, Any] | None:
        """The row's payload, or None (its place noted) when it does not decrypt or is not
        the version the vault's root record lists."""
        data = self._store.payloads.unseal(table, row_id, blob)
        if data is None:
            return None
        try:
            return self._versions.checked(root, table, row_id, data)
        except DamagedVault as exc:
            if str(exc) not in self._store.damaged_places:
                self._store.damaged_places.append(str(exc))
            return None

    def entries(self) -> list[LibraryEntry]:
        with snapshot(self._engine) as conn:
            rows = conn.execute(select(schema.models.c.id, schema.models.c.payload)).all()
            root = self._versions.load(conn, ("models",))
        found = []
        for row_id, blob in rows:
            data = self._checked(root, "models", row_id, blob)
            if data is not None:
                found.append(LibraryEntry(row_id, **data))
        return sorted(found, key=lambda e: (e.stored != BUNDLED, e.name.casefold()))

    def get(self, entry_id: int) -> LibraryEntry | None:
        return next((e for e in self.entries() if e.id == entry_id), None)

    def find_sha256(self, sha256: str) -> LibraryEntry | None:
        return next((e for e in self.entries() if e.sha256 == sha256), None)

    def add(self, name: str, path: str, stored: str, sha256: str, info: dict[str, Any],
            settings: dict[str, Any] | None = None) -> LibraryEntry:
        entry = LibraryEntry(0, name, path, stored, sha256, info, settings or {}, {}, time.time())
        with self._store.vault.transaction() as conn:
            row_id = inserted_id(conn.execute(insert(schema.models).values(payload=b"")))
            conn.execute(update(schema.models).where(schema.models.c.id == row_id)
                         .values(payload=self._versions.seal(conn, "models", row_id, entry.payload())))
        return replace(entry, id=row_id)

    def save(self, entry: LibraryEntry) -> None:
        with self._store.vault.transaction() as conn:
            conn.execute(update(schema.models).where(schema.models.c.id == entry.id)
                         .values(payload=self._versions.seal(conn, "models", entry.id, entry.payload())))

    def remove(self, entry_id: int) -> None:
        with self._store.vault.transaction() as conn:
            self._versions.delete(conn, "models", schema.models.c.id == entry_id)
        if self.preferences().get("default_model") == entry_id:
            self.set_preference("default_model", None)

    # Preferences ------------------------------------------------------------------
    def preferences(self) -> dict[str, Any]:
        with snapshot(self._engine) as conn:
            return self._preferences_in(conn)

    def _preferences_in(self, conn: Any) -> dict[str, Any]:
        blob = conn.scalar(select(schema.preferences.c.payload)
                           .where(schema.preferences.c.id == PREFERENCES_ROW))
        if blob is None:
            return {}
        return self._checked(self._versions.load(conn, ("preferences",)), "preferences", PREFERENCES_ROW,
                             blob) or {}

    def set_preference(self, key: str, value: Any) -> None:
        """Read, change and seal inside one write transaction: sealed outside it, a blob
        could carry a key that a passphrase change replaced meanwhile."""
        with self._store.vault.transaction() as conn:
            blob = conn.scalar(select(schema.preferences.c.payload)
                               .where(schema.preferences.c.id == PREFERENCES_ROW))
            prefs = self._preferences_in(conn)
            prefs[key] = value
            if blob is None:  # the row first: the root lists only rows that are there
                conn.execute(insert(schema.preferences).values(id=PREFERENCES_ROW, payload=b""))
            sealed = self._versions.seal(conn, "preferences", PREFERENCES_ROW, prefs)
            conn.execute(update(schema.preferences)
                         .where(schema.preferences.c.id == PREFERENCES_ROW).values(payload=sealed))
