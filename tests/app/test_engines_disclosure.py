"""The first send to an intranet engine asks first, and a key held down does not answer it.

The disclosure (what will leave this computer, and for whom) had Send as its default
button: the Enter that sent the message, held a moment (auto-repeat) or pressed twice,
consented before the text could be read. Cancel is the default now, as for every other
question that lets something leave (dialogs.confirm); Send is a click, or Tab then Enter."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from PySide6.QtCore import QEvent, Qt, QTimer
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import QAbstractButton, QApplication, QMessageBox

from core.engines import EngineRecord

pytestmark = pytest.mark.gui

RECORD = EngineRecord("CorpGPT", "https://llm.corp.example:8000/v1")


def when_asked(act: Callable[[QMessageBox], None], seen: list[QMessageBox]) -> None:
    """Once the disclosure is up, ``act`` on it as the user would."""
    def check() -> None:
        box = QApplication.activeModalWidget()
        if not isinstance(box, QMessageBox):
            QTimer.singleShot(10, check)
            return
        seen.append(box)
        act(box)
    QTimer.singleShot(0, check)


def held_enter(box: QMessageBox) -> None:
    """Return, auto-repeated (as a held Enter key sends it), to whatever has the focus."""
    target = box.focusWidget() or box  # the box's own focus: offscreen, the app's may be elsewhere
    for _ in range(3):
        if box.isVisible():
            QApplication.sendEvent(target, QKeyEvent(QEvent.Type.KeyPress, Qt.Key.Key_Return,
                                                     Qt.KeyboardModifier.NoModifier, "\r", True))


def test_a_held_enter_does_not_consent_to_sending(qtbot, make_window, answers_dialogs) -> None:
    window = make_window(model=None)
    seen: list[QMessageBox] = []
    when_asked(held_enter, seen)
    assert window.engine_actions.disclose(RECORD, documents=True) is False
    box = seen[0]
    assert box.defaultButton() is box.button(QMessageBox.StandardButton.Cancel)
    assert "CorpGPT" in box.text() and RECORD.where in box.text()
    assert box.textFormat() == Qt.TextFormat.PlainText  # the name and address are not markup


def test_send_clicked_consents(qtbot, make_window, answers_dialogs) -> None:
    window = make_window(model=None)
    seen: list[QMessageBox] = []

    def click_send(box: QMessageBox) -> None:
        send = next(b for b in box.findChildren(QAbstractButton) if b.text() == "Send")
        send.click()

    when_asked(click_send, seen)
    assert window.engine_actions.disclose(RECORD, documents=False, pictures=True) is True
    assert "pictures" in seen[0].text()
