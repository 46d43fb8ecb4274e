"""Parse files in a separate process, with a time limit and a memory limit.

A crafted PDF or DOCX can make a parser run forever or allocate gigabytes; in a child
process that only costs the child. The child keeps running between files (imports are
paid once) and is replaced after a time-out or a crash. On Linux its address space is
capped, so a decompression bomb ends in a MemoryError there, not in the app.

The owner thread may be woken while it waits for the child (``wake``): the document
service answers searches between any two steps of an import, a parse included. And any
thread may ``kill()`` the child, so that quitting never waits for a parse to finish.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import sys
import threading
import time
from collections.abc import Callable
from multiprocessing.connection import Connection, wait
from pathlib import Path
from typing import Any

from storage.documents.parsers import ParseError, Section, parse

TIMEOUT = 60.0
MEMORY_LIMIT = 1536 << 20  # address space of the parser process


class ParseStopped(ParseError):
    """The parse was stopped by ``kill()``: nothing is wrong with the file."""

    def __init__(self) -> None:
        super().__init__("parsing was stopped")


def _child(conn: Connection, memory_limit: int) -> None:
    from guard import egress

    egress.install()  # the parser reads hostile files: it gets no network either
    if sys.platform.startswith("linux"):
        import resource

        resource.setrlimit(resource.RLIMIT_AS, (memory_limit, memory_limit))
    while True:
        try:
            path = conn.recv()
        except EOFError:
            return
        if path is None:
            return
        try:
            sections, notes = parse(Path(path))
            reply: tuple[Any, ...] = ("ok", [(s.text, s.page, s.heading) for s in sections], notes)
        except ParseError as exc:
            reply = ("error", str(exc))
        except MemoryError:
            reply = ("error", f"the parser needed more than {memory_limit >> 20} MB of memory "
                              "(a decompression bomb, or a file too complex)")
        except RecursionError:
            reply = ("error", "the file's structure is nested too deeply")
        except Exception as exc:
            reply = ("error", f"the parser failed ({type(exc).__name__}: {str(exc)[:200]})")
        import resource as _resource

        peak = _resource.getrusage(_resource.RUSAGE_SELF).ru_maxrss * (1 if sys.platform == "darwin" else 1024)
        conn.send((*reply, peak) if reply[0] == "ok" else (*reply, [], peak))


class IsolatedParser:
    def __init__(self, timeout: float = TIMEOUT, memory_limit: int = MEMORY_LIMIT) -> None:
        self.timeout = timeout
        self.memory_limit = memory_limit
        self._context = multiprocessing.get_context("spawn")
        self._process: Any = None
        self._conn: Connection | None = None
        self.last_peak_rss = 0
        # kill() comes from another thread; it and the owner agree on the child under this.
        self._lock = threading.Lock()
        self._kill_requested = False

    def kill(self) -> None:
        """End the parse under way (or the next one) at once with ParseStopped.

        Safe from any thread: it only kills the child; the owner thread sees the pipe close
        and cleans up. The parse after that one starts a fresh child.
        """
        with self._lock:
            self._kill_requested = True
            process = self._process
        if process is not None:
            process.kill()

    def _start(self) -> None:
        parent, child = self._context.Pipe()
        process = self._context.Process(target=_child, args=(child, self.memory_limit), daemon=True)
        process.start()
        child.close()
        with self._lock:
            self._process, self._conn = process, parent
            killed = self._kill_requested
        if killed:  # kill() came while the child was starting: it must not run unseen
            process.kill()

    def _stop(self, kill: bool) -> None:
        with self._lock:
            process, conn = self._process, self._conn
            self._process, self._conn = None, None
        if process is None:
            return
        if kill:
            process.kill()
        else:
            try:
                assert conn is not None
                conn.send(None)
            except (OSError, BrokenPipeError):
                process.kill()
        process.join(5)
        if process.is_alive():
            process.kill()
            process.join(5)
        if conn is not None:
            conn.close()

    def parse(self, path: Path, wake: Connection | None = None,
              on_wake: Callable[[], None] | None = None) -> tuple[list[Section], list[str]]:
        """Sections and notes of ``path``; ParseError with the reason, ParseStopped if killed.

        While it waits, ``on_wake`` runs each time ``wake`` becomes readable (it must read
        what is there); if it raises, the child is killed and the exception goes up.
        """
        with self._lock:
            if self._kill_requested:
                self._kill_requested = False
                raise ParseStopped()
            fresh = self._process is None or not self._process.is_alive()
        if fresh:
            self._stop(kill=True)  # the remains of a child that died between files
            self._start()
        conn = self._conn
        assert conn is not None
        with contextlib.suppress(OSError):  # the child is gone (killed): the recv says so
            conn.send(str(path))
        deadline = time.monotonic() + self.timeout
        waitables: list[Any] = [conn] if wake is None else [conn, wake]
        while True:
            remaining = deadline - time.monotonic()
            ready = wait(waitables, timeout=remaining) if remaining > 0 else []
            if conn in ready:
                break
            if not ready:
                self._stop(kill=True)
                raise ParseError(f"parsing took longer than {self.timeout:.0f} s and was stopped")
            try:
                if on_wake is not None:
                    on_wake()
            except BaseException:
                self._stop(kill=True)
                raise
        try:
            reply = conn.recv()
        except (EOFError, OSError):
            with self._lock:
                killed, self._kill_requested = self._kill_requested, False
                code = self._process.exitcode if self._process else None
            self._stop(kill=True)
            if killed:
                raise ParseStopped() from None
            raise ParseError(f"the parser process died (exit {code}); "
                             "the file may be crafted or damaged") from None
        if reply[0] == "error":
            self.last_peak_rss = reply[3]
            raise ParseError(reply[1])
        _, sections, notes, peak = reply
        self.last_peak_rss = peak
        return [Section(*s) for s in sections], notes

    def close(self) -> None:
        self._stop(kill=False)

    def __enter__(self) -> IsolatedParser:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()
