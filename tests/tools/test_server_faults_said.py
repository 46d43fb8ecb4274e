"""A tool server that fails is said in the user's words, in the window's language: the
ToolError's text is shown in the tool panel and read by the model, and it said a
library's class name ("stopped answering (ClosedResourceError)") or its English words
("Connection closed"). Now a short reason one can act on; the rest is in the log. Real
servers: one over standard input and output that closes its output under a call, or
answers with something that is not MCP; one over HTTP that closes every connection."""

from __future__ import annotations

import re
import socket
import threading

import pytest

import i18n
from core.session import Session
from core.tools.servers import ToolError
from inference.trust import Trust
from tests.intranet import ENGINE_HOST
from tests.tools.conftest import server_args

HAN = re.compile(r"[\u4e00-\u9fff]")
LIBRARY = ("Error", "Exception", "Connection closed", "EndOfStream", "Errno", "Traceback", "?)", "validation")


@pytest.fixture(params=["zh_CN", "en"])
def lang(request):
    i18n.install(i18n.Catalog.load(request.param))
    yield request.param
    i18n.install(None)


def _failure(session: Session, server: str, tool: str) -> str:
    with pytest.raises(ToolError) as caught:
        session.tools.call(server, tool, {}, seconds=20)
    return str(caught.value)


def _in_users_words(text: str, lang: str) -> None:
    assert not [w for w in LIBRARY if w in text], text
    if lang == "zh_CN":
        assert HAN.search(text), text


@pytest.mark.parametrize("tool", ["close", "garble"])
def test_a_server_that_closes_its_output_under_a_call_is_said_in_words(session: Session, lang: str,
                                                                      tool: str) -> None:
    command, args = server_args("closing")
    session.tool_servers.add("closing", command, args, unconfined_ok=True)
    said = _failure(session, "closing", tool)
    _in_users_words(said, lang)
    if lang == "en":
        assert said.startswith("closing stopped answering (the server closed the connection)") or \
            said.startswith("closing could not run"), said
        assert "the server closed the connection" in said or "not valid MCP" in said, said


def test_an_http_server_that_closes_every_connection_is_said_in_words(session: Session, lang: str) -> None:
    listener = socket.socket()
    listener.bind((ENGINE_HOST, 0))
    listener.listen(8)
    port = listener.getsockname()[1]
    stop = threading.Event()

    def serve() -> None:  # takes each connection and closes it without a word
        listener.settimeout(0.2)
        while not stop.is_set():
            try:
                conn, _ = listener.accept()
            except OSError:
                continue
            conn.recv(65536)
            conn.close()

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    try:
        session.tool_servers.add_http("closing", f"http://{ENGINE_HOST}:{port}/mcp", Trust())
        with pytest.raises(ToolError) as caught:
            session.tools.check("closing")
        said = str(caught.value)
    finally:
        stop.set()
        thread.join(5)
        listener.close()
    _in_users_words(said, lang)
    if lang == "en":
        assert "the server closed the connection" in said, said
