"""Logging to a file in the data directory. Message text is never logged, only events."""

from __future__ import annotations

import logging
import logging.handlers
import sys
import traceback
from types import TracebackType

from storage.paths import logs_dir

_configured = False


def setup_logging(verbose: bool = False) -> None:
    global _configured
    if _configured:
        return
    _configured = True
    handler = logging.handlers.RotatingFileHandler(
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
