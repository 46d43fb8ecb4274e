"""Faults of the user's environment, told apart from bugs.

A full disk, a read-only folder, an I/O error, a file another program holds, or a
damaged database is the user's to act on: it gets a message in their words, and the
code that hit it decides what was and was not saved. Anything else is a bug: it is
logged with its traceback and shown as a calm internal error. (qutebrowser's
``misc/sql.py`` draws the same line between ``KnownError`` and ``BugError``.)

``trouble(exc)`` looks through an exception and what caused it (SQLAlchemy wraps
sqlite3's errors, which carry no error code in Python 3.10) and returns the kind of
fault, or None for a bug. ``why_not(exc)`` says the same of a file or folder the user
chose (a backup's target, an export, an attachment), in their words and language: the
system's own text ("No space left on device") goes to the log, never into the sentence.
"""

from __future__ import annotations

import errno
import logging
import os
import shutil
import sqlite3
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from i18n import translate
from storage.paths import data_dir

log = logging.getLogger(__name__)

FULL, READ_ONLY, IO, BUSY, CORRUPT, REKEYED = "full", "read-only", "io", "busy", "corrupt", "rekeyed"
NEARLY_FULL = 1 << 20  # free bytes under which an I/O error is taken for a full disk

_ERRNO = {
    errno.ENOSPC: FULL,
    errno.EDQUOT: FULL,
    errno.EFBIG: FULL,  # RLIMIT_FSIZE or the filesystem's largest file
    errno.EROFS: READ_ONLY,
    errno.EACCES: READ_ONLY,
    errno.EPERM: READ_ONLY,
    errno.EIO: IO,
    errno.EBUSY: BUSY,
}
# sqlite3's own messages (sqlite3_errstr), lower case.
_SQLITE = (
    ("database or disk is full", FULL),
    ("attempt to write a readonly database", READ_ONLY),
    ("readonly database", READ_ONLY),
    ("disk i/o error", IO),
    ("unable to open database file", IO),
    ("database is locked", BUSY),
    ("database table is locked", BUSY),
    ("database disk image is malformed", CORRUPT),
    ("file is not a database", CORRUPT),
)


class KeyChangedElsewhere(Exception):
    """The vault's passphrase was changed by another Hearth (the window, while a terminal
    command had the vault open): what this one would write is under a key nothing opens
    any more, so it is not written (``storage.vault.Vault.transaction``)."""


def _said() -> dict[str, str]:
    """What happened, per kind, in the interface language (built when asked, not at import)."""
    return {
        FULL: translate("storage.errors", "The disk is full"),
        READ_ONLY: translate("storage.errors", "Hearth's data folder cannot be written to "
                             "(it is read-only or not yours)"),
        IO: translate("storage.errors", "The disk reported a read or write error"),
        BUSY: translate("storage.errors", "Another program is holding Hearth's vault file"),
        CORRUPT: translate("storage.errors", "The vault file is damaged"),
        REKEYED: translate("storage.errors", "Hearth's passphrase was changed elsewhere while this "
                           "was open"),
    }


def _advice(retrying: bool) -> dict[str, str]:
    """What the user can do. "Hearth keeps trying" only where something does try again
    (``core.writes``: a refused write waits and is retried): said after a change that was
    simply refused, it would promise a save that never comes."""
    return {
        FULL: translate("storage.errors", "Free some space; Hearth keeps trying.") if retrying
        else translate("storage.errors", "Free some space, then try again."),
        READ_ONLY: translate("storage.errors", "Check the folder's permissions."),
        IO: translate("storage.errors", "The disk may be failing or was removed; check it."),
        BUSY: translate("storage.errors", "Close the other program; Hearth keeps trying.") if retrying
        else translate("storage.errors", "Close the other program, then try again."),
        CORRUPT: translate("storage.errors", "See Help ▸ Check vault; your automatic backups "
                           "are in the backups folder."),
        REKEYED: translate("storage.errors", "Open Hearth again with the new passphrase."),
    }


@dataclass(frozen=True)
class Trouble:
    kind: str

    @property
    def said(self) -> str:
        """What happened, in the user's words, without a full stop."""
        return _said()[self.kind]

    def advice(self, retrying: bool = False) -> str:
        """``retrying``: the write that failed is tried again by itself (``core.writes``)."""
        return _advice(retrying)[self.kind]

    def message(self, outcome: str, retrying: bool = False) -> str:
        """``outcome`` says what was and was not saved, e.g. "Your message was not sent";
        ``retrying``: only where the refused write is really tried again."""
        return translate("storage.errors", "{said}. {outcome} {advice}").format(
            said=self.said, outcome=outcome, advice=self.advice(retrying)).strip()


def trouble(exc: BaseException | None, where: Path | None = None) -> Trouble | None:
    """The environmental fault behind ``exc``, or None when it is a bug.

    SQLite often reports a full disk as "disk I/O error" (growing its shared-memory or
    WAL file fails half-way), and a read-only folder the same way (it cannot open its
    ``-shm`` file for writing): when the folder it writes to (``where``, by default the
    data folder) cannot be written to, that is said; when it has next to no space left,
    a full disk is. Only what is left is a read or write error of the disk itself."""
    found = _kind(exc)
    if found == IO:
        folder = _folder(where)
        if folder is not None and _read_only(folder):
            found = READ_ONLY
        elif folder is not None and _nearly_full(folder):
            found = FULL
    return Trouble(found) if found else None


def causes(exc: BaseException | None) -> Iterator[BaseException]:
    """``exc``, then what caused it: SQLAlchemy's ``orig`` and ``raise ... from``. Not
    ``__context__``: a bug raised while handling a full disk is the bug, not the disk."""
    seen: set[int] = set()
    while exc is not None and id(exc) not in seen:
        seen.add(id(exc))
        yield exc
        exc = getattr(exc, "orig", None) or exc.__cause__


def _kind(exc: BaseException | None) -> str | None:
    for cause in causes(exc):
        if isinstance(cause, KeyChangedElsewhere):
            return REKEYED
        if isinstance(cause, OSError) and cause.errno in _ERRNO:
            return _ERRNO[cause.errno]
        if isinstance(cause, sqlite3.Error):
            text = str(cause).lower()
            for needle, kind in _SQLITE:
                if needle in text:
                    return kind
    return None


def _folder(where: Path | None) -> Path | None:
    try:
        return where if where is not None else data_dir()
    except OSError:
        return None


def _nearly_full(folder: Path) -> bool:
    try:
        return shutil.disk_usage(folder).free < NEARLY_FULL
    except OSError:
        return False


def _read_only(folder: Path) -> bool:
    """The folder's filesystem is mounted read-only, or this user may not write in it."""
    try:
        if hasattr(os, "statvfs") and os.statvfs(folder).f_flag & getattr(os, "ST_RDONLY", 1):
            return True
        return Path(folder).is_dir() and not os.access(folder, os.W_OK)
    except OSError:
        return False


def not_damage(exc: BaseException, where: Path | None = None) -> bool:
    """True when a database error is the machine's fault (full, read-only, I/O, busy), not
    a damaged file: it must be said as such, never as "the vault is damaged"."""
    found = trouble(exc, where)
    return found is not None and found.kind != CORRUPT


_GONE = (errno.ENOENT, errno.ENOTDIR)  # said of a file the user chose: it is no longer there
GONE, OTHER = "gone", "other"  # why_kind's besides trouble's kinds


def why_not(exc: BaseException, where: Path | None = None, writing: bool = False, deleting: bool = False) -> str:
    """Why a file or folder the user chose could not be read (or, ``writing``, written;
    ``deleting``, deleted), in their words, as a clause without a full stop for "… could
    not be written: {reason}." Not of Hearth's data folder (``trouble(...).message`` says
    that one). A full disk, a folder that cannot be written to or read, a file no longer
    there, a failing disk, a file another program holds; anything else in a general
    sentence. The system's or SQLite's own words (English, with a path) are logged, not
    said. ``where``: the folder written to, which tells a full disk or a read-only one
    behind SQLite's "disk I/O error" (``trouble``)."""
    return said_why(why_kind(exc, where, writing), writing, deleting)


def why_kind(exc: BaseException, where: Path | None = None, writing: bool = False) -> str:
    """What ``why_not`` says, as data (FULL, READ_ONLY, GONE, IO, BUSY or OTHER): what a
    process without translations (the parser's) sends for its parent to say
    (``said_why``). The exception's own words go to the log here."""
    if where is not None:
        found = trouble(exc, where)
    else:  # not the data folder's space or permissions: only what the error itself says
        kind = _kind(exc)
        found = Trouble(kind) if kind else None
    gone = any(isinstance(c, OSError) and c.errno in _GONE for c in causes(exc))
    log.info("%s: %s", "writing" if writing else "reading", exc)
    if found is not None and found.kind in (FULL, READ_ONLY):
        return found.kind
    if gone:
        return GONE
    if found is not None and found.kind in (IO, BUSY):
        return found.kind
    if not isinstance(exc, OSError) and (found is None or found.kind != CORRUPT):
        log.warning("an unexpected failure on a file the user chose", exc_info=exc)
    return OTHER


def said_why(kind: object, writing: bool = False, deleting: bool = False) -> str:
    """``why_kind``'s answer said in the interface language (``why_not``); a kind it does not
    know (one stored by an older version, or none) in the general sentence."""
    if kind == FULL:
        return translate("storage.errors", "the disk is full; free some space or choose another drive, "
                         "then try again")
    if kind == READ_ONLY:
        if deleting:
            return translate("storage.errors", "Hearth is not allowed to delete it (it is read-only or not yours)")
        return translate("storage.errors", "that folder cannot be written to (it is read-only or not "
                         "yours); choose another") if writing else translate(
            "storage.errors", "Hearth is not allowed to read it; check its permissions")
    if kind == GONE:
        return translate("storage.errors", "it is no longer there (it was moved, renamed or deleted)") \
            if not writing else translate("storage.errors", "that folder is no longer there (it was moved, "
                                          "renamed or removed)")
    if kind == IO:
        return translate("storage.errors", "the disk reported a read or write error (it may be failing "
                         "or was removed)")
    if kind == BUSY:
        return translate("storage.errors", "another program is holding it; close that program, then "
                         "try again")
    return translate("storage.errors", "the system refused it (the details are in the log)")
