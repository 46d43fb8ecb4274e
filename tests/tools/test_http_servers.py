"""Tool servers reached over Streamable HTTP (#44): a real MCP server on the official SDK
(MCPServer under uvicorn, in a process of its own, on a free loopback port), listed,
called and counted; refused by the egress guard when its address was not admitted;
never followed to where it redirects; stopped when it answers too much; refused when
its certificate is not the pinned one. And the records: kept in the vault, old ones too."""

from __future__ import annotations

import concurrent.futures
import http.server
import json
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from core.session import Session
from core.tools.results import MESSAGE_LIMIT
from core.tools.servers import PREFERENCE, ToolError, ToolServerRecord, ToolServers
from guard import egress
from inference.trust import Trust, certificate_pins
from storage.paths import data_dir
from tests.intranet import ENGINE_HOST, make_pki, serving

ROOT = Path(__file__).resolve().parents[2]
SERVER = """
import logging, socket, sys, uvicorn
from mcp.server.mcpserver import MCPServer

logging.disable(logging.INFO)

options = dict(a.split("=", 1) for a in sys.argv[1:])
server = MCPServer("remote")

@server.tool()
def add(a: float, b: float) -> str:
    '''Add two numbers.'''
    return str(a + b)

@server.tool()
def big(n: int) -> str:
    '''n characters.'''
    return "x" * n

@server.tool()
async def wait(seconds: float) -> str:
    '''Answer after a while.'''
    import anyio
    await anyio.sleep(seconds)
    return "waited"

app = server.streamable_http_app(json_response=options.get("json") == "1")

async def front(scope, receive, send):
    '''Every request noted in the log; one without the token refused.'''
    if scope["type"] == "http":
        with open(options["log"], "a") as log:
            log.write(scope["method"] + " " + scope["path"] + "\\n")
            log.write("accept-encoding: " + dict(scope["headers"]).get(b"accept-encoding", b"").decode() + "\\n")
        if scope["method"] == "DELETE" and options.get("hang_delete") == "1":  # a server gone silent
            import anyio
            await anyio.sleep(3600)
        token = options.get("token")
        if token and dict(scope["headers"]).get(b"authorization") != b"Bearer " + token.encode():
            await send({"type": "http.response.start", "status": 401, "headers": [(b"content-length", b"0")]})
            await send({"type": "http.response.body", "body": b""})
            return
    if options.get("gzip") == "force" and scope["type"] == "http":  # whatever the client asked for
        import gzip
        started, body = {}, []

        async def keep(message):
            if message["type"] == "http.response.start":
                started.update(message)
            else:
                body.append(message.get("body", b""))

        await app(scope, receive, keep)
        packed = gzip.compress(b"".join(body))
        headers = [(k, v) for k, v in started.get("headers", []) if k.lower() != b"content-length"]
        await send({**started, "headers": headers + [(b"content-encoding", b"gzip"),
                                                     (b"content-length", str(len(packed)).encode())]})
        await send({"type": "http.response.body", "body": packed})
        return
    await app(scope, receive, send)

sock = socket.socket()
sock.bind(("127.0.0.1", 0))
print(sock.getsockname()[1], flush=True)
uvicorn.Server(uvicorn.Config(front, log_level="warning", ssl_certfile=options.get("cert"),
                              ssl_keyfile=options.get("key"))).run(sockets=[sock])
"""


class Served:
    def __init__(self, port: int, log: Path, scheme: str) -> None:
        self.port = port
        self.log = log
        self.url = f"{scheme}://127.0.0.1:{port}/mcp"

    def requests(self) -> list[str]:
        return [line for line in self.lines() if not line.startswith("accept-encoding:")]

    def lines(self) -> list[str]:
        return self.log.read_text().splitlines() if self.log.exists() else []


@contextmanager
def mcp_server(tmp_path: Path, **options: str) -> Iterator[Served]:
    """The SDK's MCP server over Streamable HTTP in its own process, until the block ends."""
    log = tmp_path / f"requests-{len(list(tmp_path.glob('requests-*')))}.log"
    argv = [sys.executable, "-c", SERVER, f"log={log}", *(f"{k}={v}" for k, v in options.items())]
    process = subprocess.Popen(argv, stdout=subprocess.PIPE, text=True, cwd=tmp_path)
    try:
        assert process.stdout is not None
        port = int(process.stdout.readline())
        deadline = time.monotonic() + 20
        while True:  # listening once uvicorn has started
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                assert time.monotonic() < deadline and process.poll() is None, "the server did not start"
                time.sleep(0.05)
        yield Served(port, log, "https" if "cert" in options else "http")
    finally:
        process.kill()
        process.wait(10)


def admitted() -> dict[str, egress.Destination]:
    return {d.name: d for d in egress.destinations()}


def test_a_server_is_listed_called_counted_and_let_go(session: Session, tmp_path: Path) -> None:
    with mcp_server(tmp_path, token="s3cret-token") as served:
        session.tool_servers.add_http("remote", served.url, Trust(), token="s3cret-token")
        assert served.requests() == [] and " tool: remote" not in admitted()  # added: nothing reached
        tools = session.tools.start("remote")
        assert [t.name for t in tools] == ["add", "big", "wait"] and tools[0].description == "Add two numbers."
        result = session.tools.call("remote", "add", {"a": 2, "b": 3})
        assert result.text == "5.0" and not result.is_error
        [audit] = session.tools.audit()
        assert audit.running and audit.calls == 1 and audit.where == f"127.0.0.1:{served.port}"
        assert audit.bytes_out > 500 and audit.bytes_in > 500
        guard = admitted()[" tool: remote"]
        assert (guard.host, guard.port) == ("127.0.0.1", served.port)
        assert (guard.bytes_sent, guard.bytes_received) == (audit.bytes_out, audit.bytes_in)
        assert any(line.startswith("POST /mcp") for line in served.requests())

        session.tools.stop("remote")  # the address is let go with the server
        assert " tool: remote" not in admitted() and not session.tools.running("remote")
        assert [t.name for t in session.tools.check("remote")] == ["add", "big", "wait"]
        assert not any(name.endswith("remote") for name in admitted())  # a check admits for itself only

        session.tool_servers.add_http("tokenless", served.url, Trust())
        with pytest.raises(ToolError, match=r"refused Hearth \(HTTP 401\)"):
            session.tools.check("tokenless")
    raw = b"".join(p.read_bytes() for p in data_dir().rglob("*") if p.is_file())
    assert b"s3cret-token" not in raw and str(served.port).encode() + b"/mcp" not in raw  # encrypted


GUARDED = """
from guard import egress
egress.install()
import json, sys
from core.tools import mcp_http
from core.tools.host import ToolHost
from core.tools.servers import ToolError, ToolServerRecord

class One:
    def __init__(self, record): self.record = record
    def require(self, name): return self.record

record = ToolServerRecord("remote", "", url=sys.argv[1])
host = ToolHost(One(record))
results = {"tools": [t.name for t in host.start("remote")],
           "sum": host.call("remote", "add", {"a": 2, "b": 3}).text}
host.stop("remote")
results["left"] = [d.name for d in egress.destinations()]
# The guard alone: the admission left out, the connection made to the address anyway.
egress.allow_destination = lambda *args: None
mcp_http.admitted = lambda name, endpoint: [endpoint.host]
try:
    host.check("remote")
    results["unadmitted"] = "answered"
except ToolError as exc:
    results["unadmitted"] = str(exc)
results["blocked"] = egress.GUARD.blocked
host.close()
print(json.dumps(results))
"""


def test_the_egress_guard_refuses_a_server_whose_address_was_not_admitted(tmp_path: Path) -> None:
    with mcp_server(tmp_path) as served:
        env = dict(os.environ, HEARTH_DATA_DIR=str(tmp_path / "data"))
        done = subprocess.run([sys.executable, "-c", GUARDED, served.url], cwd=ROOT, env=env,
                              capture_output=True, text=True, timeout=60)
        assert done.returncode == 0, done.stderr
        results = json.loads(done.stdout.strip().splitlines()[-1])
        seen = served.requests()
    assert results["tools"] == ["add", "big", "wait"] and results["sum"] == "5.0"  # admitted: through the guard
    assert results["left"] == []
    assert "cannot be reached" in results["unadmitted"] and "blocked connection" in results["unadmitted"]
    assert results["blocked"] == [f"127.0.0.1:{served.port}"]
    assert len(seen) == len([line for line in seen if line.startswith(("POST", "GET", "DELETE"))])


class _Recording(http.server.BaseHTTPRequestHandler):
    hits: list[str]
    location = ""

    def _answer(self) -> None:
        self.hits.append(f"{self.command} {self.path}")
        self.send_response(307 if self.location else 200)
        if self.location:
            self.send_header("Location", self.location)
        self.send_header("Content-Length", "0")
        self.end_headers()

    do_GET = do_POST = do_DELETE = _answer

    def log_message(self, *args: object) -> None:
        pass


def test_a_redirect_to_another_port_is_not_followed(session: Session) -> None:
    with serving(_Recording, hits=[]) as (target, target_handler):
        where = f"http://{ENGINE_HOST}:{target.server_port}/mcp"
        with serving(_Recording, hits=[], location=where) as (redirecting, handler):
            session.tool_servers.add_http("moved", f"http://{ENGINE_HOST}:{redirecting.server_port}/mcp", Trust())
            with pytest.raises(ToolError, match=r"redirect \(HTTP 307\)") as refused:
                session.tools.check("moved")
    assert handler.hits[:1] == ["POST /mcp"]
    assert target_handler.hits == []  # the other listener received nothing
    assert str(target.server_port) not in str(refused.value)  # the server's text is not a link
    assert not any(name.endswith("moved") for name in admitted())


@pytest.mark.parametrize("json_response", ["0", "1"], ids=["event-stream", "json"])
def test_an_answer_larger_than_the_limit_stops_the_server(session: Session, tmp_path: Path,
                                                          json_response: str) -> None:
    with mcp_server(tmp_path, json=json_response) as served:
        session.tool_servers.add_http("remote", served.url, Trust())
        assert session.tools.call("remote", "big", {"n": 1000}).text == "x" * 1000
        started = time.monotonic()
        with pytest.raises(ToolError, match="larger than 4 MB; it was stopped"):
            session.tools.call("remote", "big", {"n": MESSAGE_LIMIT + 1000})
        assert time.monotonic() - started < 20
        [audit] = session.tools.audit()
        assert not audit.running and "larger than 4 MB" in audit.problem
        assert audit.bytes_in < 2 * MESSAGE_LIMIT
        assert " tool: remote" not in admitted()


def test_answers_come_uncompressed_and_a_compressed_one_stops_the_server(session: Session, tmp_path: Path) -> None:
    """A limit on the bytes received means nothing for a compressed body (4 MB of gzip is
    gigabytes once read): Hearth asks for none, and a server that compresses anyway is
    stopped before its answer is read."""
    with mcp_server(tmp_path, json="1") as served:
        session.tool_servers.add_http("plain", served.url, Trust())
        assert session.tools.call("plain", "add", {"a": 1, "b": 2}).text == "3.0"
        assert {line for line in served.lines() if line.startswith("accept-encoding:")} == {
            "accept-encoding: identity"}
    with mcp_server(tmp_path, json="1", gzip="force") as served:
        session.tool_servers.add_http("packed", served.url, Trust())
        with pytest.raises(ToolError, match="sent a compressed answer"):
            session.tools.call("packed", "add", {"a": 1, "b": 2})
        assert " tool: packed" not in admitted()


def test_a_certificate_that_is_not_the_pinned_one_is_refused(session: Session, tmp_path: Path) -> None:
    pki = make_pki(tmp_path / "pki", hosts=("127.0.0.1",))
    with mcp_server(tmp_path, cert=str(pki.cert_path), key=str(pki.key_path)) as served:
        servers = session.tool_servers
        servers.add_http("wrong pin", served.url, Trust(system=False, pin="ab" * 32))
        with pytest.raises(ToolError, match="does not match the pinned SHA-256"):
            session.tools.check("wrong pin")
        assert served.requests() == []  # not one request was sent
        servers.add_http("unknown CA", served.url, Trust())
        with pytest.raises(ToolError, match="certificate") as refused:
            session.tools.check("unknown CA")
        print(refused.value)
        assert served.requests() == []
        certificate, key = certificate_pins(pki.cert_der)
        for name, trust in (("pinned", Trust(system=False, pin=key)),
                            ("pinned cert", Trust(system=False, pin=certificate.upper())),
                            ("corp CA", Trust(system=False, ca_pem=pki.ca_pem))):
            servers.add_http(name, served.url, trust)
            assert [t.name for t in session.tools.check(name)] == ["add", "big", "wait"], name
        assert servers.require("pinned cert").trust.pin == certificate  # kept as the engines keep one
    assert not any(d.name.startswith(" tool") for d in egress.destinations())


def test_records_round_trip_and_old_records_load_unchanged(session: Session) -> None:
    servers = session.tool_servers
    record = servers.add_http("remote", " https://tools.corp.example:8443/mcp ", Trust(system=False, pin="ab" * 32),
                              token="t0ken")
    assert (record.url, record.command, record.remote, record.token) == (
        "https://tools.corp.example:8443/mcp", "", True, "t0ken")
    assert ToolServerRecord.from_dict(record.to_dict()) == record
    old = {"name": "notes", "command": "/usr/bin/python3", "args": ["/opt/notes.py"], "read": ["/srv"],
           "write": [], "env": {"TOKEN": "x"}, "unconfined_ok": False, "uid": "0123abcd"}
    loaded = ToolServerRecord.from_dict(old)
    assert loaded is not None and not loaded.remote and loaded.where() == "" and loaded.to_dict() == old
    library = session.library
    library.set_preference(PREFERENCE, [old, record.to_dict()])
    fresh = ToolServers(library)
    assert [r.name for r in fresh.records()] == ["notes", "remote"]
    assert fresh.require("notes") == loaded and fresh.require("remote") == record

    for url, trust, said in (
            ("http://tools.corp.example/mcp", Trust(), "unencrypted"),
            ("https://me:secret@tools.corp.example/mcp", Trust(), "user name"),
            ("ftp://tools.corp.example/mcp", Trust(), "https://"),
            ("https://tools.corp.example/mcp", Trust(pin="not a pin"), "SHA-256"),
            ("https://tools.corp.example/mcp?key=s3cret", Trust(), "query or fragment"),
            ("https://tools.corp.example/mcp#key", Trust(), "query or fragment")):
        with pytest.raises(ToolError, match=said):
            servers.add_http("other", url, trust)
    with pytest.raises(ToolError, match="visible ASCII"):
        servers.add_http("other", "https://tools.corp.example/mcp", Trust(), token="two words")
    with pytest.raises(ToolError, match="exists already"):
        servers.add_http("remote", "https://tools.corp.example/mcp", Trust())
    assert servers.add_http("plain", "http://tools.corp.example/mcp", Trust(allow_http=True)).trust.allow_http
    assert servers.add_http("here", "http://localhost:8000/mcp", Trust()).where() == "localhost:8000"


def test_removing_a_server_lets_its_address_go(session: Session, tmp_path: Path) -> None:
    with mcp_server(tmp_path) as served:
        session.tool_servers.add_http("remote", served.url, Trust())
        session.tools.start("remote")
        assert " tool: remote" in admitted()
        session.tools.stop("remote")
        session.tool_servers.remove("remote")
        assert " tool: remote" not in admitted()


@pytest.mark.e2e
def test_the_terminal_adds_checks_lists_and_removes_a_server(data_dir: Path, tmp_path: Path) -> None:
    """As a script runs it: ``python -m app`` installs the egress guard first, so the check
    goes through the guard's admission of the address."""
    from tests.tools.test_cli_tools import hearth

    with mcp_server(tmp_path, token="t-0123456789") as served:
        added = hearth(data_dir, "tools", "add", "remote", "--url", served.url, "--token-env", "REMOTE_TOKEN",
                       env={"REMOTE_TOKEN": "t-0123456789"})
        assert added.returncode == 0, added.stderr
        assert "added (not started): remote: " + served.url in added.stdout and "sends a token" in added.stdout
        assert "t-0123456789" not in added.stdout + added.stderr and served.requests() == []
        listed = hearth(data_dir, "tools", "list")
        assert listed.returncode == 0 and served.url in listed.stdout and "t-0123456789" not in listed.stdout

        # A server at an address is kept: the next start leaves the kernel's no-network line off.
        assert '"http_tools": true' in (data_dir / "settings.json").read_text()
        checked = hearth(data_dir, "tools", "check", "remote")
        assert checked.returncode == 0, checked.stderr
        assert "reached at its address, answered; 3 tool(s)" in checked.stdout
        assert "add: Add two numbers." in checked.stdout

        both = hearth(data_dir, "tools", "add", "both", "--url", served.url, sys.executable)
        assert both.returncode == 1 and "not both" in both.stderr
        plain = hearth(data_dir, "tools", "add", "far", "--url", "http://tools.corp.example/mcp")
        assert plain.returncode == 1 and "unencrypted" in plain.stderr
        allowed = hearth(data_dir, "tools", "add", "far", "--url", "http://tools.corp.example/mcp", "--allow-http")
        assert allowed.returncode == 0 and "plain http allowed" in allowed.stdout
        assert hearth(data_dir, "tools", "remove", "remote").returncode == 0
        assert hearth(data_dir, "tools", "remove", "far").returncode == 0
        assert '"http_tools": false' in (data_dir / "settings.json").read_text()  # the line is back
    assert not any(b"t-0123456789" in p.read_bytes() for p in data_dir.rglob("*") if p.is_file())


def test_the_call_limit_holds_and_a_lock_ends_a_call_under_way(session: Session, tmp_path: Path) -> None:
    with mcp_server(tmp_path) as served:
        session.tool_servers.add_http("remote", served.url, Trust())
        started = time.monotonic()
        with pytest.raises(ToolError, match="did not answer within 1 s; it was stopped"):
            session.tools.call("remote", "wait", {"seconds": 30}, seconds=1.0)
        assert time.monotonic() - started < 6 and not session.tools.running("remote")
        assert " tool: remote" not in admitted()

        future = session.tools.submit("remote", "wait", {"seconds": 30})  # started again
        deadline = time.monotonic() + 10
        while not session.tools.running("remote") and time.monotonic() < deadline:
            time.sleep(0.05)
        time.sleep(0.3)  # the call is under way
        locked = time.monotonic()
        session.tools.close()  # the session's end: lock, auto-lock, quit
        with pytest.raises((ToolError, concurrent.futures.CancelledError)):
            future.result(5)
        assert time.monotonic() - locked < 3
        assert " tool: remote" not in admitted()


@pytest.mark.gui
def test_the_tools_dialog_adds_a_server_by_its_address(qtbot, session: Session, tmp_path: Path) -> None:
    from app.chat.tools_dialog import ToolServerForm, describe

    form = ToolServerForm(session.tool_servers)
    qtbot.addWidget(form)
    form.show()
    assert form.program.isVisible() and not form.url.isVisible()
    form.remote.setChecked(True)
    assert form.url.isVisible() and form.pin.isVisible() and not form.program.isVisible()
    form.name.setText("remote")
    form.url.setText("http://tools.corp.example/mcp")
    form.ok_button.click()
    assert form.record is None and "unencrypted" in form.problem.text()
    form.url.setText("https://tools.corp.example:8443/mcp")
    form.token.setText("t0ken")
    form.system.setChecked(False)
    form.pin.setText("AB" * 32)
    form.ok_button.click()
    record = session.tool_servers.require("remote")
    assert form.record == record and record.remote and record.token == "t0ken"
    assert record.trust == Trust(system=False, pin="ab" * 32)
    shown = describe(record)
    assert "https://tools.corp.example:8443/mcp" in shown and "the pinned certificate" in shown
    assert "t0ken" not in shown


def test_the_log_keeps_no_servers_name_address_or_words(session: Session, caplog) -> None:
    """Logs hold no names, paths or messages (docs/privacy.md): a tool server that fails is
    logged by the kind of its failure and a tag, not by what it is called or said."""
    import logging

    caplog.set_level(logging.INFO)
    session.tool_servers.add_http("matter-Hargreaves-7741", "http://127.0.0.1:9/mcp", Trust())
    with pytest.raises(ToolError):
        session.tools.check("matter-Hargreaves-7741")
    logged = "\n".join(r.getMessage() for r in caplog.records)
    assert "ended (" in logged and "Hargreaves" not in logged and "127.0.0.1:9" not in logged


def test_removing_a_server_that_stopped_answering_does_not_hold_the_window(
        qtbot, session: Session, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A review: Settings ▸ Tools ▸ Remove stopped the server on the window's thread, which
    waited for one that had gone silent (its session's end) for seconds."""
    from app.chat.tools_dialog import ToolsDialog
    from core.tools.host import ToolHost

    with mcp_server(tmp_path, hang_delete="1") as served:
        session.tool_servers.add_http("remote", served.url, Trust())
        session.tools.start("remote")
        dialog = ToolsDialog(session)
        qtbot.addWidget(dialog)
        dialog.list.setCurrentRow(0)
        assert dialog.selected() is not None
        waits: list[object] = []
        real_wait = ToolHost._wait
        monkeypatch.setattr(ToolHost, "_wait", lambda host, *args: waits.append(args) or real_wait(host, *args))
        monkeypatch.setattr("app.shell.dialogs.confirm", lambda *_args: True)  # Remove asks first: yes
        dialog.remove()
        assert waits == []  # the window's thread waited on nothing
        assert session.tool_servers.records() == []
        qtbot.waitUntil(lambda: "DELETE /mcp" in served.requests(), timeout=30_000)  # told, on the host's loop
        qtbot.waitUntil(lambda: " tool: remote" not in admitted(), timeout=30_000)  # and let go
