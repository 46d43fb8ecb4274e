"""The chat controller: the Qt adapter between the window, the chat store, the turn
machine (``core.turns``) and the supervised inference worker.

It lives on the UI thread. The turn machine decides what is saved when; this class turns
its reports into signals, and restarts nothing itself: the worker supervises its own
thread and says so with ``WorkerDied``. The local model's state is ``controller.model``
(``app.chat.local_model``), the chat list's operations ``controller.chats``
(``app.chat.chats``); both send this class's signals.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path

from PySide6.QtCore import QObject, QTimer, Signal, Slot

from app.chat.bridge import TurnSignals, WorkerBridge
from app.chat.chat_tools import ChatTools
from app.chat.chats import Chats
from app.chat.local_model import LocalModel
from core.attachments import Attachment, attached_names
from core.drafts import Drafts
from core.engines import EngineRecord, Engines
from core.history import last_answer, not_sent, route
from core.pictures import chat_has_pictures
from core.protocol import (
    ChatMessage,
    EngineError,
    Event,
    Forget,
    Generate,
    InferenceWorker,
    ModelSettings,
    ModelSpec,
    RemoteEngine,
    SamplingParams,
)
from core.records import Chat, ChatStore, ModelLibrary
from core.runtime import Runtime
from core.session import Session
from core.turns import TurnMachine
from i18n import translate

log = logging.getLogger(__name__)

# The name ChatStore.create_chat() stores for a chat made without one (stored data that
# is compared, so it is not translated here).
RETRY_MS = 5000  # how often writes a full disk refused are tried again
CONTINUING_KINDS = ("vllm", "sglang")  # intranet engines told to continue an answer (continue_final_message)


class ChatController(QObject):
    chats_changed = Signal()
    chat_selected = Signal(object, list)  # Chat | None, list[Message]
    message_added = Signal(object)  # Message
    message_removed = Signal(int)
    branch_shown = Signal(list)  # list[Message]: the open chat as shown now (another version, a branch)
    answer_updated = Signal(int, str)  # message id, full text so far
    answer_progress = Signal(int, str, int, int)  # message id, stage, tokens read, prompt tokens
    answer_finished = Signal(object)  # Message (final state)
    busy_changed = Signal(bool)
    model_state = Signal(str, str)  # "loading" | "ready" | "failed", text for the user
    notice = Signal(str)  # a message for the user that needs no dialog
    tool_proposed = Signal(int, object)  # answer's message id, the ToolCall waiting for the user's word
    model_notice = Signal(str)  # one about the model (loading, failed): gone once it is ready
    locked_changed = Signal(bool)
    route_changed = Signal(str)  # the open chat's intranet engine, "" when it is the local model

    def __init__(
        self,
        worker_factory: type[InferenceWorker] | None = None,
        engine_factory=None,
        embedder_factory=None,
        params: SamplingParams | None = None,
    ) -> None:
        super().__init__()
        self.params = params or SamplingParams()
        self.bridge = WorkerBridge()
        self.bridge.received.connect(self._on_event)
        if engine_factory is None:
            from core.protocol import LlamaEmbedder

            embedder_factory = embedder_factory or LlamaEmbedder
        # The local API's requests are routed to it; everything else comes to the window.
        self.runtime = Runtime(self.bridge.sink, engine_factory, embedder_factory,
                               worker_type=worker_factory or InferenceWorker)
        self.router, self.worker = self.runtime.router, self.runtime.worker
        self.runtime.start()
        # Intranet engines answer on their own threads; documents are still searched here.
        self.session: Session | None = None  # while unlocked: the vault's chats, library, engines
        self.engines: Engines | None = None  # the unlocked vault's engines
        self.dispatch = self.runtime.use_engines(self._engine_for)
        # Asked before a chat first sends anything to an engine: (engine, with documents) -> go?
        self.disclose: Callable[[EngineRecord, bool, bool], bool] | None = None
        self.turns = TurnMachine(TurnSignals(self), self.dispatch.submit, self.dispatch.cancel, deliver=self.bridge.sink)
        self._retry = QTimer(self)
        self._retry.setInterval(RETRY_MS)
        self._retry.timeout.connect(self._retry_writes)
        self.model = LocalModel(self.worker, self.turns, self.model_state, self.notice)
        # Set by the documents controller: a new chat's settings; (chat id, question) -> Retrieval.
        self.new_chat_settings: Callable[[], dict] = dict
        self.retrieval_for = None
        self.current_chat: Chat | None = None
        self.drafts: Drafts | None = None  # while unlocked: the chats' unsent text
        self.chats = Chats(self)
        self.tools = ChatTools(self)  # each chat's tools, and the call waiting for the user
        self.turns.tools_for = self.tools.toolbox

    # Vault ------------------------------------------------------------------------
    @property
    def _store(self) -> ChatStore | None:
        return self.turns.store

    @property
    def store(self) -> ChatStore:
        if self.turns.store is None:
            raise RuntimeError("the vault is locked")
        return self.turns.store

    @property
    def library(self) -> ModelLibrary:
        """The unlocked vault's models and preferences (the session's one reader)."""
        if self.session is None:
            raise RuntimeError("the vault is locked")
        return self.session.library

    @property
    def locked(self) -> bool:
        return self.turns.store is None

    def attach(self, session: Session) -> None:
        """The vault was unlocked: show its chats."""
        store = session.store
        self.session = session
        self.turns.store = store
        self.engines = session.engines
        self.drafts = Drafts(session)
        self.locked_changed.emit(False)
        self.chats_changed.emit()
        chats = store.list_chats()
        self.chats.select(chats[0].id if chats else None)

    def end_session(self) -> None:
        """The session's "answer" step: stop the answer and save it; the vault stays open
        for the session to close."""
        if self.turns.store is None:
            return
        self.turns.interrupt()
        self.turns.retry_pending()
        self.turns.detach()
        self._retry.stop()
        self.drafts = None
        self.chats = Chats(self)  # nothing of this unlock's chats (ids made here) carries over
        self.current_chat = None
        self.engines = None
        self.session = None
        self.route_changed.emit("")

    def locked_out(self) -> None:
        """After the vault closed: forget the conversation in the model, show the lock."""
        self.worker.submit(Forget())
        self.locked_changed.emit(True)

    @property
    def busy(self) -> bool:
        return self.turns.busy

    @property
    def unsaved(self) -> bool:
        """Some writes were refused by the disk and wait to be tried again."""
        return self.turns.unsaved

    # Messages ---------------------------------------------------------------------
    def send(self, text: str, attachments: Sequence[Attachment] = ()) -> bool:
        """Save the user's message (with the files ``attachments`` read, ``core.attachments``)
        and ask for an answer, from them too. False (and a notice) if not sent."""
        if not text.strip():
            self.notice.emit(translate("chat.controller", "Type a message first."))
            return False
        if self._store is None:
            self.notice.emit(translate("chat.controller", "Hearth is locked. Unlock it first."))
            return False
        if self.busy:
            self.notice.emit(translate("chat.controller",
                                       "Wait for the current answer to finish, or stop it (Esc)."))
            return False
        if not self._can_answer(self.current_chat, bool(attachments)):
            return False
        try:
            chat = self.chats.for_message(text)
        except Exception as exc:
            self.turns.environmental(exc, not_sent())
            return False
        message = self.turns.save_user_message(chat.id, text, attachments)  # committed before generating
        if message is None:
            return False
        self.message_added.emit(message)
        self.chats_changed.emit()
        self.turns.start(chat.id, self._params_for(chat), self.retrieval_for)
        return True

    def stop(self) -> None:
        self.turns.stop()

    def regenerate(self) -> bool:
        """A new answer for the last question; the old one stays until the new one is complete."""
        chat = self._ready_chat()
        if chat is None or not self.store.messages(chat.id):
            return False
        old = last_answer(self.store, chat.id)
        return self.turns.start(chat.id, self._params_for(chat), self.retrieval_for,
                                replaces=old.id if old else None)

    def edit(self, message_id: int, text: str) -> bool:
        """Ask again with an earlier question changed (core.turns: what followed it stays
        until the new answer is complete)."""
        chat = self._ready_chat()
        if chat is None:
            return False
        if not self.turns.edit(chat.id, message_id, text, self._params_for(chat), self.retrieval_for):
            return False
        self.current_chat = self.store.get_chat(chat.id) or self.current_chat  # its title may follow
        self.chats_changed.emit()
        return True

    def continue_answer(self, message_id: int) -> bool:
        """Go on writing the open chat's last answer, cut off by Stop or the length limit."""
        chat = self._ready_chat()
        if chat is None:
            return False
        engine = route(chat)[0]
        record = self.engines.get(engine) if engine and self.engines is not None else None
        if record is not None and record.kind not in CONTINUING_KINDS:
            # Others would answer the answer as a new turn, not write on from its last word.
            self.notice.emit(translate("chat.controller", "The engine {name} cannot go on with an "
                                       "answer where it stopped; use Regenerate for a new one.")
                             .format(name=record.name))
            return False
        return self.turns.continue_answer(chat.id, message_id, self._params_for(chat))

    def show_version(self, message_id: int) -> bool:
        """Show another version of an answer (or the other branch of an edited question):
        the chat goes on from there, and it is what the chat shows from now on."""
        return self._change_branch(
            lambda: self.store.choose(message_id),
            translate("chat.controller", "Wait for the answer to finish (or stop it) before switching versions."),
            translate("chat.controller", "The chat still shows the same version."))

    def delete_message(self, message_id: int) -> bool:
        """Delete one message of the open chat for good; what followed it stays."""
        return self._change_branch(
            lambda: self.store.delete_message(message_id),
            translate("chat.controller", "Wait for the answer to finish (or stop it) before deleting a message."),
            translate("chat.controller", "The message was not deleted."))

    def _change_branch(self, change: Callable[[], None], busy: str, kept: str) -> bool:
        """A change of the open chat's tree, when no answer is being written (``busy``
        says why not); the chat is shown anew, or a full disk is said (``kept``)."""
        chat = self.current_chat
        if chat is None or self._store is None:
            return False
        if self.busy:
            self.notice.emit(busy)
            return False
        try:
            change()
        except Exception as exc:
            self.turns.environmental(exc, kept)
            return False
        self.branch_shown.emit(self.store.messages(chat.id))
        return True

    def show_branch(self, chat_id: int, through: int | None = None) -> None:
        """The open chat anew, through ``through`` (a version being written) or as chosen."""
        if self._store is not None and self.current_chat is not None and self.current_chat.id == chat_id:
            self.branch_shown.emit(self.store.messages(chat_id, through))

    def _ready_chat(self) -> Chat | None:
        """The open chat, if a new answer can start in it now (a notice says why not
        when it is the model)."""
        chat = self.current_chat
        if chat is None or self.busy or self._store is None:
            return None
        return chat if self._can_answer(chat) else None

    def _can_answer(self, chat: Chat | None, attaching: bool = False) -> bool:
        """Whether the chat's model can answer now: the local one loaded, or its engine on
        and, the first time, the user told what will leave the computer and agreeing (files'
        passages too where the chat has collections or attached files, or ``attaching``)."""
        engine_name, _ = route(chat)
        if not engine_name:
            if not self.model.ready:
                self.model_notice.emit(self.model.problem)
                return False
            return True
        record = self.engines.get(engine_name) if self.engines is not None else None
        if record is None or not record.enabled:
            self.notice.emit(translate("chat.controller", "This chat answers with the engine {name}, "
                                       "which is {state}. Choose another model above.").format(
                name=engine_name, state=translate("chat.controller", "switched off") if record
                else translate("chat.controller", "no longer set up")))
            return False
        assert chat is not None
        disclosed = chat.settings.get("disclosed") or []
        store = self._store
        with_documents = bool(chat.settings.get("collections")) or attaching or (
            store is not None and any(attached_names(m.stats) for m in store.messages(chat.id)))
        # Consent covers this engine as it is now (where, whom Hearth trusts there) and
        # whether passages go too: a change of any of them asks again.
        with_pictures = record.sees_pictures(route(chat)[1]) and (attaching or chat_has_pictures(store, chat.id))
        key = record.consent_key(with_documents, with_pictures)
        covered = {record.consent_key(d, p) for d in (with_documents, True) for p in (with_pictures, True)}
        if covered & set(disclosed):  # more covers less
            return True
        if self.disclose is None or not self.disclose(record, with_documents, with_pictures):
            return False
        self.set_chat_settings(chat.id, {**chat.settings, "disclosed": [*disclosed, key]})
        return True

    def _engine_for(self, command: Generate) -> RemoteEngine:
        """The runner's way to its engine (on the runner's thread)."""
        engines = self.engines
        if engines is None:
            raise EngineError(translate("chat.controller", "Hearth is locked."))
        return engines.engine_for(command)

    def set_route(self, chat_id: int, engine: str, model: str = "") -> None:
        """Which model answers in this chat: an engine's (``engine``) or the local one ("")."""
        chat = self.store.get_chat(chat_id)
        if chat is None:
            return
        settings = {k: v for k, v in chat.settings.items() if k not in ("engine", "engine_model")}
        if engine:
            settings.update(engine=engine, engine_model=model)
        self.set_chat_settings(chat_id, settings)
        self.route_changed.emit(engine)

    def set_chat_settings(self, chat_id: int, settings: dict) -> None:
        self.store.set_chat_settings(chat_id, settings)
        if self.current_chat and self.current_chat.id == chat_id:
            self.current_chat = self.store.get_chat(chat_id)

    def _params_for(self, chat: Chat | None) -> SamplingParams:
        overrides = (chat.settings.get("sampling") if chat else None) or {}
        return replace(self.params, **{k: v for k, v in overrides.items()
                                       if k in SamplingParams.__dataclass_fields__ and k != "ignore_eos"})

    @Slot()
    def _retry_writes(self) -> None:
        if self.turns.retry_pending():
            self._retry.stop()
            self.notice.emit(translate(
                "chat.controller",
                "Saved: everything that waited for disk space is in the vault now."))

    def keep_exchange(self, title: str, messages: tuple[ChatMessage, ...], answer: str, model: str) -> None:
        """Keep a conversation of the local API as a chat (core.turns.keep_exchange); a
        write the disk refused is tried again, as an answer's is, until there is room."""
        self.turns.keep_exchange(title, messages, answer, model)
        self.chats_changed.emit()
        self._follow_writes()

    # Worker events (UI thread) -----------------------------------------------------
    @Slot(object)
    def _on_event(self, event: Event) -> None:
        if not self.model.on_event(event):  # (loading, loaded, failed, the worker died)
            self.turns.on_event(event)
        self._follow_writes()

    def _follow_writes(self) -> None:
        if self.turns.unsaved and not self._retry.isActive():
            self._retry.start()

    # Shutdown ---------------------------------------------------------------------
    def shutdown(self, timeout: float = 2.0) -> bool:
        """Stop generating, save the partial answer, join the worker, close the vault (if a
        session has not closed it already)."""
        self.turns.interrupt()
        joined = self.runtime.shutdown(timeout)
        if not joined:
            log.error("the inference worker did not stop within %.1f s", timeout)
        session = self.session
        if session is not None:
            self.end_session()
            session.close()
        return joined


def default_model_spec(path: Path) -> ModelSpec:
    """What loads before the unlock (the library, with the model's own settings, is still
    locked): the defaults a new model's settings start from."""
    return ModelSettings().spec(path)
