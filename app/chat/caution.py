"""Under an answer the model was too weak for (a document question, core.answers): the
caution that says so, and the documents' own best sentences offered in the answer's place,
shown on request."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QPushButton, QVBoxLayout, QWidget

from app.chat.markdown import MarkdownView
from app.shell.a11y import named
from app.shell.text import plain
from core.answers import extract_markdown, weakness_text
from i18n import translate


class AnswerCaution:
    """The caution line, the button that shows or hides the passages, and their view."""

    def __init__(self, owner: QWidget) -> None:
        self.caution = plain(QLabel())
        self.caution.setObjectName("caution")
        self.caution.setWordWrap(True)
        self.extract_button = QPushButton(translate("chat.conversation", "Show the best matching passages"))
        self.extract_button.setToolTip(translate(
            "chat.conversation", "The sentences of your documents that best match the question, "
            "with their sources: no model wrote them"))
        named(self.extract_button, self.extract_button.text(), self.extract_button.toolTip())
        self.extract_button.setCheckable(True)
        self.extract_button.toggled.connect(self._show_extract)
        self.extract_view = MarkdownView(owner)
        self.extract_view.setObjectName("extract")
        self._extract = ""

    def add_to(self, layout: QVBoxLayout) -> None:
        layout.addWidget(self.caution)
        layout.addWidget(self.extract_button, 0, Qt.AlignmentFlag.AlignLeft)
        layout.addWidget(self.extract_view)

    def set_stats(self, stats: dict) -> None:
        """From an answer's stats: its weakness, if any, and the passages found instead."""
        weak = stats.get("weak")
        found = stats.get("extract")
        left_out = stats.get("left_out")
        self.caution.setText(f"⚠ {weakness_text(weak, left_out if isinstance(left_out, int) else 0)}"
                             if isinstance(weak, str) else "")
        self.caution.setVisible(isinstance(weak, str))
        self._extract = extract_markdown(found) if isinstance(found, list) and found else ""
        self.extract_button.setVisible(bool(self._extract))
        if not self._extract:
            self.extract_button.setChecked(False)
        self._show_extract(self.extract_button.isChecked())

    def _show_extract(self, shown_now: bool) -> None:
        visible = shown_now and bool(self._extract)
        if visible:
            self.extract_view.set_markdown(self._extract)
        self.extract_view.setVisible(visible)
        self.extract_button.setText(translate("chat.conversation", "Hide the best matching passages")
                                    if visible else translate("chat.conversation",
                                                              "Show the best matching passages"))
