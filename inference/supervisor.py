"""The supervisor: an inference worker that is started again after a fault.

The window's session (``core.runtime``) holds one ``SupervisedWorker`` in place of a plain
worker. It passes commands to the current ``InferenceWorker`` (``inference.worker``) and
remembers the last model and embedding models asked for; when that worker's thread ends by
a fault (a ``WorkerDied`` event), it says which requests were left unanswered, makes a new
worker and loads those models into it again, unless faults come too often.
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

from inference.embedder import MAX_EMBEDDERS
from inference.engine import Engine
from inference.protocol import (
    Command,
    Done,
    Event,
    Failed,
    Generate,
    LoadEmbedder,
    LoadModel,
    Stopped,
    WorkerDied,
)
from inference.worker import DEFAULT_FLUSH_INTERVAL, InferenceWorker, Sink


class SupervisedWorker:
    """An inference worker that is started again, with the last models, after a fault.

    Holders keep this object; the thread behind it may change. The sink sees the
    ``WorkerDied`` event (with ``restarting``) and then the reload's usual events. After
    ``MAX_RESTARTS`` faults within ``RESTART_WINDOW`` seconds it stays down, and every
    command is answered at once with the reason.
    """

    MAX_RESTARTS = 3
    RESTART_WINDOW = 60.0

    def __init__(self, engine_factory: Callable[[], Engine], sink: Sink,
                 flush_interval: float = DEFAULT_FLUSH_INTERVAL,
                 embedder_factory: Callable[[], Any] | None = None,
                 worker_type: type[InferenceWorker] = InferenceWorker) -> None:
        self._make = lambda: worker_type(engine_factory, self._on_event, flush_interval=flush_interval,
                                         embedder_factory=embedder_factory)
        self._sink = sink
        self._lock = threading.Lock()
        self._faults: list[float] = []
        self._closing = False
        self._last_model: LoadModel | None = None
        # The embedding models to load again after a fault: the last MAX_EMBEDDERS asked for.
        self._last_embedders: OrderedDict[str, LoadEmbedder] = OrderedDict()
        self._worker = self._make()
        self.restarts = 0
        self._owed: set[int] = set()  # Generate requests the current worker has not answered

    def start(self) -> None:
        self._worker.start()

    def submit(self, command: Command) -> None:
        with self._lock:
            if isinstance(command, LoadModel):
                self._last_model = command
            elif isinstance(command, Generate):
                self._owed.add(command.request_id)
            elif isinstance(command, LoadEmbedder):
                key = command.model or str(command.path)
                self._last_embedders.pop(key, None)
                self._last_embedders[key] = command
                while len(self._last_embedders) > MAX_EMBEDDERS:
                    self._last_embedders.popitem(last=False)
            worker = self._worker
        worker.submit(command)

    def cancel(self, request_id: int) -> None:
        with self._lock:
            worker = self._worker
        worker.cancel(request_id)

    def shutdown(self, timeout: float = 2.0) -> bool:
        with self._lock:
            self._closing = True
            worker = self._worker
        return worker.shutdown(timeout)

    @property
    def is_alive(self) -> bool:
        with self._lock:  # the current worker is replaced under this lock (a restart)
            worker = self._worker
        return worker.is_alive

    def _on_event(self, event: Event) -> None:
        if not isinstance(event, WorkerDied):
            if isinstance(event, (Done, Stopped, Failed)):
                with self._lock:
                    self._owed.discard(event.request_id)
            self._sink(event)
            return
        now = time.monotonic()
        with self._lock:
            owed, self._owed = tuple(sorted(self._owed)), set()
            self._faults = [t for t in self._faults if now - t < self.RESTART_WINDOW] + [now]
            restart = not self._closing and len(self._faults) <= self.MAX_RESTARTS
            if restart:
                self._worker = self._make()
                self.restarts += 1
                # queued before anything submitted from now on: the models come back first
                for command in (self._last_model, *self._last_embedders.values()):
                    if command is not None:
                        self._worker.submit(command)
            worker = self._worker
        self._sink(WorkerDied(event.reason, restarting=restart, requests=owed))
        if restart:
            worker.start()
