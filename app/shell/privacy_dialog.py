"""Privacy: where the data lives, that it is encrypted, the network guard, delete everything."""

from __future__ import annotations

import html
from collections import Counter

from PySide6.QtCore import Qt, Signal, Slot
from PySide6.QtWidgets import QDialog, QInputDialog, QLabel, QPushButton, QVBoxLayout, QWidget

from app.shell.a11y import named
from guard import egress
from storage.paths import data_dir

CONFIRM_WORD = "DELETE"


class PrivacyDialog(QDialog):
    delete_everything = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Privacy")
        self.resize(620, 460)
        self.report = QLabel()
        self.report.setWordWrap(True)
        self.report.setTextFormat(Qt.TextFormat.RichText)
        self.report.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.refresh_button = QPushButton("Refresh")
        self.delete_button = QPushButton("Delete all my data…")
        self.delete_button.setObjectName("danger")
        self.report.setAccessibleDescription("Where your data is and what the network guard blocked")
        named(self.refresh_button, "Refresh", "Count the blocked attempts again")
        named(self.delete_button, "Delete all my data", "Delete your chats, documents index, model "
                                                        "library, backups, settings and logs")
        layout = QVBoxLayout(self)
        layout.addWidget(self.report, 1)
        layout.addWidget(self.refresh_button)
        layout.addWidget(self.delete_button)
        self.refresh_button.clicked.connect(self.refresh)
        self.delete_button.clicked.connect(self._delete)
        self.refresh()

    @Slot()
    def refresh(self) -> None:
        guard = egress.GUARD
        blocked = Counter(guard.blocked)
        attempts = "".join(f"<li>{html.escape(dest)} ({count}×)</li>" for dest, count in blocked.most_common(20))
        status = "on" if guard.installed else "<b>off</b> (this process was not started through Hearth)"
        self.report.setText(
            f"<h3>Your data</h3><p>Stored only on this computer, in<br><tt>{html.escape(str(data_dir()))}</tt></p>"
            "<p>Chats, titles, settings, the model library and your documents' text, paths and "
            "vectors are <b>encrypted</b> (AES-256-GCM) with a key that only your passphrase "
            "unlocks (Argon2id). The document search index exists only in memory while "
            "Hearth is unlocked.</p>"
            f"<h3>Network</h3><p>Network guard: <b>{status}</b>. Hearth makes no network "
            "connections; every attempt is refused and counted here.</p>"
            f"<p>Blocked attempts: <b>{guard.blocked_count}</b></p>"
            + (f"<ul>{attempts}</ul>" if attempts else "")
            + "<p>Links in answers open in your browser only after you confirm; images in "
            "answers are never loaded.</p>")

    @Slot()
    def _delete(self) -> None:
        word, ok = QInputDialog.getText(
            self, "Delete all my data",
            "This deletes your chats, documents index, model library, backups, settings and "
            f"logs from this computer. It cannot be undone.\n\nType {CONFIRM_WORD} to confirm:")
        if ok and word.strip() == CONFIRM_WORD:
            self.delete_everything.emit()
            self.accept()
