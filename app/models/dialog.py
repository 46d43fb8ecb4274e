"""Models: the library with each model's facts, fit, settings and state; import and remove."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QLocale, Qt, Slot
from PySide6.QtGui import QDragEnterEvent, QDropEvent
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

from app.models.controller import ModelsController
from app.models.quantize_dialog import QuantizeDialog
from app.models.settings_form import ModelSettingsForm
from app.models.speech_dialog import SpeechModelsDialog
from app.shell import dialogs
from app.shell.a11y import announce, named
from app.shell.sizing import keep_whole, panes_over_close
from app.shell.text import escape, plain
from core import quantize
from core.protocol import MIB, ModelInfo, ModelSettings
from core.records import BUNDLED, COPY, REFERENCE, LibraryEntry
from i18n import join_sentences, translate


def stored_texts() -> dict[str, str]:
    """How a library entry's file is kept, as the facts say it."""
    return {COPY: translate("models.dialog", "copied into Hearth's library"),
            REFERENCE: translate("models.dialog", "used where it is"),
            BUNDLED: translate("models.dialog", "bundled with Hearth")}


def copy_label() -> str:
    return translate("models.dialog", "Copy into library")


def reference_label() -> str:
    return translate("models.dialog", "Use where it is")


def _whole(value: float) -> str:
    """A whole number as the interface's locale writes it, its digits grouped ("8,192"),
    rounded as Python's format rounds."""
    locale = QLocale()
    locale.setNumberOptions(locale.numberOptions() & ~QLocale.NumberOption.OmitGroupSeparator)
    return locale.toString(round(value))


def gguf_paths(event: QDragEnterEvent | QDropEvent) -> list[Path]:
    urls = event.mimeData().urls() if event.mimeData().hasUrls() else []
    return [Path(u.toLocalFile()) for u in urls if u.isLocalFile() and u.toLocalFile().lower().endswith(".gguf")]


def ask_import(parent: QWidget, models: ModelsController, paths: list[Path]) -> int:
    """Ask copy or reference, then start importing; returns how many were started."""
    if not paths:
        return 0
    names = ", ".join(p.name for p in paths[:3]) + ("…" if len(paths) > 3 else "")
    modes = {copy_label(): COPY, reference_label(): REFERENCE}  # each button's mode
    answer = dialogs.choice(
        parent, translate("models.dialog", "Import models"),
        translate("models.dialog", "Import {names}?\n\nCopy: Hearth keeps its own copy (uses disk "
                  "space; the original can move). Use where it is: nothing is copied, but the file "
                  "must stay where it is.").format(names=names),
        list(modes))
    mode = modes.get(answer) if answer is not None else None
    if mode is None:
        return 0
    return sum(models.import_file(path, mode) for path in paths)


def status_text(models: ModelsController, entry: LibraryEntry) -> str:
    if entry.sha256 in models.pending:
        return translate("models.dialog", "checking…")
    if entry.usable:
        return translate("models.dialog", "ready")
    if not entry.probe:  # its check did not run yet (Hearth was locked, say): not a verdict
        return translate("models.dialog", "not checked yet")
    reason = entry.probe.get("reason") or translate("models.dialog", "the check found a problem")
    return translate("models.dialog", "unusable: {reason}").format(reason=reason)


def role_text(role: str) -> str:
    """A model's role as the dialog says it (the file says "chat" or "embedding")."""
    return {"chat": translate("models.dialog", "chat"),
            "embedding": translate("models.dialog", "embedding (for documents)")}.get(role, role)


def seeing_lines(entry: LibraryEntry) -> list[str]:
    """Whether the model sees pictures: its projector file, or why the one beside it was
    not kept (escaped: file names and reasons are a stranger's text)."""
    kept, problem = entry.info.get("projector"), entry.info.get("projector_problem")
    if isinstance(kept, str) and kept:
        if not Path(kept).is_file():
            return [translate("models.dialog", "Sees pictures: no, its picture reader is missing ({name})").format(
                name=escape(Path(kept).name))]
        return [translate("models.dialog", "Sees pictures: yes (picture reader {name})").format(
            name=escape(Path(kept).name))]
    if isinstance(problem, str) and problem:
        return [translate("models.dialog", "Sees pictures: no ({problem})").format(problem=escape(problem))]
    return []


def starter_hint() -> str:
    return translate("models.dialog", "The starter model that comes with Hearth is very small: "
                     "it answers short questions about your documents, best in English. A larger "
                     "model (1 to 8 billion parameters, a .gguf file, for example a Qwen or Llama "
                     "instruct model) gives much better answers, in Chinese too: choose Import… or "
                     "drop the file here. Nothing is downloaded by Hearth; copy the file from "
                     "wherever you got it.")


class ModelsDialog(QDialog):
    def __init__(self, models: ModelsController, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        keep_whole(self)
        self.models = models
        self.setWindowTitle(translate("models.dialog", "Models"))
        self.resize(900, 620)
        self.setAcceptDrops(True)
        self.model_list = QListWidget()
        self.import_button = QPushButton(translate("models.dialog", "Import…"))
        self.find_button = QPushButton(translate("models.dialog", "Find models on this computer…"))
        self.remove_button = QPushButton(translate("models.dialog", "Remove"))
        self.use_button = QPushButton(translate("models.dialog", "Use this model"))
        self.documents_button = QPushButton(translate("models.dialog", "Use for documents"))
        self.documents_button.setToolTip(
            translate("models.dialog", "Index documents with this embedding model"))
        self.save_button = QPushButton(translate("models.dialog", "Save settings"))
        self.projector_button = QPushButton(translate("models.dialog", "Picture reader…"))
        self.smaller_button = QPushButton(translate("models.dialog", "Make a smaller copy…"))
        self.speech_button = QPushButton(translate("models.dialog", "Speech models…"))
        self.speech_dialog: SpeechModelsDialog | None = None
        self.smaller_button.setToolTip(translate("models.dialog", "Quantize this model to Q8_0, Q6_K, Q5_K_M or "
                                                 "Q4_K_M, and see what it costs before you keep it"))
        named(self.projector_button, translate("models.dialog", "Choose the picture reader"),
              translate("models.dialog", "Choose this model's projector file (mmproj), so that it sees pictures"))
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
        self.message.hide()  # a coloured bar: shown only while it has something to say

        self.settings_box = ModelSettingsForm()  # settings of the selected chat model
        self._name_controls()
        self.settings_box.n_ctx.valueChanged.connect(self._update_fit)

        left = QVBoxLayout()
        left.addWidget(self.model_list, 1)
        row = QHBoxLayout()
        row.addWidget(self.import_button)
        row.addWidget(self.remove_button)
        left.addLayout(row)
        left.addWidget(self.find_button)
        left.addWidget(self.speech_button)
        left.addWidget(QLabel(translate("models.dialog", "Drop .gguf files here to import them.")))
        # Said plainly, whatever is bundled: measured in benchmarks/starter_bench.py.
        self.larger_hint = QLabel(starter_hint())
        self.larger_hint.setWordWrap(True)
        self.larger_hint.setObjectName("hint")
        named(self.larger_hint, translate("models.dialog", "About the starter model"))
        left.addWidget(self.larger_hint)
        right = QVBoxLayout()
        right.addWidget(self.facts)
        right.addWidget(self.fit_label)
        right.addWidget(self.settings_box)
        actions = QHBoxLayout()
        actions.addWidget(self.use_button)
        actions.addWidget(self.documents_button)
        actions.addWidget(self.save_button)
        actions.addWidget(self.projector_button)
        actions.addWidget(self.smaller_button)
        right.addLayout(actions)
        right.addWidget(self.message)
        right.addStretch(1)
        panes_over_close(self, left, right, (2, 3))

        self.model_list.currentItemChanged.connect(self._show_selected)
        self.import_button.clicked.connect(self._import)
        self.find_button.clicked.connect(self._find)
        self.remove_button.clicked.connect(self._remove)
        self.use_button.clicked.connect(self._use)
        self.documents_button.clicked.connect(self._use_for_documents)
        self.save_button.clicked.connect(self._save)
        self.projector_button.clicked.connect(self._choose_projector)
        self.smaller_button.clicked.connect(self._make_smaller)
        self.speech_button.clicked.connect(self._speech_models)
        self.quantize_dialog: QuantizeDialog | None = None
        models.library_changed.connect(self.refresh)
        models.import_failed.connect(self._say)
        models.refused.connect(self._say)
        self.refresh()

    def _name_controls(self) -> None:
        named(self.model_list, translate("models.dialog", "Models"),
              translate("models.dialog", "The model library; the one in use is marked ▶"))
        named(self.import_button, translate("models.dialog", "Import models"),
              translate("models.dialog", "Add .gguf model files to the library"))
        named(self.find_button, translate("models.dialog", "Find models on this computer"),
              translate("models.dialog", "Look, after asking, where LM Studio, Jan, GPT4All and Ollama "
                        "keep models, and add them without copying"))
        named(self.remove_button, translate("models.dialog", "Remove model"),
              translate("models.dialog", "Remove the selected model from the library"))
        named(self.use_button, translate("models.dialog", "Use this model"),
              translate("models.dialog", "Answer with the selected model"))
        named(self.documents_button, translate("models.dialog", "Use for documents"),
              self.documents_button.toolTip())
        named(self.save_button, translate("models.dialog", "Save settings"),
              translate("models.dialog", "Save the selected model's settings"))
        named(self.speech_button, translate("models.dialog", "Speech models"),
              translate("models.dialog", "The Whisper models that recognise dictation and recordings"))
        self.facts.setAccessibleDescription(translate("models.dialog", "The selected model"))
        self.fit_label.setAccessibleDescription(
            translate("models.dialog", "Memory the model needs"))
        self.message.setAccessibleDescription(translate("models.dialog", "Notice"))

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
            item = QListWidgetItem(marker + translate("models.dialog", "{name} — {status}").format(
                name=entry.name, status=status_text(self.models, entry)))
            item.setData(Qt.ItemDataRole.UserRole, entry.id)
            self.model_list.addItem(item)
            if keep and entry.id == keep.id:
                self.model_list.setCurrentItem(item)
        if self.model_list.currentItem() is None and self.model_list.count():
            # Opened: on the chat model in use (or the first chat model), not the embedding one.
            entries = self.models.entries()
            first = next((e for e in entries if current and e.id == current.id), None) or next(
                (e for e in entries if e.info.get("role") != "embedding"), None)
            row = entries.index(first) if first is not None else 0
            self.model_list.setCurrentRow(row)
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
        self.settings_box.setVisible(not embedding)  # chat settings mean nothing to an embedder
        self.save_button.setVisible(not embedding)  # nor a button that saves none
        self.projector_button.setVisible(entry is not None and not embedding)
        self.smaller_button.setVisible(entry is not None and not embedding and str(
            entry.info.get("quantization", "")).upper() in quantize.SOURCES)
        self.fit_label.setVisible(not embedding)
        if entry is None:
            self.facts.setText(translate("models.dialog", "No model selected."))
            self.fit_label.clear()
            return
        info = ModelInfo.from_dict(entry.info)
        # Name, architecture, quantization, license and role come from the file's
        # metadata (a stranger's text): escaped, so they are shown, never interpreted.
        # The translated texts around them hold no markup of their own; every value is escaped.
        e = escape
        template = (translate("models.dialog", "included") if info.has_chat_template
                    else translate("models.dialog", "none (a built-in format is used)"))
        self.facts.setText("<br>".join((
            f"<b>{e(entry.name)}</b>",
            translate("models.dialog", "Architecture: {architecture} · {parameters} parameters · "
                      "{quantization}").format(architecture=e(info.architecture),
                                               parameters=e(info.parameters_label),
                                               quantization=e(info.quantization)),
            translate("models.dialog", "File: {size} MB, {stored}").format(
                size=_whole(info.file_size / MIB),
                stored=e(stored_texts().get(entry.stored, entry.stored))),
            translate("models.dialog", "Trained context: {tokens} tokens · chat template: "
                      "{template}").format(tokens=_whole(info.context_length), template=e(template))
            if not embedding else translate("models.dialog", "Trained context: {tokens} tokens").format(
                tokens=_whole(info.context_length)),
            translate("models.dialog", "License: {license} · role: {role}").format(
                license=e(info.license), role=e(role_text(info.role))),
            translate("models.dialog", "SHA-256: {sha256}").format(
                sha256=f"<tt>{e(entry.sha256)}</tt>"),
            *seeing_lines(entry),
            translate("models.dialog", "Status: {status}").format(
                status=e(status_text(self.models, entry))),
            *([translate("models.dialog", "<b>This looks like a base model</b> (no chat template, "
                         "and its name says nothing of chat or instructions): it continues text "
                         "rather than answering questions. Look for an instruct or chat version "
                         "of it.")] if info.looks_like_base_model else []))))
        self.settings_box.show_settings(ModelSettings.from_dict(entry.settings), info)
        self._update_fit()

    def settings_from_form(self) -> ModelSettings:
        return self.settings_box.settings()

    @Slot()
    def _update_fit(self, *_args: object) -> None:
        entry = self.selected()
        if entry is None:
            return
        report = self.models.fit_report(entry, self.settings_from_form())
        text = translate("models.dialog", "Memory: {memory}.").format(
            memory=escape(report.describe()))
        if report.suggested_gpu_layers:
            layers = (translate("models.dialog", "all") if report.suggested_gpu_layers < 0
                      else str(report.suggested_gpu_layers))
            text = join_sentences(text, translate("models.dialog", "Suggested GPU layers: {layers}.").format(
                layers=escape(layers)))
        measured = entry.probe.get("memory")
        if measured:
            at = entry.probe.get("n_ctx", 0)
            from core.protocol import estimate

            guess = estimate(ModelInfo.from_dict(entry.info), at).total
            text += "<br>" + translate(
                "models.dialog", "When it was checked, with a context of {context} tokens, it took "
                "{measured} MB (Hearth had estimated {estimate} MB).").format(
                    context=at, measured=_whole(measured / MIB), estimate=_whole(guess / MIB))
        current = self.models.current()
        if current is not None and entry.id == current.id and self.models.chat.model.memory:
            text += "<br>" + translate(
                "models.dialog", "Loaded now: {memory} MB more resident memory.").format(
                    memory=_whole(self.models.chat.model.memory / MIB))
        self.fit_label.setText(text)

    @Slot(str)
    def _say(self, text: str) -> None:
        self.message.setText(text)
        self.message.setVisible(bool(text))
        announce(self.message, text)

    # Actions ----------------------------------------------------------------------
    @Slot()
    def _import(self) -> None:
        paths = dialogs.open_paths(self, translate("models.dialog", "Import models"), Path.home(),
                                   translate("models.dialog", "GGUF models") + " (*.gguf)")
        ask_import(self, self.models, paths)

    @Slot()
    def _find(self) -> None:
        from app.models.found_dialog import find_on_this_computer

        chosen = find_on_this_computer(self, {e.path for e in self.models.entries()})
        for found in chosen or []:
            self.models.import_file(found.path, REFERENCE)  # used where it is; its name from its file

    @Slot()
    def _remove(self) -> None:
        entry = self.selected()
        if entry is None:
            return
        question = (translate("models.dialog", "Remove “{name}” from the library? Hearth's copy of "
                              "the file is deleted.") if entry.stored == COPY
                    else translate("models.dialog", "Remove “{name}” from the library? The file "
                                   "itself stays where it is.")).format(name=entry.name)
        if not dialogs.confirm(self, translate("models.dialog", "Remove model"), question,
                               dialogs.destructive(translate("models.dialog", "Remove"))):
            return
        self._say(self.models.remove(entry.id)
                  or translate("models.dialog", "Removed “{name}”.").format(name=entry.name))

    @Slot()
    def _use(self) -> None:
        entry = self.selected()
        if entry is not None:
            self._say(self.models.switch(entry.id)
                      or translate("models.dialog", "Loading “{name}”…").format(name=entry.name))

    @Slot()
    def _use_for_documents(self) -> None:
        entry = self.selected()
        if entry is not None:
            self._say(self.models.use_for_documents(entry.id)
                      or translate("models.dialog", "Documents are indexed with “{name}” from now "
                                   "on; collections built by another model are indexed again.")
                      .format(name=entry.name))

    def reject(self) -> None:
        """Closed (by the user, a lock or a language switch): a copy being made is
        cancelled and one not kept yet deleted, with the smaller-copy dialog."""
        if self.quantize_dialog is not None:
            self.quantize_dialog.reject()
        if self.speech_dialog is not None:
            self.speech_dialog.reject()  # an import under way is cancelled, and leaves nothing
        super().reject()

    @Slot()
    def _speech_models(self) -> None:
        if self.speech_dialog is None:
            self.speech_dialog = SpeechModelsDialog(self)
            self.speech_dialog.setWindowModality(Qt.WindowModality.WindowModal)
        self.speech_dialog.refresh()
        self.speech_dialog.show()

    @Slot()
    def _make_smaller(self) -> None:
        entry = self.selected()
        if entry is None or (self.quantize_dialog is not None and self.quantize_dialog.isVisible()):
            return
        self.quantize_dialog = QuantizeDialog(self.models, entry, self)
        self.quantize_dialog.kept.connect(lambda kept: kept is not None and self._say(translate(
            "models.dialog", "“{name}” is in your library now.").format(name=kept.name)))
        self.quantize_dialog.setWindowModality(Qt.WindowModality.WindowModal)
        self.quantize_dialog.show()

    @Slot()
    def _choose_projector(self) -> None:
        """Where the projector was not found beside the model: the user chooses it."""
        entry = self.selected()
        if entry is None:
            return
        path = dialogs.open_path(self, translate("models.dialog", "The picture reader (mmproj) of “{name}”").format(
            name=entry.name), Path(entry.path).parent, translate("models.dialog", "GGUF files") + " (*.gguf)")
        if path is not None:
            self._say(self.models.set_projector(entry.id, path)
                      or translate("models.dialog", "“{name}” sees pictures from now on (the next time it is "
                                   "loaded).").format(name=entry.name))

    @Slot()
    def _save(self) -> None:
        entry = self.selected()
        if entry is not None:
            self.models.save_settings(entry.id, self.settings_from_form())
            self._say(translate("models.dialog", "Settings saved."))

    def dragEnterEvent(self, event: QDragEnterEvent) -> None:
        if gguf_paths(event):
            event.acceptProposedAction()

    def dropEvent(self, event: QDropEvent) -> None:
        ask_import(self, self.models, gguf_paths(event))
        event.acceptProposedAction()
