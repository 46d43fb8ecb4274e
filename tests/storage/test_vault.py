from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from storage import db
from storage.chats import ChatStore
from storage.crypto import BadPassphrase, DamagedVault, WrongPassphrase
from storage.vault import Vault, VaultExists, VaultMissing
from storage.vault_file import read_envelope
from tests.storage.conftest import FAST_KDF, PASSPHRASE, reopen


def test_create_and_open_with_the_default_argon2id_parameters(vault_path: Path) -> None:
    vault = Vault.create(vault_path, "a real passphrase")
    ChatStore(vault).create_chat("hello")
    vault.close()
    store = reopen(vault_path, "a real passphrase")
    assert [c.title for c in store.list_chats()] == ["hello"]
    store.close()


@pytest.mark.parametrize(
    "passphrase",
    ["pässwörd ünïcode ✓ 密码 🔑", "x" * 4096, " leading and trailing spaces "],
    ids=["non-ascii", "very-long", "spaces"],
)
def test_unusual_passphrases_work_exactly(vault_path: Path, passphrase: str) -> None:
    Vault.create(vault_path, passphrase, FAST_KDF).close()
    Vault.open(vault_path, passphrase).close()
    with pytest.raises(WrongPassphrase):
        Vault.open(vault_path, passphrase[:-1] + ("y" if passphrase[-1] != "y" else "z"))


def test_wrong_and_empty_passphrases(vault_path: Path) -> None:
    Vault.create(vault_path, PASSPHRASE, FAST_KDF).close()
    with pytest.raises(WrongPassphrase, match="Wrong passphrase"):
        Vault.open(vault_path, "not it")
    with pytest.raises(BadPassphrase, match="empty"):
        Vault.open(vault_path, "")
    with pytest.raises(BadPassphrase, match="longer than"):
        Vault.open(vault_path, "y" * 5000)
    with pytest.raises(BadPassphrase):
        Vault.create(vault_path.with_name("other.db"), "", FAST_KDF)
    Vault.open(vault_path, PASSPHRASE).close()  # still opens after the failures


def test_no_second_vault_over_an_existing_one_and_a_missing_one_says_so(vault_path: Path) -> None:
    with pytest.raises(VaultMissing):
        Vault.open(vault_path, PASSPHRASE)
    Vault.create(vault_path, PASSPHRASE, FAST_KDF).close()
    with pytest.raises(VaultExists):
        Vault.create(vault_path, PASSPHRASE, FAST_KDF)


def test_changing_the_passphrase_keeps_the_data(vault_path: Path) -> None:
    store = ChatStore(Vault.create(vault_path, "old one", FAST_KDF))
    chat = store.create_chat("kept")
    with pytest.raises(WrongPassphrase):
        store.vault.change_passphrase("not the old one", "new one")
    store.vault.change_passphrase("old one", "new one")
    store.close()
    with pytest.raises(WrongPassphrase):
        Vault.open(vault_path, "old one")
    store = reopen(vault_path, "new one")
    assert store.get_chat(chat.id).title == "kept"
    store.close()


@pytest.mark.parametrize("size", [0, 50, 4096 + 10])
def test_a_truncated_vault_is_reported_as_damaged_with_its_name(vault_path: Path, size: int) -> None:
    store = ChatStore(Vault.create(vault_path, PASSPHRASE, FAST_KDF))
    for i in range(200):
        store.add_message(store.create_chat(f"chat {i}").id, "user", "text " * 50)
    store.close()
    with open(vault_path, "r+b") as fh:
        fh.truncate(size)
    with pytest.raises(DamagedVault, match=str(vault_path)):
        Vault.open(vault_path, PASSPHRASE)


def test_a_file_that_is_not_a_vault_is_reported(vault_path: Path) -> None:
    vault_path.write_bytes(b"not a database at all" * 100)
    with pytest.raises(DamagedVault, match="not a database"):
        Vault.open(vault_path, PASSPHRASE)


def test_a_tampered_key_record_is_damage_not_a_wrong_passphrase(vault_path: Path) -> None:
    Vault.create(vault_path, PASSPHRASE, FAST_KDF).close()
    with sqlite3.connect(vault_path) as conn:
        conn.execute("UPDATE vault_meta SET value = replace(value, 'memory_kib', 'memory_kiB')")
    with pytest.raises(DamagedVault, match="key record"):
        Vault.open(vault_path, PASSPHRASE)


def test_backup_and_restore(vault_path: Path, tmp_path: Path) -> None:
    store = ChatStore(Vault.create(vault_path, PASSPHRASE, FAST_KDF))
    store.create_chat("before backup")
    backup = store.vault.backup_to(tmp_path / "backup.db")
    store.create_chat("after backup")
    store.close()
    with pytest.raises(WrongPassphrase):
        Vault.restore(backup, "wrong", vault_path)
    kept = Vault.restore(backup, PASSPHRASE, vault_path)
    assert kept is not None and kept.exists()
    store = reopen(vault_path)
    assert [c.title for c in store.list_chats()] == ["before backup"]
    store.close()


def test_a_damaged_backup_is_refused_and_the_vault_left_alone(vault_path: Path, tmp_path: Path) -> None:
    Vault.create(vault_path, PASSPHRASE, FAST_KDF).close()
    bad = tmp_path / "bad.db"
    bad.write_bytes(b"garbage")
    with pytest.raises(DamagedVault):
        Vault.restore(bad, PASSPHRASE, vault_path)
    Vault.open(vault_path, PASSPHRASE).close()


def test_automatic_backups_are_daily_and_rotated(vault_path: Path, tmp_path: Path) -> None:
    import os

    vault = Vault.create(vault_path, PASSPHRASE, FAST_KDF)
    folder = tmp_path / "backups"
    first = vault.auto_backup(folder)
    assert first is not None and first.exists()
    assert vault.auto_backup(folder) is None  # one a day
    content = first.read_bytes()
    for age in range(1, 5):
        for f in folder.glob("*.db"):
            os.utime(f, (f.stat().st_atime, f.stat().st_mtime - 2 * 86400))
        (folder / f"vault-2000010{age}-000000.db").write_bytes(content)
        assert vault.auto_backup(folder) is not None
    assert len(list(folder.glob("vault-*.db"))) == 3
    vault.close()


def test_a_new_vault_is_at_the_latest_schema_and_migrations_run_from_empty(tmp_path: Path) -> None:
    vault = Vault.create(tmp_path / "v.db", PASSPHRASE, FAST_KDF)
    assert db.current_revision(vault.engine) == db.head_revision()
    vault.close()
    engine = db.make_engine(tmp_path / "empty.db")
    assert db.current_revision(engine) is None
    db.migrate(engine)
    assert db.current_revision(engine) == db.head_revision()
    engine.dispose()


def test_the_database_is_wal_with_secure_delete(store: ChatStore) -> None:
    with store.vault.engine.connect() as conn:
        assert conn.exec_driver_sql("PRAGMA journal_mode").scalar() == "wal"
        assert conn.exec_driver_sql("PRAGMA secure_delete").scalar() == 1
        assert conn.exec_driver_sql("PRAGMA synchronous").scalar() == 2  # FULL


def _titles(path: Path) -> list[str]:
    store = reopen(path)
    try:
        return [c.title for c in store.list_chats()]
    finally:
        store.close()


def test_each_restore_keeps_its_own_dated_copy(vault_path: Path, tmp_path: Path) -> None:
    store = ChatStore(Vault.create(vault_path, PASSPHRASE, FAST_KDF))
    store.create_chat("in the backup")
    backup = store.vault.backup_to(tmp_path / "backup.db")
    store.create_chat("first")
    store.close()
    first = Vault.restore(backup, PASSPHRASE, vault_path)
    store = reopen(vault_path)
    store.create_chat("second")
    store.close()
    second = Vault.restore(backup, PASSPHRASE, vault_path)  # within the same second, likely
    assert first is not None and second is not None and first != second
    for kept in (first, second):
        assert kept.parent == vault_path.parent
        assert kept.name.startswith("vault.db.before-restore-")
    assert sorted(_titles(first)) == ["first", "in the backup"]
    assert sorted(_titles(second)) == ["in the backup", "second"]
    assert _titles(vault_path) == ["in the backup"]


def test_restores_in_the_same_second_get_distinct_names(
    vault_path: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    Vault.create(vault_path, PASSPHRASE, FAST_KDF).close()
    backup = tmp_path / "backup.db"
    backup.write_bytes(vault_path.read_bytes())
    monkeypatch.setattr("storage.files.time.strftime", lambda *_args: "20261201-093512")
    stray = vault_path.with_name("vault.db.before-restore-20261201-093512-2-wal")
    stray.write_bytes(b"")  # a name whose WAL file is taken is not used either
    names = [Vault.restore(backup, PASSPHRASE, vault_path) for _ in range(3)]
    assert [p.name for p in names if p] == [
        "vault.db.before-restore-20261201-093512",
        "vault.db.before-restore-20261201-093512-3",
        "vault.db.before-restore-20261201-093512-4",
    ]


def test_the_kept_copy_has_the_data_still_in_the_wal(vault_path: Path, tmp_path: Path) -> None:
    store = ChatStore(Vault.create(vault_path, PASSPHRASE, FAST_KDF))
    backup = store.vault.backup_to(tmp_path / "backup.db")
    # While another connection is open, closing ours does not fold the WAL into the file:
    # the state a vault is in when Hearth is killed or the machine loses power.
    holder = sqlite3.connect(vault_path)
    holder.execute("SELECT count(*) FROM vault_meta").fetchall()
    store.create_chat("only in the wal")
    crashed = tmp_path / "crashed" / "vault.db"
    crashed.parent.mkdir()
    for suffix in ("", "-wal", "-shm"):
        Path(f"{crashed}{suffix}").write_bytes(Path(f"{vault_path}{suffix}").read_bytes())
    holder.close()
    store.close()
    assert Path(f"{crashed}-wal").stat().st_size > 0

    kept = Vault.restore(backup, PASSPHRASE, crashed)
    assert kept is not None
    assert not Path(f"{crashed}-wal").exists() and not Path(f"{crashed}-shm").exists()
    assert _titles(kept) == ["only in the wal"]
    assert _titles(crashed) == []


def _fail_after_a_few_bytes(source: Path, target: Path) -> None:
    target.write_bytes(b"SQLite format 3\x00 and then the disk was full")
    raise OSError(28, "No space left on device")


def test_a_backup_that_fails_leaves_no_partial_file(
    vault_path: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = ChatStore(Vault.create(vault_path, PASSPHRASE, FAST_KDF))
    store.create_chat("precious")
    folder = tmp_path / "backups"
    monkeypatch.setattr("storage.files.sqlite_copy", _fail_after_a_few_bytes)
    with pytest.raises(OSError, match="No space left"):
        store.vault.backup_to(tmp_path / "backup.db")
    with pytest.raises(OSError, match="No space left"):
        store.vault.auto_backup(folder)
    store.close()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["backups", "vault.db"]
    assert list(folder.iterdir()) == []
    assert _titles(vault_path) == ["precious"]


def test_a_restore_whose_copy_fails_leaves_the_vault_alone(
    vault_path: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = ChatStore(Vault.create(vault_path, PASSPHRASE, FAST_KDF))
    backup = store.vault.backup_to(tmp_path / "backup.db")
    store.create_chat("precious")
    store.close()
    monkeypatch.setattr("storage.files.sqlite_copy", _fail_after_a_few_bytes)
    with pytest.raises(OSError, match="No space left"):
        Vault.restore(backup, PASSPHRASE, vault_path)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["backup.db", "vault.db"]
    assert _titles(vault_path) == ["precious"]


def test_a_backup_that_finishes_after_the_vault_closed_is_thrown_away(vault_path, monkeypatch, tmp_path) -> None:
    """Locking (or deleting everything) while an automatic backup copies: no copy survives."""
    import storage.files as files_module
    from storage.db import VaultClosed

    vault = Vault.create(vault_path, PASSPHRASE, FAST_KDF)
    original = files_module.sqlite_copy

    def copy_then_lock(source, target):
        original(source, target)
        vault.close()

    monkeypatch.setattr(files_module, "sqlite_copy", copy_then_lock)
    target = tmp_path / "backups" / "vault-1.db"
    target.parent.mkdir()
    with pytest.raises(VaultClosed):
        vault.backup_to(target)
    assert list(target.parent.iterdir()) == []


def test_a_passphrase_change_makes_a_new_data_key_that_an_old_copy_does_not_yield(
        vault_path: Path, tmp_path: Path) -> None:
    """The review's reproduction: a message written after the change must not decrypt with
    the key that an old automatic backup and the old passphrase give."""
    from storage import schema
    from storage.crypto import Envelope, FieldCipher, open_envelope

    backups = tmp_path / "backups"
    store = ChatStore(Vault.create(vault_path, "old passphrase", FAST_KDF))
    chat = store.create_chat("before")
    store.add_message(chat.id, "user", "written before the change")
    store.vault.auto_backup(backups)
    stolen = tmp_path / "stolen.db"  # a copy the user (or a thief) keeps elsewhere
    store.vault.backup_to(stolen)
    kept = vault_path.with_name(vault_path.name + ".before-restore-20260101-000000")
    store.vault.backup_to(kept)

    changed = store.vault.change_passphrase("old passphrase", "new passphrase", backups=backups)
    after = store.add_message(chat.id, "user", "written after the change")
    store.close()

    assert changed.erased_copies == 1 and changed.rekeyed_copies == 1
    assert changed.backup is not None and list(backups.glob("vault-*.db")) == [changed.backup]
    # The copy a restore kept may hold what the restore replaced: re-encrypted, not erased.
    with pytest.raises(WrongPassphrase):
        Vault.open(kept, "old passphrase")
    Vault.open(kept, "new passphrase").close()
    with pytest.raises(WrongPassphrase):
        Vault.open(changed.backup, "old passphrase")
    # The copy kept elsewhere still opens with the old passphrase; its key opens nothing new.
    old = Vault.open(stolen, "old passphrase")
    old_key = open_envelope("old passphrase", read_envelope(old.engine, stolen))
    vault_id = old.cipher.vault_id
    old.close()
    with sqlite3.connect(vault_path) as conn:
        row = conn.execute("SELECT chat_id, position, payload FROM messages WHERE id = ?", (after.id,)).fetchone()
        envelope = Envelope.from_json(conn.execute("SELECT value FROM vault_meta WHERE key='envelope'").fetchone()[0])
    with pytest.raises(DamagedVault):
        FieldCipher(old_key, vault_id).decrypt(row[2], "messages", "payload", after.id, (row[0], row[1]))
    assert open_envelope("new passphrase", envelope) != old_key
    store = reopen(vault_path, "new passphrase")
    assert [m.content for m in store.messages(chat.id)] == ["written before the change", "written after the change"]
    assert store.verify() == []
    store.close()
    assert schema.SEALED  # every sealed column was re-encrypted (the verify above reads them all)


def test_a_passphrase_change_re_encrypts_documents_and_the_library_too(vault_path: Path) -> None:
    import numpy as np

    from storage.documents.chunking import Chunk
    from storage.documents.store import INDEXED, Document, DocumentStore
    from storage.library import ModelLibrary

    store = ChatStore(Vault.create(vault_path, "old passphrase", FAST_KDF))
    documents = DocumentStore(store.vault)
    collection = documents.create_collection("papers")
    document = documents.save_document(Document(0, collection.id, "/papers/a.md", INDEXED))
    documents.replace_chunks(document, [Chunk("owls hunt at night", 0, 1, None, 0, 18)],
                             np.ones((1, 4), np.float32), "model")
    library = ModelLibrary(store)
    library.add("tiny", "/models/tiny.gguf", "reference", "0" * 64, {})
    library.set_preference("default_model", 1)
    store.vault.change_passphrase("old passphrase", "new passphrase")
    store.close()
    store = reopen(vault_path, "new passphrase")
    documents = DocumentStore(store.vault)
    ((chunk, vector),) = list(documents.iter_chunks())
    assert chunk.text == "owls hunt at night" and chunk.path == "/papers/a.md" and vector.tolist() == [1.0] * 4
    assert [e.name for e in ModelLibrary(store).entries()] == ["tiny"]
    assert ModelLibrary(store).preferences() == {"default_model": 1}
    store.close()


def test_writes_from_another_thread_during_a_passphrase_change_are_not_lost(vault_path: Path) -> None:
    """A writer that seals a row while the new key commits must not leave a row nobody reads."""
    import threading

    store = ChatStore(Vault.create(vault_path, "old passphrase", FAST_KDF))
    chat = store.create_chat("busy")
    for i in range(400):
        store.add_message(chat.id, "user", f"before {i}")
    done = threading.Event()
    written: list[str] = []

    from storage.library import ModelLibrary

    library = ModelLibrary(store)

    def writer() -> None:
        i = 0
        while not done.is_set():
            store.add_message(chat.id, "assistant", f"during {i}")
            library.set_preference("counter", i)  # read, changed and sealed by another thread
            written.append(f"during {i}")
            i += 1

    thread = threading.Thread(target=writer)
    thread.start()
    try:
        store.vault.change_passphrase("old passphrase", "new passphrase")
        store.vault.change_passphrase("new passphrase", "third passphrase")
    finally:
        done.set()
        thread.join()
    store.close()
    store = reopen(vault_path, "third passphrase")
    assert store.verify() == []
    contents = [m.content for m in store.messages(chat.id)]
    assert contents[400:] == written and len(written) > 0
    from storage import checkup

    assert ModelLibrary(store).preferences() == {"counter": len(written) - 1}
    assert checkup.problems(store) == []
    store.close()


def test_the_vault_its_wal_and_its_backups_are_readable_by_their_owner_alone(tmp_path: Path) -> None:
    import os
    import stat

    if os.name != "posix":
        pytest.skip("file modes are POSIX; Windows keeps the profile private by its ACLs")
    old = os.umask(0)  # the most permissive umask: the modes must not come from it
    try:
        path = tmp_path / "vault.db"
        store = ChatStore(Vault.create(path, PASSPHRASE, FAST_KDF))
        store.add_message(store.create_chat("x").id, "user", "y")
        backup = store.vault.auto_backup(tmp_path / "backups")
        with store.vault.engine.connect() as conn:  # the -wal and -shm exist while one is open
            conn.exec_driver_sql("SELECT count(*) FROM messages").all()
            files = [path, Path(f"{path}-wal"), Path(f"{path}-shm"), backup]
            assert {f.name: stat.S_IMODE(f.stat().st_mode) for f in files} == {f.name: 0o600 for f in files}
        store.close()
    finally:
        os.umask(old)


def test_a_lock_during_a_passphrase_change_rolls_it_back_and_the_old_passphrase_opens_all(
        vault_path: Path, tmp_path: Path, monkeypatch) -> None:
    """The review's scenario: locked (auto-lock, quit) while re-encrypting, then unlocked
    with the old passphrase: nothing may commit after the close, no backup is erased."""
    import threading
    import time

    import storage.vault as vault_module

    backups = tmp_path / "backups"
    store = ChatStore(Vault.create(vault_path, "old passphrase", FAST_KDF))
    chat = store.create_chat("busy")
    for i in range(300):
        store.add_message(chat.id, "user", f"message {i}")
    store.vault.auto_backup(backups)
    monkeypatch.setattr("storage.reseal.PAGE", 10)
    started = threading.Event()
    real = vault_module.reseal

    def slow(conn, old, new, stop):
        def slowly() -> None:
            started.set()
            time.sleep(0.01)
            stop()
        return real(conn, old, new, slowly)

    monkeypatch.setattr(vault_module, "reseal", slow)
    outcome: list[BaseException] = []

    def change() -> None:
        try:
            store.vault.change_passphrase("old passphrase", "new passphrase", backups=backups)
        except BaseException as exc:
            outcome.append(exc)

    thread = threading.Thread(target=change)
    thread.start()
    assert started.wait(10)
    store.close()  # the lock: waits for the page under way, which then rolls back
    thread.join(30)
    assert len(outcome) == 1 and isinstance(outcome[0], db.VaultClosed)
    again = reopen(vault_path, "old passphrase")
    assert again.verify() == [] and len(again.messages(chat.id)) == 300
    again.close()
    with pytest.raises(WrongPassphrase):
        Vault.open(vault_path, "new passphrase")
    assert len(list(backups.glob("vault-*.db"))) == 1  # the backup is still there


def test_a_kept_copy_that_fails_does_not_turn_a_done_change_into_a_reported_failure(
        vault_path: Path, tmp_path: Path, monkeypatch) -> None:
    """The vault's own change has committed; a copy that cannot be re-encrypted (a full
    disk, say) is counted and named, and the change is reported as done."""
    store = ChatStore(Vault.create(vault_path, "old passphrase", FAST_KDF))
    store.create_chat("kept")
    kept = vault_path.with_name(vault_path.name + ".before-restore-20260101-000000")
    store.vault.backup_to(kept)
    real_open = Vault.open

    def open_but_fail_on_the_copy(path, passphrase):
        vault = real_open(path, passphrase)
        if Path(path) == kept:
            def full(*_args, **_kwargs):
                raise OSError(28, "No space left on device")
            vault.change_passphrase = full
        return vault

    monkeypatch.setattr(Vault, "open", staticmethod(open_but_fail_on_the_copy))
    changed = store.vault.change_passphrase("old passphrase", "new passphrase", backups=tmp_path / "b")
    store.close()
    assert changed.failed_copies == 1 and changed.rekeyed_copies == 0
    monkeypatch.undo()
    Vault.open(vault_path, "new passphrase").close()  # the change itself is done
    Vault.open(kept, "old passphrase").close()  # and the copy says so: still the old one


def test_a_passphrase_change_crypto_erases_every_older_backup_none_is_merely_unlinked(
        vault_path: Path, tmp_path: Path, monkeypatch) -> None:
    """With three backups, rotation used to unlink the oldest: its key record survived in
    freed blocks, and it opens with the old passphrase."""
    import os

    import storage.backups as backups_module

    backups = tmp_path / "backups"
    store = ChatStore(Vault.create(vault_path, "old passphrase", FAST_KDF))
    backups.mkdir()
    for day in (1, 2, 3):
        store.vault.backup_to(backups / f"vault-2026010{day}-000000.db")
    erased: list[str] = []
    real = backups_module.crypto_erase
    monkeypatch.setattr(backups_module, "crypto_erase", lambda path: (erased.append(path.name), real(path)))
    unlinked_only: list[str] = []
    real_unlink = Path.unlink

    def unlink(self, missing_ok=False):
        if self.name.startswith("vault-") and self.name.endswith(".db") and self.name not in erased:
            unlinked_only.append(self.name)
        return real_unlink(self, missing_ok=missing_ok)

    monkeypatch.setattr(Path, "unlink", unlink)
    changed = store.vault.change_passphrase("old passphrase", "new passphrase", backups=backups)
    store.close()
    assert changed.erased_copies == 3 and unlinked_only == []
    assert [p.name for p in backups.glob("vault-*.db")] == [changed.backup.name]
    assert os.path.exists(changed.backup)


def test_restoring_a_missing_or_damaged_backup_names_the_users_file(vault_path: Path, tmp_path: Path) -> None:
    Vault.create(vault_path, PASSPHRASE, FAST_KDF).close()
    missing = tmp_path / "nowhere" / "backup.db"
    with pytest.raises(VaultMissing):
        Vault.restore(missing, PASSPHRASE, vault_path)
    assert not missing.exists()  # nothing was created in its place
    broken = tmp_path / "broken.db"
    broken.write_bytes(b"SQLite format 3\x00" + b"\x07" * 8000)
    with pytest.raises(DamagedVault) as caught:
        Vault.restore(broken, PASSPHRASE, vault_path)
    assert str(broken) in str(caught.value) and ".restoring" not in str(caught.value)


def test_a_backup_started_before_a_passphrase_change_cannot_outlive_it(
        vault_path: Path, tmp_path: Path, monkeypatch) -> None:
    """Issue #38, item 9: an automatic backup copied under the old key, landing after the
    change had erased the old backups, survived it; the old passphrase opened it. Backups
    and passphrase changes now take turns, so whatever order they meet in, every backup
    left opens with the new passphrase only."""
    import threading

    from storage import backups as backups_module

    backups = tmp_path / "backups"
    store = ChatStore(Vault.create(vault_path, "old passphrase", FAST_KDF))
    store.add_message(store.create_chat("c").id, "user", "before the change")
    copying, release = threading.Event(), threading.Event()
    real_copy = backups_module.copy_or_clean_up

    def slow_copy(source, target):
        snapshot = tmp_path / "snapshot.db"
        real_copy(source, snapshot)  # the old key's copy is read now...
        copying.set()
        release.wait(30)  # ...and written out only when the test says
        snapshot.replace(target)

    monkeypatch.setattr(backups_module, "copy_or_clean_up", slow_copy)
    backup = threading.Thread(target=store.vault.auto_backup, args=(backups, True))
    backup.start()
    assert copying.wait(30)
    monkeypatch.setattr(backups_module, "copy_or_clean_up", real_copy)  # the change's own copy is quick
    changed = threading.Event()
    change = threading.Thread(target=lambda: (store.vault.change_passphrase(
        "old passphrase", "new passphrase", backups=backups), changed.set()))
    change.start()
    changed.wait(2)  # unguarded, the change would finish here, before the backup lands
    release.set()
    backup.join(30)
    change.join(60)
    assert changed.is_set()
    left = sorted(backups.glob("vault-*.db"))
    assert left
    for copy in left:
        with pytest.raises(WrongPassphrase):
            Vault.open(copy, "old passphrase")
        Vault.open(copy, "new passphrase").close()
    store.close()


def _window_and_command(vault_path: Path) -> tuple[Vault, Vault, ChatStore, int]:
    """Two handles on one vault, as the window and a terminal command hold it; a chat with
    one message written through the command's: its store and the chat's id."""
    Vault.create(vault_path, PASSPHRASE, FAST_KDF).close()
    window, command = Vault.open(vault_path, PASSPHRASE), Vault.open(vault_path, PASSPHRASE)
    chats = ChatStore(command)
    chat = chats.create_chat("Before the change")
    chats.add_message(chat.id, "user", "written before")
    return window, command, chats, chat.id


def test_a_write_after_another_hearth_changed_the_passphrase_is_refused_and_nothing_is_lost(
        vault_path: Path) -> None:
    """A terminal command keeps the vault open while the window changes its passphrase
    (two handles on one file, as two processes hold it). The change re-encrypts every row
    with a new key; what the command wrote afterwards went in under the old key, which
    nothing opens any more: rows lost for good (an import's passages, a chat's messages).
    Its write is now rolled back with a message in the user's words."""
    from storage.errors import KeyChangedElsewhere, trouble

    window, command, chats, chat_id = _window_and_command(vault_path)
    try:
        window.change_passphrase(PASSPHRASE, "a brand new passphrase", FAST_KDF)
        with pytest.raises(KeyChangedElsewhere) as refused:
            chats.create_chat("Written after the change")
        said = trouble(refused.value).message("Your message was not saved.")
        assert "passphrase was changed elsewhere" in said and "new passphrase" in said
        with pytest.raises(KeyChangedElsewhere):  # nor a passphrase change with the old key
            command.change_passphrase(PASSPHRASE, "yet another passphrase", FAST_KDF)
    finally:
        command.close()
        window.close()
    reopened = Vault.open(vault_path, "a brand new passphrase")
    try:
        store = ChatStore(reopened)
        assert [c.title for c in store.list_chats()] == ["Before the change"]
        assert not any(c.damaged for c in store.list_chats())  # every row opens
        assert [m.content for m in store.messages(chat_id)] == ["written before"]
    finally:
        reopened.close()


def test_reads_after_another_hearth_changed_the_passphrase_say_so_and_not_that_all_is_damaged(
        vault_path: Path) -> None:
    """After the window's passphrase change, a command still open with the old key (a
    check of the vault, a question: those run beside the window) found no key for any row.
    It called every chat damaged: a chat's message "could not be changed, the chat is
    damaged", the check reported every row as damage. Each row is sound; what happened is
    the passphrase change, and that is what is said now."""
    from storage import checkup
    from storage.errors import REKEYED, KeyChangedElsewhere, trouble

    window, command, chats, chat_id = _window_and_command(vault_path)
    try:
        assert checkup.problems(chats) == []
        window.change_passphrase(PASSPHRASE, "a brand new passphrase", FAST_KDF)
        fresh = ChatStore(command)  # no row kept from before
        for read in (fresh.list_chats, lambda: fresh.messages(chat_id),
                     lambda: checkup.problems(fresh),
                     lambda: chats.add_message(chat_id, "user", "written after")):
            with pytest.raises(KeyChangedElsewhere) as refused:
                read()
            assert trouble(refused.value).kind == REKEYED
        assert fresh.damaged_places == [] and chats.damaged_places == []
        # Damage is still damage where the key did not change: the window's own handle.
        with window.transaction() as conn:
            conn.exec_driver_sql("UPDATE messages SET payload = X'00'")
        assert [m.status for m in ChatStore(window).messages(chat_id)] == ["damaged"]
    finally:
        command.close()
        window.close()
