"""Document collections in the window: a thin Qt adapter over ``core.document_service``.

The service's thread owns the store, the indexes and the parser; this object lives on the
UI thread, sends it commands, and keeps the last snapshot of the collections it reported
(what the menus and the dialog show). The service's events reach the UI thread as a
queued signal through a bridge, as the inference worker's do. After unlock the index is
loaded and collections are checked for changed, moved or deleted files; the same check
runs every few minutes. Lock, quit and "delete everything" close the service (``detach``)
before the vault closes.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from concurrent.futures import Future
from pathlib import Path
from typing import Any

from PySide6.QtCore import QObject, QTimer, Signal, Slot

from app.chat.controller import ChatController
from app.documents.watcher import FolderWatcher
from core.document_progress import Progress
from core.document_protocol import (
    Busy,
    CollectionsChanged,
    Finished,
    JobFailed,
    LoadingIndex,
    Ready,
    SearchNote,
    Unavailable,
)
from core.document_service import DocumentService
from core.documents import Collection, Document
from core.models import previous_embedding_models
from core.protocol import CountTokens, Embed, LoadEmbedder, embedding_model
from core.remote_embedding import Choice, EngineError, choose
from core.session import Session
from core.vault import trouble
from guard import egress

log = logging.getLogger(__name__)
REFRESH_MS = 5 * 60_000
CLOSE_TIMEOUT = 1.5
COLLECTIONS_PREFERENCE = "new_chat_collections"  # the collections a new chat starts with
# Creating a collection is answered between any two steps of a running job, in
# milliseconds; the window waits at most this long for its id.


class _Bridge(QObject):
    """The service's sink, as a signal: emitted on the service's thread, delivered queued
    on the UI thread. The number tells events of an earlier unlock from this one's."""

    delivered = Signal(int, object)  # not "event": that name is QObject's event handler
    answered = Signal(int, object, object)  # generation, a done Future, what to do with it

    def sink_for(self, generation: int) -> Callable[[object], None]:
        return lambda event: self.delivered.emit(generation, event)

    def when_done(self, generation: int, future: Future, then: Callable[[Future], None]) -> None:
        """Run ``then(future)`` on the UI thread once the service answered: no wait here."""
        future.add_done_callback(lambda done: self.answered.emit(generation, done, then))


class DocumentsController(QObject):
    ready_changed = Signal(bool)  # the index is loaded and searchable
    loading_changed = Signal()  # how far a long load of the index has come (``loaded``)
    collections_changed = Signal()
    progress = Signal(object)  # Progress
    finished = Signal(object)  # Report
    busy_changed = Signal(bool)
    failed = Signal(str)  # a job stopped: the message says what was kept

    def __init__(self, chat: ChatController) -> None:
        super().__init__(chat)
        self.chat = chat
        self.service: DocumentService | None = None
        self.ready = False
        self.unavailable = ""  # why the index could not load at this unlock (the user's words)
        self.loaded = 0  # percent of a long load of the index (rows read one by one), 0 if none
        self.busy = False
        self._collections: tuple[Collection, ...] = ()
        self._documents: Mapping[int, tuple[Document, ...]] = {}
        self._generation = 0
        self._preferred = ""  # the embedding model the user chose (models controller says)
        self._previous_loaded: set[str] = set()  # earlier versions' models asked to load
        self._bridge = _Bridge(self)
        self._bridge.delivered.connect(self._on_event)
        self._bridge.answered.connect(self._on_answer)
        self._timer = QTimer(self)
        self._timer.setInterval(REFRESH_MS)
        self._timer.timeout.connect(self.refresh_all)
        self.watcher = FolderWatcher(self.sync, self)  # the collections follow their folders
        chat.retrieval_for = self.retrieval_for  # type: ignore[assignment]
        chat.tools.collections_of = self.collections_of
        chat.tools.around_for = self.around_for
        chat.new_chat_settings = self.new_chat_settings

    # Vault life cycle -------------------------------------------------------------
    def attach(self, session: Session) -> None:
        if self.service is not None:
            self.detach()
        self._generation += 1
        self.unavailable = ""
        service = session.documents(self._to_worker, self._preferred or embedding_model().sha256,
                                    self._bridge.sink_for(self._generation))
        service.load_index()
        service.refresh_all()
        self.service = service
        self._timer.start()

    def _to_worker(self, command: Embed | CountTokens) -> None:
        """Called on the service's thread; the worker's submit is safe from any thread."""
        self.chat.worker.submit(command)

    def detach(self, timeout: float = CLOSE_TIMEOUT) -> None:
        """Stop the service (cancel, kill a parse, join); the vault may close after this."""
        self._timer.stop()
        self.watcher.stop()
        service, self.service = self.service, None
        self._generation += 1  # what the old service still reports is dropped
        if service is not None and not service.close(min(timeout, CLOSE_TIMEOUT)):
            log.warning("the document service did not stop in time; the closed vault refuses it")
        self._collections, self._documents = (), {}
        self.unavailable = ""
        if self.busy:
            self.busy = False
            self.busy_changed.emit(False)
        self._set_ready(False)
        self.collections_changed.emit()

    @property
    def attached(self) -> bool:
        return self.service is not None

    @Slot(int, object)
    def _on_event(self, generation: int, event: object) -> None:
        if generation != self._generation:
            return
        if isinstance(event, Progress):
            self.progress.emit(event)
        elif isinstance(event, Finished):
            self.finished.emit(event.report)
        elif isinstance(event, CollectionsChanged):
            self._collections, self._documents = event.collections, event.documents
            self._load_previous_models(event.collections)
            if not event.loading:
                self.watcher.follow(event.collections)
            self.collections_changed.emit()
        elif isinstance(event, LoadingIndex):
            self.loaded = min(100, 100 * event.done // max(1, event.total))
            self.loading_changed.emit()
        elif isinstance(event, Ready):
            self._set_ready(True)
        elif isinstance(event, Unavailable):  # JobFailed says it to the user
            self.unavailable = event.message
            self.watcher.follow(self._collections)  # imports still work
            self._set_ready(False)
        elif isinstance(event, Busy):
            self.busy = event.busy
            self.busy_changed.emit(event.busy)
        elif isinstance(event, JobFailed):
            self.failed.emit(event.message)
            self.chat.notice.emit(event.message)
        elif isinstance(event, SearchNote):
            self.chat.notice.emit(event.message)

    def _load_previous_models(self, collections: tuple[Collection, ...]) -> None:
        """An earlier version's embedding model (all-MiniLM-L6-v2), if its file is still
        here, answers for the collections it made until their re-embedding is done; loaded
        once, and only while some collection still uses it. No sha256 is given: the worker
        hashes the file, so a look-alike answers for nothing."""
        wanted = {c.embedding_model for c in collections}
        for path, sha256 in previous_embedding_models():
            if sha256 in wanted and sha256 not in self._previous_loaded:
                self._previous_loaded.add(sha256)
                self.chat.worker.submit(LoadEmbedder(path))

    def _set_ready(self, ready: bool) -> None:
        self.ready = ready
        self.loaded = 0
        self.ready_changed.emit(ready)

    # Jobs ---------------------------------------------------------------------------
    def add(self, collection: Collection | None, paths: list[Path]) -> bool:
        """Import files and folders in the background (queued behind a running job)."""
        if self.service is None or collection is None or not paths:
            return False
        self.service.add(collection.id, paths)
        return True

    @Slot()
    def refresh_all(self) -> None:
        if self.service is not None and not self.busy:
            self.service.refresh_all()

    def sync(self, collection_id: int) -> None:
        """One collection caught up with its folders (a change the watcher saw)."""
        if self.service is not None:
            self.service.sync(collection_id)

    def save_index(self) -> None:
        """Seal the search index into its file again now (after a passphrase change removed
        it: else the next unlock reads every passage from the vault, minutes at a large
        archive). In the background, after the jobs queued, as the idle save."""
        if self.service is not None:
            self.service.save_index()

    @Slot()
    def cancel(self) -> None:
        if self.service is not None:
            self.service.cancel()

    @Slot(object, str)
    def set_embedding_model(self, path: Path, sha256: str) -> None:
        """Documents are embedded by another model from now on. The worker loads it beside
        the current one; the service re-embeds each collection in the background and
        switches it when its new vectors are complete."""
        self.chat.worker.submit(LoadEmbedder(Path(path), sha256))
        self._preferred = sha256  # what the next attach starts with, too
        if self.service is not None:
            self.service.set_embedding_model(sha256)

    # Collections --------------------------------------------------------------------
    def collections(self) -> list[Collection]:
        return list(self._collections)

    def documents_of(self, collection_id: int) -> tuple[Document, ...]:
        return self._documents.get(collection_id, ())

    def collections_of(self, chat_id: int) -> list[tuple[str, list[str]]]:
        """The chat's switched-on collections and the names of their files (the tools' list)."""
        chat = self.chat.current_chat if self.chat.current_chat and self.chat.current_chat.id == chat_id else None
        wanted = set((chat.settings.get("collections") if chat else None) or [])
        return [(c.name, [Path(d.path).name for d in self.documents_of(c.id)])
                for c in self._collections if c.id in wanted]

    def around_for(self, chat_id: int, passage: Any, before: int, after: int) -> Future | None:
        """The read_around tool's lookup: a future of a passage's neighbours, in the chat's
        switched-on collections alone (None: none, or no service)."""
        service = self.service
        chat = self.chat.current_chat
        if service is None or self.chat.locked or chat is None or chat.id != chat_id:
            return None
        wanted = set(chat.settings.get("collections") or [])
        ids = [c.id for c in self._collections if c.id in wanted]
        return service.read_around(passage, ids, before, after) if ids else None

    def create(self, name: str, then: Callable[[Collection], None] | None = None) -> bool:
        """Ask for a new collection (or the one of that name); ``then`` gets it on the UI
        thread when the service has made it (after the step of an import under way), never
        by waiting here. False if there is no service to ask."""
        if self.service is None or not name.strip():
            return False

        def made(future: Future) -> None:
            if future.exception() is not None:
                return  # the service said why (failed)
            collection: Collection = future.result()
            if all(c.id != collection.id for c in self._collections):
                self._collections = tuple(sorted((*self._collections, collection),
                                                 key=lambda c: c.name.casefold()))
            self.collections_changed.emit()
            if then is not None:
                then(collection)

        self._bridge.when_done(self._generation, self.service.create(name.strip()), made)
        return True

    def surroundings(self, path: str, page: int | None, heading: str | None,
                     then: Callable[[str], None]) -> bool:
        """The indexed text of a cited passage's page, to ``then`` on the UI thread once the
        service has it (never by waiting here); False if there is no service to ask."""
        if self.service is None:
            return False

        def got(future: Future) -> None:
            then("" if future.exception() is not None else str(future.result()))

        self._bridge.when_done(self._generation, self.service.surroundings(path, page, heading), got)
        return True

    def page_picture(self, path: str, page: int, passage: str, then: Callable[[dict | None], None]) -> bool:
        """A PDF page as a picture with the passage's place marked, to ``then`` on the UI
        thread (None where it cannot be drawn); False if there is no service to ask."""
        if self.service is None:
            return False

        def got(future: Future) -> None:
            then(None if future.exception() is not None else future.result())

        self._bridge.when_done(self._generation, self.service.page_picture(path, page, passage), got)
        return True

    @Slot(int, object, object)
    def _on_answer(self, generation: int, future: Future, then: Callable[[Future], None]) -> None:
        if generation == self._generation:  # not an answer of an earlier unlock's service
            then(future)

    def taken(self, name: str, other_than: int | None = None) -> bool:
        """Whether another collection has this name, as a user reads names (case aside)."""
        wanted = " ".join(name.split()).casefold()
        return any(" ".join(c.name.split()).casefold() == wanted and c.id != other_than
                   for c in self._collections)

    def rename(self, collection_id: int, name: str, then: Callable[[Collection], None] | None = None) -> bool:
        """Rename in the background; False (nothing asked) for an empty or taken name."""
        if self.service is None or not name.strip() or self.taken(name, collection_id):
            return False

        def renamed(future: Future) -> None:
            if future.exception() is None and future.result() is not None and then is not None:
                then(future.result())

        self._bridge.when_done(self._generation, self.service.rename(collection_id, name.strip()), renamed)
        return True

    def engine_models(self) -> list[Choice]:
        """The models of the engines switched on, each as a collection would be embedded by it."""
        engines = self.chat.engines
        if engines is None:
            return []
        found = []
        for record in engines.enabled():
            try:
                found += [choose(engines, record.name, model.id) for model in record.models]
            except EngineError as exc:  # a record that no longer reads (an old URL): not offered
                # The name can name a client or a case: the log is plain text on disk.
                log.warning("engine %s not offered for embedding: %s", egress.log_tag(record.name),
                            type(exc).__name__)
        return found

    def embed_with(self, collection_id: int, embedder: str) -> None:
        """Embed a collection by an engine's model from now on (the user was told what leaves
        and agreed), or on this computer again (``embedder`` ""); in the background, with
        the import's progress line and its message if it stops."""
        if self.service is not None:
            self.service.embed_with(collection_id, embedder)

    def remove_document(self, collection_id: int, document_id: int) -> None:
        """Take one file out of a collection (after the job under way); gone from view now."""
        if self.service is None:
            return
        self.service.remove_document(collection_id, document_id)
        self._documents = {**self._documents, collection_id: tuple(
            d for d in self._documents.get(collection_id, ()) if d.id != document_id)}
        self.collections_changed.emit()

    def delete(self, collection_id: int) -> None:
        """Delete in the background; an import into it stops first. Gone from view now."""
        if self.service is None:
            return
        self.service.delete(collection_id)
        self._collections = tuple(c for c in self._collections if c.id != collection_id)
        self.collections_changed.emit()

    # The collections a new chat starts with ------------------------------------------
    def remember_collections(self, chosen: list[int]) -> None:
        """Those the user last chose for a chat (none included): a new chat starts with them
        (#36 item 8: Documents were off again in every new chat). Ids only, in the vault."""
        try:
            self.chat.library.set_preference(COLLECTIONS_PREFERENCE, list(chosen))
        except Exception as exc:  # a full disk: the chat's own choice is saved already
            if trouble(exc) is None:
                raise
            log.warning("the collections for new chats could not be remembered")

    def new_chat_settings(self) -> dict:
        remembered = self.chat.library.preferences().get(COLLECTIONS_PREFERENCE)
        return {"collections": remembered} if isinstance(remembered, list) and remembered else {}

    # Answers ------------------------------------------------------------------------
    def retrieval_for(self, chat_id: int, question: str) -> Future | None:
        """A future of the passages for a chat with collections switched on, else None:
        the question embedded by each model whose vectors answer for these collections,
        then searched on the service's thread (``core.retrieval``)."""
        service = self.service
        if service is None or self.chat.locked:
            return None
        chat = self.chat.store.get_chat(chat_id)
        wanted = list((chat.settings.get("collections") if chat else None) or [])
        chosen = [c for c in self._collections if c.id in wanted]
        if not chosen:
            return None
        k = int((chat.settings.get("passages") if chat else None) or 5)
        models = tuple(dict.fromkeys(c.embedding_model for c in chosen))
        return service.retrieve(question, [c.id for c in chosen], models, k)
