"""Deleting everything: crypto-erase first, then remove the files.

Deleted files can survive on disk (SSD wear levelling, journaling file systems), so
before anything is unlinked, the key record of the vault and of every backup is
overwritten with random bytes. Without it the data key cannot be recovered, even from
blocks the file system left behind.
"""

from __future__ import annotations

import logging
import os
import sqlite3
from pathlib import Path

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


def erase_everything(folder: Path, keep: set[str]) -> list[str]:
    """Crypto-erase every vault file under ``folder``, then delete all but ``keep`` names
    (bundled model files). Returns what could not be deleted."""
    kept_copies = sorted(p for p in folder.glob("vault.db.before-restore*")
                         if not p.name.endswith(("-wal", "-shm", "-journal")))
    for database in [folder / "vault.db", *kept_copies, *sorted((folder / "backups").glob("*.db"))]:
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
            problems.append(f"{path}: {exc.strerror}")
    return problems



