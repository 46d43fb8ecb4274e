"""The local OpenAI-compatible API, driven by the official openai client on loopback."""

from __future__ import annotations

import http.client
import json
import queue
import statistics
import threading
import time
from pathlib import Path

import numpy as np
import pytest

from core.api import ApiServer, Backend
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

openai = pytest.importorskip("openai", reason="the openai client is a test dependency")
pytestmark = [pytest.mark.model, pytest.mark.e2e]
MODEL = "smollm2"
EMBEDDER = "minilm"


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

    def cancel(rid: int) -> None:
        cancelled.append(rid)
        worker.cancel(rid)

    backend = Backend(worker.submit, cancel, router, lambda: MODEL, lambda: EMBEDDER)
    api = ApiServer(backend, port=0, token="test-token-1234")
    api.start()
    api.cancelled = cancelled
    yield api
    api.stop()
    assert worker.shutdown(5.0)


@pytest.fixture
def client(server):
    return openai.OpenAI(base_url=server.url, api_key=server.token, max_retries=0, timeout=120)


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


def test_models(client) -> None:
    assert [m.id for m in client.models.list().data] == [MODEL, EMBEDDER]


def test_chat_completion_matches_the_worker_streaming_or_not(client, starter_model_path) -> None:
    plain = client.chat.completions.create(model=MODEL, messages=QUESTION, temperature=0, seed=3, max_tokens=24)
    text = plain.choices[0].message.content
    assert text.strip() and plain.usage.completion_tokens > 0
    assert text == direct_answer(starter_model_path, 24)
    pieces = [c.choices[0].delta.content or "" for c in client.chat.completions.create(
        model=MODEL, messages=QUESTION, temperature=0, seed=3, max_tokens=24, stream=True) if c.choices]
    assert "".join(pieces) == text


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


def test_only_loopback_is_served() -> None:
    backend = Backend(lambda c: None, lambda r: None, RequestRouter(), lambda: "m", lambda: "e")
    with pytest.raises(ValueError, match="only listens on this computer"):
        ApiServer(backend, host="0.0.0.0")


def test_a_client_that_disconnects_cancels_its_generation(server) -> None:
    connection = http.client.HTTPConnection(server.host, server.port, timeout=30)
    body = json.dumps({"model": MODEL, "messages": QUESTION, "max_tokens": 2000, "stream": True}).encode()
    connection.request("POST", "/v1/chat/completions", body=body,
                       headers={"Authorization": f"Bearer {server.token}", "Content-Type": "application/json"})
    response = connection.getresponse()
    assert response.status == 200
    response.fp.readline()  # the first event
    before = len(server.cancelled)
    response.close()  # the client goes away mid-answer
    connection.close()
    deadline = time.monotonic() + 20
    while len(server.cancelled) == before and time.monotonic() < deadline:
        time.sleep(0.05)
    assert len(server.cancelled) > before


@pytest.mark.slow
def test_twenty_concurrent_clients_all_complete(server, client, capsys) -> None:
    latencies: list[float] = []
    failures: list[str] = []
    lock = threading.Lock()

    def one_client(index: int) -> None:
        own = openai.OpenAI(base_url=server.url, api_key=server.token, max_retries=0, timeout=300)
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
