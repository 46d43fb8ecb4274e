"""The files attached to a question, opened afterwards (#39): what Hearth kept of each (its
text, page by page, and its notes), read-only, one tab a file. A window of its own, not
modal; it holds the text only while it is open (closed or locked: gone). The files
themselves were never kept, so there is nothing else to open."""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QPlainTextEdit,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from app.shell.a11y import named
from app.shell.sizing import keep_whole
from core.attachments import Attachment
from i18n import translate


def kept_text(attachment: Attachment) -> str:
    """An attachment's text as it is kept: its notes, then each page (or part) in order."""
    parts = [f"({note})" for note in attachment.notes]
    for section in attachment.sections:
        if section.page:
            parts.append(translate("chat.attachments", "— Page {page} —").format(page=section.page))
        elif section.heading:
            parts.append(f"— {section.heading} —")
        parts.append(section.text.strip())
    return "\n\n".join(parts)


class AttachmentViewer(QDialog):
    def __init__(self, attachments: Sequence[Attachment], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        keep_whole(self)
        self.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        self.setModal(False)
        self.setWindowTitle(translate("chat.attachments", "Attached files"))
        self.tabs = QTabWidget()
        for attachment in attachments:
            text = QPlainTextEdit(kept_text(attachment))  # plain: a stranger's text
            text.setReadOnly(True)
            named(text, translate("chat.attachments", "The text Hearth kept of {name}").format(
                name=attachment.name))
            # A tab's text would take "&" as a shortcut's mark: doubled, it is shown as it is.
            self.tabs.addTab(text, attachment.name.replace("&", "&&"))
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.close)
        layout = QVBoxLayout(self)
        layout.addWidget(self.tabs)
        layout.addWidget(buttons)
        self.resize(720, 560)
