"""Run slow work (key derivation, backups) off the UI thread, report back on it.

The callable runs on a pool thread and must not touch widgets; its result or exception
comes back through a signal that Qt delivers on the UI thread.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QObject, QRunnable, QThreadPool, Signal, Slot

log = logging.getLogger(__name__)


class Task(QObject):
    succeeded = Signal(object)
    failed = Signal(object)  # the exception


class _Runnable(QRunnable):
    def __init__(self, fn: Callable[[], Any], task: Task) -> None:
        super().__init__()
        self._fn = fn
        self._task = task

    @Slot()
    def run(self) -> None:
        try:
            result = self._fn()
        except Exception as exc:  # delivered to the UI thread, which decides what to say
            self._task.failed.emit(exc)
            return
        self._task.succeeded.emit(result)


def run_in_background(
    fn: Callable[[], Any],
    parent: QObject,
    on_success: Callable[[Any], None],
    on_failure: Callable[[Exception], None],
) -> Task:
    """Run ``fn`` on the global pool; the callbacks run on the UI thread.

    The callbacks are connected before the work starts: a fast ``fn`` must not finish
    before anyone listens.
    """
    task = Task(parent)
    task.succeeded.connect(on_success)
    task.failed.connect(on_failure)
    task.succeeded.connect(task.deleteLater)
    task.failed.connect(task.deleteLater)
    QThreadPool.globalInstance().start(_Runnable(fn, task))
    return task
