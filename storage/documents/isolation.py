"""Hash and parse files in a separate process, with a time limit and a memory limit.

A crafted PDF or DOCX can make a parser run forever or allocate gigabytes; in a child
process that only costs the child. The child keeps running between files (imports are
paid once) and is replaced after a time-out or a crash. On Linux its address space is
capped, so a decompression bomb ends in a MemoryError there, not in the app. The file's
hash is read there too, under the same limits: the app's own process never reads a
file's content.

The child is as untrusted as the files it reads: it answers in JSON of a bounded size,
whose shape the parent checks, never in pickle (the parent holds the vault key). It
installs the egress guard and the no-core-dump limit itself (it is spawned: a fresh
interpreter that inherits no audit hook) and drops ``HEARTH_PASSPHRASE`` from its
environment first thing. Its reasons and notes come as a kind and values, and the parent
says them in the interface language (the child has no translation installed); a value
only ever goes into that text through .format(), never as the text to translate.

The owner thread may be woken while it waits for the child (``wake``): the document
service answers searches between any two steps of an import, a parse included. And any
thread may ``kill()`` the child, so that quitting never waits for a parse to finish.

``read_ahead`` asks the child for the next file's hash and parse while the owner is busy
with something else (embedding the file before it): the child answers its requests in
order, and the next ``digest`` and ``parse`` of that file take the replies waiting for
them. A reply nobody asks for (the file turned out to be a duplicate) is read and dropped;
its time limit, like every reply's, runs from the moment the owner waits for it.
"""

from __future__ import annotations

import contextlib
import json
import multiprocessing
import os
import re
import sys
import threading
import time
from collections import deque
from collections.abc import Callable
from multiprocessing.connection import Connection, wait
from pathlib import Path
from typing import Any

from i18n import translate
from storage.documents import parsers
from storage.documents.pages import ROLES
from storage.documents.parsers import (
    MAX_CHARS,
    Identity,
    ParseError,
    Section,
    Value,
    digest,
    parse_said,
)

TIMEOUT = 60.0
MEMORY_LIMIT = 1536 << 20  # address space of the parser process
# Text recognition runs in a child of its own with more room: ONNX Runtime's detection of a
# 200-dpi A4 page peaks near 0.9 GB resident and fails under a 1.5 GB address space.
OCR_MEMORY_LIMIT = 2560 << 20
NICE = 10  # the children yield the processor to the chat's answer (POSIX niceness)
# The largest reply: MAX_CHARS characters of text at up to 4 bytes each in UTF-8, about as
# much again for headings, notes and JSON quoting. A child that says more is not believed.
MAX_REPLY = 12 * MAX_CHARS
MAX_REASON = 500
_SHA256 = re.compile(r"[0-9a-f]{64}")
Handler = Callable[[dict[str, Any], int], dict[str, Any]]
# The child's own reasons (besides the parsers'), sent as kinds for the parent to say.
MEMORY, NESTED, CRASHED, TOO_MUCH_TEXT = "memory", "nested", "crashed", "too-much-text"


class ParseStopped(ParseError):
    """The parse was stopped by ``kill()``: nothing is wrong with the file."""

    def __init__(self) -> None:
        super().__init__(translate("storage.documents.isolation", "parsing was stopped"))


def reason(kind: str, values: dict[str, Value]) -> str:
    """The text of a reason the child sent as ``kind`` and ``values``, in the interface
    language: the child has none, so the parent says it. KeyError, ValueError or
    TypeError for what the child could not honestly have sent."""
    if kind == MEMORY:
        return translate("storage.documents.isolation", "the parser needed more than {limit} MB "
                         "of memory (a decompression bomb, or a file too complex)").format(
                             limit=values["limit"])
    if kind == NESTED:
        return translate("storage.documents.isolation", "the file's structure is nested too deeply")
    if kind == CRASHED:
        return translate("storage.documents.isolation", "the parser failed ({error})").format(
            error=values["error"])
    if kind == TOO_MUCH_TEXT:
        return translate("storage.documents.isolation", "the file holds more text than Hearth "
                         "can take in one piece")
    return parsers.reason(kind, values)


def _error(kind: str, **values: Value) -> dict[str, Any]:
    """An error reply: the kind and values, and the text for a reader without them."""
    return {"status": "error", "reason": reason(kind, values), "kind": kind, "values": values}


def _setup(memory_limit: int) -> None:
    """The child's first steps, before it reads anything."""
    from guard import egress
    from guard.hardening import child_environment, harden_process

    kept = child_environment()  # spawn copies the parent's environment: secrets go
    for name in [n for n in os.environ if n not in kept]:
        os.environ.pop(name, None)

    egress.install()  # the parser reads hostile files: it gets no network either
    harden_process()  # and a crash in it writes no core file
    if sys.platform.startswith("linux"):
        import resource

        resource.setrlimit(resource.RLIMIT_AS, (memory_limit, memory_limit))
    if hasattr(os, "nice"):
        with contextlib.suppress(OSError):
            os.nice(NICE)  # background work: an answer being written comes first


def _handle(request: dict[str, Any], memory_limit: int) -> dict[str, Any]:
    """One request: ``{"op": "hash" | "parse" | "ocr", "path": ..., "identity": [dev, ino] |
    null}``, and for "ocr" the ``page`` to read."""
    path = Path(request["path"])
    identity = request.get("identity")
    try:
        if request["op"] == "hash":
            return {"status": "ok", "sha256": digest(path, identity)}
        if request["op"] == "ocr":
            from storage.documents import ocr

            with parsers.open_regular(path, identity) as fh:
                return {"status": "ok", "text": ocr.recognise_file(fh, path.suffix.lower(), int(request["page"]))}
        if request["op"] == "picture":
            from storage.documents.page_picture import page_picture

            with parsers.open_regular(path, identity) as fh:
                return {"status": "ok", **page_picture(fh, int(request["page"]), str(request.get("passage") or ""))}
        sections, notes, scanned = parse_said(path, identity)
        return {"status": "ok", "sections": [[s.text, s.page, s.heading, s.role] for s in sections],
                "notes": [[kind, values] for kind, values in notes], "scanned": scanned}
    except ParseError as exc:
        if exc.kind:
            return _error(exc.kind, **exc.values)
        return {"status": "error", "reason": str(exc)}
    except MemoryError:
        return _error(MEMORY, limit=memory_limit >> 20)
    except RecursionError:
        return _error(NESTED)
    except Exception as exc:
        return _error(CRASHED, error=f"{type(exc).__name__}: {str(exc)[:200]}")


def _peak() -> int:
    """This child's own peak resident memory. On Linux it is read from /proc (VmHWM belongs
    to the program's own memory): getrusage's maxrss keeps the high-water mark of the
    process the child was forked from before it became Python, that is the parent's, so a
    parent holding 2 GB of models would make every parse look like a 2 GB one."""
    try:
        with open("/proc/self/status", encoding="ascii") as fh:
            for line in fh:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError):
        pass
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * (1 if sys.platform == "darwin" else 1024)


def _serve(conn: Connection, memory_limit: int, handler: Handler = _handle) -> None:
    """Answer requests until the parent sends null or goes away."""
    while True:
        try:
            request = json.loads(conn.recv_bytes())
        except EOFError:
            return
        if request is None:
            return
        reply = handler(request, memory_limit)
        reply["peak"] = _peak()
        data = json.dumps(reply, ensure_ascii=False).encode("utf-8", "replace")
        if len(data) > MAX_REPLY:
            data = json.dumps({**_error(TOO_MUCH_TEXT), "peak": reply["peak"]}).encode()
        conn.send_bytes(data)


def _child(conn: Connection, memory_limit: int) -> None:
    _setup(memory_limit)
    _serve(conn, memory_limit)


class _Malformed(Exception):
    """The child's reply is not one it could have sent honestly."""


def _checked(data: bytes, op: str) -> dict[str, Any]:
    """The child's reply, if it has the shape of one; _Malformed if not."""
    try:
        reply = json.loads(data)
    except (ValueError, UnicodeDecodeError):
        raise _Malformed("not JSON") from None

    def integer(value: object, optional: bool = False) -> bool:
        return (value is None and optional) or (type(value) is int and value >= 0)

    def text(value: object, optional: bool = False) -> bool:
        return (value is None and optional) or isinstance(value, str)

    def said(kind: object, values: object) -> str:
        """The text of what the child said as a kind and values, built here, in the
        interface language; the values only ever go into it through .format()."""
        if not isinstance(kind, str) or not isinstance(values, dict) \
                or not all(type(v) in (str, int, float) for v in values.values()):
            raise _Malformed("a kind or values of the wrong shape")
        try:
            return reason(kind, values)
        except (KeyError, ValueError, TypeError, IndexError, ArithmeticError):
            raise _Malformed("a kind Hearth does not know, or values that do not fit it") from None

    if not isinstance(reply, dict) or not integer(reply.get("peak")):
        raise _Malformed("not an object with a peak")
    if reply.get("status") == "error":
        if not text(reply.get("reason")):
            raise _Malformed("an error without a reason")
        if "kind" in reply:  # said again here, in the parent's language
            reply["reason"] = said(reply["kind"], reply.get("values"))
        return reply
    if reply.get("status") != "ok":
        raise _Malformed("no status")
    if op == "hash":
        if not isinstance(reply.get("sha256"), str) or not _SHA256.fullmatch(reply["sha256"]):
            raise _Malformed("no sha256")
        return reply
    if op == "picture":
        from storage.documents.page_picture import MAX_MARKS, MAX_PREVIEW_SIDE

        width, height, pixels, marks = (reply.get(k) for k in ("width", "height", "pixels", "marks"))
        if not (type(width) is int and type(height) is int and 0 < width <= MAX_PREVIEW_SIDE
                and 0 < height <= MAX_PREVIEW_SIDE and isinstance(pixels, str)
                and len(pixels) == 4 * ((width * height + 2) // 3)):
            raise _Malformed("a picture of the wrong size")
        if not isinstance(marks, list) or len(marks) > MAX_MARKS or not all(
                isinstance(m, list) and len(m) == 4 and all(type(v) is int and -1 <= v <= MAX_PREVIEW_SIDE + 1
                                                           for v in m) for m in marks):
            raise _Malformed("marks of the wrong shape")
        return reply
    if op == "ocr":
        from storage.documents.ocr import MAX_PAGE_CHARS

        if not text(reply.get("text")) or len(reply["text"]) > MAX_PAGE_CHARS:
            raise _Malformed("no text, or more than a page holds")
        return reply
    scanned = reply.setdefault("scanned", [])  # (none said: none)
    if not isinstance(scanned, list) or not all(type(n) is int and 1 <= n <= parsers.MAX_PAGES for n in scanned) \
            or len(set(scanned)) != len(scanned):
        raise _Malformed("scanned pages of the wrong shape")
    sections, notes = reply.get("sections"), reply.get("notes")
    if not isinstance(sections, list) or not isinstance(notes, list) \
            or not all(isinstance(n, list) and len(n) == 2 for n in notes):
        raise _Malformed("no sections or notes")
    reply["notes"] = [said(kind, values) for kind, values in notes]
    for section in sections:
        if not (isinstance(section, list) and len(section) == 4 and text(section[0])
                and integer(section[1], optional=True) and text(section[2], optional=True)
                and isinstance(section[3], str) and section[3] in ROLES):
            raise _Malformed("a section of the wrong shape")
    return reply


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


class IsolatedParser:
    def __init__(self, timeout: float = TIMEOUT, memory_limit: int = MEMORY_LIMIT,
                 child: Callable[[Connection, int], None] = _child) -> None:
        """``child`` is the child's entry (a module-level function, for spawn); tests
        give one that misbehaves."""
        self.timeout = timeout
        self.memory_limit = memory_limit
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
        with self._lock:
            self._process, self._conn = process, parent
            killed = self._kill_requested
        if killed:  # kill() came while the child was starting: it must not run unseen
            process.kill()

    def _stop(self, kill: bool) -> None:
        with self._lock:
            process, conn = self._process, self._conn
            self._process, self._conn = None, None
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

    def _send(self, op: str, path: Path, identity: Identity | None, page: int = 0, passage: str = "") -> _Key:
        conn = self._conn
        assert conn is not None
        key = _key(op, path, identity)
        request = {"op": op, "path": key[1], "identity": list(key[2]) if key[2] else None, "page": page,
                   "passage": passage[:2000]}
        with contextlib.suppress(OSError):  # the child is gone (killed): the recv says so
            conn.send_bytes(json.dumps(request).encode())
        return key

    def _request(self, op: str, path: Path, identity: Identity | None, wake: Connection | None,
                 on_wake: Callable[[], None] | None, page: int = 0, passage: str = "") -> dict[str, Any]:
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
            self._send(op, path, identity, page, passage)
        return self._receive(op, wake, on_wake)

    def _receive(self, op: str, wake: Connection | None, on_wake: Callable[[], None] | None,
                 timeout: float | None = None) -> dict[str, Any]:
        """The child's next reply, to a request ``op``; its time limit (``timeout``, else
        the parser's) starts now."""
        conn = self._conn
        assert conn is not None
        deadline = time.monotonic() + (self.timeout if timeout is None else timeout)
        waitables: list[Any] = [conn] if wake is None else [conn, wake]
        while True:
            remaining = deadline - time.monotonic()
            ready = wait(waitables, timeout=remaining) if remaining > 0 else []
            if conn in ready:
                break
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
            reply = _checked(data, op)
        except _Malformed as exc:
            self._stop(kill=True)  # a child that says such things is not asked again
            raise ParseError(translate(
                "storage.documents.isolation", "the parser process sent a reply that is not "
                "valid; the file may be crafted or damaged")) from exc
        self.last_peak_rss = reply["peak"]
        if reply["status"] == "error":
            said = "".join(ch if ch.isprintable() else " " for ch in reply["reason"][:MAX_REASON])
            raise ParseError(said)
        return reply

    def close(self) -> None:
        self._stop(kill=False)

    def __enter__(self) -> IsolatedParser:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()
