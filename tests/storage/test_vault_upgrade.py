"""Opening a vault of another Hearth (#43): one from an older Hearth upgrades in place with a
copy of it as it was kept first in its backups folder (a full disk stops the upgrade, the
vault unchanged); one from a newer Hearth (a newer key-record format, or a schema this one
has no migration for) is refused in words and left exactly as it is, byte for byte."""

from __future__ import annotations

import hashlib
import json
import sqlite3
from pathlib import Path

import pytest

from storage import db
from storage.chats import ChatStore
from storage.crypto import NewerVault
from storage.vault import Vault
from tests.storage.conftest import FAST_KDF, PASSPHRASE


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def vault_with_a_chat(path: Path) -> Path:
    store = ChatStore(Vault.create(path, PASSPHRASE, FAST_KDF))
    store.add_message(store.create_chat("kept").id, "user", "the words of an older Hearth")
    store.close()
    return path


def edit(path: Path, statement: str, *values: object) -> None:
    """Change the file as another Hearth would have written it (SQLite, outside the vault)."""
    conn = sqlite3.connect(path)
    conn.execute(statement, values)
    conn.commit()
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()


@pytest.mark.parametrize("newer", ["format", "schema"])
def test_a_vault_from_a_newer_hearth_is_refused_and_left_as_it_is(tmp_path: Path, newer: str) -> None:
    path = vault_with_a_chat(tmp_path / "vault.db")
    if newer == "format":
        conn = sqlite3.connect(path)
        outer = json.loads(conn.execute("SELECT value FROM vault_meta WHERE key = 'envelope'").fetchone()[0])
        conn.close()
        body = json.dumps({**json.loads(outer["envelope"]), "format": 3}, sort_keys=True)  # as a newer one writes it
        record = json.dumps({"envelope": body, "sha256": hashlib.sha256(body.encode()).hexdigest()})
        edit(path, "UPDATE vault_meta SET value = ? WHERE key = 'envelope'", record)
    else:
        edit(path, "UPDATE alembic_version SET version_num = '0009_future'")
    before = digest(path)
    with pytest.raises(NewerVault, match="written by a newer version of Hearth") as refused:
        Vault.open_live(path, PASSPHRASE)
    assert ("format 3" if newer == "format" else "schema 0009_future") in str(refused.value)
    assert digest(path) == before and not (tmp_path / "backups").exists()


def test_an_older_schema_upgrades_in_place_after_a_copy_of_it_is_kept(tmp_path: Path) -> None:
    from alembic import command

    path = vault_with_a_chat(tmp_path / "vault.db")
    engine = db.make_engine(path)
    with engine.begin() as conn:  # back to the second schema, as an older Hearth left it
        command.downgrade(db.alembic_config(conn), "0002_models")
    engine.dispose()
    store = ChatStore(Vault.open_live(path, PASSPHRASE))
    assert db.current_revision(store.vault.engine) == db.HEAD
    assert [m.content for m in store.messages(store.list_chats()[0].id)] == ["the words of an older Hearth"]
    store.close()
    (copy,) = (tmp_path / "backups").glob("vault-*-before-upgrade-0002_models.db")
    conn = sqlite3.connect(copy)
    assert conn.execute("SELECT version_num FROM alembic_version").fetchone()[0] == "0002_models"  # as it was
    conn.close()
    assert copy.stat().st_mode & 0o077 == 0
    old = ChatStore(Vault.open(copy, PASSPHRASE))  # the copy opens with the same passphrase
    assert [m.content for m in old.messages(old.list_chats()[0].id)] == ["the words of an older Hearth"]
    old.close()
    reopened = ChatStore(Vault.open_live(path, PASSPHRASE))  # at the head now: no second copy
    reopened.close()
    assert len(list((tmp_path / "backups").glob("*before-upgrade*"))) == 1


def test_a_full_disk_stops_the_upgrade_before_it_changes_anything(tmp_path: Path, make_small_disk) -> None:
    import os

    from alembic import command

    from storage.errors import trouble

    disk = make_small_disk(4)
    path = disk.path / "vault.db"
    store = ChatStore(Vault.create(path, PASSPHRASE, FAST_KDF))
    store.add_message(store.create_chat("large").id, "user", "a long letter " * 40_000)  # a vault of ~600 KB
    store.close()
    engine = db.make_engine(path)
    with engine.begin() as conn:
        command.downgrade(db.alembic_config(conn), "0002_models")
    engine.dispose()
    before = digest(path)
    disk.fill()
    filler = disk.path / ".filler"
    os.truncate(filler, filler.stat().st_size - 160 * 1024)  # room for SQLite's own files, not for a copy
    with pytest.raises(Exception) as stopped:  # noqa: PT011 - what matters is what it is said to be
        Vault.open_live(path, PASSPHRASE)
    found = trouble(stopped.value)
    assert found is not None and found.kind == "full", stopped.value
    assert digest(path) == before and db.current_revision(db.make_engine(path)) == "0002_models"
    assert not [p for p in (disk.path / "backups").glob("*") if p.stat().st_size]


def test_a_format_1_vault_at_an_older_schema_gets_one_copy_as_it_was(tmp_path: Path) -> None:
    import shutil

    from alembic import command

    from storage.crypto import LEGACY_FORMAT, Envelope

    path = tmp_path / "vault.db"
    shutil.copyfile(Path(__file__).resolve().parents[1] / "fixtures" / "vaults" / "format1-8562a25.db", path)
    engine = db.make_engine(path)
    with engine.begin() as conn:
        command.downgrade(db.alembic_config(conn), "0002_models")
    engine.dispose()
    ChatStore(Vault.open_live(path, "fixture vault of an older Hearth")).close()
    (copy,) = (tmp_path / "backups").glob("*before-upgrade*")
    assert copy.name.endswith("-before-upgrade-0002_models-format-1.db")
    conn = sqlite3.connect(copy)
    revision = conn.execute("SELECT version_num FROM alembic_version").fetchone()[0]
    record = conn.execute("SELECT value FROM vault_meta WHERE key = 'envelope'").fetchone()[0]
    conn.close()
    assert revision == "0002_models" and Envelope.from_json(record).format == LEGACY_FORMAT  # both, as they were


def test_every_migration_file_is_named_by_its_revision() -> None:
    """``known_revisions`` reads the files' names: a vault is refused as newer by them."""
    import re

    for migration in (db.MIGRATIONS / "versions").glob("[0-9]*.py"):
        found = re.search(r'^revision = "([^"]+)"', migration.read_text(), re.M)
        assert found and found.group(1) == migration.stem, migration.name
