"""Settings ▸ Intranet engines ▸ Compare… (#42): the local model and the chosen engines on
the same built-in questions at 1, 2, 4 and 8 chats at once, measured in the background
through the window's own worker and engines; a table, two charts (tokens a second, and the
first word's p95 time, against chats at once), a verdict in plain words, an earlier run
beside it as the baseline, and the figures exported as CSV or the charts as a picture.

Hearth's built-in questions are sent, or, where the user ticks it, the last questions they
wrote in their chats (``compare.own_questions``: never an answer or a document), in both
cases after the user was told so; Stop cancels every request at once; an engine that fails
is counted in its errors, not fatal to the run.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from PySide6.QtCore import QBuffer, QIODevice, QObject, Qt, Signal, Slot
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QDoubleSpinBox,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from app.engines.chart import LineChart, Series
from app.shell import dialogs
from app.shell.a11y import named
from app.shell.background import start_job
from app.shell.sizing import keep_whole
from app.shell.text import plain
from core import compare
from core.client import Cancelled, Routed
from core.jobs import Job
from core.vault import export, why_not
from i18n import join_sentences, translate

ANSWER_TOKENS = 64
ROUNDS = 2
VISIBLE_ROWS = 4  # the table's rows shown without scrolling; the rest scroll


def seconds_text(seconds: str) -> str:
    """A time in seconds as the language writes it ("2.00 s", "2.00 秒")."""
    return translate("engines.compare", "{seconds} s", "a time in seconds with the unit's short form; "
                     "{seconds} is the number, kept as is").replace("{seconds}", seconds)


class _Progress(QObject):
    """Carries the run's progress from its thread to the dialog's (a queued signal)."""

    said = Signal(str)


class CompareDialog(QDialog):
    finished_run = Signal()  # a run ended: measured, stopped or failed

    def __init__(self, controller: Any, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        keep_whole(self)
        self.controller = controller
        self.setWindowTitle(translate("engines.compare", "Compare engines"))
        self.setWindowModality(Qt.WindowModality.WindowModal)  # a chat sent meanwhile would skew the figures
        self.resize(900, 760)
        self.job: Job | None = None
        self._workload = "built-in"
        self.results: list[compare.Result] = []
        self.runs: list[tuple[float, list[compare.Result]]] = []
        intro = QLabel(translate("engines.compare", "The same questions to each setup, with 1, 2, 4 and 8 chats "
                                 "at once, measured here: Hearth's own, in English and Chinese, or the last "
                                 "questions you wrote in your chats (never the answers, never your documents)."))
        intro.setWordWrap(True)
        self.setups = QListWidget()
        self.setups.setMaximumHeight(90)
        named(self.setups, translate("engines.compare", "Setups to compare"))
        self.at_most = QComboBox()
        for level in compare.LEVELS:
            self.at_most.addItem(str(level), level)
        self.at_most.setCurrentIndex(2)
        named(self.at_most, translate("engines.compare", "At most this many chats at once"))
        self.target = QDoubleSpinBox()
        self.target.setRange(0.2, 60.0)
        self.target.setSingleStep(0.5)
        self.target.setValue(2.0)
        before, _, after = seconds_text("{seconds}").partition("{seconds}")
        self.target.setPrefix(before)
        self.target.setSuffix(after)
        named(self.target, translate("engines.compare", "First word within"))
        self.baseline = QComboBox()
        named(self.baseline, translate("engines.compare", "Earlier run to compare with"))
        self.own = QCheckBox(translate("engines.compare", "My own: the last questions I wrote in my chats"))
        self.own.setToolTip(translate("engines.compare", "Measures the setups on your own work. Each engine "
                                      "compared is sent these questions; you are asked first."))
        form = QFormLayout()
        form.addRow(translate("engines.compare", "Setups:"), self.setups)
        form.addRow(translate("engines.compare", "At most, chats at once:"), self.at_most)
        form.addRow(translate("engines.compare", "First word within:"), self.target)
        form.addRow(translate("engines.compare", "Questions:"), self.own)
        form.addRow(translate("engines.compare", "Beside an earlier run:"), self.baseline)
        self.start_button = QPushButton(translate("engines.compare", "Start"))
        self.stop_button = QPushButton(translate("engines.compare", "Stop"))
        self.csv_button = QPushButton(translate("engines.compare", "Export figures…"))
        self.picture_button = QPushButton(translate("engines.compare", "Export charts…"))
        row = QHBoxLayout()
        for button in (self.start_button, self.stop_button):
            row.addWidget(button)
        row.addStretch(1)
        for button in (self.csv_button, self.picture_button):
            row.addWidget(button)
        self.status = plain(QLabel())
        self.status.setWordWrap(True)
        self.table = QTableWidget(0, 6)
        self.table.setHorizontalHeaderLabels([
            translate("engines.compare", "Setup"), translate("engines.compare", "Chats at once"),
            translate("engines.compare", "Tokens/s in all"), translate("engines.compare", "Tokens/s a chat"),
            translate("engines.compare", "First word p50 / p95"), translate("engines.compare", "Errors")])
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.horizontalHeader().setStretchLastSection(True)
        self.table.verticalHeader().setVisible(False)
        self.table.resizeColumnsToContents()  # the headers whole before a run too
        named(self.table, translate("engines.compare", "Measurements"))
        self._fit_rows()
        self.charts = QWidget()
        charts = QHBoxLayout(self.charts)
        self.throughput = LineChart(translate("engines.compare", "Tokens a second, in all"),
                                    translate("engines.compare", "tokens/s"))
        self.first_word = LineChart(translate("engines.compare", "First word, p95"), translate("engines.compare", "s"))
        charts.addWidget(self.throughput)
        charts.addWidget(self.first_word)
        self.verdict = plain(QLabel())
        self.verdict.setWordWrap(True)
        self.verdict.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        close = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        layout = QVBoxLayout(self)
        layout.addWidget(intro)
        layout.addLayout(form)
        layout.addLayout(row)
        layout.addWidget(self.status)
        layout.addWidget(self.table, 1)
        layout.addWidget(self.charts, 1)
        layout.addWidget(self.verdict)
        layout.addWidget(close)
        self.progress = _Progress(self)
        self.progress.said.connect(self.status.setText)
        close.rejected.connect(self.reject)
        self.start_button.clicked.connect(self.start)
        self.stop_button.clicked.connect(self.stop)
        self.csv_button.clicked.connect(self.export_figures)
        self.picture_button.clicked.connect(self.export_charts)
        self.baseline.currentIndexChanged.connect(self._show)
        self.target.valueChanged.connect(self._show)
        self.refresh()

    # What can be compared -------------------------------------------------------------
    def refresh(self) -> None:
        """The setups (the local model if one is loaded, each engine switched on) and the
        runs kept in the vault."""
        self.setups.clear()
        model = self.controller.model
        if model.ready:
            self._add_setup(translate("engines.compare", "local: {model}").format(model=model.name),
                            compare.Target(translate("engines.compare", "local: {model}").format(model=model.name)))
        engines = self.controller.engines
        for record in engines.records() if engines is not None else []:
            if record.enabled and record.models:
                model_id = record.model().id
                self._add_setup(f"{record.name} ▸ {model_id} ({record.where})",
                                compare.Target(f"{record.name} ▸ {model_id}", record.name, model_id))
        self.runs = compare.kept(self.controller.library)
        self.baseline.blockSignals(True)
        self.baseline.clear()
        self.baseline.addItem(translate("engines.compare", "None"), -1)
        for number, (when, _results) in enumerate(self.runs):
            self.baseline.addItem(time.strftime("%Y-%m-%d %H:%M", time.localtime(when)), number)
        self.baseline.blockSignals(False)
        self._buttons()
        if not self.setups.count():
            self.status.setText(translate("engines.compare", "Nothing to compare yet: load a model, or switch an "
                                          "intranet engine on."))

    def _add_setup(self, text: str, target: compare.Target) -> None:
        item = QListWidgetItem(text)
        item.setData(Qt.ItemDataRole.UserRole, target)
        item.setFlags(item.flags() | Qt.ItemFlag.ItemIsUserCheckable)
        item.setCheckState(Qt.CheckState.Checked)
        self.setups.addItem(item)

    def chosen(self) -> list[compare.Target]:
        return [self.setups.item(i).data(Qt.ItemDataRole.UserRole) for i in range(self.setups.count())
                if self.setups.item(i).checkState() == Qt.CheckState.Checked]

    def _buttons(self) -> None:
        running = self.job is not None
        self.start_button.setEnabled(not running and self.setups.count() > 0)
        self.stop_button.setEnabled(running)
        self.csv_button.setEnabled(not running and bool(self.results))
        self.picture_button.setEnabled(not running and bool(self.results))

    # A run ---------------------------------------------------------------------------
    @Slot()
    def start(self) -> None:
        targets = self.chosen()
        title = translate("engines.compare", "Compare engines")
        if not targets or self.job is not None:
            return
        remote = [t for t in targets if t.engine]
        engines = ", ".join(t.label for t in remote)
        levels = [level for level in compare.LEVELS if level <= int(self.at_most.currentData())]
        questions: list[str] = list(compare.QUESTIONS)
        chats = ""
        if self.own.isChecked():  # as many as the run asks (fewer than OWN_QUESTIONS at low levels)
            own = compare.own_questions(self.controller.store, min(compare.OWN_QUESTIONS, max(levels) * ROUNDS))
            questions = own.questions
            if not questions:
                self.status.setText(translate("engines.compare", "Your chats hold no question yet: untick "
                                              "“My own” to measure with Hearth's."))
                return
            count = len(questions)
            told = translate("engines.compare", "{engines}: each is sent the last %n question(s) you wrote in "
                             "your chats ({chats}), and nothing else (no answer, no document). Measure?", None,
                             count)
            chats = ", ".join(own.chats)
        else:
            told = translate("engines.compare", "{engines}: each is sent Hearth's built-in questions only, "
                             "nothing of your chats or documents. Measure?")
        if remote and not dialogs.confirm(self, title, told.format(engines=engines, chats=chats),
                                          translate("engines.compare", "Measure")):
            return
        workload = "own" if self.own.isChecked() else "built-in"
        client = Routed(self.controller.runtime)
        progress = self.progress.said

        def work(cancel: Any) -> list[compare.Result]:
            return compare.measure(client, targets, levels, ANSWER_TOKENS, ROUNDS, stop=cancel, questions=questions,
                                   progress=lambda target, level: progress.emit(translate(
                                       "engines.compare", "Measuring {setup} with {count} chat(s) at once…").format(
                                           setup=target.label, count=level)))

        self.results = []
        self._workload = workload
        self._show()
        self.job = start_job("compare", work, self, self._measured, self._failed)
        self._buttons()

    @Slot()
    def stop(self) -> None:
        if self.job is not None:
            self.job.cancel.set()
            self.status.setText(translate("engines.compare", "Stopping…"))

    def _measured(self, results: list[compare.Result]) -> None:
        self.job = None
        self.results = results
        try:
            compare.keep(self.controller.library, results, self.target.value(), self._workload)
        except Exception as exc:  # a full disk: the figures are shown all the same
            self.status.setText(translate("engines.compare", "Measured, but not kept in the vault: {reason}").format(
                reason=exc))
        else:
            self.status.setText(translate("engines.compare", "Measured. The figures are kept in your vault."))
        selected = self.baseline.currentData()
        self.refresh()
        self.baseline.setCurrentIndex(max(0, self.baseline.findData(selected + 1 if selected >= 0 else -1)))
        self._show()
        self.finished_run.emit()

    def _failed(self, exc: Exception) -> None:
        self.job = None
        self.status.setText(translate("engines.compare", "Stopped: nothing was kept.") if isinstance(exc, Cancelled)
                            else translate("engines.compare", "The comparison stopped: {reason}").format(reason=exc))
        self._buttons()
        self.finished_run.emit()

    def reject(self) -> None:
        self.stop()
        super().reject()

    # What is shown ---------------------------------------------------------------------
    def baseline_results(self) -> list[compare.Result]:
        number = self.baseline.currentData()
        return self.runs[number][1] if isinstance(number, int) and 0 <= number < len(self.runs) else []

    @Slot()
    def _show(self) -> None:
        self.table.setRowCount(len(self.results))
        for row, r in enumerate(self.results):
            cells = (r.label, str(r.at_once), f"{r.total_tps:.1f}", f"{r.chat_tps:.1f}",
                     f"{seconds_text(f'{r.ttft_p50:.2f}')} / {seconds_text(f'{r.ttft_p95:.2f}')}", str(r.errors))
            for column, text in enumerate(cells):
                self.table.setItem(row, column, QTableWidgetItem(text))
        self.table.resizeColumnsToContents()
        self._fit_rows()
        self.first_word.threshold = self.target.value()
        earlier = self.baseline_results()
        for chart, value in ((self.throughput, lambda r: r.total_tps), (self.first_word, lambda r: r.ttft_p95)):
            chart.set_series([*self._series(self.results, value, False), *self._series(earlier, value, True)])
        lines = compare.verdict(self.results, self.target.value()) if self.results else []
        self.verdict.setText("\n".join(lines))
        self._buttons()

    def _fit_rows(self) -> None:
        """Room for the header and the rows of a run (up to VISIBLE_ROWS, then it scrolls)."""
        rows = max(1, min(self.table.rowCount(), VISIBLE_ROWS))
        row = self.table.verticalHeader().defaultSectionSize()
        scrollbar = self.table.horizontalScrollBar().sizeHint().height()
        self.table.setMinimumHeight(self.table.horizontalHeader().sizeHint().height() + rows * row
                                    + 2 * self.table.frameWidth() + scrollbar)

    @staticmethod
    def _series(results: list[compare.Result], value: Any, dashed: bool) -> list[Series]:
        labels = list(dict.fromkeys(r.label for r in results))
        suffix = translate("engines.compare", "(earlier)") if dashed else ""
        return [Series(join_sentences(label, suffix), tuple((r.at_once, value(r)) for r in results if r.label == label), dashed,
                       label) for label in labels]

    # Exports ---------------------------------------------------------------------------
    def chart_png(self) -> bytes:
        buffer = QBuffer()
        buffer.open(QIODevice.OpenModeFlag.WriteOnly)
        self.charts.grab().save(buffer, "PNG")
        return bytes(buffer.data().data())

    @Slot()
    def export_figures(self) -> None:
        self._export(translate("engines.compare", "Export figures"), "hearth-comparison.csv",
                     translate("engines.compare", "CSV") + " (*.csv)", lambda: compare.csv_text(self.results).encode())

    @Slot()
    def export_charts(self) -> None:
        self._export(translate("engines.compare", "Export charts"), "hearth-comparison.png",
                     translate("engines.compare", "PNG picture") + " (*.png)", self.chart_png)

    def _export(self, title: str, name: str, filters: str, data: Any) -> None:
        target = dialogs.save_path(self, title, Path.home() / name, filters)
        if target is None:
            return
        try:
            export.write(target, data())
        except OSError as exc:
            dialogs.warn(self, title, translate("engines.compare", "{file} could not be written: {reason}.").format(
                file=target.name, reason=why_not(exc, target.parent, writing=True)))
            return
        self.status.setText(translate("engines.compare", "Written to {file}.").format(file=target))
