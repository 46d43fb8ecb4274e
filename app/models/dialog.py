"""Models: the library with each model's facts, fit, settings and state; import and remove."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt, Slot
from PySide6.QtGui import QDragEnterEvent, QDropEvent
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDoubleSpinBox,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from app.models.controller import ModelsController, gpu_offload
from app.shell import dialogs
from app.shell.a11y import announce, named
from app.shell.text import escape, plain
from inference import chat_formats
from inference.fit import MIB
from inference.hardware import physical_cores
from inference.modelinfo import ModelInfo
from inference.settings import ModelSettings
from storage.library import BUNDLED, COPY, REFERENCE, LibraryEntry

STORED = {COPY: "copied into Hearth's library", REFERENCE: "used where it is",
          BUNDLED: "bundled with Hearth"}
COPY_LABEL, REFERENCE_LABEL = "Copy into library", "Use where it is"


def gguf_paths(event: QDragEnterEvent | QDropEvent) -> list[Path]:
    urls = event.mimeData().urls() if event.mimeData().hasUrls() else []
    return [Path(u.toLocalFile()) for u in urls if u.isLocalFile() and u.toLocalFile().lower().endswith(".gguf")]


def ask_import(parent: QWidget, models: ModelsController, paths: list[Path]) -> int:
    """Ask copy or reference, then start importing; returns how many were started."""
    if not paths:
        return 0
    names = ", ".join(p.name for p in paths[:3]) + ("…" if len(paths) > 3 else "")
    answer = dialogs.choice(
        parent, "Import models",
        f"Import {names}?\n\nCopy: Hearth keeps its own copy (uses disk space; the original can "
        "move). Use where it is: nothing is copied, but the file must stay where it is.",
        [COPY_LABEL, REFERENCE_LABEL])
    if answer is None:
        return 0
    mode = COPY if answer == COPY_LABEL else REFERENCE
    return sum(models.import_file(path, mode) for path in paths)


def status_text(models: ModelsController, entry: LibraryEntry) -> str:
    if entry.sha256 in models.pending:
        return "checking…"
    if entry.usable:
        return "ready"
    return f"unusable: {entry.probe.get('reason') or 'not checked yet'}"


STARTER_HINT = ("The starter model that comes with Hearth is very small: it answers short questions "
                "about your documents, best in English. A larger model (1 to 8 billion parameters, "
                "a .gguf file, for example a Qwen or Llama instruct model) gives much better answers, "
                "in Chinese too: choose Import… or drop the file here. Nothing is downloaded by Hearth; "
                "copy the file from wherever you got it.")


class ModelsDialog(QDialog):
    def __init__(self, models: ModelsController, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.models = models
        self.setWindowTitle("Models")
        self.resize(900, 620)
        self.setAcceptDrops(True)
        self.model_list = QListWidget()
        self.import_button = QPushButton("Import…")
        self.remove_button = QPushButton("Remove")
        self.use_button = QPushButton("Use this model")
        self.documents_button = QPushButton("Use for documents")
        self.documents_button.setToolTip("Index documents with this embedding model")
        self.save_button = QPushButton("Save settings")
        self.facts = QLabel()
        self.facts.setTextFormat(Qt.TextFormat.RichText)  # built of escaped parts (_show_selected)
        self.facts.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.facts.setWordWrap(True)
        self.fit_label = QLabel()
        self.fit_label.setTextFormat(Qt.TextFormat.RichText)  # figures only, and escaped text
        self.fit_label.setWordWrap(True)
        self.message = plain(QLabel())  # quotes model names and file names
        self.message.setWordWrap(True)
        self.message.setObjectName("notice")

        self.n_ctx = QSpinBox(minimum=256, maximum=131072, singleStep=512)
        self.gpu_layers = QSpinBox(minimum=-1, maximum=999)
        self.gpu_layers.setSpecialValueText("all")
        self.threads = QSpinBox(minimum=0, maximum=256)
        self.threads.setSpecialValueText(f"automatic ({physical_cores()}, one per physical core)")
        self.batch = QSpinBox(minimum=16, maximum=4096, singleStep=64)
        self.chat_format = QComboBox()
        self.chat_format.addItems(chat_formats.CHOICES)
        self.temperature = QDoubleSpinBox(minimum=0.0, maximum=2.0, singleStep=0.05, decimals=2)
        self.top_p = QDoubleSpinBox(minimum=0.0, maximum=1.0, singleStep=0.05, decimals=2)
        self.top_k = QSpinBox(minimum=0, maximum=1000)
        self.min_p = QDoubleSpinBox(minimum=0.0, maximum=1.0, singleStep=0.01, decimals=2)
        self.repeat_penalty = QDoubleSpinBox(minimum=0.5, maximum=2.0, singleStep=0.05, decimals=2)
        self.seed = QSpinBox(minimum=-1, maximum=2**31 - 1)
        self.seed.setSpecialValueText("random")
        self.max_tokens = QSpinBox(minimum=16, maximum=32768, singleStep=64)
        settings_box = QGroupBox("Settings")
        form = QFormLayout(settings_box)
        for label, widget in (("Context length (tokens)", self.n_ctx), ("GPU layers", self.gpu_layers),
                              ("Threads", self.threads), ("Batch size", self.batch),
                              ("Chat format", self.chat_format), ("Temperature", self.temperature),
                              ("Top-p", self.top_p), ("Top-k", self.top_k), ("Min-p", self.min_p),
                              ("Repeat penalty", self.repeat_penalty), ("Seed", self.seed),
                              ("Longest answer (tokens)", self.max_tokens)):
            form.addRow(label, widget)
            named(widget, label)
        self._name_controls()
        self.n_ctx.valueChanged.connect(self._update_fit)

        left = QVBoxLayout()
        left.addWidget(self.model_list, 1)
        row = QHBoxLayout()
        row.addWidget(self.import_button)
        row.addWidget(self.remove_button)
        left.addLayout(row)
        left.addWidget(QLabel("Drop .gguf files here to import them."))
        # Said plainly, whatever is bundled: measured in benchmarks/starter_bench.py.
        self.larger_hint = QLabel(STARTER_HINT)
        self.larger_hint.setWordWrap(True)
        self.larger_hint.setObjectName("hint")
        named(self.larger_hint, "About the starter model")
        left.addWidget(self.larger_hint)
        right = QVBoxLayout()
        right.addWidget(self.facts)
        right.addWidget(self.fit_label)
        right.addWidget(settings_box)
        actions = QHBoxLayout()
        actions.addWidget(self.use_button)
        actions.addWidget(self.documents_button)
        actions.addWidget(self.save_button)
        right.addLayout(actions)
        right.addWidget(self.message)
        right.addStretch(1)
        layout = QHBoxLayout(self)
        layout.addLayout(left, 2)
        layout.addLayout(right, 3)

        self.model_list.currentItemChanged.connect(self._show_selected)
        self.import_button.clicked.connect(self._import)
        self.remove_button.clicked.connect(self._remove)
        self.use_button.clicked.connect(self._use)
        self.documents_button.clicked.connect(self._use_for_documents)
        self.save_button.clicked.connect(self._save)
        models.library_changed.connect(self.refresh)
        models.import_failed.connect(self._say)
        models.refused.connect(self._say)
        self.refresh()

    def _name_controls(self) -> None:
        named(self.model_list, "Models", "The model library; the one in use is marked ▶")
        named(self.import_button, "Import models", "Add .gguf model files to the library")
        named(self.remove_button, "Remove model", "Remove the selected model from the library")
        named(self.use_button, "Use this model", "Answer with the selected model")
        named(self.documents_button, "Use for documents", self.documents_button.toolTip())
        named(self.save_button, "Save settings", "Save the selected model's settings")
        self.facts.setAccessibleDescription("The selected model")
        self.fit_label.setAccessibleDescription("Memory the model needs")
        self.message.setAccessibleDescription("Notice")

    # Showing ----------------------------------------------------------------------
    def selected(self) -> LibraryEntry | None:
        item = self.model_list.currentItem()
        if item is None:
            return None
        wanted = item.data(Qt.ItemDataRole.UserRole)
        return next((e for e in self.models.entries() if e.id == wanted), None)

    @Slot()
    def refresh(self) -> None:
        keep = self.selected()
        current = self.models.current()
        self.model_list.blockSignals(True)
        self.model_list.clear()
        for entry in self.models.entries():
            marker = "▶ " if current and entry.id == current.id else ""
            item = QListWidgetItem(f"{marker}{entry.name} — {status_text(self.models, entry)}")
            item.setData(Qt.ItemDataRole.UserRole, entry.id)
            self.model_list.addItem(item)
            if keep and entry.id == keep.id:
                self.model_list.setCurrentItem(item)
        if self.model_list.currentItem() is None and self.model_list.count():
            self.model_list.setCurrentRow(0)
        self.model_list.blockSignals(False)
        self._show_selected()

    @Slot()
    def _show_selected(self, *_args: object) -> None:
        entry = self.selected()
        for widget in (self.use_button, self.save_button, self.remove_button):
            widget.setEnabled(entry is not None)
        embedding = entry is not None and entry.info.get("role") == "embedding"
        self.use_button.setVisible(not embedding)
        self.documents_button.setVisible(embedding)
        if entry is None:
            self.facts.setText("No model selected.")
            self.fit_label.clear()
            return
        info = ModelInfo.from_dict(entry.info)
        # Name, architecture, quantization, license and role come from the file's
        # metadata (a stranger's text): escaped, so they are shown, never interpreted.
        e = escape
        self.facts.setText(
            f"<b>{e(entry.name)}</b><br>Architecture: {e(info.architecture)} · "
            f"{e(info.parameters_label)} parameters · {e(info.quantization)}<br>"
            f"File: {info.file_size / MIB:,.0f} MB, {e(STORED.get(entry.stored, entry.stored))}<br>"
            f"Trained context: {info.context_length:,} tokens · chat template: "
            f"{'included' if info.has_chat_template else 'none (a built-in format is used)'}<br>"
            f"License: {e(info.license)} · role: {e(info.role)}<br>"
            f"SHA-256: <tt>{e(entry.sha256)}</tt><br>Status: {e(status_text(self.models, entry))}")
        settings = ModelSettings.from_dict(entry.settings)
        self.n_ctx.setMaximum(max(256, info.context_length or 131072))
        self.n_ctx.setValue(settings.n_ctx)
        self.gpu_layers.setValue(settings.n_gpu_layers)
        self.gpu_layers.setEnabled(gpu_offload())
        self.gpu_layers.setToolTip("" if gpu_offload() else "This llama.cpp build runs on the CPU only.")
        self.threads.setValue(settings.n_threads)
        self.batch.setValue(settings.n_batch)
        self.chat_format.setCurrentText(settings.chat_format)
        self.temperature.setValue(settings.temperature)
        self.top_p.setValue(settings.top_p)
        self.top_k.setValue(settings.top_k)
        self.min_p.setValue(settings.min_p)
        self.repeat_penalty.setValue(settings.repeat_penalty)
        self.seed.setValue(-1 if settings.seed is None else settings.seed)
        self.max_tokens.setValue(settings.max_tokens)
        self._update_fit()

    def settings_from_form(self) -> ModelSettings:
        return ModelSettings(
            n_ctx=self.n_ctx.value(), n_gpu_layers=self.gpu_layers.value(),
            n_threads=self.threads.value(), n_batch=self.batch.value(),
            chat_format=self.chat_format.currentText(), temperature=self.temperature.value(),
            top_p=self.top_p.value(), top_k=self.top_k.value(), min_p=self.min_p.value(),
            repeat_penalty=self.repeat_penalty.value(),
            seed=None if self.seed.value() < 0 else self.seed.value(),
            max_tokens=self.max_tokens.value())

    @Slot()
    def _update_fit(self, *_args: object) -> None:
        entry = self.selected()
        if entry is None:
            return
        report = self.models.fit_report(entry, self.settings_from_form())
        text = f"Memory: {escape(report.describe())}."
        if report.suggested_gpu_layers:
            layers = "all" if report.suggested_gpu_layers < 0 else str(report.suggested_gpu_layers)
            text += f" Suggested GPU layers: {layers}."
        measured = entry.probe.get("memory")
        if measured:
            at = entry.probe.get("n_ctx", 0)
            from inference.fit import estimate

            guess = estimate(ModelInfo.from_dict(entry.info), at).total
            text += (f"<br>Measured when checked (context {at}): {measured / MIB:,.0f} MB; "
                     f"the estimate for that context: {guess / MIB:,.0f} MB.")
        current = self.models.current()
        if current is not None and entry.id == current.id and self.models.chat.model_memory:
            text += f"<br>Loaded now: {self.models.chat.model_memory / MIB:,.0f} MB more resident memory."
        self.fit_label.setText(text)

    @Slot(str)
    def _say(self, text: str) -> None:
        self.message.setText(text)
        announce(self.message, text)

    # Actions ----------------------------------------------------------------------
    @Slot()
    def _import(self) -> None:
        paths = dialogs.open_paths(self, "Import models", Path.home(), "GGUF models (*.gguf)")
        ask_import(self, self.models, paths)

    @Slot()
    def _remove(self) -> None:
        entry = self.selected()
        if entry is None:
            return
        if not dialogs.confirm(self, "Remove model", f"Remove “{entry.name}” from the library?"
                               + (" Hearth's copy of the file is deleted." if entry.stored == COPY
                                  else " The file itself stays where it is."), "Remove"):
            return
        self._say(self.models.remove(entry.id) or f"Removed “{entry.name}”.")

    @Slot()
    def _use(self) -> None:
        entry = self.selected()
        if entry is not None:
            self._say(self.models.switch(entry.id) or f"Loading “{entry.name}”…")

    @Slot()
    def _use_for_documents(self) -> None:
        entry = self.selected()
        if entry is not None:
            self._say(self.models.use_for_documents(entry.id)
                      or f"Documents are indexed with “{entry.name}” from now on; collections "
                         "built by another model are indexed again.")

    @Slot()
    def _save(self) -> None:
        entry = self.selected()
        if entry is not None:
            self.models.save_settings(entry.id, self.settings_from_form())
            self._say("Settings saved.")

    def dragEnterEvent(self, event: QDragEnterEvent) -> None:
        if gguf_paths(event):
            event.acceptProposedAction()

    def dropEvent(self, event: QDropEvent) -> None:
        ask_import(self, self.models, gguf_paths(event))
        event.acceptProposedAction()
