"""Models already on this computer (``core.discovery``): asked first, found read-only,
offered for import by reference (nothing is copied unless the user imports a copy later).

The names and paths are another program's files: shown as plain text."""

from __future__ import annotations

from PySide6.QtCore import QLocale, Qt
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QVBoxLayout,
    QWidget,
)

from app.shell import dialogs
from app.shell.a11y import name_buttons, named
from app.shell.sizing import keep_whole
from app.shell.text import plain, tooltip
from core.discovery import Found, existing, find, places
from i18n import translate


class FoundModelsDialog(QDialog):
    """The GGUF files found, each with a box to tick; ``chosen()`` after it is accepted."""

    def __init__(self, found: list[Found], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        keep_whole(self)
        self.found = found
        self.setWindowTitle(translate("models.found", "Models on this computer"))
        self.resize(720, 420)
        intro = plain(QLabel(translate("models.found", "Tick the models to add to Hearth's library. "
                                       "They are used where they are: nothing is copied, and the "
                                       "other program keeps its files.")))
        intro.setWordWrap(True)
        self.list = QListWidget()
        locale = QLocale()
        for item_found in found:
            item = QListWidgetItem(translate("models.found", "{name} — {source}, {size}").format(
                name=item_found.name, source=item_found.source,
                size=locale.formattedDataSize(item_found.size)))
            item.setFlags(item.flags() | Qt.ItemFlag.ItemIsUserCheckable)
            item.setCheckState(Qt.CheckState.Unchecked)
            item.setToolTip(tooltip(str(item_found.path)))
            self.list.addItem(item)
        named(self.list, translate("models.found", "Models found"),
              translate("models.found", "Space ticks a model to import"))
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
        ok = buttons.button(QDialogButtonBox.StandardButton.Ok)
        ok.setText(translate("models.found", "Import ticked"))
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        name_buttons(buttons, accept=translate("models.found", "Import the ticked models"))
        layout = QVBoxLayout(self)
        layout.addWidget(intro)
        layout.addWidget(self.list, 1)
        layout.addWidget(buttons)

    def chosen(self) -> list[Found]:
        return [f for i, f in enumerate(self.found)
                if self.list.item(i).checkState() == Qt.CheckState.Checked]


def find_on_this_computer(parent: QWidget, known_paths: set[str]) -> list[Found] | None:
    """Ask, look, offer: the models the user ticked (None: nothing to do)."""
    where = existing(places())
    title = translate("models.found", "Find models on this computer")
    if not where:
        dialogs.inform(parent, title, translate(
            "models.found", "None of the folders where LM Studio, Jan, GPT4All or Ollama keep "
            "their models is on this computer."))
        return None
    listing = "\n".join(f"• {source}: {path}" for source, path in where)
    if not dialogs.confirm(parent, title, translate(
            "models.found", "Hearth will look, read-only, for GGUF models in:\n\n{folders}\n\nNothing is "
            "copied, changed or sent.").format(folders=listing), translate("models.found", "Look")):
        return None
    found = [f for f in find(where) if str(f.path) not in known_paths]
    if not found:
        dialogs.inform(parent, title, translate("models.found", "No models were found there that are "
                                                "not in your library already."))
        return None
    dialog = FoundModelsDialog(found, parent)
    return dialog.chosen() if dialog.exec() == QDialog.DialogCode.Accepted else None
