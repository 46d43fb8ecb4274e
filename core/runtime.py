"""The inference side of a session, assembled in one place (#37).

The window, the terminal commands, the self-test and the GPU check all run the same
pieces: the inference worker (supervised in the window: started again after a fault;
plain in the terminal, which ends with its command), the router that hands each
request's events to whoever asked (the local API registers its requests; the rest goes
to ``sink``), and, once intranet engines are in use, their runner and the dispatch that
sends a ``Generate`` naming an engine there and everything else to the worker. Each
used to build them itself (``ChatController``, ``core.client``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from inference.protocol import Event, Generate
from inference.remote import Dispatch, RemoteEngine, RemoteRunner
from inference.routing import RequestRouter
from inference.supervisor import SupervisedWorker
from inference.worker import DEFAULT_FLUSH_INTERVAL, InferenceWorker


class Runtime:
    def __init__(self, sink: Callable[[Event], None], engine_factory: Callable[[], Any] | None = None,
                 embedder_factory: Callable[[], Any] | None = None, *, supervised: bool = True,
                 worker_type: type[InferenceWorker] = InferenceWorker,
                 flush_interval: float = DEFAULT_FLUSH_INTERVAL) -> None:
        """``sink`` hears every event no registered request claims; ``engine_factory``
        makes the chat engine (llama.cpp's by default), ``embedder_factory`` the embedding
        engine (none: this runtime embeds nothing)."""
        if engine_factory is None:
            from inference.llama_engine import LlamaEngine

            engine_factory = LlamaEngine
        self.router = RequestRouter(sink)
        self.worker: Any
        if supervised:
            self.worker = SupervisedWorker(engine_factory, self.router.sink, flush_interval=flush_interval,
                                           embedder_factory=embedder_factory, worker_type=worker_type)
        else:
            self.worker = worker_type(engine_factory, self.router.sink, flush_interval=flush_interval,
                                      embedder_factory=embedder_factory)
        self.remote: RemoteRunner | None = None
        self.dispatch: Dispatch | None = None  # set by use_engines: where a Generate goes

    def start(self) -> None:
        self.worker.start()

    def use_engines(self, engine_for: Callable[[Generate], RemoteEngine]) -> Dispatch:
        """Let a ``Generate`` naming an intranet engine go to that engine (documents are
        still searched here, with this worker's embedding model); the dispatch."""
        self.remote = RemoteRunner(self.router.sink, engine_for)
        self.dispatch = Dispatch(self.worker, self.remote)
        return self.dispatch

    def submit(self, command: Any) -> None:
        (self.dispatch or self.worker).submit(command)

    def cancel(self, request_id: int) -> None:
        (self.dispatch or self.worker).cancel(request_id)

    def shutdown(self, timeout: float = 5.0) -> bool:
        """Stop the engines' requests and the worker; True if the worker's thread ended."""
        if self.remote is not None:
            self.remote.shutdown(min(timeout, 0.5))
        return bool(self.worker.shutdown(timeout))
