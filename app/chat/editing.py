"""Text boxes that behave as the composer does: Enter sends, Shift+Enter starts a new
line. The composer (``ChatInput``) and the in-place editor of an earlier question
(``QuestionEditor``) share it, so a question is edited with the keys it was typed with."""

from __future__ import annotations

from PySide6.QtCore import QEvent, Qt, Signal, Slot
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import QHBoxLayout, QLabel, QPlainTextEdit, QPushButton, QVBoxLayout, QWidget

from app.shell.a11y import named, tab_moves_on
from i18n import translate


class EnterSends(QPlainTextEdit):
    """Enter sends (``submitted``), Shift+Enter starts a new line; Esc is ``cancelled``
    where ``escape_cancels`` (the composer leaves Esc to the window: it stops an answer)."""

    submitted = Signal()
    cancelled = Signal()
    escape_cancels = False

    def event(self, event: QEvent) -> bool:
        # Esc is the window's shortcut (stop the answer); here it cancels the edit first.
        if (self.escape_cancels and event.type() == QEvent.Type.ShortcutOverride
                and isinstance(event, QKeyEvent) and event.key() == Qt.Key.Key_Escape):
            event.accept()
            return True
        return super().event(event)

    def keyPressEvent(self, event: QKeyEvent) -> None:  # noqa: N802 - Qt's name
        if event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter):
            if event.modifiers() & Qt.KeyboardModifier.ShiftModifier:
                self.insertPlainText("\n")
            else:
                self.submitted.emit()
            event.accept()
            return
        if event.key() == Qt.Key.Key_Escape and self.escape_cancels:
            self.cancelled.emit()
            event.accept()
            return
        super().keyPressEvent(event)


class QuestionEditor(QWidget):
    """An earlier question, edited where it stands in the conversation."""

    submitted = Signal(str)  # the new question
    cancelled = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.text = EnterSends(self)
        self.text.escape_cancels = True
        tab_moves_on(self.text)
        self.text.setMaximumHeight(140)
        hint = QLabel(translate("chat.editing", "Enter asks again, Shift+Enter makes a new line, Esc "
                                "cancels. The question as it was stays, with its answers, as the other "
                                "version (‹ 1/2 ›)."))
        hint.setWordWrap(True)
        hint.setObjectName("info")
        self.send = QPushButton(translate("chat.editing", "Ask again"))
        self.cancel = QPushButton(translate("chat.editing", "Cancel"))
        named(self.text, translate("chat.editing", "Edit the question"), hint.text())
        buttons = QHBoxLayout()
        buttons.addStretch(1)
        buttons.addWidget(self.cancel)
        buttons.addWidget(self.send)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.text)
        layout.addWidget(hint)
        layout.addLayout(buttons)
        self.text.submitted.connect(self._submit)
        self.send.clicked.connect(self._submit)
        self.text.cancelled.connect(self.cancelled)
        self.cancel.clicked.connect(self.cancelled)

    def start(self, text: str) -> None:
        self.text.setPlainText(text)
        self.text.selectAll()
        self.show()
        self.text.setFocus()

    @Slot()
    def _submit(self) -> None:
        self.submitted.emit(self.text.toPlainText())
