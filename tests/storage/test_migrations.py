"""Every schema version upgrades to the latest one with its data intact."""

from __future__ import annotations

from pathlib import Path

import pytest
from alembic.config import Config
from alembic.script import ScriptDirectory

from storage import db
from storage.chats import ChatStore
from storage.vault import Vault
from tests.storage.conftest import FAST_KDF, PASSPHRASE


def revisions() -> list[str | None]:
    config = Config()
    config.set_main_option("script_location", str(db.MIGRATIONS))
    script = ScriptDirectory.from_config(config)
    ordered = [rev.revision for rev in script.walk_revisions()]
    return [None, *reversed(ordered)]  # None: an empty file from before any vault


@pytest.mark.parametrize("start", revisions()[:-1] or [None])
def test_upgrade_from_each_earlier_version_reaches_head(tmp_path: Path, start: str | None) -> None:
    engine = db.make_engine(tmp_path / "old.db")
    if start is not None:
        db.migrate(engine, start)
    assert db.current_revision(engine) == start
    db.migrate(engine)
    assert db.current_revision(engine) == db.head_revision()
    engine.dispose()


def test_a_vault_at_head_reopens_without_changes_and_keeps_data(tmp_path: Path) -> None:
    path = tmp_path / "v.db"
    store = ChatStore(Vault.create(path, PASSPHRASE, FAST_KDF))
    store.add_message(store.create_chat("kept").id, "user", "still here")
    store.close()
    store = ChatStore(Vault.open(path, PASSPHRASE))  # runs the migrations (none pending)
    assert [m.content for m in store.messages(store.list_chats()[0].id)] == ["still here"]
    assert db.current_revision(store.vault.engine) == db.head_revision()
    store.close()


def test_downgrade_and_upgrade_round_trip(tmp_path: Path) -> None:
    from alembic import command

    engine = db.make_engine(tmp_path / "r.db")
    db.migrate(engine)
    with engine.begin() as conn:
        command.downgrade(db.alembic_config(conn), "base")
    assert db.current_revision(engine) is None
    db.migrate(engine)
    assert db.current_revision(engine) == db.head_revision()
    engine.dispose()


def test_a_vault_from_version_0001_upgrades_with_its_chats(tmp_path: Path) -> None:
    from alembic import command

    from storage.library import ModelLibrary

    path = tmp_path / "old.db"
    store = ChatStore(Vault.create(path, PASSPHRASE, FAST_KDF))
    store.add_message(store.create_chat("from 0001").id, "user", "older text")
    store.close()
    engine = db.make_engine(path)  # the closed vault's own engine refuses connections
    with engine.begin() as conn:  # back to the first schema, as an older Hearth left it
        command.downgrade(db.alembic_config(conn), "0001_vault")
    engine.dispose()

    store = ChatStore(Vault.open(path, PASSPHRASE))
    assert db.current_revision(store.vault.engine) == db.head_revision()
    assert [m.content for m in store.messages(store.list_chats()[0].id)] == ["older text"]
    library = ModelLibrary(store)
    assert library.entries() == []
    library.add("m", "/x.gguf", "copy", "ab" * 32, {})
    assert [e.name for e in library.entries()] == ["m"]
    store.close()


def test_the_pinned_head_is_alembics_and_an_open_at_head_needs_no_alembic(tmp_path: Path) -> None:
    """A vault at the head opens without importing alembic (12 MB resident): the pinned
    revision must be the newest migration, or a vault would skip a migration it needs."""
    import subprocess
    import sys

    assert db.head_revision() == db.HEAD
    path = tmp_path / "vault.db"
    Vault.create(path, PASSPHRASE, FAST_KDF).close()
    script = ("import sys; from pathlib import Path; from storage.vault import Vault; "
              f"Vault.open(Path({str(path)!r}), {PASSPHRASE!r}).close(); "
              "print('alembic' in sys.modules)")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120,
                          cwd=Path(__file__).resolve().parents[2], check=True)
    assert done.stdout.strip() == "False"
