"""The bridges to Qt signals: from the inference worker's plain callable sink, and from
the turn machine's reports to the chat controller's signals.

The worker calls ``sink`` on its own thread; emitting a signal of an object that lives
on the UI thread makes Qt queue the delivery to the UI thread, so receivers never run
on the worker thread.
"""

from __future__ import annotations

from typing import Any, Protocol

from PySide6.QtCore import QObject, Signal

from core.protocol import Event
from core.records import Message


class WorkerBridge(QObject):
    # Not named ``event``: that would shadow QObject.event(), Qt's own dispatch method.
    received = Signal(object)

    def sink(self, event: Event) -> None:
        self.received.emit(event)


class SignalsOwner(Protocol):
    """The chat controller, as the turn machine's listener sees it (app.chat.controller)."""

    message_added: Any
    message_removed: Any
    answer_updated: Any
    answer_progress: Any
    answer_finished: Any
    busy_changed: Any
    notice: Any
    tool_proposed: Any

    def show_branch(self, chat_id: int, through: int | None = None) -> None: ...


class TurnSignals:
    """The turn machine's listener: each report becomes the controller's signal."""

    def __init__(self, controller: SignalsOwner) -> None:
        self._c = controller

    def message_added(self, message: Message) -> None:
        self._c.message_added.emit(message)

    def message_removed(self, message_id: int) -> None:
        self._c.message_removed.emit(message_id)

    def branch_changed(self, chat_id: int, through: int | None) -> None:
        self._c.show_branch(chat_id, through)

    def answer_updated(self, message_id: int, text: str) -> None:
        self._c.answer_updated.emit(message_id, text)

    def answer_progress(self, message_id: int, stage: str, done: int, total: int) -> None:
        self._c.answer_progress.emit(message_id, stage, done, total)

    def answer_finished(self, message: Message) -> None:
        self._c.answer_finished.emit(message)

    def busy_changed(self, busy: bool) -> None:
        self._c.busy_changed.emit(busy)

    def notice(self, text: str) -> None:
        self._c.notice.emit(text)

    def tool_proposed(self, message_id: int, call: object) -> None:
        self._c.tool_proposed.emit(message_id, call)
