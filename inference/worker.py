"""The inference worker: one thread that alone owns the engine and the model in it.

Commands arrive on a ``queue.Queue``; events leave through a plain callable sink (the
Qt bridge in ``app/`` turns them into signals). Stopping is a ``threading.Event``
checked between tokens. Generated text is coalesced so that the sink is called at most
about 30 times a second, however fast the model is.
"""

from __future__ import annotations

import itertools
import logging
import queue
import threading
import time
from collections.abc import Callable
from typing import Any

from inference.engine import Engine
from inference.errors import InferenceError, NoModelLoaded
from inference.prompt import answer_reserve, fit_messages
from inference.protocol import (
    Chunk,
    Command,
    CountTokens,
    Done,
    Embed,
    EmbedderFailed,
    EmbedderLoaded,
    Event,
    Failed,
    Forget,
    Generate,
    LoadEmbedder,
    LoadModel,
    ModelFailed,
    ModelLoaded,
    ModelLoading,
    Retrieved,
    Shutdown,
    Started,
    Stats,
    Stopped,
)
from inference.rag import with_passages

log = logging.getLogger(__name__)

Sink = Callable[[Event], None]
DEFAULT_FLUSH_INTERVAL = 1 / 30


class InferenceWorker:
    def __init__(
        self,
        engine_factory: Callable[[], Engine],
        sink: Sink,
        flush_interval: float = DEFAULT_FLUSH_INTERVAL,
        embedder_factory: Callable[[], Any] | None = None,
    ) -> None:
        self._engine_factory = engine_factory
        self._embedder_factory = embedder_factory
        self._sink = sink
        self._flush_interval = flush_interval
        # Chat first: embedding batches of a document import wait behind any answer.
        self._queue: queue.PriorityQueue[tuple[int, int, Command]] = queue.PriorityQueue()
        self._order = itertools.count()
        self._stop = threading.Event()
        self._lock = threading.Lock()
        self._current: int | None = None
        self._cancelled: set[int] = set()
        self._loaded = False
        self._thread = threading.Thread(target=self._run, name="hearth-inference", daemon=True)

    # Called from any thread -------------------------------------------------------
    def start(self) -> None:
        self._thread.start()

    def submit(self, command: Command) -> None:
        if isinstance(command, Shutdown):
            priority = -1
        elif isinstance(command, (Embed, CountTokens)):
            priority = 1
        else:
            priority = 0
        self._queue.put((priority, next(self._order), command))

    def cancel(self, request_id: int) -> None:
        """Stop a request: at once if it is running, before it starts if it is queued."""
        with self._lock:
            self._cancelled.add(request_id)
            if self._current == request_id:
                self._stop.set()

    def shutdown(self, timeout: float = 2.0) -> bool:
        """Stop generating, ask the thread to free the model and end; True if it joined."""
        if not self._thread.is_alive():
            return True
        self._stop.set()
        self.submit(Shutdown())
        self._thread.join(timeout)
        return not self._thread.is_alive()

    @property
    def is_alive(self) -> bool:
        return self._thread.is_alive()

    # The worker thread ------------------------------------------------------------
    def _run(self) -> None:
        engine = self._engine_factory()
        self._embedder = self._embedder_factory() if self._embedder_factory else None
        try:
            while True:
                _, _, command = self._queue.get()
                if isinstance(command, Shutdown):
                    return
                if isinstance(command, LoadModel):
                    self._load(engine, command)
                elif isinstance(command, Generate):
                    self._generate(engine, command)
                elif isinstance(command, Forget):
                    engine.forget()
                elif isinstance(command, LoadEmbedder):
                    self._load_embedder(command)
                elif isinstance(command, (Embed, CountTokens)):
                    self._embed(command)
        finally:
            self._cancel_pending()
            for owned in (engine, self._embedder):
                try:
                    if owned is not None:
                        owned.close()
                except Exception:  # pragma: no cover - freeing must not mask the real exit
                    log.exception("closing a model failed")

    def _cancel_pending(self) -> None:
        while True:
            try:
                _, _, command = self._queue.get_nowait()
            except queue.Empty:
                return
            if isinstance(command, (Embed, CountTokens)):
                command.future.set_exception(RuntimeError("Hearth is shutting down"))

    def _load_embedder(self, command: LoadEmbedder) -> None:
        if self._embedder is None:
            self._emit(EmbedderFailed(command.path, "This build has no embedding support."))
            return
        try:
            self._embedder.load(command.path)
        except Exception as exc:
            self._emit(EmbedderFailed(command.path, str(exc)))
            return
        self._emit(EmbedderLoaded(command.path, self._embedder.dimensions))

    def _embed(self, command: Embed | CountTokens) -> None:
        future = command.future
        if not future.set_running_or_notify_cancel():
            return
        try:
            if self._embedder is None or not self._embedder.loaded:
                raise NoModelLoaded()
            if isinstance(command, Embed):
                future.set_result(self._embedder.embed(command.texts))
            else:
                future.set_result([self._embedder.count_tokens(t) for t in command.texts])
        except Exception as exc:
            future.set_exception(exc)

    def _emit(self, event: Event) -> None:
        try:
            self._sink(event)
        except Exception:  # a broken receiver must not kill the worker
            log.exception("event sink failed for %s", type(event).__name__)

    def _load(self, engine: Engine, command: LoadModel) -> None:
        path = command.spec.path
        self._emit(ModelLoading(path))
        started = time.perf_counter()
        try:
            engine.load(command.spec)
        except InferenceError as exc:
            self._loaded = False
            self._emit(ModelFailed(path, str(exc)))
            return
        except Exception as exc:
            log.exception("model load failed unexpectedly")
            self._loaded = False
            self._emit(ModelFailed(path, f"The model could not be loaded ({type(exc).__name__}: {exc})."))
            return
        self._loaded = True
        self._emit(ModelLoaded(path, engine.name, engine.n_ctx, time.perf_counter() - started,
                               getattr(engine, "memory_bytes", 0), getattr(engine, "backend", "CPU")))

    def _generate(self, engine: Engine, command: Generate) -> None:
        rid = command.request_id
        with self._lock:
            if rid in self._cancelled:
                self._cancelled.discard(rid)
                self._emit(Stopped(rid, Stats(0, 0, 0.0, 0.0)))
                return
            self._current = rid
            self._stop.clear()
        try:
            self._run_generation(engine, command)
        except InferenceError as exc:
            self._emit(Failed(rid, str(exc)))
        except Exception as exc:
            log.exception("generation failed unexpectedly")
            self._emit(Failed(rid, f"Generation failed ({type(exc).__name__}). Details are in the log."))
        finally:
            with self._lock:
                self._current = None
                self._cancelled.discard(rid)

    def _retrieve(self, engine: Engine, command: Generate, budget: int) -> list:
        """Embed the question, find passages, and put those that fit into the prompt."""
        retrieval = command.retrieval
        assert retrieval is not None
        vector = None
        if self._embedder is not None and self._embedder.loaded:
            vector = self._embedder.embed([retrieval.question])[0]
        passages = retrieval.search(retrieval.question, vector)
        messages, kept = with_passages(command.messages, passages, engine.count_tokens, budget)
        self._emit(Retrieved(command.request_id, tuple(kept)))
        return messages

    def _run_generation(self, engine: Engine, command: Generate) -> None:
        rid = command.request_id
        if not self._loaded:
            raise NoModelLoaded()
        budget = engine.n_ctx - answer_reserve(engine.n_ctx, command.params.max_tokens)
        source_messages = list(command.messages)
        if command.retrieval is not None:
            source_messages = self._retrieve(engine, command, budget)
        messages, dropped = fit_messages(source_messages, engine.count_tokens, budget)
        prompt_tokens = engine.count_tokens(messages)
        select = getattr(engine, "select_conversation", None)
        if select is not None:
            select(command.chat_id)
        self._emit(Started(rid, dropped))

        started = time.perf_counter()
        first_token_at: float | None = None
        tokens = 0
        pending: list[str] = []
        last_flush = started
        for piece in engine.stream(messages, command.params, self._stop.is_set):
            now = time.perf_counter()
            tokens += 1
            if first_token_at is None:
                first_token_at = now
            pending.append(piece)
            if now - last_flush >= self._flush_interval:
                text = "".join(pending)
                pending.clear()
                last_flush = now
                if text:
                    self._emit(Chunk(rid, text))
            if self._stop.is_set():
                break
        text = "".join(pending)
        if text:
            self._emit(Chunk(rid, text))
        finished = time.perf_counter()
        ttft = (first_token_at or finished) - started
        stats = Stats(prompt_tokens, tokens, ttft, finished - started, dropped)
        self._emit(Stopped(rid, stats) if self._stop.is_set() else Done(rid, stats))
