"""Parser children that misbehave, for ``IsolatedParser(child=...)``.

Module-level functions, so that the spawn start method can find them in the child. Each
sets itself up as the real child does (``parser_child.setup``) and then answers through the
real loop (``parser_child.serve``) or writes to the pipe itself.
"""

from __future__ import annotations

import json
import os
import pickle
import time
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

from storage.documents import parser_child


class Exploit:
    """Unpickling this creates a file: proof that a pickle was executed."""

    def __init__(self, marker: str) -> None:
        self.marker = marker

    def __reduce__(self) -> tuple[Any, ...]:
        return (open, (self.marker, "w"))


def _requests(conn: Connection):
    while True:
        try:
            request = json.loads(conn.recv_bytes())
        except EOFError:
            return
        if request is None:
            return
        yield request


def pickling_child(conn: Connection, memory_limit: int) -> None:
    """Replies with a pickle whose loading would create ``<path>.pwned``."""
    parser_child.setup(memory_limit)
    for request in _requests(conn):
        conn.send_bytes(pickle.dumps(("ok", [], [], Exploit(request["path"] + ".pwned"))))


MALFORMED: dict[str, bytes] = {
    "notjson": b"\x80\x04definitely not json",
    "list": b'["ok", [], [], 0]',
    "nopeak": b'{"status": "ok", "sections": [], "notes": []}',
    "sections": b'{"status": "ok", "sections": "text", "notes": [], "peak": 1}',
    "section": b'{"status": "ok", "sections": [["text", "page one", null]], "notes": [], "peak": 1}',
    "reason": b'{"status": "error", "reason": {"a": 1}, "peak": 1}',
    "sha": b'{"status": "ok", "sha256": "../../etc/passwd", "peak": 1}',
    "big": b'{"status": "error", "reason": "' + b"x" * 5000 + b'", "peak": 1}',
}


def malformed_child(conn: Connection, memory_limit: int) -> None:
    """Replies with ``MALFORMED[<file stem>]``."""
    parser_child.setup(memory_limit)
    for request in _requests(conn):
        conn.send_bytes(MALFORMED[Path(request["path"]).stem])


SLEEPY = 2.0


def slow_child(conn: Connection, memory_limit: int) -> None:
    """The real child, except that a file named ``slow-read*`` is read for ever (a disk
    that does not answer) and ``slow-parse*`` parsed for ever; ``<path>.started`` says so.
    ``sleepy*`` is answered after SLEEPY seconds without work (a child waiting for a
    processor, or for a slow disk), ``spin*`` after SLEEPY seconds of work."""

    def handle(request: dict[str, Any], limit: int) -> dict[str, Any]:
        name = Path(request["path"]).name
        if name.startswith("sleepy"):
            time.sleep(SLEEPY)
        if name.startswith("spin"):
            until = time.monotonic() + SLEEPY
            while time.monotonic() < until:
                pass
        if name.startswith("slow-read" if request["op"] == "hash" else "slow-parse"):
            Path(request["path"] + ".started").touch()
            time.sleep(3600)
        return parser_child.handle(request, limit)

    parser_child.setup(memory_limit)
    parser_child.serve(conn, memory_limit, handle)


def probing_child(conn: Connection, memory_limit: int) -> None:
    """Answers each request with the child's own state, as an error's reason (JSON)."""
    parser_child.setup(memory_limit)
    from guard import egress

    def handle(_request: dict[str, Any], _limit: int) -> dict[str, Any]:
        import resource
        import socket

        try:
            socket.getaddrinfo("example.com", 443)
            network = "open"
        except egress.EgressBlocked:
            network = "blocked"
        except OSError:
            network = "failed"  # no network here at all: the guard did not stop it
        state = {"passphrase": os.environ.get("HEARTH_PASSPHRASE"), "guard": egress.GUARD.installed,
                 "network": network, "core": list(resource.getrlimit(resource.RLIMIT_CORE)),
                 "address_space": list(resource.getrlimit(resource.RLIMIT_AS))}
        return {"status": "error", "reason": json.dumps(state)}

    parser_child.serve(conn, memory_limit, handle)
