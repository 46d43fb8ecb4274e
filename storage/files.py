"""The vault's files on disk: consistent copies, the -wal and -shm beside them, and the
copies a restore keeps. A copy that fails leaves nothing half-written behind; one that a
crash stops does (``LEFTOVER_SUFFIXES``), and is crypto-erased later
(``storage.erase.erase_leftovers``) unless an operation of this process is writing it.
"""

from __future__ import annotations

import os
import sqlite3
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from storage.paths import open_private

SIDECARS = ("-wal", "-shm")  # the files SQLite keeps beside a database in WAL mode
# What a copy of the vault is called while it is written: a restore's staged copy, a vault
# being created, a backup (``backups/vault-*.db.partial``).
# A restore's checked copy waits under READY while the vault is moved aside; a crash between
# the two renames is finished by ``finish_interrupted_restore`` (when no vault is there) or
# leaves a leftover like the others (when the vault was not moved yet).
READY = ".restored"
LEFTOVER_SUFFIXES = (".restoring", ".creating", READY)

_writing: set[Path] = set()  # the copies above that an operation of this process is writing
WRITING_LOCK = threading.Lock()  # held while one is added, and while leftovers are erased


@contextmanager
def writing(path: Path) -> Iterator[Path]:
    """Mark ``path`` as written by an operation of this process until the block ends, so
    that erasing leftovers leaves it alone. Entered before the file is made: erasing holds
    ``WRITING_LOCK``, so it either finds the mark or runs before the file exists."""
    key = Path(os.path.abspath(path))
    with WRITING_LOCK:
        _writing.add(key)
    try:
        yield path
    finally:
        with WRITING_LOCK:
            _writing.discard(key)


def being_written(path: Path) -> bool:
    """Whether an operation of this process is writing ``path`` (call under WRITING_LOCK)."""
    return Path(os.path.abspath(path)) in _writing


def sqlite_copy(source: Path, target: Path) -> None:
    """A consistent copy through SQLite's backup API, as one self-contained file (0600)."""
    target.unlink(missing_ok=True)
    new_private_file(target)
    src = sqlite3.connect(source)
    try:
        dest = sqlite3.connect(target)
        try:
            src.backup(dest)
            dest.execute("PRAGMA journal_mode=DELETE")
        finally:
            dest.close()
    finally:
        src.close()


def new_private_file(path: Path) -> None:
    """An empty file readable by its owner alone, for SQLite to fill: SQLite creates its
    files 0644 (less the umask), and gives the -wal and -shm files the main file's mode."""
    os.close(open_private(path))


def remove_with_sidecars(path: Path) -> None:
    """Delete a database file and the journal files SQLite may have left beside it."""
    for leftover in (path, *(Path(f"{path}{suffix}") for suffix in SIDECARS + ("-journal",))):
        leftover.unlink(missing_ok=True)


def copy_or_clean_up(source: Path, target: Path) -> None:
    """``sqlite_copy``, but a copy that fails (disk full, I/O error) leaves no half file.

    A half-written ``.partial`` or ``.restoring`` file is useless and, on a full disk, holds
    exactly the space the user needs back.
    """
    try:
        sqlite_copy(source, target)
    except BaseException:
        remove_with_sidecars(target)
        raise


def unused_kept_path(target: Path) -> Path:
    """A dated name for the vault a restore replaces, taken by no file (nor its WAL files).

    The date tells the user which copy is which; the counter keeps two restores in the same
    second from overwriting each other's copy.
    """
    base = f"{target.name}.before-restore-{time.strftime('%Y%m%d-%H%M%S')}"
    kept, n = target.with_name(base), 1
    while any(p.exists() for p in (kept, *(Path(f"{kept}{suffix}") for suffix in SIDECARS))):
        n += 1
        kept = target.with_name(f"{base}-{n}")
    return kept


def move_with_sidecars(source: Path, target: Path) -> None:
    """Rename a WAL database together with its ``-wal`` and ``-shm`` files.

    Committed transactions may still be only in the ``-wal`` file; renaming the main file
    alone would leave a copy without them.
    """
    os.replace(source, target)
    for suffix in SIDECARS:
        sidecar = Path(f"{source}{suffix}")
        if sidecar.exists():
            os.replace(sidecar, Path(f"{target}{suffix}"))


def put_in_place(ready: Path, target: Path) -> None:
    """A restore's checked copy moved into the vault's place (``move_with_sidecars``), once
    -wal or -shm files left there without their main file are gone: strays must not meet
    the restored database."""
    for suffix in SIDECARS:
        Path(f"{target}{suffix}").unlink(missing_ok=True)
    move_with_sidecars(ready, target)


def kept_copies(path: Path) -> list[Path]:
    """The copies a restore kept beside the vault (without their WAL files)."""
    return sorted(p for p in path.parent.glob(f"{path.name}.before-restore*")
                  if not p.name.endswith(("-wal", "-shm", "-journal")))


def finish_interrupted_restore(target: Path) -> bool:
    """Put a restore's checked copy in place if a crash stopped the restore after the vault
    was moved aside (kept as ``*.before-restore-*``) and before the copy took its place.

    Without it, the next start would find no vault and offer to create a new one, and the
    restored copy would be erased as a leftover. Called by the Hearth that holds the data
    folder only, before it asks whether a vault is there."""
    ready = target.with_name(target.name + READY)
    with WRITING_LOCK:
        if being_written(ready) or target.exists() or not ready.is_file():
            return False  # a restore of this process is between its renames: it finishes
        put_in_place(ready, target)
    return True
