"""The vault: one SQLite file whose contents are encrypted under a passphrase.

Creating it writes the key record (Argon2id parameters, salt, wrapped data key) and the
schema in one go; opening it checks the file, runs migrations and unwraps the data key.
A wrong passphrase and a damaged file are different errors with different messages.
Changing the passphrase makes a new data key and re-encrypts every field and the key
record in one SQLite transaction, so a crash leaves either the old or the new passphrase
working, never half a vault; then the copies that the old passphrase opens and that
Hearth keeps (the automatic backups, the copies kept by a restore) are crypto-erased and
a fresh backup is made. A format-1 vault is migrated the same way at its first unlock.

Checking the file and its key record is ``storage.vault_file``; backups, restoring one
and retiring the copies an old passphrase opens are ``storage.backups``. Creating and
unlocking the vault first crypto-erase the copies a crash left half-done beside it and in
its backups folder (``storage.erase.erase_leftovers``), when this process is the Hearth
that holds the data folder (``storage.instance_lock``).

Every write goes through ``transaction()``, which holds the vault's write lock: a
passphrase change re-encrypts under it, so no writer can seal a row with the old key
while the new one commits.
"""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from sqlalchemy import Connection, Engine, insert, select
from sqlalchemy.exc import OperationalError

from i18n import translate
from storage import backups as copies
from storage import db, instance_lock, schema
from storage.crypto import (
    DEFAULT_KDF,
    FORMAT_VERSION,
    KEY_CHANGE,
    LEGACY_FORMAT,
    Envelope,
    FieldCipher,
    KdfParams,
    check_passphrase,
    new_data_key,
    new_envelope,
    new_vault_id,
    open_envelope,
)
from storage.documents import index_file
from storage.erase import crypto_erase, erase_leftovers
from storage.errors import KeyChangedElsewhere
from storage.files import (
    finish_interrupted_restore,
    new_private_file,
    remove_with_sidecars,
    writing,
)
from storage.reseal import add_message_lists, reseal
from storage.vault_file import (
    ENVELOPE_KEY,
    VaultExists,
    VaultMissing,
    keep_before_upgrade,
    open_engine,
    read_envelope,
    upgrade_label,
    write_envelope,
)

__all__ = ["ENVELOPE_KEY", "PassphraseChanged", "Vault", "VaultExists", "VaultMissing"]

log = logging.getLogger(__name__)

CLOSE_WAIT = 2.0  # seconds close() waits for a write under way


def _envelope_text(conn: Connection) -> str | None:
    """The key record as the file holds it."""
    return conn.scalar(select(schema.vault_meta.c.value).where(schema.vault_meta.c.key == ENVELOPE_KEY))


@dataclass(frozen=True)
class PassphraseChanged:
    """What a passphrase change did beyond the vault itself, for the dialog to say."""

    erased_copies: int  # older automatic backups, erased once the fresh one was there
    rekeyed_copies: int  # copies kept by restores (or old backups) now under the new passphrase
    backup: Path | None  # the fresh automatic backup (None if it could not be written)
    unreadable: int  # fields that were damaged before and stay so
    failed_copies: int = 0  # copies that could not be erased or re-encrypted: old passphrase


class Vault:
    def __init__(self, path: Path, engine: Engine, cipher: FieldCipher, envelope: str | None = None) -> None:
        self.path = path
        self.engine = engine
        self.cipher = cipher
        # The key record this vault was opened with: a write commits only while it is still
        # the file's (another Hearth may change the passphrase meanwhile: _same_key).
        self._envelope = envelope
        self._staged_envelope: str | None = None  # a change of ours, committing now
        if envelope is not None:
            cipher.stale = self._key_still_current
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
            self._same_key(conn)

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
                self._same_key(conn)
        finally:
            self._write_lock.release()

    def _same_key(self, conn: Connection) -> None:
        """Before a write commits: the file's key record must still be the one this vault
        holds the key of. Another Hearth that changed the passphrase meanwhile (the window,
        while a terminal command had the vault open) re-encrypted every row with a new key;
        a row written now with the old one would never open again, so the write is rolled
        back (``KeyChangedElsewhere``, said to the user). Read after the writes, under
        SQLite's write lock: no change can commit between this and the commit."""
        if self._envelope is None:
            return
        if _envelope_text(conn) != self._envelope:
            raise KeyChangedElsewhere()

    def _key_still_current(self) -> None:
        """A field no key of this vault opens: damage, unless the passphrase was changed
        elsewhere since this vault was opened (every row then reads as damaged here: a
        check of the vault run beside the window's change would report them all). Then
        KeyChangedElsewhere, which the user is told in words they can act on."""
        if self._closed:
            return
        try:
            with self.engine.connect() as conn:
                now = _envelope_text(conn)
        except Exception:  # the file cannot say: as far as this vault knows, it is damage
            log.debug("the key record could not be read back", exc_info=True)
            return
        staged = self._staged_envelope  # before the current: a change of ours moves both
        if now not in (staged, self._envelope):
            raise KeyChangedElsewhere()

    # Creating and opening ---------------------------------------------------------
    @classmethod
    def exists(cls, path: Path) -> bool:
        """Whether a vault is there to open (else the user is offered a new one): a restore
        that a crash stopped between its two renames is finished first. Anything at the
        path counts (a folder, a broken link): offered a new vault, the user would be told
        one exists; opening it says what is there instead (``vault_file.NotAFile``)."""
        cls._finish_restore(Path(path))
        return os.path.lexists(path)

    @staticmethod
    def _finish_restore(path: Path) -> None:
        """``storage.files.finish_interrupted_restore``, by the Hearth that holds the data
        folder only (a command that merely reads must not move the vault's files)."""
        if instance_lock.held(path.parent) and finish_interrupted_restore(path):
            log.warning("a restore stopped by a crash was finished: the backup is in place")

    @classmethod
    def create(cls, path: Path, passphrase: str, kdf: KdfParams = DEFAULT_KDF) -> Vault:
        path = Path(path)
        check_passphrase(passphrase)
        if path.exists():
            raise VaultExists(translate("storage.vault", "A vault already exists at {path}.")
                              .format(path=path))
        path.parent.mkdir(parents=True, exist_ok=True)
        cls._erase_leftovers(path)
        data_key, vault_id = new_data_key(), new_vault_id()
        envelope = new_envelope(passphrase, data_key, vault_id, kdf)
        with writing(path.with_name(path.name + ".creating")) as partial:
            crypto_erase(partial)  # one a crash left: it is replaced, its key record first
            remove_with_sidecars(partial)
            new_private_file(partial)
            engine = db.make_engine(partial)
            db.migrate(engine)
            with engine.begin() as conn:
                conn.execute(insert(schema.vault_meta).values(key=ENVELOPE_KEY, value=envelope.to_json()))
            db.checkpoint(engine)
            engine.dispose()
            os.replace(partial, path)  # the vault appears complete, or not at all
        return cls(path, db.make_engine(path), FieldCipher(data_key, vault_id), envelope.to_json())

    @classmethod
    def open(cls, path: Path, passphrase: str) -> Vault:
        """A copy (a backup being checked, restored or re-keyed): upgraded as it opens."""
        return cls._open(path, passphrase, keep_copy=False)

    @classmethod
    def open_live(cls, path: Path, passphrase: str) -> Vault:
        """The user's vault: an upgrade (of its schema, or of format 1) keeps a copy of it as it
        was in its backups folder first (``storage.vault_file.keep_before_upgrade``); a vault
        from a newer Hearth is refused (NewerVault) and left exactly as it is."""
        return cls._open(path, passphrase, keep_copy=True)

    @classmethod
    def _open(cls, path: Path, passphrase: str, keep_copy: bool) -> Vault:
        path = Path(path)
        check_passphrase(passphrase)
        if keep_copy:
            cls._erase_leftovers(path)
        if keep_copy and path.is_file():
            label = upgrade_label(path)  # schema and format alike: one copy, before anything changes
            if label is not None:
                keep_before_upgrade(path, label)
        engine = open_engine(path)
        try:
            envelope = read_envelope(engine, path)
            data_key = open_envelope(passphrase, envelope)  # WrongPassphrase
            if envelope.format == LEGACY_FORMAT:
                envelope = cls._migrate_format(engine, passphrase, envelope, data_key)
            with engine.connect() as conn:
                recorded = _envelope_text(conn)  # as stored: an older Hearth's may be laid out otherwise
        except BaseException:
            engine.dispose()
            raise
        return cls(path, engine, FieldCipher(data_key, envelope.vault_id), recorded)

    @classmethod
    def _erase_leftovers(cls, path: Path) -> None:
        """Before the user's vault is created or opened, and before anything else writes
        beside it: the copies a crash left half-done (``storage.erase.erase_leftovers``).
        Only by the Hearth that holds the data folder: a command that only reads runs
        beside the window without it, and must not erase a copy the window is writing."""
        if not instance_lock.held(path.parent):
            return
        cls._finish_restore(path)  # its copy is no leftover while no vault is there
        if erase_leftovers(path, path.parent / "backups"):
            log.warning("copies left by an interrupted operation could not all be erased")

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
            write_envelope(conn, migrated)
        if damaged:
            log.warning("format migration: %d damaged fields left as they were", len(damaged))
        return migrated

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
        with self.engine.connect() as conn:
            self._same_key(conn)  # changed elsewhere meanwhile: this key reads nothing any more
        current = read_envelope(self.engine, self.path)
        open_envelope(old, current)  # WrongPassphrase if old is wrong
        next_key = new_data_key()
        envelope = new_envelope(new, next_key, current.vault_id, kdf or current.kdf)
        with self._write_lock:
            self._stop_if_closed()
            target = FieldCipher(next_key, current.vault_id)
            previous = self.cipher.writing_key_only()
            self.cipher.stage(next_key)
            self._staged_envelope = envelope.to_json()
            try:
                with self.engine.begin() as conn:
                    damaged = reseal(conn, previous, target, self._stop_if_closed)
                    write_envelope(conn, envelope)
            except BaseException:
                self.cipher.unstage()
                self._staged_envelope = None
                raise
            self._envelope, self._staged_envelope = envelope.to_json(), None
            # The saved search index is under the old key, and every row it matched was
            # written again: it goes, and the next save seals the index under the new key
            # (the app asks for one at once). A save of it running now is not kept.
            with KEY_CHANGE:
                self.cipher.promote()
                index_file.remove(self.path, partial=True)
        backup = None
        if backups is not None and not self._closed:
            try:  # under a new name, without rotating: the old ones are erased below
                backups.mkdir(parents=True, exist_ok=True)
                backup = self.backup_to(copies.unused_backup_name(backups))
            except Exception:
                log.warning("no fresh backup after the passphrase change", exc_info=True)
        erased, rekeyed, failed = copies.retire_old_copies(self.path, old, new, backups, backup,
                                                            Vault.open)
        return PassphraseChanged(erased, rekeyed, backup, len(damaged), failed)

    def _stop_if_closed(self) -> None:
        if self._closed:
            raise db.VaultClosed(translate("storage.vault", "The vault was locked during the "
                                           "passphrase change; nothing was changed."))

    # Backups (storage.backups) ------------------------------------------------------
    def backup_to(self, target: Path) -> Path:
        """Write a consistent copy of the vault. It stays encrypted under the same passphrase."""
        target = Path(target)
        with self._backup_lock:
            return copies.write_backup(self.path, target, lambda: self._closed)

    def auto_backup(self, folder: Path, force: bool = False,
                    damaged: Callable[[], bool] = lambda: False) -> Path | None:
        """Keep a recent encrypted copy for the day the vault file gets damaged (a new
        name each time, so a copy is never written over another). ``damaged``: whether
        damage is known (the chat store's ``damaged_places``); while it is, no older
        backup is erased (``storage.backups.auto_backup``)."""
        folder.mkdir(parents=True, exist_ok=True)
        with self._backup_lock:
            return copies.auto_backup(folder, force, self.backup_to, damaged)

    @classmethod
    def restore(cls, backup: Path, passphrase: str, target: Path) -> Path | None:
        """Replace the vault at ``target`` with ``backup`` after checking that it opens;
        the path of the vault it replaced, kept beside it (``storage.backups.restore``)."""
        return copies.restore(backup, passphrase, target, cls.open)

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
