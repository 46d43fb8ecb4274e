"""``python -m app --self-test``: load the model, generate 16 tokens, print the figures.

No window and no Qt: it drives the same worker and engine the app uses, so a frozen
build or a new machine can be checked from a terminal. Exit 0 on success; otherwise the
reason is printed and the exit status is 1.
"""

from __future__ import annotations

import queue
import sys
import time
from typing import TextIO

from app.models import resolve_embedding_model, resolve_model
from inference.embedder import LlamaEmbedder
from inference.errors import InferenceError
from inference.llama_engine import LlamaEngine
from inference.protocol import (
    ChatMessage,
    Chunk,
    Done,
    Embed,
    Event,
    Failed,
    Generate,
    LoadEmbedder,
    LoadModel,
    ModelFailed,
    ModelLoaded,
    ModelSpec,
    SamplingParams,
    Stats,
    Stopped,
)
from inference.worker import InferenceWorker

TOKENS = 16
LOAD_TIMEOUT = 300.0
GENERATE_TIMEOUT = 300.0


def _next_event(events: queue.Queue[Event], deadline: float) -> Event:
    remaining = deadline - time.monotonic()
    if remaining <= 0:
        raise TimeoutError
    return events.get(timeout=remaining)


def _embed_a_sentence(worker: InferenceWorker) -> int:
    """Load the bundled embedding model in the same worker and embed one sentence."""
    from concurrent.futures import Future

    worker.submit(LoadEmbedder(resolve_embedding_model()))
    future: Future = Future()
    worker.submit(Embed(("The lighthouse keeper climbed the stairs.",), future))
    vectors = future.result(timeout=GENERATE_TIMEOUT)
    if vectors.shape[0] != 1 or not vectors.any():
        raise RuntimeError("the embedding model returned no vector")
    return int(vectors.shape[1])


def load_and_generate(worker: InferenceWorker, events: queue.Queue[Event], spec: ModelSpec,
                      tokens: int = TOKENS) -> tuple[ModelLoaded, str, Stats]:
    """Load ``spec`` in ``worker`` and decode ``tokens`` greedy tokens of a fixed prompt.

    Raises RuntimeError with llama.cpp's reason if loading or generating fails, and
    TimeoutError if either takes too long."""
    worker.submit(LoadModel(spec))
    deadline = time.monotonic() + LOAD_TIMEOUT
    while True:
        event = _next_event(events, deadline)
        if isinstance(event, ModelFailed):
            raise RuntimeError(event.reason)
        if isinstance(event, ModelLoaded):
            loaded = event
            break
    prompt = (ChatMessage("user", "Tell me a short story about a lighthouse keeper."),)
    worker.submit(Generate(1, 0, prompt, SamplingParams(max_tokens=tokens, temperature=0.0, seed=1)))
    text = ""
    deadline = time.monotonic() + GENERATE_TIMEOUT
    while True:
        event = _next_event(events, deadline)
        if isinstance(event, Chunk):
            text += event.text
        elif isinstance(event, Failed):
            raise RuntimeError(event.reason)
        elif isinstance(event, (Done, Stopped)):
            return loaded, text, event.stats


def run_self_test(out: TextIO = sys.stdout) -> int:
    try:
        path = resolve_model()
    except InferenceError as exc:
        print(f"self-test FAILED: {exc}", file=out)
        return 1
    events: queue.Queue[Event] = queue.Queue()
    worker = InferenceWorker(LlamaEngine, events.put, flush_interval=0.0, embedder_factory=LlamaEmbedder)
    worker.start()
    try:
        loaded, text, stats = load_and_generate(worker, events, ModelSpec(path=path))
        embedded = _embed_a_sentence(worker)
    except TimeoutError:
        print("self-test FAILED: the model did not answer in time", file=out)
        return 1
    except (InferenceError, RuntimeError) as exc:
        print(f"self-test FAILED: {exc}", file=out)
        return 1
    finally:
        worker.shutdown(timeout=5.0)
    if stats.tokens == 0 or not text.strip():
        print("self-test FAILED: the model produced no text", file=out)
        return 1
    from inference import cpu_variant

    print(f"model: {loaded.name} ({path})", file=out)
    print(f"llama.cpp build: {cpu_variant.describe()}; backend {loaded.backend}", file=out)
    print(f"load time: {loaded.load_seconds:.2f} s", file=out)
    print(f"tokens: {stats.tokens}", file=out)
    print(f"time to first token: {stats.ttft_seconds:.3f} s", file=out)
    print(f"tokens/s: {stats.tokens_per_second:.1f}", file=out)
    print(f"sample: {text.strip()[:80]!r}", file=out)
    print(f"embedding: {embedded} dimensions ({resolve_embedding_model().name})", file=out)
    print("self-test OK", file=out)
    return 0
