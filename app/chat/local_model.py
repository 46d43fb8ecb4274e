"""The local model's state for the window: which model is loading or loaded (its name, file
and memory), whether it can answer and, when it cannot, why. The worker's model events
(loading, loaded, failed, the worker died) become the chat controller's ``model_state`` and
notices. Owned by the controller (``controller.model``)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from core.answers import BASE_MODEL, weakness_text
from core.protocol import (
    Event,
    LoadModel,
    ModelFailed,
    ModelLoaded,
    ModelLoading,
    ModelSpec,
    WorkerDied,
    weak_languages,
)
from core.turns import TurnMachine
from i18n import translate


class LocalModel:
    """The model the worker loads: asked to load, and told what became of it."""

    def __init__(self, worker: Any, turns: TurnMachine, state: Any, notice: Any) -> None:
        """``state`` and ``notice``: the controller's ``model_state`` and ``notice`` signals."""
        self._worker = worker
        self._turns = turns
        self._state = state
        self._notice = notice
        self.ready = False
        self.problem = translate("chat.controller", "No model is loaded yet.")  # why it cannot answer
        self.name = ""
        self._loaded: ModelLoaded | None = None  # the last load's facts, for the status line
        self.path: Path | None = None
        self.spec: ModelSpec | None = None  # what the last load asked for
        self.memory = 0
        self._loading_name = ""  # the name of the model being loaded, as the library knows it

    def load(self, spec: ModelSpec) -> None:
        """Unload the current model and load ``spec``; the conversation stays as it is."""
        self.ready = False
        self.problem = translate("chat.controller",
                                 "The model is still loading. Try again in a moment.")
        self.path = spec.path
        self.spec = spec
        self._loading_name = spec.display_name  # a copied model's file is named by its hash
        self._worker.submit(LoadModel(spec))

    def unavailable(self, reason: str) -> None:
        """No model can be offered at all (none installed): say so, keep the app usable."""
        self.ready = False
        self.problem = reason
        self._state.emit("failed", reason)

    def ready_text(self) -> str:
        """The status bar's line for the loaded model, in the interface's language now."""
        event = self._loaded
        if event is None:
            return ""
        n_ctx = event.n_ctx  # a plain name: pyside6-lupdate reads no expression
        return translate("chat.controller", "{name} · {backend} · context %n tokens", None, n_ctx).format(
            name=event.name, backend=event.backend)

    def on_event(self, event: Event) -> bool:
        """Take the worker's event if it is about the model; False if it is not."""
        if isinstance(event, ModelLoading):
            known = self._loading_name if event.path == self.path else ""
            self._state.emit("loading", translate("chat.controller", "Loading {file_name}…")
                             .format(file_name=known or event.path.name))
        elif isinstance(event, ModelLoaded):
            self.ready = True
            self.name = self._turns.model_name = event.name
            self._turns.weak_languages = weak_languages(event.path)
            self._turns.base_model = event.base_model
            if event.base_model:
                self._notice.emit(weakness_text(BASE_MODEL))
            self.memory = event.memory_bytes
            self._loaded = event
            self._state.emit("ready", self.ready_text())
        elif isinstance(event, ModelFailed):
            self.ready = False
            self.problem = event.reason
            self._state.emit("failed", event.reason)
        elif isinstance(event, WorkerDied):
            self._worker_died(event)
        else:
            return False
        return True

    def _worker_died(self, event: WorkerDied) -> None:
        self._turns.on_event(event)
        self.ready = False
        if event.restarting:
            self.problem = translate(
                "chat.controller", "The model is being loaded again. Try again in a moment.")
            self._notice.emit(translate(
                "chat.controller",
                "{reason} Hearth is starting it again with the same model; your chats are saved."
            ).format(reason=event.reason))
        else:
            self.problem = translate(
                "chat.controller",
                "The model engine keeps failing and was not started again. "
                "Quit and reopen Hearth; your chats are saved.")
            self._state.emit("failed", self.problem)
            self._notice.emit(translate("chat.controller", "{reason} {problem}")
                              .format(reason=event.reason, problem=self.problem))
