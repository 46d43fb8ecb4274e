"""A stdio tool server that needs the intranet (#44): it runs in a network of its own with
nothing but loopback, and reaches only the destinations the user granted, through Hearth's
relay, which the egress guard admits and counts. Real MCP servers, real namespaces,
Landlock and seccomp, a real HTTP server standing in for the intranet."""

from __future__ import annotations

import http.server
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from core.session import Session
from core.tools.servers import ToolError
from guard import egress
from guard.relay import Relay, parse_destination
from tests.tools.conftest import needs_sandbox, server_args
from tests.tools.test_tool_servers import listener


class Page(http.server.BaseHTTPRequestHandler):
    def do_GET(self) -> None:  # noqa: N802 - the standard library's name
        body = f"intranet page at {self.path}".encode()
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def intranet() -> Iterator[int]:
    """An HTTP server on a loopback port: the intranet the tool may reach."""
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Page)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server.server_address[1]
    server.shutdown()
    server.server_close()


@needs_sandbox
def test_a_server_reaches_only_what_it_was_granted_through_the_relay(
        session: Session, tmp_path: Path, intranet: int) -> None:
    other = listener()  # a destination nobody granted
    other_port = other.getsockname()[1]
    command, args = server_args("reaching")
    session.tool_servers.add("reaching", command, args, reach=[f"127.0.0.1:{intranet}"])
    tools = session.tools
    assert tools.call("reaching", "fetch", {"url": f"http://127.0.0.1:{intranet}/wiki"}).text == \
        "200 intranet page at /wiki"
    assert tools.call("reaching", "tunnel", {"host": "127.0.0.1", "port": intranet}).text == \
        "200 intranet page at /"
    assert tools.call("reaching", "fetch", {"url": f"http://127.0.0.1:{other_port}/"}).text.startswith("403 ")
    assert tools.call("reaching", "tunnel", {"host": "127.0.0.1", "port": other_port}).text == "403"
    report = tools.call("reaching", "around", {"port": intranet}).text
    assert report.splitlines() == ["direct: refused PermissionError", "dns: refused gaierror"], report
    with pytest.raises(BlockingIOError):
        other.accept()  # nothing reached the destination nobody granted
    (counted,) = [d for d in egress.destinations() if d.name.startswith(f" tool: reaching 127.0.0.1:{intranet} ")]
    assert counted.bytes_sent > 0 and counted.bytes_received > 0  # the guard's own count
    audit = tools.audit()[0]
    assert audit.where == f"127.0.0.1:{intranet}"
    assert (audit.relayed, audit.relay_refused) == (2, 2)
    assert (audit.relayed_out, audit.relayed_in) == (counted.bytes_sent, counted.bytes_received)
    session.close()
    assert not [d for d in egress.destinations() if d.name.startswith(" tool: reaching")]  # revoked


@needs_sandbox
def test_a_server_that_reaches_nothing_has_no_proxy_and_no_network(session: Session, intranet: int) -> None:
    command, args = server_args("reaching")
    session.tool_servers.add("plain", command, args)
    # No HTTPS_PROXY in its environment: the tool fails, and says so.
    assert session.tools.call("plain", "tunnel", {"host": "127.0.0.1", "port": intranet}).is_error
    report = session.tools.call("plain", "around", {"port": intranet}).text
    assert report.splitlines()[0].startswith("direct: refused"), report


def test_destinations_are_host_and_port(session: Session) -> None:
    command, args = server_args("reaching")
    for wrong in ("wiki.intranet", "http://wiki.intranet:80", "wiki.intranet:0", "user@wiki:80", "wiki :80"):
        with pytest.raises(ToolError, match="host name and port"):
            session.tool_servers.add("x", command, args, reach=[wrong])
    record = session.tool_servers.add("x", command, args, reach=["Wiki.Intranet.:443", "[fd00::1]:8080",
                                                                 "wiki.intranet:443"])
    assert record.reach == ("wiki.intranet:443", "[fd00::1]:8080")
    assert session.tool_servers.require("x").reach == record.reach  # kept in the vault


@pytest.mark.parametrize(("head", "expected"), [
    (b"CONNECT wiki.intranet:443 HTTP/1.1\r\nHost: x", (("wiki.intranet", 443), None)),
    (b"GET http://Wiki.Intranet/a?b HTTP/1.1\r\nHost: wiki\r\nProxy-Authorization: x\r\nConnection: keep-alive",
     (("wiki.intranet", 80), (b"GET /a?b HTTP/1.1\r\nHost: wiki\r\nConnection: close\r\n\r\n", 0))),
    (b"GET http://me:pw@wiki:8080 HTTP/1.0", (("wiki", 8080), (b"GET / HTTP/1.0\r\nConnection: close\r\n\r\n", 0))),
    (b"POST http://[fd00::1]:81/x HTTP/1.1\r\nContent-Length: 12",
     (("fd00::1", 81), (b"POST /x HTTP/1.1\r\nContent-Length: 12\r\nConnection: close\r\n\r\n", 12))),
    (b"POST http://wiki/x HTTP/1.1\r\nTransfer-Encoding: chunked", None),  # its end is not in its head
    (b"POST http://wiki/x HTTP/1.1\r\nContent-Length: 3\r\nContent-Length: 4", None),
    (b"GET https://wiki/ HTTP/1.1", None),  # TLS is tunnelled with CONNECT, not asked of the relay
    (b"GET /relative HTTP/1.1", None),
    (b"GET http://wiki?x=1 HTTP/1.1", None),
    (b"CONNECT wiki HTTP/1.1", None),
    (b"nonsense", None),
])
def test_the_relay_reads_the_proxy_requests_clients_send(head: bytes, expected: object) -> None:
    assert Relay._request(head) == expected


def test_a_destination_is_written_one_way() -> None:
    assert parse_destination(" WIKI.intranet.:443 ") == ("wiki.intranet", 443)
    assert parse_destination("[FD00::1]:8080") == ("fd00::1", 8080)


def test_with_hearths_own_network_line_on_it_is_not_started_and_the_user_is_told(
        session: Session, monkeypatch: pytest.MonkeyPatch) -> None:
    from guard import seccomp

    command, args = server_args("reaching")
    session.tool_servers.add("reaching", command, args, reach=["wiki.intranet:443"])
    monkeypatch.setattr(seccomp.RESTRICTION, "active", True)
    with pytest.raises(ToolError, match="once Hearth starts again"):
        session.tools.check("reaching")


def test_the_privacy_panel_says_what_the_relay_let_through_and_refused() -> None:
    from PySide6.QtCore import QLocale

    from app.shell.privacy_dialog import PrivacyDialog
    from core.tools.host import Audit

    words = PrivacyDialog._relay_words(QLocale(QLocale.Language.English), Audit(
        "wiki", 3, 10, 20, True, "", "wiki.intranet:443", 2, 1, 2048, 4096))
    assert words.startswith("; through Hearth's relay to wiki.intranet:443: 2 connection"), words
    assert words.endswith(", 2.00 KiB out, 4.00 KiB in; 1 refused (not an address you gave it)"), words
    assert PrivacyDialog._relay_words(QLocale(), Audit("plain", 1, 1, 1, True, "")) == ""


@needs_sandbox
def test_the_terminal_adds_and_checks_a_server_that_may_reach_the_intranet(data_dir: Path) -> None:
    """As a script runs it: the egress guard installed first; keeping such a server leaves
    the kernel's no-network line off at the next start, as an address does."""
    from tests.tools.test_cli_tools import hearth

    command, args = server_args("reaching")
    added = hearth(data_dir, "tools", "add", "reaching", "--reach", "wiki.intranet:8443", "--", command, *args)
    assert added.returncode == 0, added.stderr
    assert "may reach: wiki.intranet:8443 (through Hearth's relay)" in added.stdout
    assert '"http_tools": true' in (data_dir / "settings.json").read_text()
    checked = hearth(data_dir, "tools", "check", "reaching")
    assert checked.returncode == 0, checked.stderr
    assert "started in its sandbox, answered and stopped; 3 tool(s)" in checked.stdout
    wrong = hearth(data_dir, "tools", "add", "far", "--url", "https://tools.corp.example/mcp", "--reach", "a:1")
    assert wrong.returncode == 1 and "--reach" in wrong.stderr
    assert hearth(data_dir, "tools", "remove", "reaching").returncode == 0
    assert '"http_tools": false' in (data_dir / "settings.json").read_text()


def test_the_tools_dialog_takes_the_addresses_a_server_may_reach(qtbot, session: Session) -> None:
    from app.chat.tools_dialog import ToolServerForm, describe

    form = ToolServerForm(session.tool_servers)
    qtbot.addWidget(form)
    form.show()
    assert form.reach.isVisible()
    command, args = server_args("reaching")
    form.name.setText("reaching")
    form.program.setText(command)
    form.arguments.setText(" ".join(args))
    form.reach.setText("wiki.intranet")
    form.ok_button.click()
    assert form.record is None and "host name and port" in form.problem.text()
    form.reach.setText("wiki.intranet:443; tracker:8080")
    form.ok_button.click()
    record = session.tool_servers.require("reaching")
    assert record.reach == ("wiki.intranet:443", "tracker:8080")
    assert "May reach: wiki.intranet:443, tracker:8080, through Hearth's relay" in describe(record)
    form.remote.setChecked(True)
    assert not form.reach.isVisible()


@needs_sandbox
def test_a_hostile_server_given_the_intranet_is_refused_everything_else(
        session: Session, tmp_path: Path, intranet: int) -> None:
    """Its own network changes nothing else: the vault, the home folder, Hearth's process,
    its limits and a new namespace stay out of reach, and the test's listener on the
    host's loopback is never reached."""
    from tests.tools.test_tool_servers import add_hostile

    sock = listener()
    add_hostile(session, tmp_path, sock.getsockname()[1], reach=(f"127.0.0.1:{intranet}",))
    report = session.tools.call("hostile", "probe", {}).text
    lines = [line for line in report.splitlines() if ":" in line and not line.endswith(":")]
    assert len(lines) == 24 and all(": refused" in line for line in lines), report
    with pytest.raises(BlockingIOError):
        sock.accept()


def relay_for(granted: list[str]) -> tuple[Relay, int]:
    """A relay as a launcher would start it: a loopback listener handed over the socket pair."""
    import os

    from guard.netns import hand_over_listener

    relay = Relay(" tool: unit", granted)
    # The launcher gets its own copy of the socket pair's end (pass_fds); here a dup plays that
    # copy. Handing over Hearth's own number instead closed it twice: ``started`` then closed
    # whatever had taken the number meanwhile, the relay's listener at times (CI, stop 50).
    port = hand_over_listener(os.dup(relay.child_fd))
    relay.started()
    return relay, port


def exchange(port: int, data: bytes) -> bytes:
    import socket as socket_module

    with socket_module.create_connection(("127.0.0.1", port), 10) as sock:
        sock.sendall(data)
        answer = b""
        while chunk := sock.recv(65536):
            answer += chunk
    return answer


def test_a_plain_request_is_one_exchange_and_what_follows_it_is_not_relayed(intranet: int) -> None:
    other = listener()
    relay, port = relay_for([f"127.0.0.1:{intranet}"])
    try:
        pipelined = (f"GET http://127.0.0.1:{intranet}/first HTTP/1.1\r\nHost: a\r\nConnection: keep-alive\r\n\r\n"
                     f"GET http://127.0.0.1:{other.getsockname()[1]}/second HTTP/1.1\r\nHost: b\r\n\r\n").encode()
        answer = exchange(port, pipelined)
        assert answer.count(b"HTTP/1.") == 1 and b"intranet page at /first" in answer
        with pytest.raises(BlockingIOError):
            other.accept()  # the second request went nowhere
    finally:
        relay.close()


def test_refusals_are_counted_without_keeping_or_logging_each(caplog) -> None:
    import logging

    relay, port = relay_for(["wiki.intranet:443"])
    try:
        with caplog.at_level(logging.WARNING, logger="hearth.tools"):
            for n in range(60):
                assert exchange(port, f"CONNECT elsewhere:{n + 1} HTTP/1.1\r\n\r\n".encode()).startswith(
                    b"HTTP/1.1 403")
        assert relay.counters.refused == 60 and len(relay.counters.examples) <= 20
        assert len([r for r in caplog.records if "refused" in r.getMessage()]) <= 21
        assert "elsewhere" not in caplog.text  # destinations are not logged, only the server's tag
    finally:
        relay.close()
