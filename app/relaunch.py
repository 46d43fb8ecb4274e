"""Starting Hearth again from outside the kernel line (Linux).

When nothing needs the network, the window's process closes it for itself and all its
children for good (guard/seccomp.py). Switching the local API on then needs a new
Hearth, and one started from this process (QProcess.startDetached forks it) inherits
the same filter: it could not listen either. So before the filter goes in, the window
forks a small relauncher: it holds nothing of the session (it is forked before anything
is read, even the settings' engines' names are not in it), waits on a pipe and, once
this Hearth has ended (the pipe's end), starts the new one if it was asked to
(``request``), in a session of its own, or simply ends.

No Qt here: it runs before the window's imports.
"""

from __future__ import annotations

import json
import os
import sys

_requests: list[int] = []  # the pipe's write end, while a relauncher waits on it


def arm() -> bool:
    """Fork the relauncher (Linux only; once). False where there is none."""
    if _requests or not sys.platform.startswith("linux"):
        return bool(_requests)
    read_end, write_end = os.pipe()  # not inherited by the programs this process starts
    pid = os.fork()
    if pid == 0:  # the relauncher
        os.close(write_end)
        _wait_then_start(read_end)
    os.close(read_end)
    _requests.append(write_end)
    return True


def armed() -> bool:
    return bool(_requests)


_asked: list[int] = []  # the write end once asked: kept open until this process ends


def request(program: str, arguments: list[str], folder: str, environment: dict[str, str]) -> bool:
    """Ask the relauncher to start ``program`` once this process has ended (the pipe's
    write end stays open until then: its end is the signal); False if there is none (it
    was not armed, or it is gone)."""
    if not _requests:
        return False
    payload = json.dumps({"program": program, "arguments": arguments, "folder": folder,
                          "environment": environment}).encode()
    write_end = _requests.pop()
    try:
        os.write(write_end, payload)
    except OSError:
        os.close(write_end)
        return False
    _asked.append(write_end)
    return True


def _wait_then_start(read_end: int) -> None:
    """In the relauncher: read until every writer is gone (this Hearth has quit, or died),
    then start what was asked, or nothing. Never returns."""
    try:
        os.closerange(3, read_end)  # nothing of this process's files is kept open
        os.closerange(read_end + 1, 65536)
        asked = b""
        while chunk := os.read(read_end, 1 << 16):
            asked += chunk
        if asked:
            wanted = json.loads(asked)
            os.chdir(wanted["folder"])
            os.setsid()  # its own session, as a program started from the desktop: not the terminal's
            quiet = os.open(os.devnull, os.O_RDWR)
            for standard in (0, 1, 2):
                os.dup2(quiet, standard)
            os.execve(wanted["program"], [wanted["program"], *wanted["arguments"]], wanted["environment"])
    except BaseException:  # noqa: S110 - nothing to tell, and no one to tell it to
        pass
    os._exit(0)
