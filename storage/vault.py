"""The vault: one SQLite file whose contents are encrypted under a passphrase.

Creating it writes the key record (Argon2id parameters, salt, wrapped data key) and the
schema in one go; opening it checks the file, runs migrations and unwraps the data key.
A wrong passphrase and a damaged file are different errors with different messages.
Changing the passphrase makes a new data key and re-encrypts every field and the key
record in one SQLite transaction, so a crash leaves either the old or the new passphrase
working, never half a vault; then the copies that the old passphrase opens and that
Hearth keeps (the automatic backups, the copies kept by a restore) are crypto-erased and
a fresh backup is made. A format-1 vault is migrated the same way at its first unlock.

Every write goes through ``transaction()``, which holds the vault's write lock: a
passphrase change re-encrypts under it, so no writer can seal a row with the old key
while the new one commits.
"""

from __future__ import annotations

import logging
import os
import sqlite3
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from sqlalchemy import Connection, Engine, insert, select, update
from sqlalchemy.exc import DatabaseError, OperationalError

from i18n import translate
from storage import db, schema
from storage.crypto import (
    DEFAULT_KDF,
    FORMAT_VERSION,
    LEGACY_FORMAT,
    DamagedVault,
    Envelope,
    FieldCipher,
    KdfParams,
    WrongPassphrase,
    check_passphrase,
    new_data_key,
    new_envelope,
    new_vault_id,
    open_envelope,
)
from storage.erase import crypto_erase
from storage.errors import not_damage
from storage.files import (
    SIDECARS,
    copy_or_clean_up,
    kept_copies,
    move_with_sidecars,
    new_private_file,
    remove_with_sidecars,
    unused_kept_path,
)
from storage.paths import private_file
from storage.reseal import add_message_lists, reseal

log = logging.getLogger(__name__)

ENVELOPE_KEY = "envelope"
AUTO_BACKUP_EVERY = 24 * 3600
AUTO_BACKUPS_KEPT = 3
CLOSE_WAIT = 2.0  # seconds close() waits for a write under way


class VaultMissing(Exception):
    pass


class VaultExists(Exception):
    pass


def _damaged(path: Path, detail: str) -> DamagedVault:
    return DamagedVault(translate("storage.vault", "The vault file {path} is damaged or was changed "
                                  "outside Hearth ({detail}).").format(path=path, detail=detail))


@dataclass(frozen=True)
class PassphraseChanged:
    """What a passphrase change did beyond the vault itself, for the dialog to say."""

    erased_copies: int  # older automatic backups, erased once the fresh one was there
    rekeyed_copies: int  # copies kept by restores (or old backups) now under the new passphrase
    backup: Path | None  # the fresh automatic backup (None if it could not be written)
    unreadable: int  # fields that were damaged before and stay so
    failed_copies: int = 0  # copies that could not be erased or re-encrypted: old passphrase


class Vault:
    def __init__(self, path: Path, engine: Engine, cipher: FieldCipher) -> None:
        self.path = path
        self.engine = engine
        self.cipher = cipher
        self._closed = False
        self._write_lock = threading.RLock()
        # Backups and passphrase changes take turns: a backup copied under the old key and
        # landing after the change erased the old ones would survive it (#38 item 9).
        # Always taken before _write_lock.
        self._backup_lock = threading.RLock()

    @contextmanager
    def transaction(self) -> Iterator[Connection]:
        """A write transaction under the vault's write lock (see the module's docstring)."""
        with self._write_lock, self.engine.begin() as conn:
            yield conn

    @contextmanager
    def transaction_if_free(self) -> Iterator[Connection | None]:
        """``transaction``, or None at once when another write holds the lock (a passphrase
        change re-encrypting): for writes that can wait for a later chance."""
        if not self._write_lock.acquire(blocking=False):
            yield None
            return
        try:
            with self.engine.begin() as conn:
                yield conn
        finally:
            self._write_lock.release()

    # Creating and opening ---------------------------------------------------------
    @staticmethod
    def exists(path: Path) -> bool:
        return Path(path).is_file()

    @classmethod
    def create(cls, path: Path, passphrase: str, kdf: KdfParams = DEFAULT_KDF) -> Vault:
        path = Path(path)
        check_passphrase(passphrase)
        if path.exists():
            raise VaultExists(translate("storage.vault", "A vault already exists at {path}.")
                              .format(path=path))
        path.parent.mkdir(parents=True, exist_ok=True)
        data_key, vault_id = new_data_key(), new_vault_id()
        envelope = new_envelope(passphrase, data_key, vault_id, kdf)
        partial = path.with_name(path.name + ".creating")
        for leftover in (partial, Path(f"{partial}-wal"), Path(f"{partial}-shm")):
            leftover.unlink(missing_ok=True)
        new_private_file(partial)
        engine = db.make_engine(partial)
        db.migrate(engine)
        with engine.begin() as conn:
            conn.execute(insert(schema.vault_meta).values(key=ENVELOPE_KEY, value=envelope.to_json()))
        db.checkpoint(engine)
        engine.dispose()
        os.replace(partial, path)  # the vault appears complete, or not at all
        return cls(path, db.make_engine(path), FieldCipher(data_key, vault_id))

    @classmethod
    def open(cls, path: Path, passphrase: str) -> Vault:
        path = Path(path)
        check_passphrase(passphrase)
        engine = cls._open_engine(path)
        try:
            envelope = cls._read_envelope(engine, path)
            data_key = open_envelope(passphrase, envelope)  # WrongPassphrase
            if envelope.format == LEGACY_FORMAT:
                envelope = cls._migrate_format(engine, passphrase, envelope, data_key)
        except BaseException:
            engine.dispose()
            raise
        return cls(path, engine, FieldCipher(data_key, envelope.vault_id))

    @staticmethod
    def _migrate_format(engine: Engine, passphrase: str, envelope: Envelope, data_key: bytes) -> Envelope:
        """Format 1 → 2 in one transaction: a vault id, every field rebound to its row's
        chat, position, collection and document, and each chat's list of messages."""
        vault_id = new_vault_id()
        legacy = FieldCipher(data_key, format=LEGACY_FORMAT)
        current = FieldCipher(data_key, vault_id, FORMAT_VERSION)
        migrated = new_envelope(passphrase, data_key, vault_id, envelope.kdf)
        with engine.begin() as conn:
            damaged = reseal(conn, legacy, current)
            add_message_lists(conn, current)
            Vault._write_envelope(conn, migrated)
        if damaged:
            log.warning("format migration: %d damaged fields left as they were", len(damaged))
        return migrated

    @staticmethod
    def _write_envelope(conn: Connection, envelope: Envelope) -> None:
        conn.execute(update(schema.vault_meta).where(schema.vault_meta.c.key == ENVELOPE_KEY)
                     .values(value=envelope.to_json()))

    @staticmethod
    def _open_engine(path: Path) -> Engine:
        if not path.is_file():
            raise VaultMissing(translate("storage.vault", "There is no vault at {path}.")
                               .format(path=path))
        private_file(path)  # a vault an earlier version made 0644
        try:
            if path.stat().st_size == 0 or not db.looks_like_sqlite(path):
                raise _damaged(path, translate("storage.vault", "not a database"))
        except OSError as exc:
            raise DamagedVault(translate(
                "storage.vault", "The vault file {path} cannot be read ({error})."
            ).format(path=path, error=exc.strerror)) from exc
        engine = db.make_engine(path)
        try:
            problem = db.integrity_problem(engine)
            if problem:
                raise _damaged(path, problem)
            db.migrate(engine)
        except DatabaseError as exc:
            engine.dispose()
            if not_damage(exc, path.parent):
                raise  # the disk's fault, said as such (storage.errors), not the file's
            raise _damaged(path, str(exc.orig)) from exc
        except DamagedVault:
            engine.dispose()
            raise
        return engine

    @staticmethod
    def _read_envelope(engine: Engine, path: Path) -> Envelope:
        try:
            with engine.connect() as conn:
                text = conn.scalar(
                    select(schema.vault_meta.c.value).where(schema.vault_meta.c.key == ENVELOPE_KEY)
                )
        except DatabaseError as exc:
            if not_damage(exc, path.parent):
                raise
            raise _damaged(path, str(exc.orig)) from exc
        if text is None:
            raise _damaged(path, translate("storage.vault", "the key record is missing"))
        try:
            return Envelope.from_json(text)
        except DamagedVault as exc:
            raise _damaged(path, str(exc)) from exc

    # Passphrase -------------------------------------------------------------------
    def change_passphrase(self, old: str, new: str, kdf: KdfParams | None = None,
                          backups: Path | None = None) -> PassphraseChanged:
        """A new data key under ``new``, every field re-encrypted with it, in one transaction.

        Then the copies Hearth keeps that the old passphrase opens are dealt with: a fresh
        automatic backup is written first, and only once it is there are the older ones
        in ``backups`` crypto-erased (without it they are re-encrypted instead: a vault
        is never left without a backup); the copies a restore kept beside the vault (they
        may hold what the restore replaced) are re-encrypted under ``new``. Copies the
        user made elsewhere still open with the old passphrase (and hold only what was
        in the vault then).

        Closing the vault (lock, quit) while this runs stops it at the next page of rows
        and rolls it back: the old passphrase still opens everything (``close`` waits).
        """
        with self._backup_lock:
            return self._change_passphrase(old, new, kdf, backups)

    def _change_passphrase(self, old: str, new: str, kdf: KdfParams | None,
                           backups: Path | None) -> PassphraseChanged:
        check_passphrase(new)
        current = self._read_envelope(self.engine, self.path)
        open_envelope(old, current)  # WrongPassphrase if old is wrong
        next_key = new_data_key()
        envelope = new_envelope(new, next_key, current.vault_id, kdf or current.kdf)
        with self._write_lock:
            self._stop_if_closed()
            target = FieldCipher(next_key, current.vault_id)
            previous = self.cipher.writing_key_only()
            self.cipher.stage(next_key)
            try:
                with self.engine.begin() as conn:
                    damaged = reseal(conn, previous, target, self._stop_if_closed)
                    self._write_envelope(conn, envelope)
            except BaseException:
                self.cipher.unstage()
                raise
            self.cipher.promote()
        backup = None
        if backups is not None and not self._closed:
            try:  # under a new name, without rotating: the old ones are erased below
                backups.mkdir(parents=True, exist_ok=True)
                backup = self.backup_to(self._unused_backup_name(backups))
            except Exception:
                log.warning("no fresh backup after the passphrase change", exc_info=True)
        erased, rekeyed, failed = self._retire_old_copies(old, new, backups, backup)
        return PassphraseChanged(erased, rekeyed, backup, len(damaged), failed)

    def _stop_if_closed(self) -> None:
        if self._closed:
            raise db.VaultClosed(translate("storage.vault", "The vault was locked during the "
                                           "passphrase change; nothing was changed."))

    def _retire_old_copies(self, old: str, new: str, backups: Path | None,
                           fresh: Path | None) -> tuple[int, int, int]:
        """(erased, re-encrypted, left as they were): see ``change_passphrase``.

        The vault's own change has committed by now: nothing here may raise, or the user
        would be told the passphrase was not changed. A copy that fails (a full disk, a
        damaged file) is left as it was, logged, and counted. The copies need no live
        vault: this runs even if the vault was locked meanwhile."""
        erased = rekeyed = failed = 0
        # Listed now, with backups held off (the backup lock): none can land after this.
        automatic = sorted(backups.glob("vault-*.db")) if backups is not None and backups.is_dir() else []
        automatic = [copy for copy in automatic if copy != fresh]
        to_rekey = kept_copies(self.path)
        if fresh is not None:
            for copy in automatic:
                try:
                    crypto_erase(copy)
                    remove_with_sidecars(copy)
                    erased += 1
                except OSError:
                    log.warning("an old backup could not be erased", exc_info=True)
                    failed += 1
            for leftover in backups.glob("vault-*.db.partial") if backups is not None else ():
                try:
                    remove_with_sidecars(leftover)
                except OSError:
                    log.warning("a partial backup could not be removed", exc_info=True)
        else:
            to_rekey += automatic
        for copy in to_rekey:
            try:
                kept = Vault.open(copy, old)
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

    # Backups ----------------------------------------------------------------------
    def backup_to(self, target: Path) -> Path:
        """Write a consistent copy of the vault. It stays encrypted under the same passphrase."""
        target = Path(target)
        partial = target.with_name(target.name + ".partial")
        with self._backup_lock:
            return self._backup_to(target, partial)

    def _backup_to(self, target: Path, partial: Path) -> Path:
        copy_or_clean_up(self.path, partial)
        if self._closed:
            # Locked (or everything deleted) while copying: a backup made now would outlive
            # the vault it copies, key record and all.
            remove_with_sidecars(partial)
            raise db.VaultClosed(translate("storage.vault",
                                           "The vault was closed while it was being backed up."))
        os.replace(partial, target)
        return target

    def auto_backup(self, folder: Path, force: bool = False) -> Path | None:
        """Keep a recent encrypted copy for the day the vault file gets damaged (a new
        name each time, so a copy is never written over another)."""
        folder.mkdir(parents=True, exist_ok=True)
        with self._backup_lock:
            existing = sorted(folder.glob("vault-*.db"))
            if not force and existing and time.time() - existing[-1].stat().st_mtime < AUTO_BACKUP_EVERY:
                return None
            target = self.backup_to(self._unused_backup_name(folder))
            for old in sorted(folder.glob("vault-*.db"))[:-AUTO_BACKUPS_KEPT]:
                crypto_erase(old)  # deleted blocks survive: the key record goes first
                remove_with_sidecars(old)
            return target

    @staticmethod
    def _unused_backup_name(folder: Path) -> Path:
        """``vault-DATE-TIME.db``; a second backup within the second takes the next free one."""
        stamp = time.time()
        target = folder / time.strftime("vault-%Y%m%d-%H%M%S.db", time.localtime(stamp))
        while target.exists():
            stamp += 1
            target = folder / time.strftime("vault-%Y%m%d-%H%M%S.db", time.localtime(stamp))
        return target

    @classmethod
    def restore(cls, backup: Path, passphrase: str, target: Path) -> Path | None:
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
        staged = target.with_name(target.name + ".restoring")
        try:
            copy_or_clean_up(backup, staged)
        except sqlite3.DatabaseError as exc:
            if not_damage(exc, target.parent):
                raise  # the disk's fault, said as such
            raise _damaged(backup, str(exc)) from exc
        # The copy is checked, not the backup: opening may migrate an older format, which
        # must not rewrite the user's own file (nor fail on a read-only stick).
        try:
            cls.open(staged, passphrase).close()  # DamagedVault, WrongPassphrase
        except DamagedVault as exc:
            remove_with_sidecars(staged)
            raise DamagedVault(str(exc).replace(str(staged), str(backup))) from exc  # the user's file
        except BaseException:
            remove_with_sidecars(staged)
            raise
        kept = None
        if target.exists():
            kept = unused_kept_path(target)
            move_with_sidecars(target, kept)
        for suffix in SIDECARS:  # strays without a main file must not meet the restored one
            Path(f"{target}{suffix}").unlink(missing_ok=True)
        os.replace(staged, target)
        return kept

    # Closing ----------------------------------------------------------------------
    def integrity_problem(self) -> str | None:
        return db.integrity_problem(self.engine, full=True)

    def close(self) -> None:
        """Refuse new connections, drop the key, then checkpoint the WAL and release the file.

        The door shuts first: a background job that outlived its join still holds this
        engine, and with NullPool its next statement would open a fresh connection (and,
        after "delete everything", a fresh empty vault file). It gets VaultClosed instead;
        and without the key, a transaction it has open cannot seal another row.
        """
        if self._closed:
            return
        self._closed = True
        db.refuse_connections(self.engine)
        # A write under way (a passphrase change's page of rows, at most) ends first: a
        # passphrase change sees the flag and rolls back; nothing commits after this. A
        # writer stuck on a hung disk is not waited for past CLOSE_WAIT: without the key
        # it can seal nothing more, and quitting must not hang on it.
        held = self._write_lock.acquire(timeout=CLOSE_WAIT)
        try:
            self.cipher.forget()
        finally:
            if held:
                self._write_lock.release()
            else:
                log.warning("closing the vault while a write is still under way")
        try:
            self.engine.dispose()
            db.checkpoint_file(self.path)
        except OperationalError:
            log.warning("WAL checkpoint on close failed", exc_info=True)

    @property
    def closed(self) -> bool:
        return self._closed
