"""Logging to a file in the data directory. Message text is never logged, only events."""

from __future__ import annotations

import logging
import logging.handlers
import sys
import threading
import traceback
from types import TracebackType

from storage.paths import logs_dir

_configured = False


class _QuietFileHandler(logging.handlers.RotatingFileHandler):
    """A log line that cannot be written (a full disk) is dropped: it must never put a
    traceback in front of the user, nor stop what they were doing."""

    def handleError(self, record: logging.LogRecord) -> None:  # noqa: N802 - logging's name
        pass


def setup_logging(verbose: bool = False) -> None:
    global _configured
    if _configured:
        return
    _configured = True
    handler = _QuietFileHandler(
        logs_dir() / "hearth.log", maxBytes=1_000_000, backupCount=3, encoding="utf-8"
    )
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    root = logging.getLogger()
    root.addHandler(handler)
    root.setLevel(logging.DEBUG if verbose else logging.INFO)


def log_unhandled(kind: type[BaseException], value: BaseException, tb: TracebackType | None) -> None:
    logging.getLogger("hearth").error(
        "unhandled exception:\n%s", "".join(traceback.format_exception(kind, value, tb))
    )
    sys.__excepthook__(kind, value, tb)


def log_thread_exception(args: threading.ExceptHookArgs) -> None:
    """A thread that dies of a bug leaves its traceback in the log, not only on stderr."""
    if args.exc_type is SystemExit:
        return
    name = args.thread.name if args.thread is not None else "?"
    logging.getLogger("hearth").error(
        "unhandled exception in thread %s:\n%s", name,
        "".join(traceback.format_exception(args.exc_type, args.exc_value, args.exc_traceback)),
    )


def install_hooks() -> None:
    """Bugs on any thread reach the log."""
    sys.excepthook = log_unhandled
    threading.excepthook = log_thread_exception
