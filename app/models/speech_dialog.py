"""Models ▸ Speech models…: the bundled Whisper base and the Whisper models imported from a
folder (``core.speech_models``); which one recognises speech; import (checked, copied and
loaded in the isolated reader, in the background, with Cancel) and remove."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt, Slot
from PySide6.QtWidgets import (
    QDialog,
    QHBoxLayout,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from app.shell import dialogs
from app.shell.a11y import announce, named
from app.shell.background import start_job
from app.shell.sizing import keep_whole
from core import speech_models
from core.jobs import Job
from i18n import translate


class SpeechModelsDialog(QDialog):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        keep_whole(self)
        self.setWindowTitle(translate("models.speech", "Speech models"))
        self.models = QListWidget()
        named(self.models, translate("models.speech", "Speech models"))
        self.import_button = QPushButton(translate("models.speech", "Import a folder…"))
        self.use_button = QPushButton(translate("models.speech", "Use for speech"))
        self.remove_button = QPushButton(translate("models.speech", "Remove"))
        self.cancel_button = QPushButton(translate("models.speech", "Cancel import"))
        self.cancel_button.hide()
        self.message = QLabel(translate(
            "models.speech", "Another Whisper size in CTranslate2 form (a folder with model.bin, config.json, "
            "tokenizer.json and vocabulary.txt) recognises dictation and recordings once you use it. It is "
            "checked and loaded in the isolated reader before it is kept."))
        self.message.setWordWrap(True)
        named(self.import_button, translate("models.speech", "Import a speech model"),
              translate("models.speech", "Choose the folder of a Whisper model in CTranslate2 form"))
        named(self.use_button, translate("models.speech", "Use for speech"),
              translate("models.speech", "Recognise dictation and recordings with the selected model"))
        named(self.remove_button, translate("models.speech", "Remove speech model"),
              translate("models.speech", "Delete the selected imported model"))
        named(self.cancel_button, translate("models.speech", "Cancel import"))
        self.message.setAccessibleDescription(translate("models.speech", "Notice"))
        buttons = QHBoxLayout()
        for button in (self.import_button, self.use_button, self.remove_button, self.cancel_button):
            buttons.addWidget(button)
        layout = QVBoxLayout(self)
        layout.addWidget(self.models, 1)
        layout.addLayout(buttons)
        layout.addWidget(self.message)
        self.job: Job | None = None
        self.import_button.clicked.connect(self._import)
        self.use_button.clicked.connect(self._use)
        self.remove_button.clicked.connect(self._remove)
        self.cancel_button.clicked.connect(self._cancel)
        self.models.currentItemChanged.connect(lambda *_: self._enable())
        self.refresh()

    def refresh(self) -> None:
        chosen = speech_models.chosen()
        self.models.clear()
        entries = [("", speech_models.bundled_name())] + [(m.name, f"{m.name} ({m.size / 1e6:.0f} MB)")
                                            for m in speech_models.imported()]
        for name, label in entries:
            in_use = (chosen is None and not name) or (chosen is not None and chosen.name == name)
            item = QListWidgetItem(label + (translate("models.speech", " — in use") if in_use else ""))
            item.setData(Qt.ItemDataRole.UserRole, name)
            self.models.addItem(item)
        self.models.setCurrentRow(0)
        self._enable()

    def _selected(self) -> str | None:
        item = self.models.currentItem()
        return None if item is None else str(item.data(Qt.ItemDataRole.UserRole))

    def _enable(self) -> None:
        busy = self.job is not None
        name = self._selected()
        self.import_button.setEnabled(not busy)
        self.use_button.setEnabled(not busy and name is not None)
        self.remove_button.setEnabled(not busy and bool(name))
        self.cancel_button.setVisible(busy)

    def _say(self, text: str) -> None:
        self.message.setText(text)
        announce(self.message, text)

    @Slot()
    def _import(self) -> None:
        folder = dialogs.folder_path(self, translate("models.speech", "A Whisper model's folder"), Path.home())
        if folder is None:
            return
        self._say(translate("models.speech", "Checking “{name}” and loading it in the isolated reader…").format(
            name=folder.name))
        self.job = start_job("speech-model-import", lambda cancel: speech_models.import_folder(folder, "", cancel),
                             self, self._imported, self._failed)
        self._enable()

    def _imported(self, model: speech_models.SpeechModel) -> None:
        self.job = None
        self.refresh()
        self._say(translate("models.speech", "“{name}” is imported. Choose it and Use for speech to recognise "
                            "with it.").format(name=model.name))

    def _failed(self, exc: Exception) -> None:
        self.job = None
        self._enable()
        self._say(str(exc) if isinstance(exc, speech_models.SpeechModelError) else translate(
            "models.speech", "The model could not be imported ({reason}); nothing of it was kept.").format(
                reason=type(exc).__name__))

    @Slot()
    def _cancel(self) -> None:
        if self.job is not None:
            self.job.cancel.set()

    @Slot()
    def _use(self) -> None:
        name = self._selected()
        if name is None:
            return
        try:
            speech_models.choose(name)
        except speech_models.SpeechModelError as exc:
            self._say(str(exc))
            return
        self.refresh()
        self._say(translate("models.speech", "Speech is recognised with “{name}” from now on.").format(
            name=name or speech_models.bundled_name()))

    @Slot()
    def _remove(self) -> None:
        name = self._selected()
        if not name or not dialogs.confirm(self, translate("models.speech", "Remove speech model"), translate(
                "models.speech", "Delete “{name}” from the models folder?").format(name=name),
                dialogs.destructive(translate("models.speech", "Remove"))):
            return
        try:
            speech_models.remove(name)
        except (speech_models.SpeechModelError, OSError) as exc:
            self._say(str(exc))
            return
        self.refresh()
        self._say(translate("models.speech", "“{name}” was removed.").format(name=name))

    def reject(self) -> None:
        self._cancel()
        super().reject()
