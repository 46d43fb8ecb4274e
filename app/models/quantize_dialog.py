"""Settings ▸ Models ▸ Make a smaller copy… (#42): a model in F32, F16, BF16 or Q8_0
quantized in the background by llama.cpp (``core.quantize``, in a child process), with the
tensors counted as it goes and Cancel at any time; then measured against its original on
text the user chooses (a file of theirs, or Hearth's English and Chinese sample), the
quality loss, speed, size and fit shown, and kept in the library only if the user says so.
Whatever is not kept is deleted. For Q6_K, Q5_K_M and Q4_K_M the copy can be weighed by a
text of the user's (an importance matrix: the original reads it first, its steps counted).
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

from PySide6.QtCore import QObject, Qt, Signal, Slot
from PySide6.QtWidgets import (
    QApplication,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QProgressBar,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from app.shell import dialogs
from app.shell.a11y import named
from app.shell.background import start_job
from app.shell.sizing import keep_whole
from app.shell.text import plain
from core import quantize
from core.jobs import Job
from core.models import hash_file
from core.protocol import ModelInfo, read_info
from core.records import LibraryEntry
from core.vault import models_dir, trouble
from i18n import join_sentences, translate

log = logging.getLogger(__name__)


class _Progress(QObject):
    tensors = Signal(int, int)
    reading = Signal(int, int)  # the importance matrix's steps


class QuantizeDialog(QDialog):
    kept = Signal(object)  # the new library entry
    finished_work = Signal()  # made and measured, stopped or failed

    def __init__(self, models: Any, entry: LibraryEntry, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        keep_whole(self)
        self.models = models
        self.entry = entry
        self.info = ModelInfo.from_dict(entry.info)
        self.job: Job | None = None
        self.made: Path | None = None
        self.text_file: Path | None = None
        self.weigh_file: Path | None = None
        self.weighed_by: Path | None = None  # the text the copy being made is weighed by
        self.setWindowTitle(translate("models.quantize", "Make a smaller copy"))
        intro = QLabel(translate("models.quantize", "{name} is in {quantization}. A smaller copy needs less memory "
                                 "and answers faster, and is a little less exact; Hearth measures how much before "
                                 "you keep it. The original stays.").format(name=entry.name,
                                                                            quantization=self.info.quantization))
        intro.setWordWrap(True)
        intro.setTextFormat(Qt.TextFormat.PlainText)  # the name is the file's, not markup
        self.kind = QComboBox()
        for kind in quantize.TYPES:
            if quantize.refusal(self.info.quantization, kind) is None:
                self.kind.addItem(kind, kind)
        self.kind.setCurrentIndex(self.kind.count() - 1)  # Q4_K_M: the usual choice
        named(self.kind, translate("models.quantize", "Type of the copy"))
        self.text_label = plain(QLabel(translate("models.quantize", "Hearth's sample (English and Chinese)")))
        self.text_button = QPushButton(translate("models.quantize", "Choose a text file…"))
        text_row = QHBoxLayout()
        text_row.addWidget(self.text_label, 1)
        text_row.addWidget(self.text_button)
        self.weigh_label = plain(QLabel(translate("models.quantize", "Nothing: a plain copy")))
        self.weigh_button = QPushButton(translate("models.quantize", "Choose a text file…"))
        named(self.weigh_button, translate("models.quantize", "Choose a text to weigh the copy by"))
        self.weigh_button.setToolTip(translate(
            "models.quantize", "A text like the ones you will use the model for (your documents, as text): the "
                               "original reads it first, and the copy stays most exact where that text needs it "
                               "(an importance matrix). For Q6_K, Q5_K_M and Q4_K_M."))
        self.unweigh_button = QPushButton(translate("models.quantize", "No text"))
        named(self.unweigh_button, translate("models.quantize", "Make a plain copy, weighed by no text"))
        weigh_row = QHBoxLayout()
        weigh_row.addWidget(self.weigh_label, 1)
        weigh_row.addWidget(self.weigh_button)
        weigh_row.addWidget(self.unweigh_button)
        form = QFormLayout()
        form.addRow(translate("models.quantize", "Type:"), self.kind)
        form.addRow(translate("models.quantize", "Weighed by:"), weigh_row)
        form.addRow(translate("models.quantize", "Measured on:"), text_row)
        self.progress = QProgressBar()
        self.progress.setVisible(False)
        named(self.progress, translate("models.quantize", "Progress"))
        self.status = plain(QLabel())
        self.status.setWordWrap(True)
        self.report = plain(QLabel())
        self.report.setWordWrap(True)
        self.report.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.start_button = QPushButton(translate("models.quantize", "Make the copy"))
        self.keep_button = QPushButton(translate("models.quantize", "Keep it"))
        self.discard_button = QPushButton(translate("models.quantize", "Discard it"))
        self.cancel_button = QPushButton(translate("models.quantize", "Cancel"))
        buttons = QDialogButtonBox()
        for button, role in ((self.start_button, QDialogButtonBox.ButtonRole.AcceptRole),
                             (self.keep_button, QDialogButtonBox.ButtonRole.AcceptRole),
                             (self.discard_button, QDialogButtonBox.ButtonRole.DestructiveRole),
                             (self.cancel_button, QDialogButtonBox.ButtonRole.RejectRole)):
            buttons.addButton(button, role)
        layout = QVBoxLayout(self)
        layout.addWidget(intro)
        layout.addLayout(form)
        layout.addWidget(self.progress)
        layout.addWidget(self.status)
        layout.addWidget(self.report)
        layout.addWidget(buttons)
        self.bridge = _Progress(self)
        self.bridge.tensors.connect(self._tensors)
        self.bridge.reading.connect(self._reading)
        self.text_button.clicked.connect(self._choose_text)
        self.weigh_button.clicked.connect(self._choose_weighing)
        self.unweigh_button.clicked.connect(self._no_weighing)
        self.kind.currentIndexChanged.connect(lambda _index: self._buttons())
        self.start_button.clicked.connect(self.start)
        self.keep_button.clicked.connect(self.keep)
        self.discard_button.clicked.connect(self.discard)
        self.cancel_button.clicked.connect(self.reject)
        application = QApplication.instance()
        if application is not None:  # quitting while a copy waits to be kept: it goes
            application.aboutToQuit.connect(self.reject)
        self._buttons()

    def _buttons(self) -> None:
        running, made = self.job is not None, self.made is not None
        self.start_button.setVisible(not made)
        self.start_button.setEnabled(not running and self.kind.count() > 0)
        self.kind.setEnabled(not running and not made)
        self.text_button.setEnabled(not running and not made)
        weighed = self.kind.currentData() in quantize.WEIGHED
        self.weigh_button.setEnabled(not running and not made and weighed)
        self.unweigh_button.setVisible(self.weigh_file is not None)
        self.unweigh_button.setEnabled(not running and not made)
        if self.weigh_file is None:
            self.weigh_label.setText(translate("models.quantize", "Nothing: a plain copy"))
        elif weighed:
            self.weigh_label.setText(self.weigh_file.name)
        else:  # kept for a type that uses it; said, so that nobody thinks this copy is weighed
            self.weigh_label.setText(translate("models.quantize", "{file}: not used for {kind}").format(
                file=self.weigh_file.name, kind=self.kind.currentText()))
        self.keep_button.setVisible(made)
        self.discard_button.setVisible(made)

    @Slot()
    def _choose_text(self) -> None:
        chosen = self._text_file(translate("models.quantize", "Text to measure on"))
        if chosen is not None:
            self.text_file = chosen
            self.text_label.setText(chosen.name)

    @Slot()
    def _choose_weighing(self) -> None:
        chosen = self._text_file(translate("models.quantize", "Text to weigh the copy by"))
        if chosen is not None:
            self.weigh_file = chosen
            self._buttons()

    @Slot()
    def _no_weighing(self) -> None:
        self.weigh_file = None
        self._buttons()

    def _text_file(self, title: str) -> Path | None:
        return dialogs.open_path(self, title, Path.home(), translate("models.quantize", "Text") + " (*.txt *.md);;"
                                 + translate("models.quantize", "All files") + " (*)")

    @Slot()
    def start(self) -> None:
        if self.job is not None or not self.kind.count():
            return
        kind = str(self.kind.currentData())
        source, quantization = Path(self.entry.path), self.info.quantization
        target = quantize.target_for(source, kind, models_dir())
        text_file, tensors, reading = self.text_file, self.bridge.tensors, self.bridge.reading
        weigh_file = self.weigh_file if kind in quantize.WEIGHED else None

        def work(cancel: Any) -> tuple[Path, quantize.Quality]:
            text = quantize.SAMPLE if text_file is None else quantize.read_text(text_file)
            weighing = None if weigh_file is None else quantize.read_text(weigh_file)
            made = quantize.quantize(source, quantization, kind, target, cancel, lambda done, total:
                                     tensors.emit(done, total), weighing, lambda done, steps:
                                     reading.emit(done, steps))
            try:
                quality = quantize.measure(source, made, text, cancel=cancel)
                if cancel.is_set():
                    raise quantize.QuantizeCancelled()
                return made, quality
            except BaseException:
                made.unlink(missing_ok=True)  # not measured, or not wanted any more: not offered
                raise

        self.progress.setVisible(True)
        self.progress.setRange(0, 0)
        self.status.setText(translate("models.quantize", "Making the {kind} copy…").format(kind=kind))
        self.weighed_by = weigh_file
        self.job = start_job("quantize", work, self, self._done, self._failed)
        self._buttons()

    @Slot(int, int)
    def _reading(self, done: int, steps: int) -> None:
        self.progress.setRange(0, steps)
        self.progress.setValue(done)
        self.status.setText(translate("models.quantize", "The original is reading your text: part {done} of "
                                      "{steps}…").format(done=done, steps=steps))

    @Slot(int, int)
    def _tensors(self, done: int, total: int) -> None:
        self.progress.setRange(0, total)
        self.progress.setValue(done)
        if done >= total:
            self.status.setText(translate("models.quantize", "Measuring the copy against the original…"))
        else:
            self.status.setText(translate("models.quantize", "Making the {kind} copy…").format(
                kind=self.kind.currentText()))

    def _done(self, outcome: tuple[Path, quantize.Quality]) -> None:
        self.job = None
        if self.isHidden():  # closed meanwhile: the copy is nobody's
            outcome[0].unlink(missing_ok=True)
            self.finished_work.emit()
            return
        self.made, quality = outcome
        self.progress.setVisible(False)
        fit = self.models.fit_report_for(read_info(self.made), self.entry)
        weighed = [] if self.weighed_by is None else [translate(
            "models.quantize", "Weighed by {file} (an importance matrix).").format(file=self.weighed_by.name)]
        self.report.setText("\n".join([*weighed, *quality.lines(), translate("models.quantize", "On this computer: "
                                                                               "{fit}.").format(fit=fit.describe())]))
        self.status.setText(translate("models.quantize", "Keep the copy in your library?"))
        self._buttons()
        self.finished_work.emit()

    def _failed(self, exc: Exception) -> None:
        self.job = None
        self.progress.setVisible(False)
        if isinstance(exc, quantize.QuantizeCancelled):
            self.status.setText(translate("models.quantize", "Cancelled: nothing was left behind."))
        elif isinstance(exc, quantize.QuantizeError):
            self.status.setText(str(exc))
        else:
            self.status.setText(translate("models.quantize", "The copy could not be made: {reason}.").format(
                reason=exc))
        self._buttons()
        self.finished_work.emit()

    @Slot()
    def keep(self) -> None:
        """Hashed in the background (a large copy takes a while), then in the library."""
        made, kind = self.made, str(self.kind.currentData())
        if made is None or self.job is not None:
            return
        self.status.setText(translate("models.quantize", "Adding the copy to your library…"))
        self.keep_button.setEnabled(False)
        self.discard_button.setEnabled(False)

        def added(sha: str) -> None:
            self.made = None
            self.job = None
            try:
                entry = self.models.keep_quantized(made, kind, self.entry, sha)
            except Exception as exc:  # a full disk: the copy goes, not left outside the library
                made.unlink(missing_ok=True)
                self.discard_button.setEnabled(True)
                outcome = translate("models.quantize", "The copy could not be added to your library, "
                                    "and was deleted.")
                found = trouble(exc)
                if found is None:
                    log.error("a quantized copy could not be kept", exc_info=exc)
                self.status.setText(found.message(outcome) if found is not None else join_sentences(outcome, translate(
                    "models.quantize", "Details are in the log.")))
                return
            self.kept.emit(entry)
            self.accept()

        def failed(exc: Exception) -> None:
            self.job = None
            self.keep_button.setEnabled(True)
            self.discard_button.setEnabled(True)
            self.status.setText(translate("models.quantize", "The copy could not be added: {reason}.").format(
                reason=exc))

        self.job = start_job("quantize-keep", lambda cancel: hash_file(made, cancel), self, added, failed)

    @Slot()
    def discard(self) -> None:
        if self.made is not None:
            self.made.unlink(missing_ok=True)
            self.made = None
        self.reject()

    def reject(self) -> None:
        if self.job is not None:
            self.job.cancel.set()  # the job's own cleanup removes the partial file
        if self.made is not None:
            self.made.unlink(missing_ok=True)
            self.made = None
        super().reject()
