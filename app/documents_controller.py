"""Document collections in the window: a background thread ingests, the UI thread shows.

After unlock the in-memory index is built from the vault in the background, then
collections are checked for changed, moved or deleted files; the same check runs every
few minutes while Hearth is open. Locking cancels any import and drops the index.
"""

from __future__ import annotations

import logging
import threading
from pathlib import Path

from PySide6.QtCore import QObject, QTimer, Signal, Slot

from app.controller import ChatController
from app.documents import Documents
from inference.bundled import embedding_model
from inference.protocol import Retrieval
from storage.chats import ChatStore
from storage.documents.store import Collection

log = logging.getLogger(__name__)
REFRESH_MS = 5 * 60_000


class DocumentsController(QObject):
    ready_changed = Signal(bool)  # the index is loaded and searchable
    collections_changed = Signal()
    progress = Signal(object)  # Progress
    finished = Signal(object)  # Report
    busy_changed = Signal(bool)
    _loaded_signal = Signal(object)  # from the job thread: the index is built
    _done_signal = Signal()  # from the job thread: the job ended

    def __init__(self, chat: ChatController) -> None:
        super().__init__(chat)
        self.chat = chat
        self.documents: Documents | None = None
        self.ready = False
        self._job: threading.Thread | None = None
        self._cancel = threading.Event()
        self._timer = QTimer(self)
        self._timer.setInterval(REFRESH_MS)
        self._timer.timeout.connect(self.refresh_all)
        self._loaded_signal.connect(self._loaded)
        self._done_signal.connect(self._job_done)
        chat.retrieval_for = self.retrieval_for

    # Vault life cycle -------------------------------------------------------------
    def attach(self, store: ChatStore, embedding_sha256: str | None = None) -> None:
        self.documents = Documents(store.vault, self.chat.worker.submit,
                                   embedding_sha256 or embedding_model().sha256)
        documents = self.documents

        def load() -> None:
            documents.load_index()
            documents_refresh = [c for c in documents.collections() if c.sources]
            self._loaded_signal.emit(documents)
            for collection in documents_refresh:
                if self._cancel.is_set() or self.documents is not documents:
                    return
                report = documents.refresh(collection, self.progress.emit, self._cancel)
                self.finished.emit(report)

        self._start(load)
        self._timer.start()

    def detach(self) -> None:
        self._timer.stop()
        self._cancel.set()
        if self._job is not None:
            self._job.join(1.5)  # quitting stays quick; a parse in progress is left to die with us
        self.documents = None
        self._set_ready(False)
        self.collections_changed.emit()

    @Slot(object)
    def _loaded(self, documents: Documents) -> None:
        if documents is self.documents:
            self._set_ready(True)
            self.collections_changed.emit()

    def _set_ready(self, ready: bool) -> None:
        self.ready = ready
        self.ready_changed.emit(ready)

    # Jobs ---------------------------------------------------------------------------
    @property
    def busy(self) -> bool:
        return self._job is not None and self._job.is_alive()

    def _start(self, work) -> bool:
        if self.busy:
            return False
        self._cancel = threading.Event()

        def run() -> None:
            try:
                work()
            except Exception:
                log.exception("document job failed")
            finally:
                self._done_signal.emit()

        self._job = threading.Thread(target=run, name="hearth-documents", daemon=True)
        self.busy_changed.emit(True)
        self._job.start()
        return True

    @Slot()
    def _job_done(self) -> None:
        self.busy_changed.emit(False)
        self.collections_changed.emit()

    def add(self, collection: Collection, paths: list[Path]) -> bool:
        """Import files and folders in the background; False if a job is already running."""
        documents = self.documents
        if documents is None:
            return False

        def work() -> None:
            report = documents.add(collection, paths, self.progress.emit, self._cancel)
            self.finished.emit(report)

        return self._start(work)

    @Slot()
    def refresh_all(self) -> None:
        documents = self.documents
        if documents is None or self.busy:
            return

        def work() -> None:
            for collection in documents.collections():
                if self._cancel.is_set():
                    return
                if collection.sources:
                    self.finished.emit(documents.refresh(collection, self.progress.emit, self._cancel))

        self._start(work)

    def cancel(self) -> None:
        self._cancel.set()

    @Slot(object, str)
    def set_embedding_model(self, path: Path, sha256: str) -> None:
        """Documents are embedded by another model from now on; collections built by the
        previous one are indexed again at the next check."""
        from inference.protocol import LoadEmbedder

        self.chat.worker.submit(LoadEmbedder(path))
        if self.documents is not None and self.documents.embedding_model != sha256:
            self.documents.embedding_model = sha256
            self.refresh_all()

    # Collections --------------------------------------------------------------------
    def collections(self) -> list[Collection]:
        return self.documents.collections() if self.documents else []

    def create(self, name: str) -> Collection | None:
        if self.documents is None or not name.strip():
            return None
        collection = self.documents.collection(name.strip(), create=True)
        self.collections_changed.emit()
        return collection

    def delete(self, collection_id: int) -> None:
        if self.documents is not None:
            self.documents.delete_collection(collection_id)
            self.collections_changed.emit()

    # Answers ------------------------------------------------------------------------
    def retrieval_for(self, chat_id: int, question: str) -> Retrieval | None:
        """The retrieval step for a chat with collections switched on, else None."""
        return self._retrieval(chat_id, question)

    def _retrieval(self, chat_id: int, question: str) -> Retrieval | None:
        """The retrieval step for a chat with collections switched on, else None."""
        if self.documents is None or self.chat.locked:
            return None
        chat = self.chat.store.get_chat(chat_id)
        wanted = list((chat.settings.get("collections") if chat else None) or [])
        existing = {c.id for c in self.collections()}
        ids = [i for i in wanted if i in existing]
        if not ids:
            return None
        k = int((chat.settings.get("passages") if chat else None) or 5)
        return Retrieval(question, self.documents.searcher(ids, k))

