"""The worker with a fake engine: protocol, coalescing, stop, errors, shutdown."""

from __future__ import annotations

import queue
import time
from pathlib import Path

import pytest

from inference.protocol import (
    ChatMessage,
    Chunk,
    Done,
    Failed,
    Generate,
    LoadModel,
    ModelFailed,
    ModelLoaded,
    ModelLoading,
    ModelSpec,
    Started,
    Stopped,
)
from inference.worker import InferenceWorker
from tests.fakes import FakeEngine

TIMEOUT = 10.0
HELLO = (ChatMessage("user", "hello"),)


class Harness:
    def __init__(self, engine: FakeEngine, flush_interval: float = 1 / 30) -> None:
        self.engine = engine
        self.events: queue.Queue = queue.Queue()
        self.worker = InferenceWorker(lambda: engine, self.events.put, flush_interval)
        self.worker.start()

    def next(self, kind=object):
        deadline = time.monotonic() + TIMEOUT
        while True:
            event = self.events.get(timeout=max(0.01, deadline - time.monotonic()))
            if isinstance(event, kind):
                return event

    def collect_until(self, *final):
        seen = []
        while True:
            event = self.events.get(timeout=TIMEOUT)
            seen.append(event)
            if isinstance(event, final):
                return seen

    def load(self, name: str = "model.gguf"):
        self.worker.submit(LoadModel(ModelSpec(Path(name))))
        return self.next((ModelLoaded, ModelFailed))


@pytest.fixture
def harness():
    made = []

    def make(**kwargs):
        flush = kwargs.pop("flush_interval", 1 / 30)
        h = Harness(FakeEngine(**kwargs), flush)
        made.append(h)
        return h

    yield make
    for h in made:
        assert h.worker.shutdown(2.0)


def test_load_then_generate_streams_the_whole_answer(harness) -> None:
    h = harness()
    assert isinstance(h.load(), ModelLoaded)
    h.worker.submit(Generate(1, 1, HELLO))
    events = h.collect_until(Done, Failed)
    assert isinstance(events[0], Started)
    text = "".join(e.text for e in events if isinstance(e, Chunk))
    assert text == h.engine.expected_text(1)
    done = events[-1]
    assert isinstance(done, Done) and done.request_id == 1
    assert done.stats.tokens == len(h.engine.tokens)


def test_loading_reports_progress_and_failure_with_the_reason(harness) -> None:
    h = harness()
    h.worker.submit(LoadModel(ModelSpec(Path("broken.gguf"))))
    assert isinstance(h.next(), ModelLoading)
    failed = h.next()
    assert isinstance(failed, ModelFailed)
    assert "not a GGUF model file" in failed.reason
    # The worker is still usable: a good model loads afterwards.
    assert isinstance(h.load(), ModelLoaded)


def test_generate_without_a_model_fails_clearly(harness) -> None:
    h = harness()
    h.worker.submit(Generate(7, 1, HELLO))
    failed = h.next(Failed)
    assert failed.request_id == 7 and "No model is loaded" in failed.reason


def test_chunks_are_coalesced_to_about_30_updates_a_second(harness, monkeypatch) -> None:
    """With a clock that advances 1 ms per reading, 300 tokens span about 0.3 s: the sink
    gets about ten chunks (one per 33 ms), not 300, and nothing is lost."""
    import itertools
    import types

    ticks = itertools.count()
    fake_time = types.SimpleNamespace(perf_counter=lambda: next(ticks) / 1000)
    monkeypatch.setattr("inference.worker.time", fake_time)
    h = harness(tokens=[f"t{i} " for i in range(300)])
    h.load()
    h.worker.submit(Generate(1, 1, HELLO))
    events = h.collect_until(Done)
    chunks = [e for e in events if isinstance(e, Chunk)]
    assert "".join(c.text for c in chunks) == h.engine.expected_text(1)
    assert 5 <= len(chunks) <= 12


def test_stop_during_generation_ends_it_within_a_token(harness) -> None:
    h = harness(tokens=["tok "] * 1000, delay=0.005)
    h.load()
    h.worker.submit(Generate(3, 1, HELLO))
    h.next(Chunk)
    h.worker.cancel(3)
    stopped = h.next((Stopped, Done))
    assert isinstance(stopped, Stopped) and stopped.request_id == 3
    assert 0 < stopped.stats.tokens < 1000


def test_a_request_cancelled_before_it_starts_never_runs(harness) -> None:
    h = harness(tokens=["x"] * 200, delay=0.005)
    h.load()
    h.worker.submit(Generate(1, 1, HELLO))
    h.worker.submit(Generate(2, 1, HELLO))
    first = h.next(Chunk)  # request 1 is running, request 2 waits in the queue
    h.worker.cancel(2)
    h.worker.cancel(1)
    events = [first, *h.collect_until(Stopped)]
    events += h.collect_until(Stopped)
    stopped = [e for e in events if isinstance(e, Stopped)]
    assert [s.request_id for s in stopped] == [1, 2]
    assert stopped[1].stats.tokens == 0
    assert h.engine.answers == 1


def test_a_prompt_longer_than_the_context_fails_with_a_clear_reason(harness) -> None:
    h = harness(n_ctx=64)
    h.load()
    h.worker.submit(Generate(1, 1, (ChatMessage("user", "word " * 500),)))
    failed = h.next(Failed)
    assert "too long" in failed.reason


def test_old_turns_are_dropped_when_the_chat_outgrows_the_context(harness) -> None:
    h = harness(n_ctx=128)
    h.load()
    history = []
    for i in range(10):
        history += [ChatMessage("user", f"question {i} " * 4), ChatMessage("assistant", "answer " * 4)]
    history.append(ChatMessage("user", "latest"))
    h.worker.submit(Generate(1, 1, (ChatMessage("system", "sys"), *history)))
    started = h.next(Started)
    assert started.dropped_messages > 0
    h.next(Done)
    sent = h.engine.calls[-1]
    assert sent[0].content == "sys" and sent[-1].content == "latest"


def test_a_failing_sink_does_not_kill_the_worker() -> None:
    engine = FakeEngine()
    received = queue.Queue()
    calls = {"n": 0}

    def sink(event):
        calls["n"] += 1
        if calls["n"] == 1:
            raise RuntimeError("receiver bug")
        received.put(event)

    worker = InferenceWorker(lambda: engine, sink)
    worker.start()
    worker.submit(LoadModel(ModelSpec(Path("m.gguf"))))
    assert isinstance(received.get(timeout=TIMEOUT), ModelLoaded)
    assert worker.shutdown(2.0)


def test_shutdown_during_generation_joins_and_frees_the_model(harness) -> None:
    h = harness(tokens=["slow "] * 10_000, delay=0.01)
    h.load()
    h.worker.submit(Generate(1, 1, HELLO))
    h.next(Chunk)
    assert h.worker.shutdown(2.0)
    assert not h.worker.is_alive
    assert h.engine.closed


@pytest.mark.model
def test_context_overflow_with_the_real_model_and_a_small_context(starter_model_path: Path) -> None:
    from inference.llama_engine import LlamaEngine

    events: queue.Queue = queue.Queue()
    worker = InferenceWorker(LlamaEngine, events.put)
    worker.start()
    try:
        worker.submit(LoadModel(ModelSpec(starter_model_path, n_ctx=256, n_threads=2)))
        h = Harness.__new__(Harness)
        h.events = events
        assert isinstance(h.next((ModelLoaded, ModelFailed)), ModelLoaded)
        history = [ChatMessage("system", "Be brief.")]
        for i in range(12):
            history += [ChatMessage("user", f"Question {i} about the sea and ships?"),
                        ChatMessage("assistant", f"Answer {i}: ships sail on the sea.")]
        history.append(ChatMessage("user", "What was the last question?"))
        from inference.protocol import SamplingParams

        worker.submit(Generate(1, 1, tuple(history), SamplingParams(max_tokens=16, temperature=0.0)))
        started = h.next(Started)
        assert started.dropped_messages > 0  # the oldest turns went, the answer still comes
        assert isinstance(h.next((Done, Failed)), Done)
        worker.submit(Generate(2, 1, (ChatMessage("system", "Be brief."),
                                      ChatMessage("user", "lighthouse " * 400)), SamplingParams(max_tokens=16)))
        failed = h.next((Done, Failed))
        assert isinstance(failed, Failed) and "too long" in failed.reason
    finally:
        assert worker.shutdown(5.0)
