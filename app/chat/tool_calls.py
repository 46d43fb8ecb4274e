"""Tools in the conversation (#44): the panel that asks before a call runs, and the
collapsed list of the calls an answer made.

Everything shown here came from the model or a tool: plain text only, never rich text or
a link, and never cut silently (the arguments scroll; a stored result that was shortened
says how much was left out). The panel is part of the page, not a dialog: nothing waits
on it but the turn, and Stop or lock ends that."""

from __future__ import annotations

import json
from typing import Any

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (
    QFrame,
    QHBoxLayout,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from app.shell.a11y import named
from app.shell.text import plain
from core.tool_steps import ALWAYS, ONCE, REFUSE
from guard.text import escaped, printable
from i18n import join_sentences, translate

ARGUMENT_LINES = 8  # the arguments' box before it scrolls


class ToolApproval(QFrame):
    """Asks whether the model's call may run: Run once, Always in this chat, Refuse."""

    decided = Signal(str)  # core.tool_steps: ONCE, ALWAYS or REFUSE

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("toolApproval")
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.title = plain(QLabel())
        self.title.setWordWrap(True)
        self.arguments = QPlainTextEdit()
        self.arguments.setReadOnly(True)
        self.arguments.setMaximumHeight(self.fontMetrics().lineSpacing() * (ARGUMENT_LINES + 1))
        named(self.arguments, translate("chat.tools", "The call's arguments"),
              translate("chat.tools", "Everything the tool would be given"))
        self.once_button = QPushButton(translate("chat.tools", "Run once"))
        self.always_button = QPushButton(translate("chat.tools", "Always in this chat"))
        self.refuse_button = QPushButton(translate("chat.tools", "Refuse"))
        for button, decision in ((self.once_button, ONCE), (self.always_button, ALWAYS),
                                 (self.refuse_button, REFUSE)):
            button.clicked.connect(lambda _checked=False, decision=decision: self._decide(decision))
        named(self.always_button, self.always_button.text(),
              translate("chat.tools", "This tool runs without asking in this chat from now on"))
        named(self.refuse_button, self.refuse_button.text(),
              translate("chat.tools", "The model is told you refused, and answers without it"))
        buttons = QHBoxLayout()
        buttons.addStretch(1)
        for button in (self.refuse_button, self.always_button, self.once_button):
            buttons.addWidget(button)
        layout = QVBoxLayout(self)
        layout.addWidget(self.title)
        layout.addWidget(self.arguments)
        layout.addLayout(buttons)
        self.hide()

    def ask(self, server: str, tool: str, arguments: dict[str, Any]) -> None:
        self.title.setText(translate("chat.tools", "The model wants to run {tool} from {server}. Run it?")
                           .format(tool=printable(tool, keep=""), server=printable(server, keep="")))
        self.arguments.setPlainText(escaped(json.dumps(arguments, ensure_ascii=False, indent=2)))
        self.setAccessibleName(self.title.text())
        # Shown, not focused: a key pressed while typing the next message must not run it.
        self.show()

    def _decide(self, decision: str) -> None:
        self.hide()
        self.decided.emit(decision)


def describe_steps(steps: list[dict[str, Any]]) -> list[str]:
    """One line per tool call an answer made, for the collapsed list."""
    lines: list[str] = []
    for step in steps:
        if step.get("kind") != "tool":
            continue
        arguments = json.dumps(step.get("arguments", {}), ensure_ascii=False)
        if step.get("approval") == REFUSE:
            outcome = translate("chat.tools", "refused by you")
        elif step.get("stopped"):
            outcome = translate("chat.tools", "stopped")
        else:
            outcome = str(step.get("result", ""))
            if step.get("cut"):
                outcome = join_sentences(outcome, translate("chat.tools", "[{count} more characters not kept]").format(
                    count=step["cut"]))
            if step.get("is_error"):
                outcome = translate("chat.tools", "failed: {why}").format(why=outcome)
        seconds = step.get("seconds")
        took = (translate("chat.tools", "({seconds:.1f} s)").format(seconds=float(seconds))
                if isinstance(seconds, (int, float)) and not step.get("stopped") else "")
        lines.append(printable(f"{step.get('server', '')} › {step.get('tool', '')} {arguments} → {join_sentences(outcome, took)}"))
    return lines


class ToolCallsView(QWidget):
    """"Used 2 tools ▸": the calls an answer made, shown when opened."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.toggle = QToolButton()
        self.toggle.setCheckable(True)
        self.toggle.setAutoRaise(True)
        self.details = plain(QLabel())
        self.details.setWordWrap(True)
        self.details.hide()
        self.toggle.toggled.connect(self.details.setVisible)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.toggle)
        layout.addWidget(self.details)
        self.hide()

    def set_steps(self, steps: Any) -> None:
        lines = describe_steps(steps if isinstance(steps, list) else [])
        self.setVisible(bool(lines))
        count = len(lines)
        self.toggle.setText(translate("chat.tools", "Used %n tool call(s)", None, count))
        named(self.toggle, self.toggle.text(), translate("chat.tools", "Show the calls and their results"))
        self.details.setText("\n".join(lines))
