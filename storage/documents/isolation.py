"""Hash and parse files in a separate process, with a time limit and a memory limit.

A crafted PDF or DOCX can make a parser run forever or allocate gigabytes; in a child
process that only costs the child. The child keeps running between files (imports are
paid once) and is replaced after a time-out or a crash. On Linux its address space is
capped, so a decompression bomb ends in a MemoryError there, not in the app. The file's
hash is read there too, under the same limits: the app's own process never reads a
file's content.

The child is as untrusted as the files it reads: it answers in JSON of a bounded size,
never in pickle (the parent holds the vault key), and the parent believes a reply only in
the shape an honest child gives it (``parser_replies``). What runs in the child, its
setup (the egress guard, the no-core-dump limit, no ``HEARTH_PASSPHRASE``) and its
answers, is ``parser_child``; this module is the parent's side: the child's start and
stop, the requests, the time limit on each reply and the size limit on what is read.

The owner thread may be woken while it waits for the child (``wake``): the document
service answers searches between any two steps of an import, a parse included. And any
thread may ``kill()`` the child, so that quitting never waits for a parse to finish.

``read_ahead`` asks the child for the next file's hash and parse while the owner is busy
with something else (embedding the file before it): the child answers its requests in
order, and the next ``digest`` and ``parse`` of that file take the replies waiting for
them. A reply nobody asks for (the file turned out to be a duplicate) is read and dropped;
its time limit, like every reply's, runs from the moment the owner waits for it.

The time limit counts the child's own processor time: on a machine busy with other work
a sound file is not stopped for the time the child spent waiting for a processor. A child
that uses no processor (a disk that does not answer) is stopped after BACKSTOP limits of
wall time, and at most EXTRA_MAX seconds past its limit. A parser for background work (an import) runs at a lower scheduling priority
than the app, so that an answer being written comes first; one whose reply the user waits
for (an attachment, a page picture, dictation) runs at the app's own.
"""

from __future__ import annotations

import contextlib
import json
import logging
import multiprocessing
import os
import sys
import threading
import time
from collections import deque
from collections.abc import Callable
from multiprocessing.connection import Connection, wait
from pathlib import Path
from typing import Any

from i18n import translate
from storage.documents import parser_child, parsers
from storage.documents.parser_child import MAX_REPLY
from storage.documents.parser_replies import Malformed, checked
from storage.documents.parsers import Identity, ParseError, Section

log = logging.getLogger(__name__)
TIMEOUT = 60.0
# A child that used less processor than its time limit (starved by other work, or waiting
# on a disk) is waited for, up to this many limits of wall time, and at most EXTRA_MAX
# seconds past its limit (a recording's hour-long limit gets four minutes more, not four hours).
BACKSTOP = 5
EXTRA_MAX = 240.0
NICE = 10  # a background child's niceness above the app's (POSIX; below normal on Windows)
MEMORY_LIMIT = 1536 << 20  # address space of the parser process
# Text recognition runs in a child of its own with more room: ONNX Runtime's detection of a
# 200-dpi A4 page peaks near 0.9 GB resident and fails under a 1.5 GB address space.
OCR_MEMORY_LIMIT = 2560 << 20
MAX_REASON = 500
MAX_RECORDING = 64 << 20  # a recording sent through the pipe (five minutes of dictation at 48 kHz: 29 MB)


class ParseStopped(ParseError):
    """The parse was stopped by ``kill()``: nothing is wrong with the file."""

    def __init__(self) -> None:
        super().__init__(translate("storage.documents.isolation", "parsing was stopped"))


_Key = tuple[str, str, tuple[int, int] | None, tuple[int, int, int] | None]
STALE_WAIT = 2.0  # seconds a reply read ahead for nothing is waited for, before its child is replaced


def _version(path: Path) -> tuple[int, int, int] | None:
    """The file's size and times (metadata only): a file changed in place since it was
    read ahead is read again, not taken from before."""
    try:
        info = os.lstat(path)
    except OSError:
        return None
    return info.st_size, info.st_mtime_ns, info.st_ctime_ns


def _key(op: str, path: Path, identity: Identity | None) -> _Key:
    """What a request asks: its reply answers only the same question, about the same
    version of the same file."""
    return op, str(path), (int(identity[0]), int(identity[1])) if identity else None, _version(path)


def _watched(pid: int, background: bool) -> Any:
    """The child's psutil.Process (None where psutil cannot see it), lowered in priority
    for background work. Linux keeps a niceness per thread: this runs before the child's
    first request, and the child starts no thread before one (its setup starts none, the
    parsers are imported for a request), so every thread it makes inherits it."""
    import psutil

    try:
        process = psutil.Process(pid)
    except (psutil.Error, OSError):
        return None
    if background:
        with contextlib.suppress(psutil.Error, OSError):  # it runs at the app's priority then
            if sys.platform == "win32":
                process.nice(psutil.BELOW_NORMAL_PRIORITY_CLASS)
            else:
                process.nice(min(19, process.nice() + NICE))
    return process


def _processor_seconds(process: Any) -> float | None:
    """The processor time ``process`` (a psutil.Process) has used, all its threads; None
    where it cannot be read."""
    if process is None:
        return None
    import psutil

    try:
        used = process.cpu_times()
    except (psutil.Error, OSError):
        return None
    return float(used.user + used.system)


class IsolatedParser:
    def __init__(self, timeout: float = TIMEOUT, memory_limit: int = MEMORY_LIMIT,
                 child: Callable[[Connection, int], None] = parser_child.main,
                 background: bool = True) -> None:
        """``child`` is the child's entry (a module-level function, for spawn); tests
        give one that misbehaves. ``background``: the child yields the processor to the
        app (an import); False where the user waits for its reply."""
        self.timeout = timeout
        self.memory_limit = memory_limit
        self.background = background
        self._clock: Any = None  # the child's psutil.Process: its processor time
        self._target = child
        self._context = multiprocessing.get_context("spawn")
        self._process: Any = None
        self._conn: Connection | None = None
        self.last_peak_rss = 0
        # kill() comes from another thread; it and the owner agree on the child under this.
        self._lock = threading.Lock()
        self._kill_requested = False
        # Requests sent ahead whose replies are not read yet, in the order the child answers.
        self._ahead: deque[_Key] = deque()

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
        process = self._context.Process(target=self._target, args=(child, self.memory_limit),
                                        daemon=True)
        process.start()
        child.close()
        clock = _watched(process.pid, self.background) if process.pid is not None else None
        with self._lock:
            self._process, self._conn, self._clock = process, parent, clock
            killed = self._kill_requested
        if killed:  # kill() came while the child was starting: it must not run unseen
            process.kill()

    def _stop(self, kill: bool) -> None:
        with self._lock:
            process, conn = self._process, self._conn
            self._process, self._conn, self._clock = None, None, None
        if self._ahead:
            kill = True  # busy with a file read ahead: no reason to wait for it
            self._ahead.clear()
        if process is None:
            return
        if kill:
            process.kill()
        else:
            try:
                assert conn is not None
                conn.send_bytes(b"null")
            except (OSError, BrokenPipeError):
                process.kill()
        process.join(5)
        if process.is_alive():
            process.kill()
            process.join(5)
        if conn is not None:
            conn.close()

    def parse(self, path: Path, identity: Identity | None = None, wake: Connection | None = None,
              on_wake: Callable[[], None] | None = None) -> tuple[list[Section], list[str]]:
        """Sections and notes of ``path``; ParseError with the reason, ParseStopped if killed.

        With ``identity`` (st_dev, st_ino), only that file is read: a file put in its place
        since is refused. While it waits, ``on_wake`` runs each time ``wake`` becomes
        readable (it must read what is there); if it raises, the child is killed and the
        exception goes up.
        """
        sections, notes, _scanned = self.parse_document(path, identity, wake, on_wake)
        if not sections:  # the text layer only: a scan has none (see parse_document)
            raise ParseError(parsers.reason(parsers.NO_TEXT, {}))
        return sections, notes

    def parse_document(self, path: Path, identity: Identity | None = None, wake: Connection | None = None,
                       on_wake: Callable[[], None] | None = None) -> tuple[list[Section], list[str], list[int]]:
        """``parse``, and the pages to read by text recognition (``recognise``): a scanned
        PDF's pages without a text layer, an image's pages."""
        reply = self._request("parse", path, identity, wake, on_wake)
        return [Section(*s) for s in reply["sections"]], list(reply["notes"]), list(reply["scanned"])

    def recognise(self, path: Path, page: int, identity: Identity | None = None,
                  wake: Connection | None = None, on_wake: Callable[[], None] | None = None) -> str:
        """The text of page ``page`` of a scanned PDF or an image, read by OCR in the child,
        under the time limit (per page) and the memory limit. ParseError as ``parse``."""
        return str(self._request("ocr", path, identity, wake, on_wake, page)["text"])

    def page_picture(self, path: Path, page: int, passage: str, wake: Connection | None = None,
                     on_wake: Callable[[], None] | None = None) -> dict[str, Any]:
        """Page ``page`` of a PDF as grey pixels with the passage's place marked, rendered
        in the child (``page_picture``); ParseError as ``parse``."""
        return self._request("picture", path, None, wake, on_wake, page, passage)

    def pixels(self, path: Path, identity: Identity | None = None) -> tuple[int, int, bytes]:
        """An image's first frame as RGB pixels, upright, at most ``pixels.MAX_SIDE`` on a
        side, nothing of its metadata: (width, height, bytes), decoded in the child under
        its limits; ParseError as ``parse``."""
        import base64

        reply = self._request("pixels", path, identity, None, None)
        width, height = int(reply["width"]), int(reply["height"])
        rgb = base64.b64decode(reply["rgb"], validate=True)
        if len(rgb) != width * height * 3:  # padding that passed the length check: not an honest reply
            raise ParseError(translate("storage.documents.isolation", "the reader's answer was damaged"))
        return width, height, rgb

    def transcribe(self, path: Path, model: Path, language: str = "", max_seconds: float = 0,
                   identity: Identity | None = None, wake: Connection | None = None,
                   on_wake: Callable[[], None] | None = None) -> dict[str, Any]:
        """The recording's speech as text, in timed segments, recognised in the child
        (``storage.documents.speech``) under its limits; ParseError as ``parse``."""
        options = json.dumps({"model": str(model), "language": language, "max_seconds": max_seconds})
        return self._request("transcribe", path, identity, wake, on_wake, 0, "", options)

    def transcribe_bytes(self, recording: bytes, model: Path, language: str = "") -> dict[str, Any]:
        """``transcribe`` for a recording held in memory (dictation): it goes to the child
        through the pipe, and no file is written anywhere."""
        import base64

        if len(recording) > MAX_RECORDING:
            raise ParseError(translate("storage.documents.isolation", "the recording is too long to recognise"))
        options = json.dumps({"model": str(model), "language": language, "max_seconds": 0})
        return self._request("transcribe", Path("recording.wav"), None, None, None, 0, "", options,
                             base64.b64encode(recording).decode("ascii"))

    def listen(self, path: Path, start: float, seconds: float) -> bytes:
        """``seconds`` of the recording from ``start``, decoded in the child: 16 kHz mono
        16-bit samples (``storage.documents.speech.listen``); ParseError as ``parse``."""
        import base64

        options = json.dumps({"start": start, "seconds": seconds})
        reply = self._request("listen", path, None, None, None, 0, "", options)
        samples = base64.b64decode(reply["pcm"], validate=True)
        if len(samples) % 2:
            raise ParseError(translate("storage.documents.isolation", "the reader's answer was damaged"))
        return samples

    def digest(self, path: Path, identity: Identity | None = None, wake: Connection | None = None,
               on_wake: Callable[[], None] | None = None) -> str:
        """The sha256 of ``path``'s content, read in the child under the same limits and
        with the same stops as ``parse`` (a file that never ends costs a time-out)."""
        return str(self._request("hash", path, identity, wake, on_wake)["sha256"])

    def read_ahead(self, path: Path, identity: Identity | None = None) -> None:
        """Have the child hash and parse ``path`` now, without waiting for it: the next
        ``digest`` and ``parse`` of the same file take the replies. One file ahead at most."""
        if self._ahead:
            return
        with self._lock:
            if self._kill_requested:
                return  # the next request says ParseStopped
        self._ensure_child()
        for op in ("hash", "parse"):
            self._ahead.append(self._send(op, path, identity))

    def _ensure_child(self) -> None:
        with self._lock:
            fresh = self._process is None or not self._process.is_alive()
        if fresh:
            self._stop(kill=True)  # the remains of a child that died between files
            self._start()

    def _send(self, op: str, path: Path, identity: Identity | None, page: int = 0, passage: str = "",
              options: str = "", data: str = "") -> _Key:
        conn = self._conn
        assert conn is not None
        key = _key(op, path, identity)
        request = {"op": op, "path": key[1], "identity": list(key[2]) if key[2] else None, "page": page,
                   "passage": passage[:2000], "options": options, "data": data}
        with contextlib.suppress(OSError):  # the child is gone (killed): the recv says so
            conn.send_bytes(json.dumps(request).encode())
        return key

    def _request(self, op: str, path: Path, identity: Identity | None, wake: Connection | None,
                 on_wake: Callable[[], None] | None, page: int = 0, passage: str = "",
                 options: str = "", data: str = "") -> dict[str, Any]:
        with self._lock:
            killed, self._kill_requested = self._kill_requested, False
        if killed:
            if self._ahead:
                self._stop(kill=True)  # its replies must not answer the next requests
            raise ParseStopped()
        key = _key(op, path, identity)
        while self._ahead and self._ahead[0] != key:  # read ahead for nothing: dropped
            stale = self._ahead.popleft()
            try:  # a quick one is read; a slow one (a long scan) costs its child, not a wait
                self._receive(stale[0], wake, on_wake, STALE_WAIT)
            except ParseStopped:
                raise
            except ParseError:
                pass  # that file's fault, not this one's (a child that died is replaced)
        if self._ahead:
            self._ahead.popleft()  # the reply to this very request is on its way
        else:
            self._ensure_child()
            self._send(op, path, identity, page, passage, options, data)
        return self._receive(op, wake, on_wake)

    def _receive(self, op: str, wake: Connection | None, on_wake: Callable[[], None] | None,
                 timeout: float | None = None) -> dict[str, Any]:
        """The child's next reply, to a request ``op``; its time limit (``timeout``, else
        the parser's, counted in the child's processor time up to BACKSTOP limits of wall
        time and EXTRA_MAX past it) starts now."""
        conn = self._conn
        assert conn is not None
        limit = self.timeout if timeout is None else timeout
        started = time.monotonic()
        deadline, last = started + limit, started + limit + min(limit * (BACKSTOP - 1), EXTRA_MAX)
        clock = self._clock if timeout is None else None
        used_before = _processor_seconds(clock)
        waitables: list[Any] = [conn] if wake is None else [conn, wake]
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0 and used_before is not None:
                used = _processor_seconds(clock)
                owed = limit - (used - used_before) if used is not None else 0.0
                if owed > 0 and time.monotonic() < last:  # it was not at work all that time
                    deadline = min(last, time.monotonic() + max(owed, 0.05))
                    continue
            ready = wait(waitables, timeout=remaining) if remaining > 0 else []
            if conn in ready:
                break
            if not ready and remaining > 0:
                continue  # the wait ran out: the next turn sees whether the child is owed time
            if not ready:
                self._stop(kill=True)
                if op == "hash":
                    raise ParseError(translate(
                        "storage.documents.isolation",
                        "reading the file took longer than {seconds:.0f} s and was stopped",
                    ).format(seconds=self.timeout))
                if op == "ocr":
                    raise ParseError(translate(
                        "storage.documents.isolation",
                        "reading a page's text took longer than {seconds:.0f} s and was stopped",
                    ).format(seconds=self.timeout))
                raise ParseError(translate(
                    "storage.documents.isolation",
                    "parsing took longer than {seconds:.0f} s and was stopped",
                ).format(seconds=self.timeout))
            try:
                if on_wake is not None:
                    on_wake()
            except BaseException:
                self._stop(kill=True)
                raise
        try:
            data = conn.recv_bytes(maxlength=MAX_REPLY)
        except (EOFError, OSError) as exc:
            with self._lock:
                killed, self._kill_requested = self._kill_requested, False
                code = self._process.exitcode if self._process else None
            self._stop(kill=True)
            if killed:
                raise ParseStopped() from None
            if isinstance(exc, OSError) and "length" in str(exc):  # past maxlength
                raise ParseError(translate(
                    "storage.documents.isolation", "the parser process sent a reply larger than "
                    "Hearth accepts; the file may be crafted or damaged")) from None
            raise ParseError(translate(
                "storage.documents.isolation", "the parser process died (exit {code}); "
                "the file may be crafted or damaged").format(code=code)) from None
        try:
            reply = checked(data, op)
        except Malformed as exc:
            self._stop(kill=True)  # a child that says such things is not asked again
            raise ParseError(translate(
                "storage.documents.isolation", "the parser process sent a reply that is not "
                "valid; the file may be crafted or damaged")) from exc
        self.last_peak_rss = reply["peak"]
        if reply["status"] == "error":
            values = reply.get("values")
            if isinstance(values, dict) and values.get("error"):  # a library's own words: the log's, not the user's
                log.info("the parser refused a file (%s): %s", reply.get("kind"), str(values["error"])[:300])
            said = "".join(ch if ch.isprintable() else " " for ch in reply["reason"][:MAX_REASON])
            raise ParseError(said)
        return reply

    def close(self) -> None:
        self._stop(kill=False)

    def __enter__(self) -> IsolatedParser:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()
