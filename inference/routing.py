"""Fan-out of the inference worker's events: each API request's events go to the request
waiting for them, everything else to the window (or nowhere, headless).

Apart from the HTTP server so that the window, which always routes, never loads the
ASGI stack unless the local API is switched on.
"""

from __future__ import annotations

import threading
from collections.abc import Callable

from inference.protocol import Event


class RequestRouter:
    """Wraps the worker's sink: events of API requests go to their waiting request,
    everything else to the window (or nowhere, headless)."""

    def __init__(self, fallback: Callable[[Event], None] | None = None) -> None:
        self.fallback = fallback
        self._lock = threading.Lock()
        self._routes: dict[int, Callable[[Event], object]] = {}
        self._watchers: list[Callable[[Event], object]] = []

    def sink(self, event: Event) -> None:
        rid = getattr(event, "request_id", None)
        with self._lock:
            route = self._routes.get(rid) if rid is not None else None
            watchers = list(self._watchers) if rid is None else []
        for watcher in watchers:  # an event of no request (the worker died): theirs too
            watcher(event)
        if route is not None:
            route(event)
        elif self.fallback is not None:
            self.fallback(event)

    def watch(self, watcher: Callable[[Event], object]) -> None:
        """``watcher`` hears the events that belong to no request, besides whoever else does."""
        with self._lock:
            self._watchers.append(watcher)

    def unwatch(self, watcher: Callable[[Event], object]) -> None:
        with self._lock:
            if watcher in self._watchers:
                self._watchers.remove(watcher)

    def register(self, request_id: int, route: Callable[[Event], object]) -> None:
        with self._lock:
            self._routes[request_id] = route

    def unregister(self, request_id: int) -> None:
        with self._lock:
            self._routes.pop(request_id, None)
