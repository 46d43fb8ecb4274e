"""The Models dialog's settings box: a chat model's load and sampling settings as a form,
filled from a library entry and read back as ModelSettings."""

from __future__ import annotations

from PySide6.QtWidgets import QComboBox, QDoubleSpinBox, QFormLayout, QGroupBox, QSpinBox

from app.models.controller import gpu_offload
from app.shell.a11y import named
from core.protocol import ModelInfo, ModelSettings, chat_formats, physical_cores
from i18n import translate


class ModelSettingsForm(QGroupBox):
    """"Settings": context length, GPU layers, threads, batch, chat format and sampling."""

    def __init__(self) -> None:
        super().__init__(translate("models.dialog", "Settings"))
        self.n_ctx = QSpinBox(minimum=256, maximum=131072, singleStep=512)
        self.gpu_layers = QSpinBox(minimum=-1, maximum=999)
        self.gpu_layers.setSpecialValueText(translate("models.dialog", "all"))
        self.threads = QSpinBox(minimum=0, maximum=256)
        self.threads.setSpecialValueText(
            translate("models.dialog", "automatic ({cores}, one per physical core)")
            .format(cores=physical_cores()))
        self.batch = QSpinBox(minimum=16, maximum=4096, singleStep=64)
        self.chat_format = QComboBox()
        for choice in chat_formats.CHOICES:  # the formats' own names; "auto" said in words
            self.chat_format.addItem(translate("models.dialog", "automatic (the model's own template)")
                                     if choice == chat_formats.AUTO else choice, choice)
        self.temperature = QDoubleSpinBox(minimum=0.0, maximum=2.0, singleStep=0.05, decimals=2)
        self.top_p = QDoubleSpinBox(minimum=0.0, maximum=1.0, singleStep=0.05, decimals=2)
        self.top_k = QSpinBox(minimum=0, maximum=1000)
        self.min_p = QDoubleSpinBox(minimum=0.0, maximum=1.0, singleStep=0.01, decimals=2)
        self.repeat_penalty = QDoubleSpinBox(minimum=0.5, maximum=2.0, singleStep=0.05, decimals=2)
        self.seed = QSpinBox(minimum=-1, maximum=2**31 - 1)
        self.seed.setSpecialValueText(translate("models.dialog", "random"))
        self.max_tokens = QSpinBox(minimum=16, maximum=32768, singleStep=64)
        form = QFormLayout(self)
        for label, widget in (
                (translate("models.dialog", "Context length (tokens)"), self.n_ctx),
                (translate("models.dialog", "GPU layers"), self.gpu_layers),
                (translate("models.dialog", "Threads"), self.threads),
                (translate("models.dialog", "Batch size"), self.batch),
                (translate("models.dialog", "Chat format"), self.chat_format),
                (translate("models.dialog", "Temperature"), self.temperature),
                (translate("models.dialog", "Top-p"), self.top_p),
                (translate("models.dialog", "Top-k"), self.top_k),
                (translate("models.dialog", "Min-p"), self.min_p),
                (translate("models.dialog", "Repeat penalty"), self.repeat_penalty),
                (translate("models.dialog", "Seed"), self.seed),
                (translate("models.dialog", "Longest answer (tokens)"), self.max_tokens)):
            form.addRow(label, widget)
            named(widget, label)

    def show_settings(self, settings: ModelSettings, info: ModelInfo) -> None:
        """The form filled with a model's settings (its context at most what it was trained on)."""
        self.n_ctx.setMaximum(max(256, info.context_length or 131072))
        self.n_ctx.setValue(settings.n_ctx)
        self.gpu_layers.setValue(settings.n_gpu_layers)
        self.gpu_layers.setEnabled(gpu_offload())
        self.gpu_layers.setToolTip("" if gpu_offload() else translate(
            "models.dialog", "This llama.cpp build runs on the CPU only."))
        self.threads.setValue(settings.n_threads)
        self.batch.setValue(settings.n_batch)
        self.chat_format.setCurrentIndex(max(0, self.chat_format.findData(settings.chat_format)))
        self.temperature.setValue(settings.temperature)
        self.top_p.setValue(settings.top_p)
        self.top_k.setValue(settings.top_k)
        self.min_p.setValue(settings.min_p)
        self.repeat_penalty.setValue(settings.repeat_penalty)
        self.seed.setValue(-1 if settings.seed is None else settings.seed)
        self.max_tokens.setValue(settings.max_tokens)

    def settings(self) -> ModelSettings:
        """The settings as the form has them now."""
        return ModelSettings(
            n_ctx=self.n_ctx.value(), n_gpu_layers=self.gpu_layers.value(),
            n_threads=self.threads.value(), n_batch=self.batch.value(),
            chat_format=str(self.chat_format.currentData()), temperature=self.temperature.value(),
            top_p=self.top_p.value(), top_k=self.top_k.value(), min_p=self.min_p.value(),
            repeat_penalty=self.repeat_penalty.value(),
            seed=None if self.seed.value() < 0 else self.seed.value(),
            max_tokens=self.max_tokens.value())
