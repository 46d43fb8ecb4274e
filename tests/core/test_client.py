"""The synchronous worker client that the terminal commands, the self-test and the GPU
check share: load, generate, errors and time-outs, on the real worker (fake engine)."""

from __future__ import annotations

from pathlib import Path

import pytest

from core.client import ClientError, WorkerClient
from inference.protocol import ChatMessage, ModelSpec, SamplingParams
from tests.fakes import FakeEngine

HELLO = (ChatMessage("user", "hello"),)


def test_load_then_generate_returns_the_whole_answer_and_streams_it() -> None:
    engine = FakeEngine()
    seen: list[str] = []
    with WorkerClient(lambda: engine, with_embedder=False, flush_interval=0.0) as client:
        loaded = client.load(ModelSpec(Path("model.gguf")))
        answer = client.generate(HELLO, SamplingParams(), on_chunk=seen.append)
    assert loaded.name == "Fake model"
    assert answer.text == engine.expected_text(1) == "".join(seen)
    assert answer.stats.tokens == len(engine.tokens) and not answer.stopped


def test_a_model_that_fails_to_load_is_a_client_error_in_plain_words() -> None:
    with WorkerClient(FakeEngine, with_embedder=False) as client, \
            pytest.raises(ClientError, match="not a GGUF model file"):
        client.load(ModelSpec(Path("broken.gguf")))


def test_an_answer_that_stalls_is_cancelled_not_left_running() -> None:
    """The time-out is the longest wait for the next piece of the answer."""
    engine = FakeEngine(tokens=["slow"] * 1000, delay=0.5)
    with WorkerClient(lambda: engine, with_embedder=False, flush_interval=0.0) as client:
        client.load(ModelSpec(Path("model.gguf")))
        with pytest.raises(TimeoutError):
            client.generate(HELLO, SamplingParams(), timeout=0.2)
        engine.delay = 0.0
        engine.tokens = ["quick"]
        answer = client.generate(HELLO, SamplingParams(), timeout=10)  # the worker is free again
    assert answer.text.endswith("quick")


def test_an_engine_that_cannot_start_is_a_client_error() -> None:
    def factory():
        raise RuntimeError("no engine")

    with WorkerClient(factory, with_embedder=False) as client, pytest.raises(ClientError, match="RuntimeError"):
        client.load(ModelSpec(Path("model.gguf")), timeout=10)
