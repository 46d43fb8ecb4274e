"""Deleting everything: crypto-erase first, then remove the files.

Deleted files can survive on disk (SSD wear levelling, journaling file systems), so
before anything is unlinked, the key record of the vault and of every backup is
overwritten with random bytes. Without it the data key cannot be recovered, even from
blocks the file system left behind. The copies a crash left half-done (a restore's staged
copy, a vault being created, a partial backup) are whole vaults as far as their key record
goes: they are crypto-erased the same way, here and at each unlock (``erase_leftovers``).
"""

from __future__ import annotations

import logging
import os
import sqlite3
from pathlib import Path

from storage.errors import why_not
from storage.files import LEFTOVER_SUFFIXES, WRITING_LOCK, being_written, remove_with_sidecars
from storage.instance_lock import SOCKET_FILE

log = logging.getLogger(__name__)


def crypto_erase(database: Path) -> None:
    """Overwrite a vault file's key record with random bytes, in place, and checkpoint."""
    if not database.is_file():
        return
    try:
        conn = sqlite3.connect(database)
        try:
            conn.execute("PRAGMA secure_delete=ON")
            # A rollback journal on disk would hold a copy of the page being overwritten
            # (the key record) until it is unlinked, and unlinked blocks survive.
            conn.execute("PRAGMA journal_mode=MEMORY")
            conn.execute("UPDATE vault_meta SET value = ?", (os.urandom(512).hex(),))
            conn.commit()
            conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        finally:
            conn.close()
    except sqlite3.DatabaseError:
        log.warning("crypto-erase could not open %s; deleting it anyway", database.name)


def leftovers(vault: Path, backups: Path | None) -> list[Path]:
    """The copies of the vault that an operation stopped by a crash may have left: beside
    the vault file, and in ``backups`` (their -wal and -shm files aside)."""
    found = [vault.with_name(vault.name + suffix) for suffix in LEFTOVER_SUFFIXES]
    if backups is not None and backups.is_dir():
        found += sorted(backups.glob("vault-*.db.partial"))
    return found


def erase_leftovers(vault: Path, backups: Path | None) -> int:
    """Crypto-erase and delete the ``leftovers`` of the vault at ``vault``; returns how many
    could not be deleted.

    A restore staged under the old passphrase, or a backup cut short, holds the vault's
    data key under a passphrase the user may since have changed, and nothing else ever
    deletes it. One that an operation of this process is still writing (a restore started
    from the lock screen, a backup that outlived the session it copies) is left to it: it
    removes its own file or puts it in place. Another process's are not told apart here:
    the caller is the one Hearth that holds the data folder (``storage.instance_lock``)."""
    failed = 0
    with WRITING_LOCK:
        for leftover in leftovers(vault, backups):
            if being_written(leftover):
                continue
            try:
                crypto_erase(leftover)  # the key record first: unlinked blocks survive
                remove_with_sidecars(leftover)
            except OSError:
                log.warning("a copy left by an interrupted operation could not be erased",
                            exc_info=True)
                failed += 1
    return failed


def erase_everything(folder: Path, keep: set[str]) -> list[str]:
    """Crypto-erase every vault file under ``folder``, then delete all but ``keep`` names
    (bundled model files). Returns what could not be deleted.

    The leftovers of interrupted operations are erased too, even one still being written
    (the vault is closed by now, and a backup that finds it closed throws its copy away)."""
    kept_copies = sorted(p for p in folder.glob("vault.db.before-restore*")
                         if not p.name.endswith(("-wal", "-shm", "-journal")))
    vault, backups = folder / "vault.db", folder / "backups"
    for database in [vault, *kept_copies, *sorted(backups.glob("*.db")), *leftovers(vault, backups)]:
        crypto_erase(database)
    problems = []
    for path in sorted(folder.rglob("*"), key=lambda p: len(p.parts), reverse=True):
        if path.name in keep or path.name in ("hearth.lock", SOCKET_FILE):  # the running instance's
            continue
        try:
            if path.is_dir() and not path.is_symlink():
                if not any(path.iterdir()):
                    path.rmdir()
            else:
                path.unlink()
        except OSError as exc:
            if not isinstance(exc, FileNotFoundError):  # gone already: nothing left to delete
                problems.append(f"{path}: {why_not(exc, deleting=True)}")
    return problems
