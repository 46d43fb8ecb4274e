"""Opening the vault's SQLite file: pragmas, integrity check and migrations."""

from __future__ import annotations

import threading
import weakref
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from sqlalchemy import Engine, create_engine, event
from sqlalchemy.exc import DatabaseError, OperationalError
from sqlalchemy.pool import NullPool

from i18n import translate
from storage.errors import not_damage

MIGRATIONS = Path(__file__).resolve().parent / "migrations"
# The newest migration's revision (tests/storage/test_migrations.py holds it to alembic's
# head): a vault already there opens without importing alembic, 12 MB of resident memory.
HEAD = "0004_versions"
SQLITE_MAGIC = b"SQLite format 3\x00"


class VaultClosed(Exception):
    """The vault was closed (lock, quit, delete everything): it is neither read nor written.

    A background job that still tries gets this instead of a fresh connection, which
    SQLite would happily open, and which after an erase would create an empty vault file.
    """

    def __init__(self, message: str | None = None) -> None:
        super().__init__(message if message is not None else translate(
            "storage.db", "The vault is closed: nothing more is read or written."))


def _pragmas(dbapi_connection: Any, _record: Any) -> None:
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA synchronous=FULL")  # a commit that returned survives a crash
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.execute("PRAGMA secure_delete=ON")  # deleted rows are overwritten with zeros
    cursor.execute("PRAGMA temp_store=MEMORY")  # no temporary files beside the database
    cursor.close()


@contextmanager
def snapshot(engine: Engine) -> Iterator[Any]:
    """A connection whose reads all see one state of the file (one read transaction).

    Without it each SELECT sees the latest commit: a row read before another thread's or
    process's write, compared with a record read after it (a chat's list of messages, the
    root record of versions), would look like a row put back from a backup."""
    with engine.connect() as conn:
        conn.exec_driver_sql("BEGIN")
        yield conn


def make_engine(path: Path) -> Engine:
    # hide_parameters: an error message never carries row contents into a log.
    engine = create_engine(f"sqlite:///{path}", poolclass=NullPool, hide_parameters=True)
    event.listen(engine, "connect", _pragmas)
    return engine


_refusing_lock = threading.Lock()
_refusing: weakref.WeakSet[Engine] = weakref.WeakSet()


def refuse_connections(engine: Engine) -> None:
    """From now on every new connection of ``engine`` raises VaultClosed.

    With NullPool every statement opens its own connection, so this shuts the door for
    every thread at once; connections already open are the caller's to dispose of.
    """
    with _refusing_lock:
        if engine in _refusing:
            return
        _refusing.add(engine)

    def refuse(*_args: Any) -> None:
        raise VaultClosed()

    event.listen(engine, "do_connect", refuse)


def refuses_connections(engine: Engine) -> bool:
    with _refusing_lock:
        return engine in _refusing


def looks_like_sqlite(path: Path) -> bool:
    with open(path, "rb") as fh:
        return fh.read(len(SQLITE_MAGIC)) == SQLITE_MAGIC


def integrity_problem(engine: Engine, full: bool = False) -> str | None:
    """None when SQLite finds the file sound; otherwise what it found."""
    try:
        with engine.connect() as conn:
            rows = conn.exec_driver_sql("PRAGMA integrity_check" if full else "PRAGMA quick_check").all()
    except DatabaseError as exc:
        if not_damage(exc, Path(engine.url.database or ".").parent):
            raise  # a full disk or a read-only folder is no verdict on the file
        return str(exc.orig)
    found = [r[0] for r in rows]
    return None if found == ["ok"] else "; ".join(found[:5])


def alembic_config(engine_connection: Any) -> Any:
    from alembic.config import Config

    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    config.attributes["connection"] = engine_connection
    return config


def head_revision() -> str:
    from alembic.config import Config
    from alembic.script import ScriptDirectory

    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    head = ScriptDirectory.from_config(config).get_current_head()
    assert head is not None
    return head


def current_revision(engine: Engine) -> str | None:
    from alembic.runtime.migration import MigrationContext

    with engine.connect() as conn:
        return MigrationContext.configure(conn).get_current_revision()


def _recorded_revision(engine: Engine) -> str | None:
    """The revision in alembic's own table, read without alembic; None if there is none."""
    try:
        with engine.connect() as conn:
            rows = conn.exec_driver_sql("SELECT version_num FROM alembic_version").all()
    except OperationalError as exc:
        if "no such table" in str(exc.orig):
            return None
        raise
    return rows[0][0] if len(rows) == 1 else None


def known_revisions() -> set[str]:
    """The schema revisions this Hearth has migrations for (their files' names)."""
    return {path.stem for path in (MIGRATIONS / "versions").glob("[0-9]*.py")}


def recorded_revision(engine: Engine) -> str | None:
    return _recorded_revision(engine)


def migrate(engine: Engine, revision: str = "head") -> None:
    """Bring the schema to ``revision`` through the versioned migrations (nothing to do,
    and alembic not even imported, when it is at the head already)."""
    if revision == "head" and _recorded_revision(engine) == HEAD:
        return
    from alembic import command

    with engine.begin() as conn:
        command.upgrade(alembic_config(conn), revision)


def checkpoint(engine: Engine) -> None:
    """Fold the write-ahead log into the database file and empty it."""
    with engine.connect() as conn:
        conn.exec_driver_sql("PRAGMA wal_checkpoint(TRUNCATE)")


def checkpoint_file(path: Path) -> None:
    """``checkpoint`` through a connection of its own, for an engine that refuses them.

    Only an existing file: SQLite would create a missing one, and a vault that was just
    erased must not come back as an empty file.
    """
    if not Path(path).is_file():
        return
    engine = make_engine(path)
    try:
        checkpoint(engine)
    finally:
        engine.dispose()


def inserted_id(result: Any) -> int:
    """The row id an INSERT produced."""
    key = result.inserted_primary_key
    if key is None:
        raise RuntimeError("the insert returned no row id")
    return int(key[0])
