"""The guard admits an intranet engine's one host and port, and nothing beside it."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

ATTEMPTS = """
from guard import egress
egress.install()
import json, socket
results = {}
def attempt(name, fn):
    try:
        fn(); results[name] = "allowed"
    except egress.EgressBlocked:
        results[name] = "blocked"
    except OSError as exc:
        results[name] = f"failed: {exc}"
def listener(host, port=0):
    s = socket.socket(); s.bind((host, port)); s.listen(8); return s
engine = listener("127.0.0.2"); port = engine.getsockname()[1]
second = listener("127.0.0.2"); second_port = second.getsockname()[1]
beside = listener("127.0.0.3", port)
def connect(host, p):
    socket.create_connection((host, p), timeout=2).close()
"""

LITERAL = ATTEMPTS + """
attempt("before", lambda: connect("127.0.0.2", port))
found = egress.allow_destination("corp", "127.0.0.2", port)
results["addresses"] = sorted(found.addresses)
attempt("allowed", lambda: connect("127.0.0.2", port))
attempt("raw-connect", lambda: socket.socket().connect(("127.0.0.2", port)))
attempt("second-port", lambda: connect("127.0.0.2", second_port))
attempt("other-address", lambda: connect("127.0.0.3", port))
attempt("lookup", lambda: socket.getaddrinfo("llm.corp.test", port))
attempt("by-name", lambda: socket.socket().connect(("llm.corp.test", port)))
egress.count_traffic("corp", sent=120, received=30)
egress.count_traffic("nobody", sent=5)
results["listed"] = [(d.name, d.port, d.connections, d.bytes_sent, d.bytes_received) for d in egress.destinations()]
egress.revoke_destination("corp")
attempt("revoked", lambda: connect("127.0.0.2", port))
results["blocked"] = egress.GUARD.blocked_count
print(json.dumps(results))
"""


def run(code: str, prefix: list[str] | None = None) -> dict:
    done = subprocess.run([*(prefix or []), sys.executable, "-c", code], cwd=ROOT, capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_an_engine_adds_exactly_its_host_and_port() -> None:
    results = run(LITERAL)
    assert results["before"] == "blocked"
    assert results["addresses"] == ["127.0.0.2"]
    assert results["allowed"] == results["raw-connect"] == "allowed"
    for name in ("second-port", "other-address", "lookup", "by-name", "revoked"):
        assert results[name] == "blocked", (name, results)
    assert results["listed"] == [["corp", results["listed"][0][1], 2, 120, 30]]
    assert results["blocked"] == 6  # each refusal counted, as before


NAMED = ATTEMPTS + """
attempt("before-lookup", lambda: socket.getaddrinfo("llm.corp.test", port))
found = egress.allow_destination("corp", "llm.corp.test", port)
results["addresses"] = sorted(found.addresses)
attempt("allowed", lambda: connect("127.0.0.2", port))
attempt("second-lookup", lambda: socket.getaddrinfo("llm.corp.test", port))
attempt("other-port-lookup", lambda: socket.getaddrinfo("llm.corp.test", second_port))
attempt("other-name", lambda: socket.getaddrinfo("other.corp.test", port))
try:
    egress.allow_destination("ghost", "missing.corp.test", port)
    results["missing"] = "resolved"
except OSError as exc:
    results["missing"] = "refused" if isinstance(exc, egress.EgressBlocked) else "not found"
print(json.dumps(results))
"""


def _namespace(tmp_path: Path) -> list[str] | str:
    """An empty network namespace (loopback up) whose /etc/hosts names the engine."""
    if not (shutil.which("unshare") and shutil.which("ip")):
        return "needs unshare and ip (util-linux, iproute2) for a private /etc/hosts"
    hosts = tmp_path / "hosts"
    hosts.write_text("127.0.0.1 localhost\n127.0.0.2 llm.corp.test\n")
    probe = subprocess.run(["unshare", "-rnm", "sh", "-c", f"mount --bind {hosts} /etc/hosts && "
                            "ip link set lo up && getent hosts llm.corp.test"], capture_output=True, text=True)
    if probe.returncode != 0:
        return f"this system refuses a private network namespace with its own /etc/hosts: {probe.stderr.strip()}"
    return ["unshare", "-rnm", "sh", "-c", f'mount --bind {hosts} /etc/hosts && ip link set lo up && exec "$0" "$@"']


def test_an_engine_name_is_looked_up_once_through_the_guard(tmp_path: Path) -> None:
    prefix = _namespace(tmp_path)
    if isinstance(prefix, str):
        pytest.skip(prefix)
    results = run(NAMED, prefix)
    assert results["before-lookup"] == "blocked"
    assert results["addresses"] == ["127.0.0.2"]
    assert results["allowed"] == "allowed"
    for name in ("second-lookup", "other-port-lookup", "other-name"):
        assert results[name] == "blocked", (name, results)
    assert results["missing"] == "not found"
