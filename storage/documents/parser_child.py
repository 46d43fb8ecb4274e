"""What runs in the parser process: its setup, its requests and the replies it sends.

The parent (``isolation.IsolatedParser``) spawns a fresh interpreter whose entry is
``main``: this module is what the child imports, so it imports little (the parsers, and
the OCR and page-picture modules only for a request that needs them). The child installs
the egress guard and the no-core-dump limit itself, drops ``HEARTH_PASSPHRASE`` and every
other secret from its environment first thing and caps its address space on Linux (a
background child's priority is lowered by the parent); then it answers one JSON request at a time, in JSON of a bounded size, never
in pickle. Its reasons and notes go as a kind and values, which the parent says in the
interface language (``reason``): the child has no translation installed.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

from i18n import translate
from storage.documents import parsers
from storage.documents.parsers import MAX_CHARS, ParseError, Value, digest, parse_said

# The largest reply: MAX_CHARS characters of text at up to 4 bytes each in UTF-8, about as
# much again for headings, notes and JSON quoting. A child that says more is not believed.
MAX_REPLY = 12 * MAX_CHARS
Handler = Callable[[dict[str, Any], int], dict[str, Any]]
# The child's own reasons (besides the parsers'), sent as kinds for the parent to say.
MEMORY, NESTED, CRASHED, TOO_MUCH_TEXT = "memory", "nested", "crashed", "too-much-text"


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
    if kind == CRASHED:  # the exception's type and words are the log's (the parent logs "error")
        return translate("storage.documents.isolation", "Hearth's reader could not read this file (the details "
                         "are in the log)")
    if kind == TOO_MUCH_TEXT:
        return translate("storage.documents.isolation", "the file holds more text than Hearth "
                         "can take in one piece")
    return parsers.reason(kind, values)


def _error(kind: str, **values: Value) -> dict[str, Any]:
    """An error reply: the kind and values, and the text for a reader without them."""
    return {"status": "error", "reason": reason(kind, values), "kind": kind, "values": values}


def setup(memory_limit: int) -> None:
    """The child's first steps, before it reads anything."""
    from guard import egress
    from guard.hardening import child_environment, harden_process

    kept = child_environment()  # spawn copies the parent's environment: secrets go
    for name in [n for n in os.environ if n not in kept]:
        os.environ.pop(name, None)

    egress.install()  # the parser reads hostile files: it gets no network either
    from guard import seccomp

    # Nor from native code (PDFium, image decoders, OCR), on Linux: the kernel refuses it
    # network sockets, whether or not Hearth itself runs under that line (an engine on).
    seccomp.restrict()
    harden_process()  # and a crash in it writes no core file
    if sys.platform.startswith("linux"):
        import resource

        resource.setrlimit(resource.RLIMIT_AS, (memory_limit, memory_limit))
    # A background child's priority is lowered by its parent (``isolation``): an import
    # yields to the app, an attachment the user waits for does not.


def handle(request: dict[str, Any], memory_limit: int) -> dict[str, Any]:
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
        if request["op"] == "transcribe":
            from storage.documents.speech import transcribe

            if request.get("data"):  # a recording held in memory (dictation): never a file
                import base64
                import io

                recording = io.BytesIO(base64.b64decode(str(request["data"]), validate=True))
                return {"status": "ok", **transcribe(recording, str(request.get("options") or ""))}
            with parsers.open_regular(path, identity) as fh:  # the file checked is the file decoded
                return {"status": "ok", **transcribe(fh, str(request.get("options") or ""))}
        if request["op"] == "listen":
            from storage.documents.speech import listen

            with parsers.open_regular(path, identity) as fh:
                return {"status": "ok", **listen(fh, str(request.get("options") or ""))}
        if request["op"] == "pixels":
            from storage.documents.pixels import pixels

            with parsers.open_regular(path, identity) as fh:
                return {"status": "ok", **pixels(fh, path.suffix.lower())}
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


def serve(conn: Connection, memory_limit: int, handler: Handler = handle) -> None:
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


def main(conn: Connection, memory_limit: int) -> None:
    """The child's entry: set up, then answer until told to stop."""
    setup(memory_limit)
    serve(conn, memory_limit)
