"""Per-chat settings: a system prompt and sampling values that override the model's."""

from __future__ import annotations

from typing import Any

from PySide6.QtWidgets import (
    QCheckBox,
    QDialog,
    QDialogButtonBox,
    QDoubleSpinBox,
    QFormLayout,
    QLabel,
    QPlainTextEdit,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from app.shell.a11y import name_buttons, named, tab_moves_on
from app.shell.sizing import keep_whole
from core.protocol import SamplingParams
from i18n import translate


class ChatSettingsDialog(QDialog):
    def __init__(self, settings: dict[str, Any], defaults: SamplingParams,
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        keep_whole(self)
        self.setWindowTitle(translate("chat.settings_dialog", "Chat settings"))
        sampling = {**defaults.__dict__, **(settings.get("sampling") or {})}
        self.system_prompt = tab_moves_on(QPlainTextEdit(settings.get("system_prompt", "")))
        self.system_prompt.setPlaceholderText(
            translate("chat.settings_dialog", "Empty: “You are a helpful assistant.”"))
        self.override = QCheckBox(
            translate("chat.settings_dialog", "Use these sampling values instead of the model's"))
        self.override.setChecked(bool(settings.get("sampling")))
        self.temperature = QDoubleSpinBox(minimum=0.0, maximum=2.0, singleStep=0.05, decimals=2,
                                          value=sampling["temperature"])
        self.top_p = QDoubleSpinBox(minimum=0.0, maximum=1.0, singleStep=0.05, decimals=2, value=sampling["top_p"])
        self.top_k = QSpinBox(minimum=0, maximum=1000, value=sampling["top_k"])
        self.min_p = QDoubleSpinBox(minimum=0.0, maximum=1.0, singleStep=0.01, decimals=2, value=sampling["min_p"])
        self.repeat_penalty = QDoubleSpinBox(minimum=0.5, maximum=2.0, singleStep=0.05, decimals=2,
                                             value=sampling["repeat_penalty"])
        self.seed = QSpinBox(minimum=-1, maximum=2**31 - 1,
                             value=-1 if sampling["seed"] is None else sampling["seed"])
        self.seed.setSpecialValueText(translate("chat.settings_dialog", "random"))
        self.passages = QSpinBox(minimum=1, maximum=20, value=int(settings.get("passages") or 5))
        self.passages.setToolTip(translate(
            "chat.settings_dialog",
            "How many passages from the documents each answer gets (top-k)"))
        system_prompt = translate("chat.settings_dialog", "System prompt")
        passages = translate("chat.settings_dialog", "Passages from documents")
        form = QFormLayout()
        form.addRow(QLabel(system_prompt))
        form.addRow(self.system_prompt)
        form.addRow(passages, self.passages)
        form.addRow(self.override)
        ticked = translate("chat.settings_dialog", "Used when the box above is ticked")
        self.sampling_fields: list[QWidget] = []
        for label, widget in ((translate("chat.settings_dialog", "Temperature"), self.temperature),
                              (translate("chat.settings_dialog", "Top-p"), self.top_p),
                              (translate("chat.settings_dialog", "Top-k"), self.top_k),
                              (translate("chat.settings_dialog", "Min-p"), self.min_p),
                              (translate("chat.settings_dialog", "Repeat penalty"),
                               self.repeat_penalty),
                              (translate("chat.settings_dialog", "Seed"), self.seed)):
            form.addRow(label, widget)
            named(widget, label, ticked)
            self.sampling_fields += [widget, form.labelForField(widget)]
        # Editable only while they are used: an edit to an unticked value would be ignored.
        self.override.toggled.connect(self._enable_sampling)
        self._enable_sampling(self.override.isChecked())
        named(self.system_prompt, system_prompt,
              translate("chat.settings_dialog", "What the model is told before the chat; empty: "
                                                "“You are a helpful assistant.”"))
        named(self.passages, passages, self.passages.toolTip())
        named(self.override, self.override.text())
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Save | QDialogButtonBox.StandardButton.Cancel)
        name_buttons(buttons, accept=translate("chat.settings_dialog", "Save chat settings"))
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addWidget(buttons)

    def _enable_sampling(self, on: bool) -> None:
        for widget in self.sampling_fields:
            widget.setEnabled(on)

    def values(self) -> dict[str, Any]:
        result: dict[str, Any] = {"system_prompt": self.system_prompt.toPlainText().strip(),
                                  "passages": self.passages.value()}
        if self.override.isChecked():
            result["sampling"] = {
                "temperature": self.temperature.value(), "top_p": self.top_p.value(),
                "top_k": self.top_k.value(), "min_p": self.min_p.value(),
                "repeat_penalty": self.repeat_penalty.value(),
                "seed": None if self.seed.value() < 0 else self.seed.value(),
            }
        return result
