"""Parse files in a separate process, with a time limit and a memory limit.

A crafted PDF or DOCX can make a parser run forever or allocate gigabytes; in a child
process that only costs the child. The child keeps running between files (imports are
paid once) and is replaced after a time-out or a crash. On Linux its address space is
capped, so a decompression bomb ends in a MemoryError there, not in the app.
"""

from __future__ import annotations

import multiprocessing
import sys
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

from storage.documents.parsers import ParseError, Section, parse

TIMEOUT = 60.0
MEMORY_LIMIT = 1536 << 20  # address space of the parser process


def _child(conn: Connection, memory_limit: int) -> None:
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

    def _start(self) -> None:
        parent, child = self._context.Pipe()
        self._process = self._context.Process(target=_child, args=(child, self.memory_limit), daemon=True)
        self._process.start()
        child.close()
        self._conn = parent

    def _stop(self, kill: bool) -> None:
        if self._process is None:
            return
        if kill:
            self._process.kill()
        else:
            try:
                assert self._conn is not None
                self._conn.send(None)
            except (OSError, BrokenPipeError):
                self._process.kill()
        self._process.join(5)
        if self._process.is_alive():
            self._process.kill()
            self._process.join(5)
        if self._conn is not None:
            self._conn.close()
        self._process, self._conn = None, None

    def parse(self, path: Path) -> tuple[list[Section], list[str]]:
        if self._process is None or not self._process.is_alive():
            self._start()
        assert self._conn is not None
        self._conn.send(str(path))
        if not self._conn.poll(self.timeout):
            self._stop(kill=True)
            raise ParseError(f"parsing took longer than {self.timeout:.0f} s and was stopped")
        try:
            reply = self._conn.recv()
        except (EOFError, OSError):
            code = self._process.exitcode if self._process else None
            self._stop(kill=True)
            raise ParseError(f"the parser process died (exit {code}); the file may be crafted or damaged") from None
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
