"""The inference worker: one thread that alone owns the engine and the model in it.

Commands arrive on a ``queue.Queue``; events leave through a plain callable sink (the
Qt bridge in ``app/`` turns them into signals). Stopping is a ``threading.Event``
checked between tokens. Generated text is coalesced so that the sink is called at most
about 30 times a second, however fast the model is. If the thread ends by a fault, it says
so with a ``WorkerDied`` event; ``inference.supervisor`` starts a new one.
"""

from __future__ import annotations

import itertools
import logging
import queue
import threading
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

from i18n import translate
from inference import tool_formats
from inference.citations import document_answer
from inference.embedder import EmbedderPool
from inference.engine import Engine
from inference.errors import InferenceError, NoModelLoaded, WorkerRefused
from inference.generation import emit_safely, place_passages, stream_pieces
from inference.prompt import answer_reserve, fit_messages
from inference.protocol import (
    READING,
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
    Preparing,
    Shutdown,
    Started,
    Stats,
    Stopped,
    WorkerDied,
)
from inference.tool_formats import ToolFormat

log = logging.getLogger(__name__)

Sink = Callable[[Event], None]
DEFAULT_FLUSH_INTERVAL = 1 / 30


def refuse(command: Command, reason: str, emit: Sink) -> None:
    """Answer a command that will not run, so that nobody waits for it forever."""
    if isinstance(command, (Embed, CountTokens)):
        if not command.future.done():
            command.future.set_exception(WorkerRefused(reason))
    elif isinstance(command, Generate):
        emit(Failed(command.request_id, reason))
    elif isinstance(command, LoadModel):
        emit(ModelFailed(command.spec.path, reason))
    elif isinstance(command, LoadEmbedder):
        emit(EmbedderFailed(command.path, reason, command.model))


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
        self._death = ""  # why the thread ended by a fault, if it did
        self._embedders: EmbedderPool | None = None  # made on the thread, by identity
        self._ended = ""  # once the thread has ended: why commands can no longer run
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
        with self._lock:
            ended = self._ended
            if not ended:
                self._queue.put((priority, next(self._order), command))
                return
        refuse(command, ended, self._emit)  # the thread is gone: answer now rather than never

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
        engine: Engine | None = None
        self._embedders = None
        try:
            engine = self._engine_factory()
            self._embedders = EmbedderPool(self._embedder_factory) if self._embedder_factory else None
            self._serve(engine)
        except BaseException as exc:
            log.exception("the inference worker stopped by a fault")
            self._death = translate("inference.worker", "The model engine stopped unexpectedly "
                                    "({kind}); details are in the log.").format(
                                        kind=type(exc).__name__)
            self._close(engine)  # before a successor loads the model again: not two in memory
            engine = None
            self._emit(WorkerDied(self._death))
            if not isinstance(exc, Exception):
                raise
        finally:
            with self._lock:  # from now on submit() answers by itself
                self._ended = self._death or translate("inference.worker",
                                                       "Hearth is shutting down.")
            self._refuse_pending(self._ended)
            self._close(engine)

    def _close(self, engine: Engine | None) -> None:
        for owned in (engine, self._embedders):
            try:
                if owned is not None:
                    owned.close()
            except Exception:  # pragma: no cover - freeing must not mask the real exit
                log.exception("closing a model failed")
        self._embedders = None

    def _serve(self, engine: Engine) -> None:
        while True:
            _, _, command = self._queue.get()
            if isinstance(command, Shutdown):
                return
            try:
                self._handle(engine, command)
            except Exception:
                # A bug in one command must not end the worker: log it, answer it, go on.
                log.exception("the inference worker failed on %s", type(command).__name__)
                refuse(command, translate("inference.worker", "Hearth ran into an internal error "
                                          "({kind}); details are in the log.").format(
                                              kind=type(command).__name__), self._emit)

    def _handle(self, engine: Engine, command: Command) -> None:
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

    def _refuse_pending(self, reason: str) -> None:
        while True:
            try:
                _, _, command = self._queue.get_nowait()
            except queue.Empty:
                return
            refuse(command, reason, self._emit)

    def _load_embedder(self, command: LoadEmbedder) -> None:
        if self._embedders is None:
            self._emit(EmbedderFailed(command.path, translate(
                "inference.worker", "This build has no embedding support."), command.model))
            return
        try:
            identity = EmbedderPool.identity(command.path, command.model)
        except OSError as exc:
            self._emit(EmbedderFailed(command.path, translate(
                "inference.worker", "The embedding model {name} cannot be read ({error})."
            ).format(name=command.path.name, error=exc.strerror or exc), command.model))
            return
        try:
            dimensions = self._embedders.load(identity, command.path)
        except Exception as exc:
            self._emit(EmbedderFailed(command.path, str(exc), identity))
            return
        self._emit(EmbedderLoaded(command.path, dimensions, identity))

    def _embed(self, command: Embed | CountTokens) -> None:
        """With exactly the model the command names; EmbedderNotLoaded if it is not here."""
        future = command.future
        if not future.set_running_or_notify_cancel():
            return
        try:
            if self._embedders is None:
                raise NoModelLoaded()
            embedder = self._embedders.named(command.model)
            if isinstance(command, Embed):
                future.set_result(embedder.embed(command.texts))
            else:
                future.set_result([embedder.count_tokens(t) for t in command.texts])
        except Exception as exc:
            future.set_exception(exc)

    def _emit(self, event: Event) -> None:
        emit_safely(self._sink, event)

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
            self._emit(ModelFailed(path, translate(
                "inference.worker", "The model could not be loaded ({kind}: {error})."
            ).format(kind=type(exc).__name__, error=exc)))
            return
        self._loaded = True
        self._emit(ModelLoaded(path, engine.name, engine.n_ctx, time.perf_counter() - started,
                               getattr(engine, "memory_bytes", 0), getattr(engine, "backend", "CPU"),
                               _looks_like_base_model(path)))

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
            self._emit(Failed(rid, translate(
                "inference.worker", "Generation failed ({kind}). Details are in the log."
            ).format(kind=type(exc).__name__)))
        finally:
            with self._lock:
                self._current = None
                self._cancelled.discard(rid)

    def _run_generation(self, engine: Engine, command: Generate) -> None:
        if not self._loaded:
            raise NoModelLoaded()
        fmt = getattr(engine, "tool_format", None)
        set_tools = getattr(engine, "set_tools", None)
        if command.choice is not None:  # a tool choice: asked in the model's own format, if any
            messages, params, tools = tool_formats.prepare(command.messages, command.choice, command.params, fmt)
            command = replace(command, messages=tuple(messages), params=params)
            if set_tools is not None:
                set_tools(tools)
        try:
            self._answer(engine, command, fmt if command.choice is not None else None)
        finally:
            if command.choice is not None and set_tools is not None:
                set_tools([])

    def _answer(self, engine: Engine, command: Generate, fmt: ToolFormat | None) -> None:
        rid = command.request_id
        budget = engine.n_ctx - answer_reserve(engine.n_ctx, command.params.max_tokens)
        source_messages = list(command.messages)
        numbers: set[int] = set()
        if command.retrieval is not None:
            source_messages, numbers = place_passages(command, engine.count_tokens, budget, self._emit)
        messages, dropped = fit_messages(source_messages, engine.count_tokens, budget)
        prompt_tokens = engine.count_tokens(messages)
        select = getattr(engine, "select_conversation", None)
        if select is not None:
            select(command.chat_id)
        self._emit(Started(rid, dropped))
        report = getattr(engine, "set_prompt_progress", None)
        if report is not None:
            report(lambda done, total: self._emit(Preparing(rid, READING, done, total)))
        try:
            pieces = engine.stream(messages, command.params, self._stop.is_set)
            if command.retrieval is not None:  # no markers echoed, no source list of its own
                pieces = document_answer(pieces, numbers)
            if command.choice is not None:
                pieces = tool_formats.as_choice(pieces, fmt)
            tokens, ttft, total = stream_pieces(rid, pieces, self._emit, self._stop.is_set,
                                                self._flush_interval)
        finally:
            if report is not None:
                report(None)  # this request's reports end with it
        limit = min(command.params.max_tokens, engine.n_ctx - prompt_tokens)
        stats = Stats(prompt_tokens, tokens, ttft, total, dropped, tokens >= limit)
        self._emit(Stopped(rid, stats) if self._stop.is_set() else Done(rid, stats))


def _looks_like_base_model(path: Path) -> bool:
    """Whether the loaded file looks like a base model, which continues text rather than
    answering (its header read again: a bounded read, a fraction of the load)."""
    from inference.gguf import InvalidGGUF
    from inference.modelinfo import read_info

    try:
        return read_info(path).looks_like_base_model
    except (OSError, InvalidGGUF, ValueError):
        return False
