"""Auto-lock: a timer that any keyboard or mouse input restarts."""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, QTimer, Signal

_INPUT_EVENTS = {
    QEvent.Type.KeyPress,
    QEvent.Type.MouseButtonPress,
    QEvent.Type.MouseMove,
    QEvent.Type.Wheel,
    QEvent.Type.TouchBegin,
}


class IdleWatcher(QObject):
    idle = Signal()

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.timeout.connect(self.idle)

    def set_minutes(self, minutes: float) -> None:
        if minutes <= 0:
            self._timer.stop()
            self._timer.setInterval(0)
            return
        self._timer.setInterval(int(minutes * 60_000))
        self._timer.start()

    def restart(self) -> None:
        if self._timer.interval() > 0:
            self._timer.start()

    def stop(self) -> None:
        self._timer.stop()

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() in _INPUT_EVENTS and self._timer.isActive():
            self._timer.start()
        return False
