"""The vault's copies: backups, automatic backups, restoring one, and retiring old ones.

A backup is a consistent SQLite copy of the vault file, still encrypted under the same
passphrase, written beside its target and renamed into place once complete. Automatic
backups get a new name each time (``vault-DATE-TIME.db``) and only the newest few are
kept; the older ones are crypto-erased, key record first, not merely unlinked (but none
while the vault is known to be damaged: ``auto_backup``). A restore
checks that the backup opens before it replaces the vault, and keeps the vault it
replaces beside it. After a passphrase change, the copies the old passphrase opens are
erased or re-encrypted (``retire_old_copies``), and so are the copies that a crash left
half-done (``storage.erase.erase_leftovers``). While a copy is written it is marked as this
process's (``storage.files.writing``), so that erasing leftovers leaves it alone.

``storage.vault.Vault`` drives these under its backup lock; they take the vault's file,
and where they must open a copy, the function that opens one, so that this module needs
no vault of its own.
"""

from __future__ import annotations

import contextlib
import logging
import os
import sqlite3
import time
from collections.abc import Callable
from pathlib import Path
from typing import Protocol

from i18n import translate
from storage import db
from storage.crypto import DamagedVault, WrongPassphrase
from storage.erase import crypto_erase, erase_leftovers
from storage.errors import not_damage
from storage.files import (
    READY,
    copy_or_clean_up,
    kept_copies,
    move_with_sidecars,
    put_in_place,
    remove_with_sidecars,
    unused_kept_path,
    writing,
)
from storage.vault_file import VaultMissing, damaged

log = logging.getLogger(__name__)

AUTO_BACKUP_EVERY = 24 * 3600
AUTO_BACKUPS_KEPT = 3


class Copy(Protocol):
    """A copy of the vault, opened: what restoring and retiring do with one."""

    def change_passphrase(self, old: str, new: str) -> object: ...

    def close(self) -> None: ...


def write_backup(source: Path, target: Path, closed: Callable[[], bool]) -> Path:
    """Copy the vault file ``source`` to ``target`` through ``target.partial``; ``closed``
    says whether the vault was closed meanwhile (then no backup is left)."""
    with writing(target.with_name(target.name + ".partial")) as partial:
        copy_or_clean_up(source, partial)
        if closed():
            # Locked (or everything deleted) while copying: a backup made now would outlive
            # the vault it copies, key record and all.
            remove_with_sidecars(partial)
            raise db.VaultClosed(translate("storage.vault",
                                           "The vault was closed while it was being backed up."))
        os.replace(partial, target)
    return target


def auto_backup(folder: Path, force: bool, backup_to: Callable[[Path], Path],
                damaged: Callable[[], bool] = lambda: False) -> Path | None:
    """A backup in ``folder`` if the newest there is a day old (or ``force``), and the
    older ones beyond ``AUTO_BACKUPS_KEPT`` crypto-erased. Called under the backup lock.

    ``damaged`` says whether the vault is known to be damaged (a field that did not
    decrypt in this unlock); it is asked once the copy is written, so that damage found
    while copying counts. While it is, the oldest AUTO_BACKUPS_KEPT are kept as well as
    the newest: the new copy holds the damage too, and rotating would push out the older
    backups, the ones written before the damage, which the user is told to restore from.
    Keeping the oldest is simpler than finding out which ones read cleanly (that means
    decrypting each of them); the copies between them go, so that a damage that stays
    does not grow the folder by a copy a day.
    """
    existing = sorted(folder.glob("vault-*.db"))
    if not force and existing and time.time() - existing[-1].stat().st_mtime < AUTO_BACKUP_EVERY:
        return None
    target = backup_to(unused_backup_name(folder))
    every = sorted(folder.glob("vault-*.db"))
    if damaged():
        log.warning("the vault is damaged: the oldest automatic backups are kept")
        going = every[AUTO_BACKUPS_KEPT:-AUTO_BACKUPS_KEPT]
    else:
        going = every[:-AUTO_BACKUPS_KEPT]
    for old in going:
        crypto_erase(old)  # deleted blocks survive: the key record goes first
        remove_with_sidecars(old)
    return target


def unused_backup_name(folder: Path) -> Path:
    """``vault-DATE-TIME.db``, after every name there (the names' order is their age: the
    rotation keeps the newest by it); a second backup within the second takes the next
    second. A name freed by the rotation is not taken again: it sorted among the old ones,
    and the next rotation erased the newest backup."""
    pattern = "vault-%Y%m%d-%H%M%S.db"
    newest = max((p.name for p in folder.glob("vault-*.db")), default="")
    stamp = time.time()
    target = folder / time.strftime(pattern, time.localtime(stamp))
    if target.name <= newest:  # within its second, or the clock went back: the second after it
        with contextlib.suppress(ValueError, OverflowError):
            stamp = time.mktime(time.strptime(newest, pattern)) + 1
        target = folder / time.strftime(pattern, time.localtime(stamp))
    while target.exists():
        stamp += 1
        target = folder / time.strftime(pattern, time.localtime(stamp))
    return target


def restore(backup: Path, passphrase: str, target: Path,
            open_vault: Callable[[Path, str], Copy]) -> Path | None:
    """Replace the vault at ``target`` with ``backup`` after checking that it opens.

    The vault being replaced is kept beside it as ``*.before-restore-YYYYmmdd-HHMMSS``
    (a new name each time, so an earlier kept copy is never overwritten), with its
    ``-wal`` and ``-shm`` files, so that it opens with everything committed to it. Its
    path is returned (None when there was none).
    """
    target, backup = Path(target), Path(backup)
    if not backup.is_file():
        raise VaultMissing(translate("storage.vault", "There is no backup at {path}.")
                           .format(path=backup))
    with writing(target.with_name(target.name + ".restoring")) as staged:
        return _restore_through(staged, backup, passphrase, target, open_vault)


def _restore_through(staged: Path, backup: Path, passphrase: str, target: Path,
                     open_vault: Callable[[Path, str], Copy]) -> Path | None:
    """``restore``, with the copy staged at ``staged`` (marked as this process's)."""
    try:
        copy_or_clean_up(backup, staged)
    except sqlite3.DatabaseError as exc:
        if not_damage(exc, target.parent):
            raise  # the disk's fault, said as such
        try:
            not_vault = not db.looks_like_sqlite(backup)  # a text file chosen as a backup
        except OSError:
            not_vault = False
        raise damaged(backup, cause=exc, not_vault=not_vault) from exc
    # The copy is checked, not the backup: opening may migrate an older format, which
    # must not rewrite the user's own file (nor fail on a read-only stick).
    try:
        open_vault(staged, passphrase).close()  # DamagedVault, WrongPassphrase
    except DamagedVault as exc:
        remove_with_sidecars(staged)
        raise DamagedVault(str(exc).replace(str(staged), str(backup)), exc.not_vault) from exc  # the user's file
    except BaseException:
        remove_with_sidecars(staged)
        raise
    # Checked: renamed first, so that a crash between the two renames below is finished at
    # the next start (``storage.files.finish_interrupted_restore``), not left without a vault.
    with writing(target.with_name(target.name + READY)) as ready:
        move_with_sidecars(staged, ready)
        kept = None
        if target.exists():
            kept = unused_kept_path(target)
            move_with_sidecars(target, kept)
        put_in_place(ready, target)
    return kept


def retire_old_copies(path: Path, old: str, new: str, backups: Path | None, fresh: Path | None,
                      open_vault: Callable[[Path, str], Copy]) -> tuple[int, int, int]:
    """(erased, re-encrypted, left as they were): see ``Vault.change_passphrase``.

    The vault's own change has committed by now: nothing here may raise, or the user
    would be told the passphrase was not changed. A copy that fails (a full disk, a
    damaged file) is left as it was, logged, and counted. The copies need no live
    vault: this runs even if the vault was locked meanwhile. What a crash left half-done
    (a restore's staged copy, a partial backup: old passphrase, or another) is erased."""
    erased = rekeyed = failed = 0
    # Listed now, with backups held off (the backup lock): none can land after this.
    automatic = sorted(backups.glob("vault-*.db")) if backups is not None and backups.is_dir() else []
    automatic = [copy for copy in automatic if copy != fresh]
    to_rekey = kept_copies(path)
    if fresh is not None:
        for copy in automatic:
            try:
                crypto_erase(copy)
                remove_with_sidecars(copy)
                erased += 1
            except OSError:
                log.warning("an old backup could not be erased", exc_info=True)
                failed += 1
    else:
        to_rekey += automatic
    failed += erase_leftovers(path, backups)
    for copy in to_rekey:
        try:
            kept = open_vault(copy, old)
        except WrongPassphrase:
            continue  # it opens with another passphrase: not one this change retires
        except Exception:
            log.warning("a kept copy could not be opened to re-encrypt it", exc_info=True)
            failed += 1
            continue
        try:
            kept.change_passphrase(old, new)
            rekeyed += 1
        except Exception:
            log.warning("a kept copy could not be re-encrypted", exc_info=True)
            failed += 1
        finally:
            kept.close()
    return erased, rekeyed, failed
