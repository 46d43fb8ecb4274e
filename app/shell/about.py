"""Help ▸ About: the version and the licenses of everything Hearth ships."""

from __future__ import annotations

import sys
from importlib import metadata
from pathlib import Path

from PySide6.QtWidgets import QDialog, QDialogButtonBox, QLabel, QTextBrowser, QVBoxLayout, QWidget

from app.shell.a11y import name_buttons, named
from app.shell.sizing import keep_whole
from i18n import translate


def version() -> str:
    try:
        return metadata.version("hearth")
    except metadata.PackageNotFoundError:
        return translate("shell.about", "development")


def licenses_text() -> str:
    """LICENSES.md: beside the frozen app's files, or at the top of a source tree (the
    project's root, two folders above this one)."""
    places = [Path(frozen)] if (frozen := getattr(sys, "_MEIPASS", None)) else []
    places.append(Path(__file__).resolve().parents[2])
    for root in places:
        path = root / "LICENSES.md"
        if path.is_file():
            return path.read_text(encoding="utf-8")
    return translate("shell.about", "The license list is missing.")


class AboutDialog(QDialog):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        keep_whole(self)
        self.setWindowTitle(translate("shell.about", "About Hearth"))
        self.resize(560, 520)
        heading = QLabel(translate("shell.about", "<h2>Hearth {version}</h2><p>Private chat with "
                                   "language models that run on this computer. Nothing leaves "
                                   "it.</p>").format(version=version()))
        # The licences bind in the words they were published in: shown as they are, said so.
        self.licenses_note = QLabel(translate("shell.about", "The licenses of everything Hearth ships, "
                                              "as their authors published them (in English):"))
        self.licenses_note.setWordWrap(True)
        self.licenses = QTextBrowser()
        self.licenses.setOpenLinks(False)
        self.licenses.setMarkdown(licenses_text())
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.reject)
        named(self.licenses, translate("shell.about", "Licenses"),
              translate("shell.about", "The licenses of everything Hearth ships"))
        name_buttons(buttons)
        layout = QVBoxLayout(self)
        layout.addWidget(heading)
        layout.addWidget(self.licenses_note)
        layout.addWidget(self.licenses, 1)
        layout.addWidget(buttons)
