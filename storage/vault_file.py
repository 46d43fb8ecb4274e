"""The vault's file on disk: checking it before it is opened, and its key record.

Opening checks that the file is there, is a SQLite database and passes SQLite's
integrity check, then runs migrations; the key record (``vault_meta``'s envelope: the
Argon2id parameters, salt and wrapped data key) is read and written here. A damaged file
and a fault of the disk under it are told apart (``storage.errors``): only the first is
said to be damaged. ``storage.vault`` opens, creates and re-keys the vault with these.
"""

from __future__ import annotations

import logging
import os
import time
from pathlib import Path

from sqlalchemy import Connection, Engine, select, update
from sqlalchemy.exc import DatabaseError

from i18n import translate
from storage import db, schema
from storage.crypto import DamagedVault, Envelope, NewerVault, newer_vault_message
from storage.errors import not_damage, why_not
from storage.files import copy_or_clean_up, writing
from storage.paths import private_dir, private_file

ENVELOPE_KEY = "envelope"
log = logging.getLogger(__name__)


class VaultMissing(Exception):
    pass


class VaultExists(Exception):
    pass


class NotAFile(DamagedVault):
    """Something other than a file is where the vault should be (a folder, a broken link):
    nothing to open, and nothing to create over it. Said as damage is (a backup can be
    restored in its place), in words of its own."""


def damaged(path: Path, detail: str = "", cause: object = None, not_vault: bool = False) -> DamagedVault:
    """``detail``: what is wrong, in the user's words; SQLite's own (``cause``: "file is not
    a database", "database disk image is malformed", an integrity check's findings) are
    English and go to the log. ``not_vault``: see ``DamagedVault``."""
    if cause is not None:
        log.warning("%s does not read as a vault: %s", path.name, cause)
    if not detail:
        return DamagedVault(translate("storage.vault", "The vault file {path} is damaged or was changed "
                                      "outside Hearth.").format(path=path), not_vault)
    return DamagedVault(translate("storage.vault", "The vault file {path} is damaged or was changed "
                                  "outside Hearth ({detail}).").format(path=path, detail=detail), not_vault)


def keep_before_upgrade(path: Path, label: str) -> Path:
    """A copy of the vault as it is, in its backups folder, before an upgrade changes it in
    place: ``vault-DATE-TIME-before-upgrade-LABEL.db``, a backup like the daily ones (it
    opens with the same passphrase, is offered by Restore, and is retired with them). An
    upgrade goes ahead only once the copy is whole (a full disk stops it, unchanged)."""
    folder = private_dir(path.parent / "backups")
    earlier = sorted(folder.glob(f"vault-*-before-upgrade-{label}.db"))
    if earlier:  # an upgrade that failed after its copy: that copy is the vault as it was
        return earlier[-1]
    target = folder / time.strftime(f"vault-%Y%m%d-%H%M%S-before-upgrade-{label}.db")
    with writing(target.with_name(target.name + ".partial")) as partial:
        copy_or_clean_up(path, partial)
        os.replace(partial, target)
    return target


def upgrade_label(path: Path) -> str | None:
    """What an upgrade of the vault at ``path`` would change, read without changing it:
    its schema revision (when older than this Hearth's), "format-1" (a key record from
    before the vault id), both, or None. A file that cannot be read so is left to the open,
    which says what is wrong with it."""
    import json
    import sqlite3

    try:
        conn = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
        try:
            revision = conn.execute("SELECT version_num FROM alembic_version").fetchone()
            record = conn.execute("SELECT value FROM vault_meta WHERE key = ?", (ENVELOPE_KEY,)).fetchone()
        finally:
            conn.close()
        outer = json.loads(record[0]) if record else {}
        old_format = int(json.loads(outer["envelope"]).get("format", 1)) == 1 if "envelope" in outer else False
    except (sqlite3.Error, ValueError, KeyError, TypeError, AttributeError):
        return None
    parts = []
    if revision and revision[0] != db.HEAD and revision[0] in db.known_revisions():
        parts.append(str(revision[0]))
    if old_format:
        parts.append("format-1")
    return "-".join(parts) or None


def write_envelope(conn: Connection, envelope: Envelope) -> None:
    conn.execute(update(schema.vault_meta).where(schema.vault_meta.c.key == ENVELOPE_KEY)
                 .values(value=envelope.to_json()))


def open_engine(path: Path) -> Engine:
    """The vault file checked and at the current schema (a copy of it as it was is the
    caller's to keep first: ``upgrade_label``, ``keep_before_upgrade``)."""
    if not os.path.lexists(path):
        raise VaultMissing(translate("storage.vault", "There is no vault at {path}.")
                           .format(path=path))
    if not path.is_file():
        what = (translate("storage.vault", "a folder") if path.is_dir()
                else translate("storage.vault", "a link to nothing") if path.is_symlink()
                else translate("storage.vault", "something other than a file"))
        raise NotAFile(translate("storage.vault", "Where Hearth keeps its vault, {path}, there is {what}, "
                                 "not the vault file. Hearth changed nothing there. If you moved the vault "
                                 "file, put it back in its place.").format(path=path, what=what))
    private_file(path)  # a vault an earlier version made 0644
    try:
        if path.stat().st_size == 0 or not db.looks_like_sqlite(path):
            raise damaged(path, translate("storage.vault", "not a database"), not_vault=True)
    except OSError as exc:
        raise DamagedVault(translate(
            "storage.vault", "The vault file {path} cannot be read ({error})."
        ).format(path=path, error=why_not(exc))) from exc
    engine = db.make_engine(path)
    try:
        problem = db.integrity_problem(engine)
        if problem:
            raise damaged(path, cause=problem)
        recorded = db.recorded_revision(engine)
        if recorded is not None and recorded not in db.known_revisions():
            raise NewerVault(newer_vault_message(f"schema {recorded}"))  # nothing migrated, nothing written
        db.migrate(engine)
    except DatabaseError as exc:
        engine.dispose()
        if not_damage(exc, path.parent):
            raise  # the disk's fault, said as such (storage.errors), not the file's
        raise damaged(path, cause=exc.orig) from exc
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
        raise damaged(path, cause=exc.orig) from exc
    if text is None:
        raise damaged(path, translate("storage.vault", "the key record is missing"), not_vault=True)
    try:
        return Envelope.from_json(text)
    except DamagedVault as exc:
        raise damaged(path, str(exc), not_vault=exc.not_vault) from exc
