"""Intranet engines: what Hearth's adapter costs, and what a serving engine gives under load.

1. Decode tokens/s of one chat through Hearth (RemoteRunner: its thread, SSE parsing,
   events, coalescing) ÷ the same request sent straight to the engine with the ``openai``
   client; the same body (greedy, a fixed seed, the same ``max_tokens``), interleaved.
   Target ≥ 0.97.
2. Eight concurrent chats: total tokens/s and p95 time to first token, the local model
   (Hearth's one worker, requests queued) against the same model on llama-server
   (``--parallel 8``, the same threads) and on vLLM (its CPU build, the model converted
   to bf16), both through Hearth. Measured, not assumed.

Against llama.cpp's ``llama-server`` built by packaging/llama_tools.py and vLLM set up by
packaging/vllm_engine.py, behind TLS with a CA made for the run, on 127.0.0.2.
"""

from __future__ import annotations

import queue
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from benchmarks.common import Figure, median, percentile, spread
from guard import egress
from inference.intranet import Client, Trust, parse_url
from inference.protocol import ChatMessage, Chunk, Done, Failed, Generate, SamplingParams, Stopped
from inference.remote import RemoteRunner
from inference.remote_discovery import discover

THREADS = 2  # the local worker's and llama-server's, alike
QUESTION = "Write a short story about a lighthouse keeper and a storm, in about 150 words."
# A fixed count on both sides (ignore_eos): the same work, the same greedy text.
PARAMS = SamplingParams(max_tokens=96, temperature=0.0, top_p=1.0, top_k=1, min_p=0.0, repeat_penalty=1.0, seed=7,
                        ignore_eos=True)


def _messages(n: int = 0) -> tuple[ChatMessage, ...]:
    return (ChatMessage("system", "You are a helpful assistant."),
            ChatMessage("user", QUESTION if not n else f"{QUESTION} (Story number {n}.)"))


def _hearth_once(runner: RemoteRunner, events: queue.Queue, rid: int) -> tuple[float, int, str]:
    runner.submit(Generate(rid, 0, _messages(), PARAMS, engine="bench"))
    text = []
    while True:
        event = events.get(timeout=300)
        if isinstance(event, Chunk):
            text.append(event.text)
        elif isinstance(event, Done):
            return event.stats.tokens_per_second, event.stats.tokens, "".join(text)
        elif isinstance(event, (Failed, Stopped)):
            raise RuntimeError(f"the engine request failed: {event}")


def _raw_once(url: str, ca_file: str, model: str) -> tuple[float, int, str]:
    import ssl

    from openai import DefaultHttpxClient, OpenAI

    http = DefaultHttpxClient(verify=ssl.create_default_context(cafile=ca_file), trust_env=False)
    client = OpenAI(base_url=url, api_key="none", http_client=http)
    first = last = 0.0
    pieces: list[str] = []
    usage = 0
    stream = client.chat.completions.create(
        model=model, messages=[{"role": m.role, "content": m.content} for m in _messages()], stream=True,
        max_tokens=PARAMS.max_tokens, temperature=PARAMS.temperature, top_p=PARAMS.top_p, seed=PARAMS.seed,
        stream_options={"include_usage": True},
        extra_body={"top_k": PARAMS.top_k, "min_p": PARAMS.min_p, "repeat_penalty": PARAMS.repeat_penalty,
                    "ignore_eos": PARAMS.ignore_eos})
    for event in stream:
        if event.usage is not None:
            usage = event.usage.completion_tokens
        for choice in event.choices:
            if choice.delta.content:
                now = time.perf_counter()
                first = first or now
                last = now
                pieces.append(choice.delta.content)
    client.close()
    tokens = usage or len(pieces)
    return ((tokens - 1) / (last - first) if tokens > 1 and last > first else 0.0), tokens, "".join(pieces)


class _Engines:
    def __init__(self, client: Client) -> None:
        from inference.remote import RemoteEngine

        info = discover(client)
        self.model = info.models[0]
        self.engine = RemoteEngine(client, info.kind, self.model)

    def __call__(self, _command: Generate) -> Any:
        return self.engine


def _concurrent(submit_all, events: queue.Queue, count: int) -> tuple[float, float]:
    """Total tokens/s and p95 seconds to the first token of ``count`` chats at once."""
    first: dict[int, float] = {}
    tokens = 0
    done = 0
    started = time.perf_counter()
    submit_all()
    while done < count:
        event = events.get(timeout=600)
        rid = getattr(event, "request_id", None)
        if isinstance(event, Chunk) and rid not in first:
            first[rid] = time.perf_counter() - started
        elif isinstance(event, Done):
            tokens += event.stats.tokens
            done += 1
        elif isinstance(event, (Failed, Stopped)):
            raise RuntimeError(f"a request failed: {event}")
    wall = time.perf_counter() - started
    return tokens / wall, percentile(list(first.values()), 95)


def run(quick: bool = False) -> list[Figure]:
    from tests.intranet import llama_server, make_pki, server_binary

    if server_binary() is None:
        return [Figure("intranet engines: llama-server not built (packaging/llama_tools.py)", 0, "-")]
    import os

    from core.models import resolve_model

    repetitions = 3 if quick else 7
    figures: list[Figure] = []
    with tempfile.TemporaryDirectory() as tmp:
        os.environ["HEARTH_DATA_DIR"] = str(Path(tmp) / "data")
        model_path = resolve_model()
        pki = make_pki(Path(tmp) / "pki")
        with llama_server(model_path, pki, parallel=8, n_ctx=8 * 1024, extra=("--alias", "bench"),
                          threads=THREADS) as server:
            trust = Trust(system=False, ca_pem=pki.ca_pem)
            egress.allow_destination("bench", server.host, server.port)
            client = Client("bench", parse_url(server.url, trust), trust)
            engines = _Engines(client)
            events: queue.Queue = queue.Queue()
            runner = RemoteRunner(events.put, engines)
            hearth, raw, texts = [], [], set()
            _hearth_once(runner, events, 0)  # warm the server's cache alike for both
            for i in range(repetitions):
                order = (0, 1) if i % 2 == 0 else (1, 0)
                for side in order:
                    if side == 0:
                        rate, _, text = _hearth_once(runner, events, i + 1)
                        hearth.append(rate)
                    else:
                        rate, _, text = _raw_once(server.url, str(pki.ca_path), engines.model.id)
                        raw.append(rate)
                    texts.add(text)
            assert len(texts) == 1, f"the two sides wrote different texts: {texts!r}"
            figures.append(Figure("engine decode tok/s: Hearth ÷ openai client, same request",
                                  median(hearth) / median(raw), "ratio", "target ≥ 0.97",
                                  spread(hearth, raw, identical_text=True)))
            count = 8
            remote_rate, remote_p95 = _concurrent(
                lambda: [runner.submit(Generate(100 + n, 0, _messages(n), PARAMS, engine="bench"))
                         for n in range(count)], events, count)
            runner.shutdown()
            egress.revoke_destination("bench")
        vllm = _vllm_concurrent(pki, count)
        local_rate, local_p95 = _local_concurrent(model_path, count)
    figures.append(Figure("8 concurrent chats, total tok/s: llama-server ÷ local worker",
                          remote_rate / local_rate, "ratio", "measured",
                          {"llama_server_tok_s": remote_rate, "local_tok_s": local_rate}))
    figures.append(Figure("8 concurrent chats, p95 first token: llama-server (s)", remote_p95, "s", "measured"))
    figures.append(Figure("8 concurrent chats, p95 first token: local worker (s)", local_p95, "s", "measured"))
    if vllm is not None:
        figures.append(Figure("8 concurrent chats, total tok/s: vLLM ÷ local worker", vllm[0] / local_rate,
                              "ratio", "measured", {"vllm_tok_s": vllm[0]}))
        figures.append(Figure("8 concurrent chats, p95 first token: vLLM (s)", vllm[1], "s", "measured"))
    return figures


def _vllm_concurrent(pki: Any, count: int) -> tuple[float, float] | None:
    from tests.intranet import vllm_server, vllm_setup

    if isinstance(vllm_setup(), str):
        return None
    with vllm_server(pki, max_model_len=2048, name="bench-vllm") as server:
        trust = Trust(system=False, ca_pem=pki.ca_pem)
        egress.allow_destination("bench", server.host, server.port)
        engines = _Engines(Client("bench", parse_url(server.url, trust), trust))
        events: queue.Queue = queue.Queue()
        runner = RemoteRunner(events.put, engines)
        try:
            _hearth_once(runner, events, 0)  # warm-up
            return _concurrent(lambda: [runner.submit(Generate(300 + n, 0, _messages(n), PARAMS, engine="bench"))
                                        for n in range(count)], events, count)
        finally:
            runner.shutdown()
            egress.revoke_destination("bench")


def _local_concurrent(model_path: Path, count: int) -> tuple[float, float]:
    from inference.llama_engine import LlamaEngine
    from inference.protocol import LoadModel, ModelLoaded, ModelSpec
    from inference.worker import InferenceWorker

    events: queue.Queue = queue.Queue()
    loaded = threading.Event()

    def sink(event: Any) -> None:
        if isinstance(event, ModelLoaded):
            loaded.set()
        else:
            events.put(event)

    worker = InferenceWorker(LlamaEngine, sink)
    worker.start()
    worker.submit(LoadModel(ModelSpec(model_path, n_ctx=2048, n_threads=THREADS)))
    loaded.wait(300)
    try:
        return _concurrent(lambda: [worker.submit(Generate(200 + n, n, _messages(n), PARAMS)) for n in range(count)],
                           events, count)
    finally:
        worker.shutdown(10)
