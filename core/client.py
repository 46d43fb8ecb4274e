"""A synchronous client of the inference worker, for code without an event loop.

The terminal commands, the self-test, the local API without a window and the GPU check
all need the same steps: start the worker, load a model, wait for it, generate and
collect the answer, embed. They share this one client instead of each waiting on the
worker's events its own way. The window does not use it: it reacts to the same events
through Qt signals.
"""

from __future__ import annotations

import itertools
import queue
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from core.runtime import Runtime
from i18n import translate
from inference.protocol import (
    ChatMessage,
    Chunk,
    Done,
    Embed,
    EmbedderFailed,
    EmbedderLoaded,
    Event,
    Failed,
    Generate,
    LoadEmbedder,
    LoadModel,
    ModelFailed,
    ModelLoaded,
    ModelSpec,
    Notice,
    Passages,
    Retrieved,
    SamplingParams,
    Stats,
    Stopped,
    ToolChoice,
    WorkerDied,
)

LOAD_TIMEOUT = 300.0
ANSWER_TIMEOUT = 600.0


class ClientError(Exception):
    """The worker could not do what was asked. The message is for the user."""


@dataclass
class Answer:
    text: str
    stats: Stats
    stopped: bool = False
    passages: tuple[Any, ...] = field(default_factory=tuple)
    interrupted: str = ""  # why an engine's answer ended early (the connection dropped)


class WorkerClient:
    """Owns one inference worker and waits on its events; use it from one thread."""

    def __init__(self, engine_factory: Callable[[], Any] | None = None,
                 embedder_factory: Callable[[], Any] | None = None,
                 flush_interval: float = 0.05, with_embedder: bool = True) -> None:
        if embedder_factory is None and with_embedder:
            from inference.embedder import LlamaEmbedder

            embedder_factory = LlamaEmbedder
        self._events: queue.Queue[Event] = queue.Queue()
        # API requests (core.api) register their own routes; all else comes to this client.
        self.runtime = Runtime(self._events.put, engine_factory, embedder_factory, supervised=False,
                               flush_interval=flush_interval)
        self.router, self.worker = self.runtime.router, self.runtime.worker
        self._ids = itertools.count(1)
        self.model: ModelLoaded | None = None
        self.runtime.start()

    @property
    def dispatch(self) -> Any:
        return self.runtime.dispatch

    def use_engines(self, engine_for: Callable[[Generate], Any]) -> None:
        """Let ``generate(engine=...)`` ask an intranet engine; documents are still searched
        with this worker's embedding model."""
        self.runtime.use_engines(engine_for)

    def __enter__(self) -> WorkerClient:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()

    def close(self, timeout: float = 5.0) -> bool:
        return self.runtime.shutdown(timeout)

    def _wait(self, kinds: tuple[type, ...], timeout: float, what: str) -> Any:
        deadline = time.monotonic() + timeout
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise TimeoutError(what)
            try:
                event = self._events.get(timeout=remaining)
            except queue.Empty:
                raise TimeoutError(what) from None
            if isinstance(event, WorkerDied):
                raise ClientError(event.reason)
            if isinstance(event, kinds):
                return event

    def load(self, spec: ModelSpec, timeout: float = LOAD_TIMEOUT) -> ModelLoaded:
        self.worker.submit(LoadModel(spec))
        event = self._wait((ModelLoaded, ModelFailed), timeout,
                           translate("inference.client", "the model did not load in time"))
        if isinstance(event, ModelFailed):
            raise ClientError(event.reason)
        self.model = event
        return event

    def load_embedder(self, path: Path, timeout: float = LOAD_TIMEOUT) -> EmbedderLoaded:
        self.worker.submit(LoadEmbedder(path))
        event = self._wait((EmbedderLoaded, EmbedderFailed), timeout,
                           translate("inference.client",
                                     "the embedding model did not load in time"))
        if isinstance(event, EmbedderFailed):
            raise ClientError(event.reason)
        return event

    def embed(self, texts: list[str], timeout: float = ANSWER_TIMEOUT) -> Any:
        future: Future = Future()
        self.worker.submit(Embed(tuple(texts), future))
        return future.result(timeout=timeout)

    def generate(self, messages: tuple[ChatMessage, ...], params: SamplingParams,
                 retrieval: Passages | None = None, on_chunk: Callable[[str], None] | None = None,
                 timeout: float = ANSWER_TIMEOUT, engine: str = "", model: str = "",
                 on_notice: Callable[[str], None] | None = None, choice: ToolChoice | None = None) -> Answer:
        """Generate one answer; ``on_chunk`` sees the text as it streams. Raises ClientError,
        or TimeoutError (and cancels the request) when no event came for ``timeout`` s.
        ``engine``: the intranet engine (see ``use_engines``) that answers instead."""
        request_id = next(self._ids)
        command = Generate(request_id, 0, messages, params, retrieval, engine, model, choice)
        if engine and self.dispatch is None:
            raise ClientError(translate("inference.client", "No intranet engine is set up here."))
        self.runtime.submit(command)
        text: list[str] = []
        passages: tuple[Any, ...] = ()
        while True:
            try:
                event = self._wait((Retrieved, Chunk, Done, Stopped, Failed, Notice), timeout,
                                   translate("inference.client",
                                             "the model did not answer in time"))
            except TimeoutError:
                self.runtime.cancel(request_id)  # the worker must not go on answering nobody
                raise
            if getattr(event, "request_id", request_id) != request_id:
                continue
            if isinstance(event, Retrieved):
                passages = event.passages
            elif isinstance(event, Chunk):
                text.append(event.text)
                if on_chunk is not None:
                    on_chunk(event.text)
            elif isinstance(event, Notice):
                if on_notice is not None:
                    on_notice(event.text)
            elif isinstance(event, Failed):
                raise ClientError(event.reason)
            else:
                return Answer("".join(text), event.stats, isinstance(event, Stopped), passages,
                              event.reason if isinstance(event, Stopped) else "")


@dataclass(frozen=True)
class Outcome:
    """One request of ``WorkerClient.concurrently``: its time to first token and to the end
    (from when it was sent), its tokens, or why it failed."""

    ttft: float
    seconds: float
    tokens: int
    error: str = ""


class Cancelled(Exception):
    """The one who asked stopped the requests (``concurrently``'s ``stop``)."""


class Routed:
    """Requests sent through someone else's runtime (the window's), their events claimed
    from its router by request id and heard here; its other events still go where they
    went. What ``concurrently`` needs of a client, like a ``WorkerClient``'s own."""

    def __init__(self, runtime: Runtime) -> None:
        self.runtime = runtime
        self._events: queue.Queue[Event] = queue.Queue()

    def claim(self, request_id: int) -> None:
        self.runtime.router.register(request_id, self._events.put)

    def listen(self) -> None:
        """Hear the worker's death too (an event of no request, which the window also gets)."""
        self.runtime.router.watch(self._events.put)

    def stop_listening(self) -> None:
        self.runtime.router.unwatch(self._events.put)

    def release(self, request_id: int) -> None:
        self.runtime.router.unregister(request_id)


def concurrently(client: WorkerClient | Routed, commands: list[Generate], at_once: int,
                 timeout: float = ANSWER_TIMEOUT, stop: threading.Event | None = None) -> list[Outcome]:
    """Send ``commands`` keeping ``at_once`` of them in flight (the local worker answers one
    at a time, so its queue is part of what is measured); their outcomes in order. ``stop``
    set: every request still running is cancelled, and Cancelled raised."""
    pending = list(commands)
    started: dict[int, float] = {}
    first: dict[int, float] = {}
    done: dict[int, Outcome] = {}
    by_id = {c.request_id: i for i, c in enumerate(commands)}
    if isinstance(client, Routed):
        client.listen()

    def send() -> None:
        while pending and len(started) - len(done) < at_once:
            command = pending.pop(0)
            started[command.request_id] = time.perf_counter()
            if isinstance(client, Routed):
                client.claim(command.request_id)
            client.runtime.submit(command)

    send()
    deadline = time.monotonic() + timeout  # since the last request ended
    try:
        while len(done) < len(commands):
            if stop is not None and stop.is_set():
                raise Cancelled()
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError(translate("inference.client", "the model did not answer in time"))
            try:
                event = client._events.get(timeout=min(left, 0.1) if stop is not None else left)
            except queue.Empty:
                continue
            if isinstance(event, WorkerDied):
                raise ClientError(event.reason)
            rid = getattr(event, "request_id", None)
            if rid not in by_id or rid in done:
                continue
            now = time.perf_counter()
            if isinstance(event, Chunk):
                first.setdefault(rid, now)
            elif isinstance(event, (Done, Stopped)):
                reason = getattr(event, "reason", "") if isinstance(event, Stopped) else ""
                done[rid] = Outcome(first.get(rid, now) - started[rid], now - started[rid], event.stats.tokens,
                                    reason)  # an answer stopped by a broken connection is no success
                deadline = time.monotonic() + timeout
            elif isinstance(event, Failed):
                done[rid] = Outcome(0.0, now - started[rid], 0, event.reason)
                deadline = time.monotonic() + timeout
            send()
    finally:
        for rid in started:
            if rid not in done:
                client.runtime.cancel(rid)  # nothing goes on answering nobody
        if isinstance(client, Routed):
            client.stop_listening()
            for rid in started:
                client.release(rid)
    return [done[c.request_id] for c in commands]
