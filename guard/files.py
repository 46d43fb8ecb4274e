"""A file from outside opened safely: without waiting, and only as a regular file.

A FIFO (an archive keeps one; a file dialog lists it) or a device chosen where a file is
expected made ``open`` wait for a writer that never comes, on whichever thread asked (the
window's, for a model's header). ``open_regular`` opens without blocking and refuses what
is not a regular file."""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import BinaryIO

FLAGS = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0)


class NotRegular(OSError):
    """The path is a FIFO, a device, a folder: not a file to read."""


def open_regular(path: Path | str) -> tuple[BinaryIO, os.stat_result]:
    """The file at ``path``, open for reading, and its stat; NotRegular where it is not a
    regular file, OSError as it comes otherwise."""
    fh = os.fdopen(os.open(path, FLAGS), "rb")
    try:
        info = os.fstat(fh.fileno())
        if not stat.S_ISREG(info.st_mode):
            raise NotRegular(f"{path} is not a regular file")
    except BaseException:
        fh.close()
        raise
    return fh, info
