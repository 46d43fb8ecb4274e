"""The local OpenAI-compatible API, driven by the official openai client on loopback, and its
defences (Host check, slow clients, connection cap, the guard's port, the token) on a real
uvicorn server with a backend that needs no model."""

from __future__ import annotations

import http.client
import io
import json
import os
import queue
import socket
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np
import pytest

from cli.common import CommandError
from cli.serve import API_TOKEN_ENV, read_api_token
from core.api import KEEP_ALIVE, MAX_CONNECTIONS, MAX_HEADERS, ApiServer, Backend
from guard import egress
from inference.embedder import LlamaEmbedder
from inference.llama_engine import LlamaEngine
from inference.protocol import (
    ChatMessage,
    EmbedderLoaded,
    LoadEmbedder,
    LoadModel,
    ModelLoaded,
    ModelSpec,
    SamplingParams,
)
from inference.routing import RequestRouter
from inference.worker import InferenceWorker

ROOT = Path(__file__).resolve().parents[2]
MODEL = "smollm2"
EMBEDDER = "minilm"


def needs_model(test):
    """The tests that drive the real model through the API."""
    return pytest.mark.model(pytest.mark.e2e(test))


def openai_module():
    return pytest.importorskip("openai", reason="the openai client is a test dependency")


@pytest.fixture(scope="module")
def server(starter_model_path: Path, embedding_model_path: Path):
    router = RequestRouter()
    startup: queue.Queue = queue.Queue()
    router.fallback = startup.put
    worker = InferenceWorker(LlamaEngine, router.sink, flush_interval=0.02, embedder_factory=LlamaEmbedder)
    worker.start()
    worker.submit(LoadModel(ModelSpec(starter_model_path, n_ctx=2048, n_threads=2)))
    worker.submit(LoadEmbedder(embedding_model_path))
    seen = set()
    while seen != {ModelLoaded, EmbedderLoaded}:
        event = startup.get(timeout=120)
        if type(event) in (ModelLoaded, EmbedderLoaded):
            seen.add(type(event))
    cancelled: list[int] = []
    submitted: list = []

    def cancel(rid: int) -> None:
        cancelled.append(rid)
        worker.cancel(rid)

    def submit(command) -> None:  # type: ignore[no-untyped-def]
        submitted.append(command)
        worker.submit(command)

    backend = Backend(submit, cancel, router, lambda: MODEL, lambda: EMBEDDER)
    api = ApiServer(backend, port=0, token="test-token-1234")
    api.start()
    api.cancelled, api.submitted = cancelled, submitted
    yield api
    api.stop()
    assert worker.shutdown(5.0)


@pytest.fixture
def client(server):
    return openai_module().OpenAI(base_url=server.url, api_key=server.token, max_retries=0, timeout=120)


QUESTION = [{"role": "system", "content": "You are brief."}, {"role": "user", "content": "Name three fruits."}]


def direct_answer(model_path: Path, max_tokens: int) -> str:
    engine = LlamaEngine()
    engine.load(ModelSpec(model_path, n_ctx=2048, n_threads=2))
    try:
        messages = [ChatMessage(m["role"], m["content"]) for m in QUESTION]
        params = SamplingParams(max_tokens=max_tokens, temperature=0.0, seed=3, top_p=0.95)
        return "".join(engine.stream(messages, params, lambda: False))
    finally:
        engine.close()


@needs_model
def test_models(client) -> None:
    assert [m.id for m in client.models.list().data] == [MODEL, EMBEDDER]


@needs_model
def test_chat_completion_matches_the_worker_streaming_or_not(client, starter_model_path) -> None:
    plain = client.chat.completions.create(model=MODEL, messages=QUESTION, temperature=0, seed=3, max_tokens=24)
    text = plain.choices[0].message.content
    assert text.strip() and plain.usage.completion_tokens > 0
    assert text == direct_answer(starter_model_path, 24)
    pieces = [c.choices[0].delta.content or "" for c in client.chat.completions.create(
        model=MODEL, messages=QUESTION, temperature=0, seed=3, max_tokens=24, stream=True) if c.choices]
    assert "".join(pieces) == text


@needs_model
def test_embeddings(client, embedding_model_path) -> None:
    result = client.embeddings.create(model=EMBEDDER, input=["a lighthouse by the sea", "ships"])
    vectors = np.array([d.embedding for d in result.data])
    assert vectors.shape == (2, 384)
    direct = LlamaEmbedder()
    direct.load(embedding_model_path)
    try:
        expected = direct.embed(["a lighthouse by the sea"])[0]
    finally:
        direct.close()
    assert float(vectors[0] @ expected) > 0.999


def raw(server, method: str, path: str, body: bytes = b"", token: str | None = "use") -> tuple[int, dict]:
    connection = http.client.HTTPConnection(server.host, server.port, timeout=30)
    headers = {"Content-Type": "application/json"}
    if token:
        headers["Authorization"] = f"Bearer {server.token if token == 'use' else token}"
    connection.request(method, path, body=body, headers=headers)
    response = connection.getresponse()
    payload = json.loads(response.read() or b"{}")
    connection.close()
    return response.status, payload


@needs_model
def test_errors_are_openai_shaped(server) -> None:
    status, body = raw(server, "GET", "/v1/models", token=None)
    assert status == 401 and body["error"]["code"] == "invalid_api_key"
    assert raw(server, "GET", "/v1/models", token="wrong-token")[0] == 401
    status, body = raw(server, "POST", "/v1/chat/completions", b"{not json")
    assert status == 400 and "not valid JSON" in body["error"]["message"]
    status, body = raw(server, "POST", "/v1/chat/completions",
                       json.dumps({"model": "gpt-9", "messages": QUESTION}).encode())
    assert status == 404 and body["error"]["code"] == "model_not_found"
    status, body = raw(server, "POST", "/v1/chat/completions", json.dumps({"messages": []}).encode())
    assert status == 400
    status, body = raw(server, "POST", "/v1/chat/completions", b'{"messages": "' + b"x" * (2 << 20) + b'"}')
    assert status == 413
    # Numbers JSON does not have, or no sampler takes, and nesting past Python's stack:
    # answered 500 with a traceback in the log before (OverflowError, RecursionError).
    question = json.dumps(QUESTION)
    for settings in ('"max_tokens": 1e400', '"max_tokens": Infinity', '"seed": -Infinity',
                     '"temperature": NaN', '"temperature": "nan"', '"top_p": "inf"', '"max_tokens": -5',
                     '"temperature": -1e308'):
        status, body = raw(server, "POST", "/v1/chat/completions",
                           f'{{"messages": {question}, {settings}}}'.encode())
        assert status == 400 and body["error"]["type"] == "invalid_request_error", settings
    for path in ("/v1/chat/completions", "/v1/embeddings"):
        status, body = raw(server, "POST", path, b"[" * 100_000 + b"]" * 100_000)
        assert status == 400 and "not valid JSON" in body["error"]["message"]


def test_only_loopback_is_served() -> None:
    backend = Backend(lambda c: None, lambda r: None, RequestRouter(), lambda: "m", lambda: "e")
    with pytest.raises(ValueError, match="only listens on this computer"):
        ApiServer(backend, host="0.0.0.0")


@needs_model
@pytest.mark.parametrize("streamed", [True, False])
def test_a_client_that_disconnects_cancels_its_generation(server, streamed: bool) -> None:
    """Streamed or answered whole: an answer answered whole wrote nothing until its end,
    so a client that left was not noticed, and the one worker generated up to 2,000
    tokens for nobody while the window's chats waited behind it."""
    connection = http.client.HTTPConnection(server.host, server.port, timeout=30)
    body = json.dumps({"model": MODEL, "messages": QUESTION, "max_tokens": 2000, "stream": streamed}).encode()
    asked = len(server.submitted)
    before = len(server.cancelled)
    connection.request("POST", "/v1/chat/completions", body=body,
                       headers={"Authorization": f"Bearer {server.token}", "Content-Type": "application/json"})
    if streamed:
        response = connection.getresponse()
        assert response.status == 200
        response.fp.readline()  # the first event
        response.close()  # the client goes away mid-answer
    else:
        deadline = time.monotonic() + 20
        while len(server.submitted) == asked and time.monotonic() < deadline:
            time.sleep(0.05)  # until the worker is asked
        assert len(server.submitted) > asked
    connection.close()
    deadline = time.monotonic() + 20
    while len(server.cancelled) == before and time.monotonic() < deadline:
        time.sleep(0.05)
    assert len(server.cancelled) > before


@needs_model
@pytest.mark.slow
def test_twenty_concurrent_clients_all_complete(server, client, capsys) -> None:
    latencies: list[float] = []
    failures: list[str] = []
    lock = threading.Lock()

    def one_client(index: int) -> None:
        own = openai_module().OpenAI(base_url=server.url, api_key=server.token, max_retries=0, timeout=300)
        for request in range(2):
            started = time.perf_counter()
            try:
                answer = own.chat.completions.create(
                    model=MODEL, max_tokens=8, temperature=0,
                    messages=[{"role": "user", "content": f"Client {index} request {request}: say hi."}])
                assert answer.choices[0].message.content is not None
            except Exception as exc:  # noqa: BLE001 - collected and reported below
                with lock:
                    failures.append(repr(exc))
                continue
            with lock:
                latencies.append(time.perf_counter() - started)

    started = time.perf_counter()
    threads = [threading.Thread(target=one_client, args=(i,)) for i in range(20)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(600)
    elapsed = time.perf_counter() - started
    assert failures == [] and len(latencies) == 40
    ordered = sorted(latencies)
    with capsys.disabled():
        print(f"\n20 clients x 2 requests: {40 / elapsed:.2f} requests/s, latency p50 "
              f"{statistics.median(ordered):.2f} s, p95 {ordered[int(0.95 * 39)]:.2f} s, max {ordered[-1]:.2f} s")
    assert client.models.list().data  # still serving


# The defences, on a real uvicorn server whose backend needs no model.
TOKEN = "a-test-token-of-some-length"


@pytest.fixture
def bare_server():
    backend = Backend(lambda command: None, lambda rid: None, RequestRouter(), lambda: "fake-model", lambda: "")
    started: list[ApiServer] = []

    def start(**options) -> ApiServer:
        api = ApiServer(backend, port=0, token=TOKEN, **options)
        api.start()
        started.append(api)
        return api

    yield start
    for api in started:
        api.stop()


def exchange(api: ApiServer, host: str | None, version: str = "1.1") -> tuple[int, bytes]:
    """One request over a plain socket, with exactly the Host header given (None: none)."""
    lines = [f"GET /v1/models HTTP/{version}", f"Authorization: Bearer {TOKEN}", "Connection: close"]
    if host is not None:
        lines.insert(1, f"Host: {host}")
    with socket.create_connection((api.host, api.port), timeout=10) as sock:
        sock.sendall(("\r\n".join(lines) + "\r\n\r\n").encode())
        reply = b""
        while chunk := sock.recv(65536):
            reply += chunk
    head, _, body = reply.partition(b"\r\n\r\n")
    return int(head.split()[1]), body


def test_only_requests_addressed_to_this_server_are_answered(bare_server) -> None:
    api = bare_server()
    for host in (f"127.0.0.1:{api.port}", f"localhost:{api.port}", f"[::1]:{api.port}", f"LocalHost:{api.port}"):
        status, body = exchange(api, host)
        assert status == 200, (host, body)
        assert json.loads(body)["data"][0]["id"] == "fake-model"
    # DNS rebinding: a page's own name pointed at 127.0.0.1; and near misses.
    for host in (f"evil.example:{api.port}", "evil.example", f"localhost.evil.example:{api.port}",
                 "127.0.0.1", f"127.0.0.1:{api.port + 1}", f"127.0.0.2:{api.port}", ""):
        status, body = exchange(api, host)
        assert status == 421, (host, status)
        assert json.loads(body)["error"]["code"] == "misdirected_request"
    assert exchange(api, None, version="1.0")[0] == 421  # HTTP/1.0 may leave Host out


def wait_closed(sock: socket.socket, trickle: bytes, seconds: float) -> float | None:
    """Send ``trickle`` every 0.2 s (a slow client); when the server closes the connection,
    how long it took, or None if it was still open after ``seconds``."""
    started = time.monotonic()
    sock.settimeout(0.2)
    while time.monotonic() - started < seconds:
        try:
            sock.sendall(trickle)
            if sock.recv(1024) == b"":
                return time.monotonic() - started
        except TimeoutError:
            continue
        except (BrokenPipeError, ConnectionResetError):
            return time.monotonic() - started
    return None


def test_a_client_that_trickles_its_headers_is_cut_off(bare_server) -> None:
    api = bare_server(request_timeout=1.0)
    with socket.create_connection((api.host, api.port), timeout=5) as slow:
        slow.sendall(f"GET /v1/models HTTP/1.1\r\nHost: 127.0.0.1:{api.port}\r\n".encode())
        took = wait_closed(slow, b"X-Slow: 1\r\n", seconds=6.0)
    assert took is not None and took < 3.0, took
    # After an answer, a kept-alive connection that trickles is cut off the same way.
    with socket.create_connection((api.host, api.port), timeout=5) as kept:
        kept.sendall(f"GET /v1/models HTTP/1.1\r\nHost: 127.0.0.1:{api.port}\r\n"
                     f"Authorization: Bearer {TOKEN}\r\n\r\n".encode())
        assert kept.recv(65536).startswith(b"HTTP/1.1 200")
        took = wait_closed(kept, b"G", seconds=6.0)  # a new request line, one byte at a time
    assert took is not None and took < 3.0, took
    # A second request sent with the first (pipelined; no token needed: the first is
    # answered 401), its body trickled: its deadline was never set, and 63 such
    # connections held every place the server has, for as long as they liked.
    with socket.create_connection((api.host, api.port), timeout=5) as pipelined:
        pipelined.sendall(f"GET /v1/models HTTP/1.1\r\nHost: 127.0.0.1:{api.port}\r\n\r\n"
                          f"POST /v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1:{api.port}\r\n"
                          "Content-Length: 100000\r\n\r\n".encode())
        took = wait_closed(pipelined, b"x", seconds=6.0)
    assert took is not None and took < 3.0, took
    assert exchange(api, f"127.0.0.1:{api.port}")[0] == 200  # and the server still serves


def test_slow_clients_cannot_take_every_connection(bare_server) -> None:
    api = bare_server(request_timeout=1.5, max_connections=4)
    holders = [socket.create_connection((api.host, api.port), timeout=5) for _ in range(4)]
    try:
        for sock in holders:
            sock.sendall(b"GET /v1/models HTTP/1.1\r\n")  # and never more
        time.sleep(0.2)
        assert exchange(api, f"127.0.0.1:{api.port}")[0] == 503  # refused at once, not queued
        time.sleep(2.0)  # the slow ones are cut off by the request deadline
        assert exchange(api, f"127.0.0.1:{api.port}")[0] == 200
    finally:
        for sock in holders:
            sock.close()


def test_the_server_is_configured_against_slow_and_large_requests(bare_server) -> None:
    config = bare_server()._server.config
    assert config.timeout_keep_alive == KEEP_ALIVE and config.limit_concurrency == MAX_CONNECTIONS
    assert config.h11_max_incomplete_event_size == MAX_HEADERS


def test_the_guard_allows_the_port_only_while_the_server_runs(bare_server) -> None:
    api = bare_server()
    assert api.port in egress.GUARD.allowed_ports
    api.stop()
    assert api.port not in egress.GUARD.allowed_ports
    api.stop()  # a second stop is harmless


def test_the_token_is_never_taken_from_the_arguments(data_dir: Path) -> None:
    env = dict(os.environ, HEARTH_DATA_DIR=str(data_dir))
    done = subprocess.run([sys.executable, "-m", "app", "serve", "--port", "0", "--token", "visible-in-ps-123456"],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 1
    assert "ps" in done.stderr and API_TOKEN_ENV in done.stderr and "--token-file" in done.stderr
    assert "Hearth API on" not in done.stdout  # nothing was served with it


def test_the_token_comes_from_the_environment_a_file_or_standard_input(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(API_TOKEN_ENV, raising=False)
    assert read_api_token(None) is None  # serve makes one and prints it
    monkeypatch.setenv(API_TOKEN_ENV, "from-the-environment-1234")
    assert read_api_token(None) == "from-the-environment-1234"
    assert API_TOKEN_ENV not in os.environ  # taken out: no child inherits it
    file = tmp_path / "token"
    file.write_text("from-a-file-0123456789\n", encoding="utf-8")
    assert read_api_token(str(file)) == "from-a-file-0123456789"
    assert read_api_token("-", stdin=io.StringIO("from-standard-input-42\n")) == "from-standard-input-42"
    for weak in ("short", "has spaces in the middle of it"):
        file.write_text(weak, encoding="utf-8")
        with pytest.raises(CommandError, match="at least 16 characters"):
            read_api_token(str(file))
    with pytest.raises(CommandError, match="could not be read"):
        read_api_token(str(tmp_path / "missing"))


def test_embeddings_are_asked_of_the_named_model_only() -> None:
    """With two embedders loaded (a re-embedding under way), the API must not get vectors
    from whichever was loaded last: its Embed names the model it advertises."""
    from inference.protocol import Embed

    asked: list[Embed] = []

    def submit(command) -> None:
        if isinstance(command, Embed):
            asked.append(command)
            command.future.set_result(np.ones((len(command.texts), 3), np.float32))

    backend = Backend(submit, lambda rid: None, RequestRouter(), lambda: "m", lambda: "minilm",
                      embedding_sha256=lambda: "a" * 64)
    api = ApiServer(backend, port=0, token=TOKEN)
    api.start()
    try:
        connection = http.client.HTTPConnection(api.host, api.port, timeout=30)
        connection.request("POST", "/v1/embeddings", body=json.dumps({"model": "minilm", "input": "x"}),
                           headers={"Authorization": f"Bearer {TOKEN}", "Content-Type": "application/json",
                                    "Host": f"127.0.0.1:{api.port}"})
        response = connection.getresponse()
        assert response.status == 200, response.read()
        connection.close()
    finally:
        api.stop()
    assert [(c.texts, c.model) for c in asked] == [(("x",), "a" * 64)]


def test_a_client_gone_before_its_whole_answer_is_said_as_gone_not_as_a_fault() -> None:
    """The watch for a client's leaving asked the work to stop, then read its result
    before the stop had run: InvalidStateError, an internal error in the log at every
    whole answer or tool choice whose client left (a review), where ClientGone (499) was
    meant. The work's own cleaning up (the worker's cancel) runs before."""
    import asyncio

    from core.api import ClientGone, unless_gone

    cleaned: list[bool] = []

    class Gone:
        async def receive(self) -> dict:
            return {"type": "http.disconnect"}

    async def forever() -> None:
        try:
            await asyncio.sleep(3600)
        finally:
            cleaned.append(True)

    async def run() -> None:
        with pytest.raises(ClientGone):
            await unless_gone(Gone(), forever())  # type: ignore[arg-type]

    asyncio.run(run())
    assert cleaned == [True]
