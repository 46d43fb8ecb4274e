"""Logging to a file in the data directory. Message text is never logged, only events.

Exceptions are logged as what they are and where they happened, never as what they say:
an ``OSError``'s message names the file (“Divorce lawyer - custody case.pdf”), a parser's
quotes the document, a database error carries the statement's values. So a traceback in
the log is the exception's type, its errno (or SQLite's code) and the file, line and
function of each of our frames, for the whole chain of causes; never its message or its
args. ``SafeFormatter`` applies that to every record, whoever logged it: ``exc_info``,
and exceptions passed as arguments (``log.warning("failed: %s", exc)``).
"""

from __future__ import annotations

import errno as errno_names
import logging
import logging.handlers
import os
import sys
import threading
from pathlib import Path
from types import TracebackType
from typing import Any

from storage.paths import logs_dir, open_private, private_file

_configured = False
_handler: logging.Handler | None = None

# Frames in these packages are ours: their file, line and function are logged.
OUR_PACKAGES = ("app", "cli", "core", "inference", "storage", "guard", "tests")
_ROOT = Path(__file__).resolve().parent.parent
MAX_CHAIN = 8  # causes and contexts followed from one exception
MAX_FRAMES = 12  # of ours, the innermost, per exception
MAX_GROUP = 5  # members of an exception group described


class _QuietFileHandler(logging.handlers.RotatingFileHandler):
    """A log line that cannot be written (a full disk) is dropped: it must never put a
    traceback in front of the user, nor stop what they were doing. The file (and each
    rotated one) is created 0600, whatever the umask."""

    def handleError(self, record: logging.LogRecord) -> None:  # noqa: N802 - logging's name
        pass

    def _open(self) -> Any:
        flags = os.O_WRONLY | os.O_CREAT | (os.O_APPEND if "a" in self.mode else os.O_TRUNC)
        fd = open_private(Path(self.baseFilename), flags)
        return os.fdopen(fd, self.mode, encoding=self.encoding, errors=self.errors)


def _type_name(exc: BaseException) -> str:
    kind = type(exc)
    module = kind.__module__
    return kind.__qualname__ if module in ("builtins", "__main__") else f"{module}.{kind.__qualname__}"


def _codes(exc: BaseException) -> str:
    """The numbers that say what went wrong without saying what it was done to."""
    codes = []
    if isinstance(exc, OSError):
        if isinstance(exc.errno, int):
            codes.append(f"errno {exc.errno} {errno_names.errorcode.get(exc.errno, '?')}")
        winerror = getattr(exc, "winerror", None)
        if isinstance(winerror, int):
            codes.append(f"winerror {winerror}")
    name = getattr(exc, "sqlite_errorname", None)
    if isinstance(name, str) and name.isidentifier():
        codes.append(f"sqlite {name}")
    return f" [{', '.join(codes)}]" if codes else ""


def _frame_label(code_file: str, module: str, line: int, function: str) -> tuple[bool, str]:
    """(ours, "core/models.py:58 in hash_file"); a library's frame is named by its module."""
    path = Path(code_file)
    try:
        relative = path.resolve().relative_to(_ROOT) if path.is_absolute() else path
    except (ValueError, OSError):
        relative = None
    if relative is not None and relative.parts and relative.parts[0] in OUR_PACKAGES:
        return True, f"{relative.as_posix()}:{line} in {function}"
    return False, f"{module or '?'}:{line} in {function}"


def _where(tb: TracebackType | None) -> str:
    ours: list[str] = []
    innermost = ""
    while tb is not None:
        code = tb.tb_frame.f_code
        module = str(tb.tb_frame.f_globals.get("__name__", ""))
        mine, label = _frame_label(code.co_filename, module, tb.tb_lineno, code.co_name)
        if mine:
            ours.append(label)
        innermost = label if not mine else ""
        tb = tb.tb_next
    frames = ours[-MAX_FRAMES:]
    if innermost:
        frames.append(f"(raised in {innermost})")
    return f" at {' > '.join(frames)}" if frames else ""


def _one(exc: BaseException, tb: TracebackType | None) -> str:
    text = f"{_type_name(exc)}{_codes(exc)}{_where(tb)}"
    group = getattr(exc, "exceptions", None)  # an exception group (3.11)
    if isinstance(group, tuple) and group and all(isinstance(e, BaseException) for e in group):
        members = [_one(e, e.__traceback__) for e in group[:MAX_GROUP]]
        more = len(group) - MAX_GROUP
        text += " containing {" + "; ".join(members) + (f"; {more} more" if more > 0 else "") + "}"
    return text


def describe_exception(exc: BaseException, tb: TracebackType | None = None) -> str:
    """The exception and its causes as types, codes and our code locations: no messages."""
    lines: list[str] = []
    seen: set[int] = set()
    current: BaseException | None = exc
    trace = tb if tb is not None else exc.__traceback__
    label = ""
    while current is not None and id(current) not in seen and len(lines) < MAX_CHAIN:
        seen.add(id(current))
        lines.append(label + _one(current, trace))
        if current.__cause__ is not None:
            current, label = current.__cause__, "caused by: "
        elif current.__context__ is not None and not current.__suppress_context__:
            current, label = current.__context__, "while handling: "
        else:
            current = None
        trace = current.__traceback__ if current is not None else None
    return "\n".join(lines)


def _safe(value: object) -> object:
    return f"<{describe_exception(value)}>" if isinstance(value, BaseException) else value


class SafeFormatter(logging.Formatter):
    """Formats a copy of the record in which exceptions are described, never quoted."""

    def format(self, record: logging.LogRecord) -> str:
        safe = logging.makeLogRecord(record.__dict__)
        safe.msg = _safe(record.msg)
        if isinstance(record.args, tuple):
            safe.args = tuple(_safe(a) for a in record.args)
        elif isinstance(record.args, dict):
            safe.args = {k: _safe(v) for k, v in record.args.items()}
        safe.exc_text = None  # another handler's formatter may have cached the full text
        return super().format(safe)

    def formatException(self, ei: Any) -> str:  # noqa: N802 - logging's name
        _kind, value, tb = ei
        if value is None:
            return ""
        return describe_exception(value, tb)


def setup_logging(verbose: bool = False) -> logging.Handler | None:
    """Log to logs/hearth.log (0600, in a 0700 folder). Returns the handler the first time."""
    global _configured, _handler
    if _configured:
        return None
    _configured = True
    handler = _QuietFileHandler(
        logs_dir() / "hearth.log", maxBytes=1_000_000, backupCount=3, encoding="utf-8"
    )
    private_file(Path(handler.baseFilename))  # a file an earlier version made 0644
    handler.setFormatter(SafeFormatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    root = logging.getLogger()
    root.addHandler(handler)
    root.setLevel(logging.DEBUG if verbose else logging.INFO)
    _handler = handler
    return handler


def log_unhandled(kind: type[BaseException], value: BaseException, tb: TracebackType | None) -> None:
    logging.getLogger("hearth").error("unhandled exception", exc_info=(kind, value, tb))
    sys.__excepthook__(kind, value, tb)


def log_thread_exception(args: threading.ExceptHookArgs) -> None:
    """A thread that dies of a bug leaves its traceback in the log, not only on stderr."""
    if args.exc_type is SystemExit:
        return
    name = args.thread.name if args.thread is not None else "?"
    log = logging.getLogger("hearth")
    if args.exc_value is None:
        log.error("unhandled %s in thread %s", args.exc_type.__qualname__, name)
        return
    log.error("unhandled exception in thread %s", name,
              exc_info=(args.exc_type, args.exc_value, args.exc_traceback))


def install_hooks() -> None:
    """Bugs on any thread reach the log."""
    sys.excepthook = log_unhandled
    threading.excepthook = log_thread_exception
