"""One Hearth process per data directory: an OS file lock, released when the process ends.

The lock is advisory and per-process (``flock`` / ``msvcrt.locking``), so a crashed
instance never leaves a stale lock behind. ``held`` says whether this process holds a
folder's lock: only the one Hearth that does may clear what a crash left there
(``storage.erase.erase_leftovers``), since a command that only reads runs beside it.

``exclusive`` is the same kind of lock, waited for, around one piece of work that two
threads or two processes must not do at once in the same folder (placing the speech model:
``core.speech``).
"""

from __future__ import annotations

import errno
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO

from i18n import translate
from storage.paths import private_file

SOCKET_FILE = "instance.sock"  # the running instance's activation socket (app.shell.single_instance)
WAIT_POLL = 0.1  # seconds between two tries of a lock that is waited for

_held: set[Path] = set()  # the folders whose lock this process holds


def held(folder: Path) -> bool:
    """Whether this process holds the lock of ``folder``."""
    return Path(folder).resolve() in _held


class AlreadyRunning(Exception):
    pass


class InstanceLock:
    def __init__(self, folder: Path) -> None:
        self.path = Path(folder) / "hearth.lock"
        self._fh: IO[str] | None = None

    def acquire(self, wait: float = 0.0) -> None:
        """Take the lock; ``wait``: seconds to keep trying while another process holds it
        (a restart: the instance that is quitting lets go in a moment)."""
        deadline = time.monotonic() + wait
        while True:
            try:
                self._acquire_now()
                return
            except AlreadyRunning:
                if time.monotonic() >= deadline:
                    raise
                time.sleep(WAIT_POLL)

    def _acquire_now(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fh = open(self.path, "a+")  # noqa: SIM115 - held open for the process's life
        private_file(self.path)
        try:
            if sys.platform == "win32":
                import msvcrt

                fh.seek(0)
                msvcrt.locking(fh.fileno(), msvcrt.LK_NBLCK, 1)
            else:
                import fcntl

                fcntl.flock(fh.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            fh.close()
            raise AlreadyRunning(translate(
                "storage.instance_lock",
                "Hearth is already open with this data folder. Use the window that is open, "
                "or close it first.",
            )) from None
        self._fh = fh
        _held.add(self.path.parent.resolve())

    def release(self) -> None:
        if self._fh is not None:
            _held.discard(self.path.parent.resolve())
            self._fh.close()
            self._fh = None

    def __enter__(self) -> InstanceLock:
        self.acquire()
        return self

    def __exit__(self, *_exc: object) -> None:
        self.release()


@contextmanager
def exclusive(path: Path) -> Iterator[None]:
    """Hold the OS lock of the file ``path`` (made if missing), waiting while another
    process or thread holds it. Per open file, so two threads of one process exclude each
    other as two processes do; a process that dies lets go, so a crash leaves no lock."""
    with open(path, "a+") as fh:
        private_file(path)
        while True:
            try:
                if sys.platform == "win32":
                    import msvcrt

                    fh.seek(0)
                    msvcrt.locking(fh.fileno(), msvcrt.LK_NBLCK, 1)
                else:
                    import fcntl

                    fcntl.flock(fh.fileno(), fcntl.LOCK_EX)
                break
            except OSError as exc:
                if sys.platform != "win32" or exc.errno not in (errno.EACCES, errno.EDEADLK):
                    raise  # a folder without locks (some network mounts): said by the caller
                time.sleep(WAIT_POLL)  # held by another: msvcrt has no lock that waits long
        try:
            yield
        finally:
            if sys.platform == "win32":
                import msvcrt

                fh.seek(0)
                msvcrt.locking(fh.fileno(), msvcrt.LK_UNLCK, 1)
