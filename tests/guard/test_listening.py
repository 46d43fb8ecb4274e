"""The guard lets a socket listen on loopback only, however the socket came to its address.

It refused bind(("0.0.0.0", p)), but ``""`` passed as loopback (it is in the names that
mean this machine to a *connect*), though to bind it means every interface (INADDR_ANY,
in6addr_any), and a listen() on a socket never bound went unchecked: the kernel binds it to
0.0.0.0 first. Either made a listener any computer on the network could reach. Run in a
child process of its own: the guard, once installed, stays for the life of the process."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

ATTEMPTS = """
from guard import egress
egress.install()
import asyncio, json, socket
results = {}
def attempt(name, fn):
    try:
        fn(); results[name] = "allowed"
    except egress.EgressBlocked:
        results[name] = "blocked"
    except OSError as exc:
        results[name] = f"failed: {exc}"
def bound(family, host):
    s = socket.socket(family); s.bind((host, 0)); s.listen(); return s
six = socket.has_ipv6
attempt("bind 0.0.0.0", lambda: bound(socket.AF_INET, "0.0.0.0"))
attempt("bind ''", lambda: bound(socket.AF_INET, ""))
attempt("bind b''", lambda: bound(socket.AF_INET, b""))
attempt("bind '' then listen only", lambda: socket.socket().bind(("", 0)))
attempt("listen, never bound", lambda: socket.socket().listen())
attempt("listen, never bound, backlog", lambda: socket.socket().listen(5))
if six:
    attempt("bind '' AF_INET6", lambda: bound(socket.AF_INET6, ""))
    attempt("bind :: AF_INET6", lambda: bound(socket.AF_INET6, "::"))
    attempt("listen, never bound AF_INET6", lambda: socket.socket(socket.AF_INET6).listen())
    attempt("bind ::1", lambda: bound(socket.AF_INET6, "::1"))
attempt("bind 127.0.0.1", lambda: bound(socket.AF_INET, "127.0.0.1"))
attempt("bind localhost", lambda: bound(socket.AF_INET, "localhost"))
async def serve():
    server = await asyncio.start_server(lambda r, w: None, "127.0.0.1", 0)
    server.close()
attempt("asyncio on loopback", lambda: asyncio.run(serve()))
api = bound(socket.AF_INET, "127.0.0.1"); egress.allow_loopback_port(api.getsockname()[1])
attempt("connect '' (this machine)", lambda: socket.socket().connect(("", api.getsockname()[1])))
results["six"] = six
print(json.dumps(results))
"""


def test_a_socket_listens_on_loopback_only() -> None:
    done = subprocess.run([sys.executable, "-c", ATTEMPTS], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    results = json.loads(done.stdout.strip().splitlines()[-1])
    refused = ["bind 0.0.0.0", "bind ''", "bind b''", "bind '' then listen only", "listen, never bound",
               "listen, never bound, backlog"]
    allowed = ["bind 127.0.0.1", "bind localhost", "asyncio on loopback", "connect '' (this machine)"]
    if results["six"]:
        refused += ["bind '' AF_INET6", "bind :: AF_INET6", "listen, never bound AF_INET6"]
        allowed += ["bind ::1"]
    assert {name: results[name] for name in refused} == dict.fromkeys(refused, "blocked"), results
    assert {name: results[name] for name in allowed} == dict.fromkeys(allowed, "allowed"), results
    assert "blocked listening to 0.0.0.0:0" in done.stderr  # logged as what it would have been


def test_the_local_api_still_listens() -> None:
    """Hearth's one listener (the local API) binds 127.0.0.1 and listens, and uvicorn's
    own listen() on that socket passes: the guard refuses only what the network could reach."""
    code = """
from guard import egress
egress.install()
import socket, time
from core.api import ApiServer
server = ApiServer(object(), "127.0.0.1", 0)
server.start()
deadline = time.monotonic() + 20
while not server._server.started and server._thread.is_alive() and time.monotonic() < deadline:
    time.sleep(0.02)
socket.create_connection((server.host, server.port), timeout=5).close()
print("serving" if server._server.started else "not serving", server.host, egress.GUARD.blocked_count)
server.stop()
"""
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["serving", "127.0.0.1", "0"], done.stdout + done.stderr
