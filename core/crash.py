"""Crash reports (#43), kept on this computer and never sent anywhere.

When Hearth dies of a fault in native code (a segmentation fault in llama.cpp or Qt, an
abort, an illegal instruction), Python's ``faulthandler`` writes where each thread was to
a file of this process's own (``logs/fault-PID.txt``, 0600); when an exception escapes the
entry point, its description (``core.logs.describe_exception``: types, codes and code
locations, never a message) goes to a report at once. The next start of any Hearth
command turns a dead process's non-empty fault file into a report in
``logs/crash-reports/`` (the last ``KEPT``), with the versions and the platform; the window
then offers to show it and copy it (``pending``, ``seen``).

What a report holds is where in the code it happened: the fault's kind, each thread's
frames as file, line and function, with the home folder written "~". Never a value: no
chat or document text, no file name of the user's, no passphrase (faulthandler writes
none, and only the lines of its own forms are kept).
"""

from __future__ import annotations

import contextlib
import faulthandler
import os
import platform
import re
import sys
import time
from pathlib import Path
from typing import IO

from storage.paths import logs_dir, open_private, private_dir

KEPT = 5
UNSEEN = ".new"
_FRAME = re.compile(r'^\s+File "(?P<file>[^"\n]*)", line (?P<line>\d+) in (?P<function>[\w<>.]+)$')
_HEADER = re.compile(r"^(Fatal Python error: [\w ]+|Windows fatal exception: [\w ]+"
                     r"|(Current thread|Thread) 0x[0-9a-f]+( \(most recent call first\))?:"
                     r"|  <no Python frame>|\s+\.\.\.|Extension modules: .*|<Cannot show all threads while the GIL "
                     r"is disabled>|Python runtime state: \w+)$")
_armed: IO[bytes] | None = None
_before = False  # faulthandler was on (to stderr: a test runner's) before arm()


def reports_dir() -> Path:
    return private_dir(logs_dir() / "crash-reports")


def versions() -> list[str]:
    from importlib import metadata

    def version(name: str) -> str:
        try:
            return metadata.version(name)
        except metadata.PackageNotFoundError:
            return "-"

    return [f"Hearth {version('hearth')}", f"Python {platform.python_version()}",
            f"PySide6 {version('PySide6-Essentials')}", f"llama-cpp-python {version('llama_cpp_python')}",
            f"{platform.system()} {platform.release()} {platform.machine()}"]


def clean(text: str) -> str:
    """Only the lines of faulthandler's own forms, paths under the home folder as "~", the
    rest of a frame's path kept only for code (site-packages, the app's own folders)."""
    home = str(Path.home())
    mine = re.compile(re.escape(home), re.IGNORECASE if sys.platform in ("win32", "darwin") else 0)
    kept = []
    for line in text.splitlines()[:2000]:
        frame = _FRAME.match(line)
        if frame:
            file = mine.sub("~", frame["file"]) if home and home != "/" else frame["file"]
            kept.append(f'  File "{file}", line {frame["line"]} in {frame["function"]}')
        elif _HEADER.match(line):
            kept.append(line[:300])
    return "\n".join(kept)


def _write(kind: str, body: str, when: float) -> Path:
    stamp = time.strftime("%Y%m%d-%H%M%S", time.localtime(when))
    target = reports_dir() / f"crash-{stamp}-{os.getpid()}.txt{UNSEEN}"
    text = "\n".join([f"Hearth crash report · {time.strftime('%Y-%m-%d %H:%M:%S', time.localtime(when))}",
                      " · ".join(versions()), f"What: {kind}", "", body, ""])
    fd = open_private(target)
    with os.fdopen(fd, "w", encoding="utf-8") as out:
        out.write(text)
    _prune()
    return target


def _prune() -> None:
    reports = sorted(reports_dir().glob("crash-*.txt*"), key=lambda p: p.stat().st_mtime)
    for old in reports[:-KEPT]:
        old.unlink(missing_ok=True)


def _alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    if sys.platform == "win32":  # pragma: no cover - os.kill(pid, 0) is no probe there
        import ctypes

        kernel = ctypes.windll.kernel32  # type: ignore[attr-defined]
        handle = kernel.OpenProcess(0x1000, False, pid)  # PROCESS_QUERY_LIMITED_INFORMATION
        if handle:
            kernel.CloseHandle(handle)
        return bool(handle)
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True  # another user's, or not ours to signal: not ours to collect
    return True


def collect(own: bool = False) -> list[Path]:
    """Reports made from the fault files of processes that are gone (empty ones, of a
    process that ended well, are removed). ``own``: this process's file too (at start: a
    crashed run that had this process id before, after a reboot, say)."""
    made = []
    for fault in logs_dir().glob("fault-*.txt"):
        try:
            pid = int(fault.stem.split("-", 1)[1])
        except ValueError:
            continue
        if _alive(pid) and not (own and pid == os.getpid()):
            continue
        with contextlib.suppress(OSError):
            text = fault.read_text(encoding="utf-8", errors="replace")[:200_000]
            if text.strip():
                first = next((ln for ln in text.splitlines()
                              if ln.startswith(("Fatal Python error", "Windows fatal exception"))), "")
                kind = (first.removeprefix("Fatal Python error: ").removeprefix("Windows fatal exception: ")
                        or "the process ended in native code")
                made.append(_write(kind, clean(text), fault.stat().st_mtime))
            fault.unlink()
    return made


def arm() -> None:
    """At each start: collect what dead processes left, then let faulthandler write this
    one's fault file should it die in native code. Nothing is armed where the file
    cannot be made (a read-only or full disk): a crash then leaves no report, and that
    is all."""
    global _armed, _before
    if _armed is not None:
        return
    with contextlib.suppress(OSError):
        collect(own=True)
    _before = faulthandler.is_enabled()
    try:
        fd = open_private(logs_dir() / f"fault-{os.getpid()}.txt")
    except OSError:
        return
    _armed = os.fdopen(fd, "wb", buffering=0)
    faulthandler.enable(file=_armed, all_threads=True)


def disarm() -> None:
    """A clean end: the fault file goes (an empty one would be removed next time anyway)."""
    global _armed
    if _armed is None:
        return
    with contextlib.suppress(Exception):
        faulthandler.disable()
        if _before:
            faulthandler.enable(file=sys.stderr, all_threads=True)
        _armed.close()
        (logs_dir() / f"fault-{os.getpid()}.txt").unlink(missing_ok=True)
    _armed = None


def record(exc: BaseException) -> Path | None:
    """An exception that escaped the entry point: its description, as a report."""
    from core.logs import describe_exception

    with contextlib.suppress(OSError):
        return _write("an unhandled Python exception", describe_exception(exc).replace(str(Path.home()), "~"),
                      time.time())
    return None


def pending() -> list[Path]:
    """The reports not shown yet, newest first."""
    with contextlib.suppress(OSError):
        return sorted(reports_dir().glob(f"crash-*.txt{UNSEEN}"), key=lambda p: p.stat().st_mtime, reverse=True)
    return []


def seen(report: Path) -> Path:
    """Mark a report as offered (it stays, among the last ``KEPT``); its new path."""
    kept = report.with_name(report.name.removesuffix(UNSEEN))
    with contextlib.suppress(OSError):
        report.replace(kept)
    return kept


def read(report: Path) -> str:
    return report.read_text(encoding="utf-8", errors="replace")[:200_000]
