"""Automatic backups while the vault is damaged, and the copies a crash leaves behind."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
from functools import partial
from pathlib import Path

from storage.backups import restore
from storage.chats import DAMAGED, ChatStore
from storage.crypto import DamagedVault
from storage.erase import erase_everything
from storage.instance_lock import InstanceLock
from storage.vault import Vault
from tests.storage.conftest import FAST_KDF, PASSPHRASE, reopen


def _flip_a_bit_in_a_message(path: Path) -> None:
    """What bit rot or a bad sector does to one message's ciphertext."""
    conn = sqlite3.connect(path)
    try:
        row_id, blob = conn.execute("SELECT id, payload FROM messages ORDER BY id LIMIT 1").fetchone()
        changed = bytearray(blob)
        changed[40] ^= 1
        conn.execute("UPDATE messages SET payload = ? WHERE id = ?", (bytes(changed), row_id))
        conn.commit()
    finally:
        conn.close()


def test_backups_made_while_the_vault_is_damaged_do_not_push_out_the_clean_one(
        vault_path: Path, tmp_path: Path) -> None:
    """Each unlock copied the damaged vault and erased all but the newest three: after
    three unlocks the last clean backup, the one the user is told to restore, was gone."""
    folder = tmp_path / "backups"
    store = ChatStore(Vault.create(vault_path, PASSPHRASE, FAST_KDF))
    chat = store.create_chat("kept")
    store.add_message(chat.id, "user", "IMPORTANT")
    clean = store.vault.auto_backup(folder)
    store.close()
    assert clean is not None
    _flip_a_bit_in_a_message(vault_path)
    for _day in range(8):
        store = reopen(vault_path)
        assert [m.status for m in store.messages(chat.id)] == [DAMAGED]
        made = store.vault.auto_backup(folder, force=True, damaged=partial(bool, store.damaged_places))
        store.close()
        assert made is not None and made.exists()  # a copy is still made each time
    # The oldest three kept, the newest three too: a damage that stays does not grow the
    # folder by a copy a day (a review: it did, without bound).
    assert clean.exists() and len(list(folder.glob("vault-*.db"))) == 6
    kept = reopen(clean)
    assert [m.content for m in kept.messages(chat.id)] == ["IMPORTANT"] and not kept.damaged_places
    kept.close()


def test_without_known_damage_backups_are_rotated_as_before(vault_path: Path, tmp_path: Path) -> None:
    folder = tmp_path / "backups"
    vault = Vault.create(vault_path, PASSPHRASE, FAST_KDF)
    folder.mkdir()
    older = [vault.backup_to(folder / f"vault-2000010{day}-000000.db") for day in (1, 2, 3)]
    made = vault.auto_backup(folder, force=True, damaged=lambda: False)
    vault.close()
    assert sorted(folder.glob("vault-*.db")) == [*older[1:], made]


def _crash_leftovers(folder: Path, links: Path) -> list[Path]:
    """Whole copies of the vault under the names an interrupted restore, create and backup
    leave, each also hard-linked into ``links`` to see its blocks once it is unlinked."""
    vault = Vault.open(folder / "vault.db", PASSPHRASE)
    (folder / "backups").mkdir(exist_ok=True)
    links.mkdir()
    names = ["vault.db.restoring", "vault.db.restored", "vault.db.creating",
             "backups/vault-20000101-000000.db.partial"]
    for name in names:
        vault.backup_to(folder / name)
        os.link(folder / name, links / Path(name).name)
    vault.close()
    return [folder / name for name in names]


def _make_vault(folder: Path) -> None:
    store = ChatStore(Vault.create(folder / "vault.db", PASSPHRASE, FAST_KDF))
    store.add_message(store.create_chat("secret").id, "user", "SECRET")
    store.close()


def _none_opens(links: Path) -> bool:
    for copy in links.iterdir():
        try:
            Vault.open(copy, PASSPHRASE).close()
        except DamagedVault:
            continue
        return False
    return True


def test_an_unlock_crypto_erases_what_an_interrupted_restore_create_or_backup_left(tmp_path: Path) -> None:
    """A restore killed midway left vault.db.restoring, a whole copy under the old
    passphrase, and nothing ever erased it."""
    folder = tmp_path / "data"
    _make_vault(folder)
    left = _crash_leftovers(folder, tmp_path / "links")
    lock = InstanceLock(folder)
    lock.acquire()
    try:
        Vault.open_live(folder / "vault.db", PASSPHRASE).close()
    finally:
        lock.release()
    assert not any(p.exists() for p in left) and _none_opens(tmp_path / "links")


def test_an_unlock_without_the_data_folders_lock_leaves_them_alone(tmp_path: Path) -> None:
    """A command that only reads opens the vault beside the window, whose restore or backup
    may be writing those very files."""
    folder = tmp_path / "data"
    _make_vault(folder)
    left = _crash_leftovers(folder, tmp_path / "links")
    Vault.open_live(folder / "vault.db", PASSPHRASE).close()
    assert all(p.exists() for p in left)


def test_a_restore_under_way_in_this_process_keeps_its_copy_through_an_unlock(tmp_path: Path) -> None:
    folder = tmp_path / "data"
    _make_vault(folder)
    backup = tmp_path / "backup.db"
    store = ChatStore(Vault.create(backup, PASSPHRASE, FAST_KDF))
    store.create_chat("from the backup")
    store.close()

    def unlock_meanwhile(staged: Path, passphrase: str) -> Vault:
        assert staged.exists()
        Vault.open_live(folder / "vault.db", PASSPHRASE).close()  # erases leftovers, not this
        return Vault.open(staged, passphrase)

    lock = InstanceLock(folder)
    lock.acquire()
    try:
        restore(backup, PASSPHRASE, folder / "vault.db", unlock_meanwhile)
    finally:
        lock.release()
    restored = reopen(folder / "vault.db")
    assert [chat.title for chat in restored.list_chats()] == ["from the backup"]
    restored.close()


def test_a_passphrase_change_crypto_erases_what_a_crash_left(tmp_path: Path) -> None:
    folder = tmp_path / "data"
    _make_vault(folder)
    left = _crash_leftovers(folder, tmp_path / "links")
    vault = Vault.open(folder / "vault.db", PASSPHRASE)
    changed = vault.change_passphrase(PASSPHRASE, "another long passphrase", backups=folder / "backups")
    vault.close()
    assert changed.failed_copies == 0
    assert not any(p.exists() for p in left) and _none_opens(tmp_path / "links")


def test_delete_everything_crypto_erases_what_a_crash_left(tmp_path: Path) -> None:
    folder = tmp_path / "data"
    _make_vault(folder)
    _crash_leftovers(folder, tmp_path / "links")
    assert erase_everything(folder, keep=set()) == []
    assert not any(folder.rglob("*")) and _none_opens(tmp_path / "links")


# A restore in its own process, killed at the rename that puts the checked copy in place.
_KILLED_AT_THE_LAST_RENAME = """
import os, signal, sys
from pathlib import Path
from storage.instance_lock import InstanceLock
from storage.vault import Vault

real_replace = os.replace
def replace(source, target):
    if Path(target).name == "vault.db":
        os.kill(os.getpid(), signal.SIGKILL)
    real_replace(source, target)
os.replace = replace
folder = Path(sys.argv[1])
InstanceLock(folder).acquire()
Vault.restore(Path(sys.argv[2]), sys.argv[3], folder / "vault.db")
"""


def test_a_restore_killed_between_its_renames_is_finished_at_the_next_start(tmp_path: Path) -> None:
    """The vault had been moved aside and the checked copy not yet put in its place: the
    next start found no vault, offered to create a new one, and erased the restored copy
    as a crash's leftover (a review of the vault's files)."""
    folder = tmp_path / "data"
    _make_vault(folder)
    backup = tmp_path / "backup.db"
    store = ChatStore(Vault.create(backup, PASSPHRASE, FAST_KDF))
    store.create_chat("from the backup")
    store.close()
    root = Path(__file__).resolve().parents[2]
    run = subprocess.run([sys.executable, "-c", _KILLED_AT_THE_LAST_RENAME, str(folder), str(backup),
                          PASSPHRASE], cwd=root, env={**os.environ, "PYTHONPATH": str(root)},
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == -signal.SIGKILL, run.stderr
    assert not (folder / "vault.db").exists()  # the moment the crash left

    assert not Vault.exists(folder / "vault.db")  # a command that only reads moves nothing
    lock = InstanceLock(folder)
    lock.acquire()
    try:
        assert Vault.exists(folder / "vault.db")
        Vault.open_live(folder / "vault.db", PASSPHRASE).close()  # erases leftovers: not it
    finally:
        lock.release()
    assert _titles(folder / "vault.db") == ["from the backup"]
    assert _titles(next(folder.glob("vault.db.before-restore-*"))) == ["secret"]
    assert sorted(p.name for p in folder.iterdir() if not p.name.startswith("vault.db.before-restore"))\
        == ["hearth.lock", "vault.db"]


def _titles(path: Path) -> list[str]:
    store = reopen(path)
    try:
        return [chat.title for chat in store.list_chats()]
    finally:
        store.close()
