"""The bridge from the inference worker's plain callable sink to a Qt signal.

The worker calls ``sink`` on its own thread; emitting a signal of an object that lives
on the UI thread makes Qt queue the delivery to the UI thread, so receivers never run
on the worker thread.
"""

from __future__ import annotations

from PySide6.QtCore import QObject, Signal

from core.protocol import Event


class WorkerBridge(QObject):
    # Not named ``event``: that would shadow QObject.event(), Qt's own dispatch method.
    received = Signal(object)

    def sink(self, event: Event) -> None:
        self.received.emit(event)
