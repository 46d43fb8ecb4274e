"""The vault's file on disk: checking it before it is opened, and its key record.

Opening checks that the file is there, is a SQLite database and passes SQLite's
integrity check, then runs migrations; the key record (``vault_meta``'s envelope: the
Argon2id parameters, salt and wrapped data key) is read and written here. A damaged file
and a fault of the disk under it are told apart (``storage.errors``): only the first is
said to be damaged. ``storage.vault`` opens, creates and re-keys the vault with these.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

from sqlalchemy import Connection, Engine, select, update
from sqlalchemy.exc import DatabaseError

from i18n import translate
from storage import db, schema
from storage.crypto import DamagedVault, Envelope, NewerVault, newer_vault_message
from storage.errors import not_damage
from storage.files import copy_or_clean_up
from storage.paths import private_dir, private_file

ENVELOPE_KEY = "envelope"


class VaultMissing(Exception):
    pass


class VaultExists(Exception):
    pass


def damaged(path: Path, detail: str) -> DamagedVault:
    return DamagedVault(translate("storage.vault", "The vault file {path} is damaged or was changed "
                                  "outside Hearth ({detail}).").format(path=path, detail=detail))


def keep_before_upgrade(path: Path, label: str) -> Path:
    """A copy of the vault as it is, in its backups folder, before an upgrade changes it in
    place: ``vault-DATE-TIME-before-upgrade-LABEL.db``, a backup like the daily ones (it
    opens with the same passphrase, is offered by Restore, and is retired with them). An
    upgrade goes ahead only once the copy is whole (a full disk stops it, unchanged)."""
    folder = private_dir(path.parent / "backups")
    target = folder / time.strftime(f"vault-%Y%m%d-%H%M%S-before-upgrade-{label}.db")
    partial = target.with_name(target.name + ".partial")
    copy_or_clean_up(path, partial)
    os.replace(partial, target)
    return target


def write_envelope(conn: Connection, envelope: Envelope) -> None:
    conn.execute(update(schema.vault_meta).where(schema.vault_meta.c.key == ENVELOPE_KEY)
                 .values(value=envelope.to_json()))


def open_engine(path: Path, keep_copy: bool = False) -> Engine:
    """The vault file checked and at the current schema. ``keep_copy``: an upgrade keeps a
    copy of it as it was first (the live vault; not a backup being checked or re-keyed)."""
    if not path.is_file():
        raise VaultMissing(translate("storage.vault", "There is no vault at {path}.")
                           .format(path=path))
    private_file(path)  # a vault an earlier version made 0644
    try:
        if path.stat().st_size == 0 or not db.looks_like_sqlite(path):
            raise damaged(path, translate("storage.vault", "not a database"))
    except OSError as exc:
        raise DamagedVault(translate(
            "storage.vault", "The vault file {path} cannot be read ({error})."
        ).format(path=path, error=exc.strerror)) from exc
    engine = db.make_engine(path)
    try:
        problem = db.integrity_problem(engine)
        if problem:
            raise damaged(path, problem)
        recorded = db.recorded_revision(engine)
        if recorded is not None and recorded not in db.known_revisions():
            raise NewerVault(newer_vault_message(f"schema {recorded}"))  # nothing migrated, nothing written
        if keep_copy and recorded is not None and recorded != db.HEAD:
            keep_before_upgrade(path, recorded)
        db.migrate(engine)
    except DatabaseError as exc:
        engine.dispose()
        if not_damage(exc, path.parent):
            raise  # the disk's fault, said as such (storage.errors), not the file's
        raise damaged(path, str(exc.orig)) from exc
    except (DamagedVault, NewerVault, OSError):
        engine.dispose()
        raise
    return engine


def read_envelope(engine: Engine, path: Path) -> Envelope:
    try:
        with engine.connect() as conn:
            text = conn.scalar(
                select(schema.vault_meta.c.value).where(schema.vault_meta.c.key == ENVELOPE_KEY)
            )
    except DatabaseError as exc:
        if not_damage(exc, path.parent):
            raise
        raise damaged(path, str(exc.orig)) from exc
    if text is None:
        raise damaged(path, translate("storage.vault", "the key record is missing"))
    try:
        return Envelope.from_json(text)
    except DamagedVault as exc:
        raise damaged(path, str(exc)) from exc
