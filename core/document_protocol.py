"""Commands into the document service and events out of it.

Plain frozen dataclasses, like ``inference.protocol``: the service never sees Qt, and the
window never sees the store. A command that has an answer carries a Future for it (the
window mostly listens to the events instead; the terminal waits on the futures), and
``DocumentCalls`` sends them.
"""

from __future__ import annotations

import contextlib
import logging
import multiprocessing
import queue
import threading
from collections.abc import Mapping, Sequence
from concurrent.futures import Future
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from core.document_progress import Progress, Report, label
from i18n import translate
from inference.errors import InferenceError
from inference.rag import Passage
from storage.documents.condense import condense
from storage.documents.search import Hit
from storage.documents.store import Collection, Document
from storage.errors import trouble

log = logging.getLogger(__name__)
SEARCH_TIMEOUT = 30.0  # a chat answer waits this long for its passages, then fails plainly


class DocumentsUnavailable(InferenceError):
    """The documents could not answer (closed, or too slow); the message is for the user."""


# Commands ---------------------------------------------------------------------------
@dataclass(frozen=True, eq=False)
class LoadIndex:
    done: Future | None = None  # the number of chunks loaded


@dataclass(frozen=True, eq=False)
class AddPaths:
    collection_id: int
    paths: tuple[Path, ...]
    done: Future | None = None  # the Report


@dataclass(frozen=True, eq=False)
class RefreshAll:
    done: Future | None = None  # a list of Reports
    collection_id: int = 0  # one collection (a folder it follows changed; ``docs sync``); 0: all


@dataclass(frozen=True, eq=False)
class CreateCollection:
    name: str
    future: Future  # the Collection (the existing one if the name is taken)


@dataclass(frozen=True, eq=False)
class DeleteCollection:
    collection_id: int
    done: Future | None = None


@dataclass(frozen=True, eq=False)
class RenameCollection:
    collection_id: int
    name: str
    future: Future  # the Collection as it is now (None: it is gone)


@dataclass(frozen=True, eq=False)
class RemoveDocument:
    """One file out of a collection (not added again by a check for changes)."""

    collection_id: int
    document_id: int
    done: Future | None = None


@dataclass(frozen=True, eq=False)
class SaveIndex:
    """Seal the search index into its file now, after the jobs before it, if enough has
    changed (the idle save's rule): for a terminal command, which ends before any idle time."""

    done: Future | None = None  # None; the save's own failure is logged, never raised


@dataclass(frozen=True, eq=False)
class ListCollections:
    future: Future  # a CollectionsChanged snapshot


@dataclass(frozen=True, eq=False)
class Surroundings:
    """The indexed text of the page (or section) a cited passage comes from."""

    path: str
    page: int | None
    heading: str | None
    future: Future  # its text, "" where the file is no longer indexed


@dataclass(frozen=True, eq=False)
class PagePicture:
    """A PDF page as grey pixels with a passage's place marked, for the source viewer
    (``storage.documents.page_picture``), rendered in an isolated child of its own."""

    path: str
    page: int
    passage: str
    future: Future  # {"width", "height", "pixels", "marks"}; ParseError when it cannot be drawn


@dataclass(frozen=True, eq=False)
class Search:
    """``vectors``: the question embedded by each model it was asked for, ``{sha256: vector}``."""

    question: str
    vectors: Mapping[str, Any]
    collection_ids: tuple[int, ...]
    future: Future  # a list of Hits
    k: int = 5
    mode: str = "hybrid"


@dataclass(frozen=True)
class SetEmbeddingModel:
    model: str  # sha256; the worker must have it loaded (LoadEmbedder) to embed with it


@dataclass(frozen=True)
class CancelJobs:
    """Stop the running import, refresh or re-embedding, and drop the queued imports."""


@dataclass(frozen=True)
class Close:
    pass


@dataclass(frozen=True)
class Wake:
    """Only wakes the thread (a future it waits on is done)."""


@dataclass(frozen=True)
class Reembed:
    """Bring every collection to the current embedding model."""


@dataclass(frozen=True, eq=False)
class EmbedWith:
    """Embed one collection with a model of its own (an intranet engine's, named as
    ``inference.remote_embed.identity`` names it), or again with the app's (``""``)."""

    collection_id: int
    embedder: str
    done: Future | None = None  # the Collection as it is after the switch


# Events -----------------------------------------------------------------------------
@dataclass(frozen=True)
class Finished:
    report: Report  # no longer touched by the service


@dataclass(frozen=True)
class CollectionsChanged:
    collections: tuple[Collection, ...]
    documents: Mapping[int, tuple[Document, ...]]  # read-only
    # Sent at an unlock before the index has loaded, for the window's list alone: the
    # collections' folders are followed once the load is over (walking them is work on
    # the window's thread, and the check for changes at unlock covers the time between).
    loading: bool = False


@dataclass(frozen=True)
class Ready:
    chunks: int


@dataclass(frozen=True)
class LoadingIndex:
    """How far an unlock that reads the vault's passages row by row has come (no saved
    index, or one far behind: minutes at a large archive), at each whole percent."""

    done: int
    total: int


@dataclass(frozen=True)
class Unavailable:
    """The index could not be loaded at this unlock: a search is refused at once with
    ``message`` (the user's words) until the next, not left waiting for a load that will
    not come. Imports and checks still write to the vault."""

    message: str


@dataclass(frozen=True)
class Busy:
    busy: bool


@dataclass(frozen=True)
class JobFailed:
    message: str  # in the user's words: what stopped, and what was kept


@dataclass(frozen=True)
class SearchNote:
    """Something the user should know about a search that still answered (its collection's
    engine could not embed the question: keywords alone), in the user's words."""

    message: str


Event = Progress | Finished | CollectionsChanged | Ready | Busy | JobFailed | SearchNote
JOBS = (LoadIndex, AddPaths, RefreshAll, DeleteCollection, Reembed, EmbedWith, RemoveDocument, SaveIndex)
WAKE = Wake()


def as_passages(hits: Sequence[Hit]) -> list[Passage]:
    """What the model is given for a search's hits: condensed (weak hits out, overlapping
    neighbours merged, near-duplicates out), numbered from 1 and labelled for citing."""
    return [Passage(n, label(c), c.text, c.path, c.page, c.heading)
            for n, c in enumerate(condense(hits), start=1)]


def closed_error() -> DocumentsUnavailable:
    return DocumentsUnavailable(translate("core.document_protocol",
                                          "Your documents are closed (Hearth is locked or quitting)."))


def what_was_kept(command: object) -> str:
    """What a job that failed leaves as it was, in the user's words."""
    said = {
        AddPaths: translate("core.document_protocol",
                            "The import stopped; the files indexed before it are kept. Add the "
                            "files again to resume."),
        RefreshAll: translate("core.document_protocol",
                              "The check for changed files stopped; your collections are as they were."),
        Reembed: translate("core.document_protocol",
                           "Re-indexing for the new embedding model stopped; your documents still "
                           "answer with the previous model, and it resumes next time."),
        EmbedWith: translate("core.document_protocol",
                             "Re-indexing the collection stopped; it still answers with the model "
                             "it had, and the next run resumes where this one stopped."),
        LoadIndex: translate("core.document_protocol",
                             "Your documents cannot be searched until Hearth is unlocked again."),
        DeleteCollection: translate("core.document_protocol", "The collection was not deleted."),
        RemoveDocument: translate("core.document_protocol", "The file was not removed; it is still "
                                  "in the collection."),
    }
    return said.get(type(command)) or translate("core.document_protocol", "Nothing was lost.")


def message(exc: BaseException, kept: str) -> str:
    """What the user reads: the environment's fault or the engine's words; a bug is logged."""
    found = trouble(exc)
    if found is not None:
        return found.message(kept)
    if isinstance(exc, InferenceError):
        return translate("core.document_protocol", "{error} {kept}").format(error=exc, kept=kept)
    if isinstance(exc, TimeoutError):
        return translate("core.document_protocol",
                         "The model engine did not answer in time. {kept}").format(kept=kept)
    return translate("core.document_protocol",
                     "Hearth ran into an internal error; details are in the log. {kept}").format(kept=kept)


def refuse(command: object) -> None:
    """Answer a command that will not run, so that nobody waits for it forever."""
    for name in ("future", "done"):
        future = getattr(command, name, None)
        if isinstance(future, Future) and not future.done():
            future.set_exception(closed_error())


class Inbox:
    """The service's queue: its arrivals also make ``wake`` readable, so the service thread
    can wait on another pipe (the parser's) and still hear of them. One byte at most is
    outstanding; once closed, ``put`` says no and the caller answers for itself."""

    def __init__(self) -> None:
        self._queue: queue.Queue[Any] = queue.Queue()
        self.wake, self._wake_w = multiprocessing.Pipe(duplex=False)
        self._lock = threading.Lock()
        self._sent = False
        self._closed = False

    def put(self, command: object) -> bool:
        with self._lock:
            if self._closed:
                return False
            self._queue.put(command)
            if not self._sent:
                with contextlib.suppress(OSError):
                    self._wake_w.send_bytes(b"!")
                    self._sent = True
            return True

    def get(self, timeout: float | None = None) -> Any:
        """The next command; queue.Empty after ``timeout``."""
        return self._queue.get(timeout=timeout)

    def _rest(self) -> list[Any]:
        found = []
        while True:
            try:
                found.append(self._queue.get_nowait())
            except queue.Empty:
                return found

    def drain(self) -> list[Any]:
        """Everything waiting, and ``wake`` quiet again."""
        with self._lock:
            if self._sent and not self._closed:
                self.wake.recv_bytes()
                self._sent = False
        return self._rest()

    def close(self) -> list[Any]:
        """No more puts; what was still waiting, to be answered."""
        with self._lock:
            self._closed = True
            self.wake.close()
            self._wake_w.close()
        return self._rest()


class DocumentCalls:
    """The calls that send the commands: safe from any thread. ``post`` is the service's."""

    def post(self, command: object) -> None:
        raise NotImplementedError

    def load_index(self, done: Future | None = None) -> None:
        self.post(LoadIndex(done))

    def add(self, collection_id: int, paths: list[Path], done: Future | None = None) -> None:
        self.post(AddPaths(collection_id, tuple(Path(p) for p in paths), done))

    def refresh_all(self, done: Future | None = None) -> None:
        self.post(RefreshAll(done))

    def sync(self, collection_id: int, done: Future | None = None) -> None:
        """Catch one collection up with its sources (files new, changed, moved or gone)."""
        self.post(RefreshAll(done, collection_id))

    def create(self, name: str) -> Future:
        future: Future = Future()
        self.post(CreateCollection(name, future))
        return future

    def delete(self, collection_id: int, done: Future | None = None) -> None:
        self.post(DeleteCollection(collection_id, done))

    def rename(self, collection_id: int, name: str) -> Future:
        future: Future = Future()
        self.post(RenameCollection(collection_id, name, future))
        return future

    def remove_document(self, collection_id: int, document_id: int, done: Future | None = None) -> None:
        self.post(RemoveDocument(collection_id, document_id, done))

    def save_index(self, done: Future | None = None) -> None:
        self.post(SaveIndex(done))

    def collections(self) -> Future:
        future: Future = Future()
        self.post(ListCollections(future))
        return future

    def surroundings(self, path: str, page: int | None, heading: str | None) -> Future:
        future: Future = Future()
        self.post(Surroundings(path, page, heading, future))
        return future

    def page_picture(self, path: str, page: int, passage: str) -> Future:
        future: Future = Future()
        self.post(PagePicture(path, page, passage, future))
        return future

    def search(self, question: str, vectors: Mapping[str, Any], collection_ids: list[int],
               k: int = 5, mode: str = "hybrid") -> Future:
        future: Future = Future()
        self.post(Search(question, dict(vectors), tuple(collection_ids), future, k, mode))
        return future

    def set_embedding_model(self, model: str) -> None:
        self.post(SetEmbeddingModel(model))

    def embed_with(self, collection_id: int, embedder: str, done: Future | None = None) -> None:
        """Embed one collection with ``embedder`` from now on ("": the app's model)."""
        self.post(EmbedWith(collection_id, embedder, done))

    def cancel(self) -> None:
        self.post(CancelJobs())


