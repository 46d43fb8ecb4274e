"""The chat controller: between the window, the chat store and the inference worker.

It lives on the UI thread. A user message is committed before its generation is
queued; the streaming answer is checkpointed about once a second and finalized on
Done, or marked interrupted / failed on Stopped / Failed. Events of a request that is
no longer the active one are dropped.
"""

from __future__ import annotations

import itertools
import logging
import time
from dataclasses import dataclass, replace
from pathlib import Path

from PySide6.QtCore import QObject, Signal, Slot

from app.api import RequestRouter
from app.bridge import WorkerBridge
from inference.protocol import (
    ChatMessage,
    Chunk,
    Done,
    Event,
    Failed,
    Forget,
    Generate,
    LoadModel,
    ModelFailed,
    ModelLoaded,
    ModelLoading,
    ModelSpec,
    Retrieved,
    SamplingParams,
    Started,
    Stopped,
)
from inference.worker import InferenceWorker
from storage.chats import (
    COMPLETE,
    DAMAGED,
    FAILED,
    INTERRUPTED,
    STREAMING,
    Chat,
    ChatStore,
    Message,
)

log = logging.getLogger(__name__)

CHECKPOINT_SECONDS = 1.0
SYSTEM_PROMPT = "You are a helpful assistant."
TITLE_LENGTH = 48


@dataclass
class _Active:
    request_id: int
    chat_id: int
    message_id: int
    text: str = ""
    last_checkpoint: float = 0.0
    sources: list | None = None  # passages given to the model, when documents were on


def title_from(text: str) -> str:
    first_line = text.strip().splitlines()[0].strip() if text.strip() else "New chat"
    return first_line if len(first_line) <= TITLE_LENGTH else first_line[: TITLE_LENGTH - 1] + "…"


class ChatController(QObject):
    chats_changed = Signal()
    chat_selected = Signal(object, list)  # Chat | None, list[Message]
    message_added = Signal(object)  # Message
    message_removed = Signal(int)
    answer_updated = Signal(int, str)  # message id, full text so far
    answer_finished = Signal(object)  # Message (final state)
    busy_changed = Signal(bool)
    model_state = Signal(str, str)  # "loading" | "ready" | "failed", text for the user
    notice = Signal(str)  # a message for the user that needs no dialog
    locked_changed = Signal(bool)

    def __init__(
        self,
        store: ChatStore | None = None,
        worker_factory: type[InferenceWorker] | None = None,
        engine_factory=None,
        embedder_factory=None,
        params: SamplingParams | None = None,
    ) -> None:
        super().__init__()
        self._store = store
        self.params = params or SamplingParams()
        self.bridge = WorkerBridge()
        self.bridge.event.connect(self._on_event)
        # The local API's requests are routed to it; everything else comes to the window.
        self.router = RequestRouter(self.bridge.sink)
        factory = worker_factory or InferenceWorker
        if engine_factory is None:
            from inference.embedder import LlamaEmbedder
            from inference.llama_engine import LlamaEngine

            engine_factory = LlamaEngine
            embedder_factory = embedder_factory or LlamaEmbedder
        self.worker = factory(engine_factory, self.router.sink, embedder_factory=embedder_factory)
        self.worker.start()
        self._ids = itertools.count(1)
        self._active: _Active | None = None
        self._model_ready = False
        self._model_problem = "No model is loaded yet."
        self.model_name = ""
        self.model_path: Path | None = None
        self.model_memory = 0
        # Set by the documents controller: (chat id, question) -> Retrieval or None.
        self.retrieval_for = None
        self.current_chat: Chat | None = None

    # Model ------------------------------------------------------------------------
    def load_model(self, spec: ModelSpec) -> None:
        """Unload the current model and load ``spec``; the conversation stays as it is."""
        self._model_ready = False
        self._model_problem = "The model is still loading. Try again in a moment."
        self.model_path = spec.path
        self.worker.submit(LoadModel(spec))

    def model_unavailable(self, reason: str) -> None:
        """No model can be offered at all (none installed): say so, keep the app usable."""
        self._model_ready = False
        self._model_problem = reason
        self.model_state.emit("failed", reason)

    @property
    def model_ready(self) -> bool:
        return self._model_ready

    # Vault ------------------------------------------------------------------------
    @property
    def store(self) -> ChatStore:
        if self._store is None:
            raise RuntimeError("the vault is locked")
        return self._store

    @property
    def locked(self) -> bool:
        return self._store is None

    def attach_store(self, store: ChatStore) -> None:
        """The vault was unlocked: show its chats."""
        self._store = store
        self.locked_changed.emit(False)
        self.chats_changed.emit()
        chats = store.list_chats()
        self.select_chat(chats[0].id if chats else None)

    def lock(self) -> None:
        """Stop generating, save the partial answer, close the vault, forget the conversation."""
        if self._store is None:
            return
        self._interrupt_active()
        self.current_chat = None
        store, self._store = self._store, None
        store.close()
        self.worker.submit(Forget())
        self.locked_changed.emit(True)

    def _interrupt_active(self) -> None:
        active = self._active
        if active is None:
            return
        self.worker.cancel(active.request_id)
        if self._store is not None:
            self.store.update_message(active.message_id, content=active.text, status=INTERRUPTED)
        self._set_active(None)

    @property
    def busy(self) -> bool:
        return self._active is not None

    # Chats ------------------------------------------------------------------------
    def chats(self) -> list[Chat]:
        return self.store.list_chats() if self._store is not None else []

    def pin_chat(self, chat_id: int, pinned: bool) -> None:
        self.store.pin_chat(chat_id, pinned)
        self.chats_changed.emit()

    def new_chat(self) -> Chat:
        chat = self.store.create_chat()
        self.chats_changed.emit()
        self.select_chat(chat.id)
        return chat

    def select_chat(self, chat_id: int | None) -> None:
        chat = self.store.get_chat(chat_id) if chat_id is not None else None
        self.current_chat = chat
        before = len(self.store.damaged_places)
        messages = self.store.messages(chat.id) if chat else []
        self.chat_selected.emit(chat, messages)
        if len(self.store.damaged_places) > before or (chat and chat.damaged):
            self.notice.emit(
                "Part of this chat could not be decrypted: the vault file was changed outside "
                "Hearth or is damaged. The rest is intact; see Help ▸ Check vault."
            )

    def rename_chat(self, chat_id: int, title: str) -> None:
        title = title.strip()
        if not title:
            self.notice.emit("A chat needs a name.")
            return
        self.store.rename_chat(chat_id, title)
        self.chats_changed.emit()

    def delete_chat(self, chat_id: int) -> None:
        if self._active and self._active.chat_id == chat_id:
            self.worker.cancel(self._active.request_id)
            self._set_active(None)
        self.store.delete_chat(chat_id)
        if self.current_chat and self.current_chat.id == chat_id:
            remaining = self.store.list_chats()
            self.select_chat(remaining[0].id if remaining else None)
        self.chats_changed.emit()

    # Messages ---------------------------------------------------------------------
    def send(self, text: str) -> bool:
        """Save the user's message and ask for an answer. False (and a notice) if not sent."""
        if not text.strip():
            self.notice.emit("Type a message first.")
            return False
        if self._store is None:
            self.notice.emit("Hearth is locked. Unlock it first.")
            return False
        if self._active is not None:
            self.notice.emit("Wait for the current answer to finish, or stop it (Esc).")
            return False
        if not self._model_ready:
            self.notice.emit(self._model_problem)
            return False
        chat = self.current_chat
        if chat is None:
            chat = self.store.create_chat(title_from(text))
            self.current_chat = chat
            self.chats_changed.emit()
            self.chat_selected.emit(chat, [])
        elif chat.title == "New chat" and not self.store.messages(chat.id):
            self.store.rename_chat(chat.id, title_from(text))
        message = self.store.add_message(chat.id, "user", text)  # committed before generating
        self.message_added.emit(message)
        self.chats_changed.emit()
        self._generate(chat.id)
        return True

    def stop(self) -> None:
        if self._active is not None:
            self.worker.cancel(self._active.request_id)

    def regenerate(self) -> bool:
        """Replace the last answer of the current chat with a new one."""
        chat = self.current_chat
        if chat is None or self._active is not None or self._store is None:
            return False
        if not self._model_ready:
            self.notice.emit(self._model_problem)
            return False
        messages = self.store.messages(chat.id)
        if not messages:
            return False
        if messages[-1].role == "assistant":
            self.store.delete_message(messages[-1].id)
            self.message_removed.emit(messages[-1].id)
        self._generate(chat.id)
        return True

    def set_chat_settings(self, chat_id: int, settings: dict) -> None:
        self.store.set_chat_settings(chat_id, settings)
        if self.current_chat and self.current_chat.id == chat_id:
            self.current_chat = self.store.get_chat(chat_id)

    def _params_for(self, chat: Chat | None) -> SamplingParams:
        overrides = (chat.settings.get("sampling") if chat else None) or {}
        return replace(self.params, **{k: v for k, v in overrides.items()
                                       if k in SamplingParams.__dataclass_fields__})

    def _history(self, chat_id: int, chat: Chat | None) -> tuple[ChatMessage, ...]:
        system = ((chat.settings.get("system_prompt") if chat else "") or "").strip()
        history = [ChatMessage("system", system or SYSTEM_PROMPT)]
        for m in self.store.messages(chat_id):
            if m.status in (FAILED, STREAMING, DAMAGED) or not m.content:
                continue
            history.append(ChatMessage(m.role, m.content))
        return tuple(history)

    def _generate(self, chat_id: int) -> None:
        chat = self.store.get_chat(chat_id)  # its settings: system prompt, sampling
        history = self._history(chat_id, chat)
        placeholder = self.store.add_message(chat_id, "assistant", "", STREAMING)
        self.message_added.emit(placeholder)
        request_id = next(self._ids)
        self._set_active(_Active(request_id, chat_id, placeholder.id, "", time.monotonic()))
        retrieval = self.retrieval_for(chat_id, history[-1].content) if self.retrieval_for else None
        self.worker.submit(Generate(request_id, chat_id, history, self._params_for(chat), retrieval))

    def _set_active(self, active: _Active | None) -> None:
        was_busy = self._active is not None
        self._active = active
        if was_busy != (active is not None):
            self.busy_changed.emit(active is not None)

    # Worker events (UI thread) -----------------------------------------------------
    @Slot(object)
    def _on_event(self, event: Event) -> None:
        if isinstance(event, ModelLoading):
            self.model_state.emit("loading", f"Loading {event.path.name}…")
        elif isinstance(event, ModelLoaded):
            self._model_ready = True
            self.model_name = event.name
            self.model_memory = event.memory_bytes
            self.model_state.emit("ready", f"{event.name} · {event.backend} · context {event.n_ctx} tokens")
        elif isinstance(event, ModelFailed):
            self._model_ready = False
            self._model_problem = event.reason
            self.model_state.emit("failed", event.reason)
        else:
            self._on_generation_event(event)

    def _on_generation_event(self, event: Event) -> None:
        active = self._active
        if active is None or getattr(event, "request_id", None) != active.request_id:
            return  # leftovers of a stopped or replaced request
        if isinstance(event, Retrieved):
            active.sources = [p.as_dict() for p in event.passages]
            if not event.passages:
                self.notice.emit("No passage in this chat's documents matched the question; "
                                 "the model was told so.")
        elif isinstance(event, Started):
            if event.dropped_messages:
                self.notice.emit(
                    f"This chat is longer than the model's context: the {event.dropped_messages} "
                    "oldest messages were left out of this answer."
                )
        elif isinstance(event, Chunk):
            active.text += event.text
            self.answer_updated.emit(active.message_id, active.text)
            now = time.monotonic()
            if self._store is None:
                return
            if now - active.last_checkpoint >= CHECKPOINT_SECONDS:
                self.store.update_message(active.message_id, content=active.text)
                active.last_checkpoint = now
        elif isinstance(event, Done):
            self._finish(active, COMPLETE, event.stats.as_dict())
        elif isinstance(event, Stopped):
            self._finish(active, INTERRUPTED, event.stats.as_dict())
        elif isinstance(event, Failed):
            self._finish(active, FAILED, {"error": event.reason})

    def _finish(self, active: _Active, status: str, stats: dict) -> None:
        self._set_active(None)
        stats = {**stats, "model": self.model_name}  # stored encrypted with the answer
        if active.sources is not None:
            stats["sources"] = active.sources
        if status == INTERRUPTED and not active.text:
            # Stopped before the first word: nothing worth keeping.
            self.store.delete_message(active.message_id)
            self.message_removed.emit(active.message_id)
            return
        self.store.update_message(active.message_id, content=active.text, status=status, stats=stats)
        message = Message(active.message_id, active.chat_id, 0, "assistant", active.text, status, stats)
        self.answer_finished.emit(message)

    # Shutdown ---------------------------------------------------------------------
    def shutdown(self, timeout: float = 2.0) -> bool:
        """Stop generating, save the partial answer, join the worker, close the vault."""
        self._interrupt_active()
        joined = self.worker.shutdown(timeout)
        if not joined:
            log.error("the inference worker did not stop within %.1f s", timeout)
        if self._store is not None:
            store, self._store = self._store, None
            store.close()
        return joined


def default_model_spec(path: Path) -> ModelSpec:
    return ModelSpec(path=path)
