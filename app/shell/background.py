"""Slow work (key derivation, backups, model copies, probes) off the UI thread.

A thin Qt adapter over ``core.jobs``: the job runs on its own daemon thread and must not
touch widgets; its outcome comes back through a queued signal, so the callbacks run on
the UI thread. One registry serves the whole window: lock and quit cancel its jobs and
wait for them with a deadline (``jobs().wait``), never with an unbounded pool wait.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import shiboken6
from PySide6.QtCore import QCoreApplication, QObject, Signal, Slot

from core.jobs import Cancel, Job, JobRegistry


class _Poster(QObject):
    """Lives on the UI thread; a callable emitted from any thread runs there."""

    posted = Signal(object)

    def __init__(self) -> None:
        super().__init__()
        self.posted.connect(self._run)

    @Slot(object)
    def _run(self, callback: Callable[[], None]) -> None:
        callback()


_registry: JobRegistry | None = None
_poster: _Poster | None = None


def jobs() -> JobRegistry:
    """The window's job registry (made on first use, on the UI thread)."""
    global _registry, _poster
    if _registry is None:
        _poster = _Poster()
        app = QCoreApplication.instance()
        if app is not None:
            _poster.moveToThread(app.thread())
        _registry = JobRegistry(post=_poster.posted.emit)
    return _registry


def start_job(
    name: str,
    work: Callable[[Cancel], Any],
    parent: QObject,
    on_success: Callable[[Any], None],
    on_failure: Callable[[Exception], None],
    vault: bool = True,
) -> Job:
    """Run ``work(cancel)`` in the background; a callback gets its outcome on the UI thread,
    unless ``parent`` has been deleted by then. ``vault=False``: the work touches no vault,
    and a lock does not wait for it (``core.jobs.Job.vault``)."""

    def alive(callback: Callable[[Any], None]) -> Callable[[Any], None]:
        def deliver(value: Any) -> None:
            if shiboken6.isValid(parent):
                callback(value)
        return deliver

    return jobs().start(name, work, alive(on_success), alive(on_failure), vault)


def run_in_background(
    fn: Callable[[], Any],
    parent: QObject,
    on_success: Callable[[Any], None],
    on_failure: Callable[[Exception], None],
    name: str = "task",
    vault: bool = True,
) -> Job:
    """``start_job`` for work that cannot be cancelled half-way (a key derivation)."""
    return start_job(name, lambda _cancel: fn(), parent, on_success, on_failure, vault)
