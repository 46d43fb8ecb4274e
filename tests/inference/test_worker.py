"""The worker with a fake engine: protocol, coalescing, stop, errors, shutdown."""

from __future__ import annotations

import queue
import threading
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
    monkeypatch.setattr("inference.generation.time", fake_time)
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


# Supervision ------------------------------------------------------------------------
def _events_until(events: queue.Queue, condition, timeout: float = TIMEOUT) -> list:
    seen: list = []
    deadline = time.monotonic() + timeout
    while not any(condition(e) for e in seen):
        seen.append(events.get(timeout=max(0.01, deadline - time.monotonic())))
    return seen


def test_an_engine_factory_that_raises_is_reported_and_the_worker_restarts_with_the_last_model() -> None:
    from inference.protocol import WorkerDied
    from inference.supervisor import SupervisedWorker

    engine = FakeEngine()
    calls = []

    def factory():
        calls.append(1)
        if len(calls) == 1:
            raise RuntimeError("the engine library is missing a symbol")
        return engine

    events: queue.Queue = queue.Queue()
    worker = SupervisedWorker(factory, events.put, flush_interval=0.0)
    worker.submit(LoadModel(ModelSpec(Path("model.gguf"))))
    worker.start()
    try:
        seen = _events_until(events, lambda e: isinstance(e, ModelLoaded))
        died = [e for e in seen if isinstance(e, WorkerDied)]
        assert len(died) == 1 and died[0].restarting
        assert "RuntimeError" in died[0].reason and "the log" in died[0].reason
        assert engine.loaded == Path("model.gguf")  # reloaded without being asked again
        worker.submit(Generate(1, 1, HELLO))
        final = _events_until(events, lambda e: isinstance(e, (Done, Failed)))[-1]
        assert isinstance(final, Done)
    finally:
        assert worker.shutdown(2.0)


@pytest.mark.filterwarnings("ignore::pytest.PytestUnhandledThreadExceptionWarning")
def test_a_worker_that_dies_names_the_answers_it_owed_and_not_those_of_its_successor() -> None:
    """The window may start a turn on the restarted worker before it hears of the death:
    that turn must not be failed by the old worker's WorkerDied (it lists what it owed)."""
    from inference.protocol import WorkerDied
    from inference.supervisor import SupervisedWorker

    class Fatal(BaseException):
        """Not an Exception: what no command handler catches, so the thread ends."""

    class DyingEngine(FakeEngine):
        def stream(self, messages, params, should_stop):
            yield from super().stream(messages, params, should_stop)
            raise Fatal()

    made: list[FakeEngine] = []

    def factory() -> FakeEngine:
        made.append(DyingEngine(tokens=["a", "b"]) if not made else FakeEngine())
        return made[-1]

    events: queue.Queue = queue.Queue()
    worker = SupervisedWorker(factory, events.put, flush_interval=0.0)
    worker.submit(LoadModel(ModelSpec(Path("model.gguf"))))
    worker.start()
    try:
        _events_until(events, lambda e: isinstance(e, ModelLoaded))
        dying = worker._worker
        worker.submit(Generate(1, 1, HELLO))
        seen = _events_until(events, lambda e: isinstance(e, WorkerDied))
        dying._thread.join(5)  # its exception is raised (and reported) within this test
        died = seen[-1]
        assert died.restarting and died.requests == (1,)
        _events_until(events, lambda e: isinstance(e, ModelLoaded))  # the successor reloaded
        worker.submit(Generate(2, 1, HELLO))
        final = _events_until(events, lambda e: isinstance(e, (Done, Failed)) and e.request_id == 2)[-1]
        assert isinstance(final, Done)
    finally:
        assert worker.shutdown(2.0)


def test_a_worker_that_keeps_dying_stays_down_and_answers_every_command_at_once() -> None:
    from inference.protocol import WorkerDied
    from inference.supervisor import SupervisedWorker

    def factory():
        raise OSError("no engine today")

    events: queue.Queue = queue.Queue()
    worker = SupervisedWorker(factory, events.put, flush_interval=0.0)
    worker.start()
    seen = _events_until(events, lambda e: isinstance(e, WorkerDied) and not e.restarting)
    assert sum(isinstance(e, WorkerDied) for e in seen) == SupervisedWorker.MAX_RESTARTS + 1
    worker.submit(Generate(7, 1, HELLO))  # must not wait forever for a dead thread
    failed = _events_until(events, lambda e: isinstance(e, Failed))[-1]
    assert failed.request_id == 7 and "stopped unexpectedly" in failed.reason
    from concurrent.futures import Future

    from inference.protocol import Embed

    future: Future = Future()
    worker.submit(Embed(("text",), future))
    with pytest.raises(RuntimeError, match="stopped unexpectedly"):
        future.result(timeout=1.0)
    assert worker.shutdown(1.0)


class _ForgetfulEngine(FakeEngine):
    def forget(self) -> None:
        raise KeyError("a bug in forget")


def test_a_command_that_raises_inside_the_worker_does_not_end_it() -> None:
    from inference.protocol import Forget

    h = Harness(_ForgetfulEngine())
    try:
        assert isinstance(h.load(), ModelLoaded)
        h.worker.submit(Forget())
        h.worker.submit(Generate(1, 1, HELLO))
        assert isinstance(h.collect_until(Done, Failed)[-1], Done)
        assert h.worker.is_alive
    finally:
        assert h.worker.shutdown(2.0)


def test_requests_queued_when_the_worker_ends_are_answered() -> None:
    engine = FakeEngine(tokens=["slow"] * 200, delay=0.01)
    h = Harness(engine)
    assert isinstance(h.load(), ModelLoaded)
    h.worker.submit(Generate(1, 1, HELLO))
    h.worker.submit(Generate(2, 1, HELLO))
    h.next(Chunk)
    assert h.worker.shutdown(2.0)
    seen = []
    while not h.events.empty():
        seen.append(h.events.get_nowait())
    assert any(isinstance(e, Failed) and e.request_id == 2 for e in seen)


# Embedding models by identity ------------------------------------------------------
class _FakeEmbedder:
    """An embedder whose vector size comes from its file name ("fake-8.gguf": 8). Every
    instance shares ``gate``: while it is set to an Event, embedding waits for it."""

    gate: threading.Event | None = None
    entered = threading.Event()
    texts: list[str] = []  # what was embedded, in order

    def __init__(self) -> None:
        self.path: Path | None = None
        self.dimensions = 0

    @property
    def loaded(self) -> bool:
        return self.path is not None

    def load(self, path: Path) -> None:
        self.path, self.dimensions = path, int(path.stem.split("-")[-1])

    def embed(self, texts):
        import numpy as np

        type(self).entered.set()
        type(self).texts.extend(texts)
        if type(self).gate is not None:
            assert type(self).gate.wait(TIMEOUT)
        return np.full((len(texts), self.dimensions), float(self.dimensions), dtype=np.float32)

    def count_tokens(self, text: str) -> int:
        return self.dimensions

    def close(self) -> None:
        self.path, self.dimensions = None, 0


@pytest.fixture
def embedding_harness():
    from inference.protocol import EmbedderLoaded

    events: queue.Queue = queue.Queue()
    worker = InferenceWorker(FakeEngine, events.put, embedder_factory=_FakeEmbedder)
    worker.start()

    def load(name: str, model: str) -> EmbedderLoaded:
        from inference.protocol import EmbedderFailed, LoadEmbedder

        worker.submit(LoadEmbedder(Path(name), model))
        return _events_until(events, lambda e: isinstance(e, (EmbedderLoaded, EmbedderFailed)))[-1]

    yield worker, load, events
    _FakeEmbedder.gate = None
    assert worker.shutdown(2.0)


def _embed(worker, model: str, kind=None):
    from concurrent.futures import Future

    from inference.protocol import Embed

    future: Future = Future()
    worker.submit((kind or Embed)(("text",), future, model))
    return future


def test_an_embed_gets_exactly_the_model_it_names_or_a_clear_error(embedding_harness) -> None:
    from inference.embedder import EmbedderNotLoaded
    from inference.protocol import CountTokens

    worker, load, _events = embedding_harness
    loaded = load("fake-8.gguf", "sha-a")
    assert (loaded.model, loaded.dimensions) == ("sha-a", 8)
    assert _embed(worker, "sha-a").result(TIMEOUT).shape == (1, 8)
    with pytest.raises(EmbedderNotLoaded, match="not loaded"):
        _embed(worker, "sha-b").result(TIMEOUT)
    with pytest.raises(EmbedderNotLoaded):
        _embed(worker, "sha-b", CountTokens).result(TIMEOUT)
    assert _embed(worker, "sha-a", CountTokens).result(TIMEOUT) == [8]


def test_loading_another_embedder_does_not_change_what_queued_embeds_get(embedding_harness) -> None:
    from inference.embedder import EmbedderNotLoaded

    worker, load, _events = embedding_harness
    load("fake-8.gguf", "sha-a")
    _FakeEmbedder.entered.clear()
    _FakeEmbedder.gate = threading.Event()
    running = _embed(worker, "sha-a")  # holds the worker, so what follows queues up
    assert _FakeEmbedder.entered.wait(TIMEOUT)
    queued = [_embed(worker, "sha-a") for _ in range(3)]
    from inference.protocol import LoadEmbedder

    worker.submit(LoadEmbedder(Path("fake-16.gguf"), "sha-b"))  # jumps ahead of the Embeds
    other = _embed(worker, "sha-b")
    _FakeEmbedder.gate.set()
    assert [f.result(TIMEOUT).shape for f in (running, *queued)] == [(1, 8)] * 4
    assert other.result(TIMEOUT).shape == (1, 16)
    assert _embed(worker, "sha-a").result(TIMEOUT).shape == (1, 8)  # both stay loaded
    load("fake-4.gguf", "sha-c")  # a third: the least recently used one (sha-b) goes
    assert _embed(worker, "sha-c").result(TIMEOUT).shape == (1, 4)
    assert _embed(worker, "sha-a").result(TIMEOUT).shape == (1, 8)
    with pytest.raises(EmbedderNotLoaded):
        _embed(worker, "sha-b").result(TIMEOUT)


def _searching(seen: list[dict]):
    """A document service's search that notes the vectors it was given and finds nothing."""
    from concurrent.futures import Future

    def search(question, vectors, ids, k, mode):
        seen.append({m: v.shape for m, v in vectors.items()})
        found: Future = Future()
        found.set_result([])
        return found

    return search


def test_retrieval_embeds_the_question_with_each_named_model_and_never_another(embedding_harness) -> None:
    from core.retrieval import find

    worker, load, _events = embedding_harness
    load("fake-8.gguf", "sha-a")
    seen: list[dict] = []
    missing: list[str] = []
    assert find(_searching(seen), worker.submit, "hello?", [1], ("sha-a", "sha-gone"),
                missing=lambda model, _why: missing.append(model)).result(TIMEOUT) == []
    assert seen == [{"sha-a": (8,)}] and missing == ["sha-gone"]  # left out, not replaced


def test_a_listener_that_fails_does_not_hold_the_search_back(embedding_harness) -> None:
    from core.retrieval import find

    worker, load, _events = embedding_harness
    load("fake-8.gguf", "sha-a")
    seen: list[dict] = []

    def faulty(_model: str, _why: str) -> None:
        raise RuntimeError("a listener's own fault")

    assert find(_searching(seen), worker.submit, "hello?", [1], ("sha-gone", "sha-a"),
                missing=faulty).result(TIMEOUT) == []
    assert seen == [{"sha-a": (8,)}]


def test_retrieval_embeds_the_question_as_its_model_wants_it(embedding_harness) -> None:
    """multilingual-e5 was trained on "query: " before a question; MiniLM wants nothing."""
    from core.retrieval import find
    from inference.bundled import embedding_model, retired_embedding_models

    worker, load, _events = embedding_harness
    e5, minilm = embedding_model().sha256, retired_embedding_models()[0].sha256
    load("fake-8.gguf", e5)
    load("fake-4.gguf", minilm)
    _FakeEmbedder.texts = []
    question = " 港口的系泊费是多少？\n"
    find(_searching([]), worker.submit, question, [1], (e5, minilm)).result(TIMEOUT)
    assert _FakeEmbedder.texts == ["query: 港口的系泊费是多少？", "港口的系泊费是多少？"]


def test_a_restarted_worker_loads_both_embedding_models_again() -> None:
    """During a switch the old and the new model are both in use: a fault loses neither."""
    from inference.protocol import EmbedderLoaded, LoadEmbedder, WorkerDied
    from inference.supervisor import SupervisedWorker

    calls = []

    def factory():
        calls.append(1)
        if len(calls) == 1:
            raise RuntimeError("a fault after the embedders were asked for")
        return FakeEngine()

    events: queue.Queue = queue.Queue()
    worker = SupervisedWorker(factory, events.put, flush_interval=0.0, embedder_factory=_FakeEmbedder)
    worker.submit(LoadEmbedder(Path("fake-8.gguf"), "sha-old"))
    worker.submit(LoadEmbedder(Path("fake-16.gguf"), "sha-new"))
    worker.start()
    try:
        seen = _events_until(events, lambda e: isinstance(e, EmbedderLoaded) and e.model == "sha-new")
        assert any(isinstance(e, WorkerDied) and e.restarting for e in seen)
        assert _embed(worker, "sha-old").result(TIMEOUT).shape == (1, 8)
        assert _embed(worker, "sha-new").result(TIMEOUT).shape == (1, 16)
    finally:
        assert worker.shutdown(2.0)
