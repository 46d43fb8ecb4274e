"""The inference worker: one thread that alone owns the engine and the model in it.

Commands arrive on a ``queue.Queue``; events leave through a plain callable sink (the
Qt bridge in ``app/`` turns them into signals). Stopping is a ``threading.Event``
checked between tokens. Generated text is coalesced so that the sink is called at most
about 30 times a second, however fast the model is.
"""

from __future__ import annotations

import logging
import queue
import threading
import time
from collections.abc import Callable

from inference.engine import Engine
from inference.errors import InferenceError, NoModelLoaded
from inference.prompt import answer_reserve, fit_messages
from inference.protocol import (
    Chunk,
    Command,
    Done,
    Event,
    Failed,
    Forget,
    Generate,
    LoadModel,
    ModelFailed,
    ModelLoaded,
    ModelLoading,
    Shutdown,
    Started,
    Stats,
    Stopped,
)

log = logging.getLogger(__name__)

Sink = Callable[[Event], None]
DEFAULT_FLUSH_INTERVAL = 1 / 30


class InferenceWorker:
    def __init__(
        self,
        engine_factory: Callable[[], Engine],
        sink: Sink,
        flush_interval: float = DEFAULT_FLUSH_INTERVAL,
    ) -> None:
        self._engine_factory = engine_factory
        self._sink = sink
        self._flush_interval = flush_interval
        self._queue: queue.Queue[Command] = queue.Queue()
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
        self._queue.put(command)

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
        self._queue.put(Shutdown())
        self._thread.join(timeout)
        return not self._thread.is_alive()

    @property
    def is_alive(self) -> bool:
        return self._thread.is_alive()

    # The worker thread ------------------------------------------------------------
    def _run(self) -> None:
        engine = self._engine_factory()
        try:
            while True:
                command = self._queue.get()
                if isinstance(command, Shutdown):
                    return
                if isinstance(command, LoadModel):
                    self._load(engine, command)
                elif isinstance(command, Generate):
                    self._generate(engine, command)
                elif isinstance(command, Forget):
                    engine.forget()
        finally:
            try:
                engine.close()
            except Exception:  # pragma: no cover - freeing must not mask the real exit
                log.exception("closing the engine failed")

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

    def _run_generation(self, engine: Engine, command: Generate) -> None:
        rid = command.request_id
        if not self._loaded:
            raise NoModelLoaded()
        budget = engine.n_ctx - answer_reserve(engine.n_ctx, command.params.max_tokens)
        messages, dropped = fit_messages(command.messages, engine.count_tokens, budget)
        prompt_tokens = engine.count_tokens(messages)
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
