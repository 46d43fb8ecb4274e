"""The document service: one thread owns the document store, the search indexes and the parser.

Three threads used to touch them (the UI, an import thread, and the inference worker
through a search closure), and lock or quit closed the vault under a running import.
Now commands arrive on a queue and events leave through a plain callable sink, as with
the inference worker; ``app/`` turns the events into queued Qt signals.

Jobs (load the index, import, refresh, re-embed for a new embedding model, delete, save
the index when a terminal command asks) run one after another. Between any two of their
steps, and while they wait for the worker's embeddings or for the parser, the thread
answers the quick commands (search, list, create) and notes the others: a delete cancels
the job busy with its collection and runs right after it, never beside it. ``close``
cancels, kills a parse under way and joins; once the vault refuses connections too,
nothing more is written.

This module is the thread, its inbox and its queue of jobs. What a job does with the
collections is ``core.document_jobs``; the waits of its steps, which keep answering, are
``core.document_steps``; searches, surroundings (a page's text, the passages around one)
and page pictures are ``core.document_lookups``.
"""

from __future__ import annotations

import logging
import math
import threading
import time
from collections import deque
from collections.abc import Callable, Sequence
from concurrent.futures import Future
from dataclasses import replace
from typing import Any

from core.document_jobs import Job, Jobs
from core.document_lookups import AROUND_SIDE, Lookups, ReadAround
from core.document_progress import Report, Stopped
from core.document_protocol import (
    JOBS,
    SEARCH_TIMEOUT,
    AddPaths,
    Busy,
    CancelJobs,
    Close,
    CreateCollection,
    DeleteCollection,
    DocumentCalls,
    EmbedWith,
    Inbox,
    JobFailed,
    ListCollections,
    LoadIndex,
    LoadingIndex,
    PagePicture,
    Ready,
    Reembed,
    RefreshAll,
    RemoveDocument,
    RenameCollection,
    SaveIndex,
    Search,
    SearchNote,
    SetEmbeddingModel,
    Surroundings,
    Unavailable,
    Wake,
    closed_error,
    message,
    refuse,
    what_was_kept,
)
from core.document_steps import ServiceSteps
from core.documents import Ingestion
from core.remote_embedding import is_remote, keywords_alone
from core.retrieval import find, passages
from core.speech import SPEECH_MEMORY_LIMIT, SPEECH_TIMEOUT
from i18n import translate
from inference.embedder import profile
from inference.protocol import CountTokens, Embed
from inference.rag import Passage
from storage.db import VaultClosed
from storage.documents.index_file import KeyChanged
from storage.documents.indexes import Indexes
from storage.documents.isolation import OCR_MEMORY_LIMIT, IsolatedParser
from storage.documents.search import MIN_COSINE
from storage.documents.store import DocumentStore
from storage.vault import Vault

log = logging.getLogger(__name__)
SAVE_ATTEMPTS = 3  # of an index save that passphrase changes overtake, one after another
SAVE_DURING_IMPORT_S = 600.0  # between two saves of the index in the middle of an import, at least
CLOSE_TIMEOUT = 1.5


class DocumentService(DocumentCalls):
    def __init__(self, vault: Vault, submit: Callable[[Embed | CountTokens], None],
                 embedding_model: str,
                 sink: Callable[[object], None], follow_model: bool = True,
                 parser: IsolatedParser | None = None, read_ahead: bool = True,
                 save_when_idle: bool = True) -> None:
        """``submit`` reaches the inference worker; ``embedding_model`` is the sha256 new
        vectors are made with; ``read_ahead``: the parser child reads the next file while
        this one is embedded (off only to measure what it gains: benchmarks/documents_bench);
        with ``follow_model`` collections on another model are
        re-embedded in the background once the index is loaded; without ``save_when_idle``
        (a terminal command that only reads) the index is sealed into its file only when
        asked (``SaveIndex``), never on its own."""
        self._store = DocumentStore(vault)
        # Each model's index keeps its own relevance floor (e5's 0.76, MiniLM's 0.2).
        # The passages' texts stay in the vault, read for the hits (a million passages'
        # are over a gigabyte), and so do their exact vectors, read for a question's
        # nearest: the index holds their words, their vectors' int8 codes and places.
        self._indexes = Indexes(floor=lambda model: profile(model).min_cosine or MIN_COSINE,
                                texts=self._store.chunk_texts, vectors=self._store.chunk_vectors)
        self._submit = submit
        self._sink = sink
        self._model = embedding_model
        self._follow = follow_model
        self._save_when_idle = save_when_idle
        self._saved_at = time.monotonic()  # the index's last save (or the service's start)
        self._load_moved = -math.inf  # when the index's load began or last moved on
        self._parser = parser or IsolatedParser()
        # Text recognition in a child of its own (more memory; started at the first scan).
        self._ocr = IsolatedParser(memory_limit=OCR_MEMORY_LIMIT)
        # Speech recognition for recordings, likewise (#41: more memory, a longer time limit).
        self._speech = IsolatedParser(timeout=SPEECH_TIMEOUT, memory_limit=SPEECH_MEMORY_LIMIT)
        self._inbox = Inbox()
        self._closing = threading.Event()
        steps = ServiceSteps(lambda command: self._submit(command), self._inbox, self._take,
                             self._check, self.post, self._emit, self._closing, self._parser,
                             self._ocr, read_ahead, self._speech)
        self._ingestion = Ingestion(self._store, self._indexes, steps, between_files=self._save_between_files)
        self._jobs = Jobs(self._store, self._ingestion, self._emit)
        # Searches, surroundings and page pictures (in a child of their own).
        self._lookups = Lookups(self._indexes, self._answer, self._store)
        self._pending: deque[Any] = deque()  # jobs, in order (the thread's own)
        self._job: Job | None = None
        self._busy = False
        self._thread = threading.Thread(target=self._run, name="hearth-documents", daemon=True)

    # Called from any thread -------------------------------------------------------
    def start(self) -> None:
        self._thread.start()

    @property
    def is_alive(self) -> bool:
        return self._thread.is_alive()

    def post(self, command: object) -> None:
        if not self._inbox.put(command):
            refuse(command)  # the thread is gone: answer now rather than never

    def find(self, question: str, collection_ids: Sequence[int], models: Sequence[str], k: int = 5,
             mode: str = "hybrid", timeout: float = SEARCH_TIMEOUT,
             missing: Callable[[str, str], None] | None = None) -> Future:
        """A future of the hits for ``question``: embedded on the worker by each of
        ``models``, searched on this service's thread; nothing waits (``core.retrieval``)."""
        def left_out(model: str, why: str) -> None:
            if is_remote(model):  # the user chose that engine: why it did not answer is news
                self._emit(SearchNote(keywords_alone(why)))
            if missing is not None:
                missing(model, why)

        return find(self.search, self._submit, question, collection_ids, models, k, mode, timeout,
                    left_out, self._loading)

    def _loading(self) -> bool:
        """The index is being loaded, and its load moved on within the last SEARCH_TIMEOUT
        (a load that stands still that long is not waited for)."""
        lookups = self._lookups
        return (not lookups.loaded and not lookups.refused and not self._closing.is_set()
                and time.monotonic() - self._load_moved < SEARCH_TIMEOUT)

    def retrieve(self, question: str, collection_ids: Sequence[int], models: Sequence[str],
                 k: int = 5, timeout: float = SEARCH_TIMEOUT) -> Future:
        """A future of the passages a document question's answer is given."""
        return passages(self.find(question, collection_ids, models, k, timeout=timeout))

    def read_around(self, passage: Passage, collection_ids: Sequence[int], before: int = 1,
                    after: int = 1) -> Future:
        """A future of the passages just before and after ``passage`` (one a search gave) in
        its file, at most ``AROUND_SIDE`` each side (``core.document_lookups.Around``), or
        None where no document of ``collection_ids`` holds it: never a passage of another."""
        future: Future = Future()
        self.post(ReadAround(passage.path, passage.page, passage.heading, passage.text,
                             tuple(collection_ids), min(before, AROUND_SIDE), min(after, AROUND_SIDE), future))
        return future

    def close(self, timeout: float = CLOSE_TIMEOUT) -> bool:
        """Cancel, kill a parse under way, and wait for the thread; True if it ended.

        A thread that does not end in time (blocked in a write) writes nothing more once
        the vault is closed: its connection is refused (VaultClosed), which it takes as
        "stopped".
        """
        self._closing.set()
        self._parser.kill()
        self._ocr.kill()
        self._speech.kill()
        self._lookups.pictures.kill()
        self.post(Close())
        if self._thread.is_alive() and threading.current_thread() is not self._thread:
            self._thread.join(timeout)
        ended = not self._thread.is_alive()
        if not ended:  # blocked (in a write): what it ends with is refused, the stale file goes now
            self._drop_stale_index()
        return ended

    # The thread ---------------------------------------------------------------------
    def _emit(self, event: object) -> None:
        try:
            self._sink(event)
        except Exception:  # a broken receiver must not stop the documents
            log.exception("document event sink failed for %s", type(event).__name__)

    def _run(self) -> None:
        try:
            while True:
                if self._closing.is_set():
                    raise Stopped(closing=True)
                if self._pending:
                    self._run_job(self._pending.popleft())
                    continue
                self._set_busy(False)
                if self._save_when_idle:
                    self._save_index()  # answers what comes meanwhile: a job it queued runs next
                if self._pending:
                    continue
                self._take(self._inbox.get())
        except Stopped:
            pass
        except BaseException:  # a bug in the loop itself
            log.exception("the document service stopped by a fault")
            self._emit(JobFailed(translate(
                "core.document_service", "Hearth's document search stopped after an internal "
                "error; details are in the log. Lock and unlock Hearth to restart it.")))
        finally:
            self._drop_stale_index()
            for child in (self._parser, self._ocr, self._speech):
                child.kill()
                child.close()
            for command in [*self._inbox.close(), *self._pending, *self._lookups.waiting]:
                refuse(command)

    def _drop_stale_index(self) -> None:
        """At a lock or a quit (or a fault that ends the thread): if passages were taken out
        of the index since its file was written (the save after a removal had not run, or
        the lock stopped it), the file is deleted, so that what was removed is not left in
        it until the next unlock; that unlock reads the rows instead. Called on this thread
        as it ends, or by ``close`` if it does not end in time (it only reads a count, and
        a save it may still finish writes the index without them). Not by a terminal command
        that only reads: it writes nothing, and took nothing out."""
        if not self._save_when_idle:
            return
        try:
            self._ingestion.drop_stale_index()
        except Exception:  # the lock goes on whatever happens here
            log.exception("the stale search index file could not be deleted")

    def _save_between_files(self) -> None:
        """Between two files of an import: the index is saved too when enough has changed.
        An import of hours (10,000 files) has no idle time, and a lock or a crash during
        it would leave the next unlock reading every passage it had added. The import
        waits for the save; searches are answered meanwhile, and a cancel or a lock stops
        it (the file that was there stays whole). At most every ``SAVE_DURING_IMPORT_S``: a
        save at a million passages takes tens of seconds, which an import whose passages are
        embedded fast (on a GPU) must not pay every few thousand of them."""
        if time.monotonic() - self._saved_at < SAVE_DURING_IMPORT_S:
            return
        self._save_index(self._check, by_amount=True)

    def _save_index(self, check: Callable[[], None] | None = None, by_amount: bool = False) -> None:
        """Seal the index into its file when enough has changed since the last time, while
        nothing else is to do (or when asked: ``SaveIndex``): searches are answered
        meanwhile, and a job that comes, a lock or a quit stops the save (the file that was
        there stays whole). A ``SaveIndex`` that comes meanwhile waits for this save.
        ``check``: what stops it instead (between the files of an import: its own check);
        ``by_amount``: due by the amount changed alone (``Ingestion.index_due``)."""
        if not self._lookups.loaded:
            return
        try:
            if not self._ingestion.index_due(by_amount):
                return
        except VaultClosed as exc:  # locked meanwhile: nothing more is written
            raise Stopped(closing=True) from exc

        def idle_check() -> None:
            self._pump()
            if self._closing.is_set():
                raise Stopped(closing=True)
            if any(not isinstance(job, SaveIndex) for job in self._pending):
                raise Stopped()

        stop_check = check or idle_check
        try:
            for attempt in range(SAVE_ATTEMPTS):
                try:
                    size = self._ingestion.save_index(stop_check)
                    break
                except KeyChanged:  # a passphrase change retired the key midway: under the new one
                    if attempt + 1 == SAVE_ATTEMPTS:
                        raise
            self._saved_at = time.monotonic()
            log.info("search index saved (%d passages, %.1f MB)", len(self._indexes), size / 1e6)
        except Stopped as stop:
            if stop.closing:
                raise
        except VaultClosed as exc:
            raise Stopped(closing=True) from exc
        except Exception as exc:  # a full disk, say: the next unlock reads the vault instead
            if self._closing.is_set() or self._store.vault.closed:
                raise Stopped(closing=True) from exc
            log.warning("the search index was not saved (%s: %s); the next unlock reads the vault",
                        type(exc).__name__, getattr(exc, "strerror", None) or "", exc_info=not isinstance(exc, OSError))
            self._ingestion.saved_now()  # not again until as much has changed again

    def _set_busy(self, busy: bool) -> None:
        if busy != self._busy:
            self._busy = busy
            self._emit(Busy(busy))

    def _pump(self) -> None:
        """Answer what came in meanwhile: called between the steps of a job."""
        for command in self._inbox.drain():
            self._take(command)

    def _check(self) -> None:
        self._pump()
        if self._closing.is_set():
            raise Stopped(closing=True)
        if self._job is not None and self._job.cancelled:
            raise Stopped()

    def _take(self, command: Any) -> None:
        """One command from the inbox: quick ones now, jobs into the queue."""
        if isinstance(command, Close) or self._closing.is_set():
            refuse(command)  # closing: nothing more runs, and nothing is written
            raise Stopped(closing=True)
        if isinstance(command, Wake):
            return
        if isinstance(command, (Search, Surroundings, ReadAround, PagePicture)):
            self._lookups.take(command)
        elif isinstance(command, ListCollections):
            self._answer(command.future, self._jobs.snapshot)
        elif isinstance(command, CreateCollection):
            if self._answer(command.future, lambda: self._ingestion.create(command.name, self._model)):
                self._emit(self._jobs.snapshot())
        elif isinstance(command, RenameCollection):
            if self._answer(command.future, lambda: self._ingestion.rename(command.collection_id, command.name)):
                self._emit(self._jobs.snapshot())
        elif isinstance(command, SetEmbeddingModel):
            self._set_model(command.model)
        elif isinstance(command, CancelJobs):
            # "Cancel import" stops imports and checks, never the index load search waits on.
            if self._job is not None and not isinstance(self._job.command, LoadIndex):
                self._job.cancelled = True
            self._drop(lambda p: isinstance(p, (AddPaths, RefreshAll)))
        elif isinstance(command, DeleteCollection):
            self._delete_soon(command)
        elif isinstance(command, RefreshAll) and any(
                isinstance(p, RefreshAll) and p.collection_id in (0, command.collection_id) for p in self._pending):
            # A burst of changes (a checkout, an unzip) asks again and again: one catch-up
            # already waiting covers them all.
            if command.done is not None and command.done.set_running_or_notify_cancel():
                command.done.set_result([])
        elif isinstance(command, JOBS):
            self._pending.append(command)
        else:
            log.error("the document service got an unknown command %s", type(command).__name__)

    def _answer(self, future: Future, work: Callable[[], Any]) -> bool:
        if not future.set_running_or_notify_cancel():
            return False
        try:
            future.set_result(work())
            return True
        except Exception as exc:
            if not self._closing.is_set() and not isinstance(exc, VaultClosed):
                self._emit(JobFailed(message(exc, translate("core.document_service",
                                                            "Nothing was changed."))))
            future.set_exception(exc)
            return False

    def _set_model(self, model: str) -> None:
        if model == self._model:
            return
        self._model = model
        job = self._job
        if job is not None and job.reembedding and job.model != model:
            job.cancelled = True  # superseded: its work is not the new model's
        if not any(isinstance(p, Reembed) for p in self._pending):
            self._pending.append(Reembed())

    def _delete_soon(self, command: DeleteCollection) -> None:
        """Cancel whatever works on that collection; the delete runs next, after it."""
        cid = command.collection_id
        job = self._job
        if job is not None and job.collection_id == cid:
            job.cancelled = True
            job.again = isinstance(job.command, (RefreshAll, Reembed))
        self._drop(lambda p: isinstance(p, AddPaths) and p.collection_id == cid)
        self._pending.appendleft(command)

    def _drop(self, which: Callable[[Any], bool]) -> None:
        """Take queued jobs off the queue; whoever waits for one learns it was cancelled."""
        kept: deque[Any] = deque()
        for job in self._pending:
            if not which(job):
                kept.append(job)
                continue
            done = getattr(job, "done", None)
            if done is not None and done.set_running_or_notify_cancel():
                cid = getattr(job, "collection_id", 0)
                done.set_result(Report(cancelled=True, collection_id=cid)
                                if isinstance(job, AddPaths) else [])
        self._pending = kept

    # Jobs ---------------------------------------------------------------------------
    def _run_job(self, command: Any) -> None:
        self._set_busy(True)
        job = self._job = Job(command, self._model)
        done: Future | None = getattr(command, "done", None)
        if done is not None and not done.set_running_or_notify_cancel():
            done = None
        try:
            result = self._do(job)
            if done is not None:
                done.set_result(result)
        except (Stopped, VaultClosed) as exc:
            if done is not None:
                done.set_exception(closed_error())
            raise Stopped(closing=True) from exc
        except Exception as exc:
            if self._closing.is_set() or self._store.vault.closed:  # the vault went: stopped
                if done is not None:
                    done.set_exception(closed_error())
                raise Stopped(closing=True) from exc
            log.error("a document job failed: %s", type(command).__name__, exc_info=exc)
            self._emit(JobFailed(message(exc, what_was_kept(command))))
            if done is not None:  # after the message, so that a waiter has read it too
                done.set_exception(exc)
        finally:
            self._job = None
            if not self._closing.is_set():
                self._parser.close()  # no idle child between jobs
                self._ocr.close()
                self._speech.close()
        if job.again:
            self._pending.insert(min(1, len(self._pending)), command)

    def _do(self, job: Job) -> Any:
        """One job; Stopped(closing) goes up, a user's cancel ends it quietly."""
        command = job.command
        try:
            if isinstance(command, LoadIndex):
                return self._load()
            if isinstance(command, AddPaths):
                return self._jobs.add(job, command)
            if isinstance(command, RefreshAll):
                return self._jobs.refresh(job, command.collection_id)
            if isinstance(command, Reembed):
                return self._jobs.reembed(job)
            if isinstance(command, EmbedWith):
                return self._jobs.embed_with(job, command)
            if isinstance(command, DeleteCollection):
                self._ingestion.delete(command.collection_id)
                self._emit(self._jobs.snapshot())
                return None
            if isinstance(command, RemoveDocument):
                self._ingestion.remove_document(command.collection_id, command.document_id)
                self._emit(self._jobs.snapshot())
                return None
            if isinstance(command, SaveIndex):
                self._save_index()
                return None
        except Stopped as stop:
            if stop.closing:
                raise
        return None

    def _load(self) -> int:
        if self._lookups.loaded:  # once per service: a second load would add every chunk twice
            return len(self._indexes)
        # Each document's record is decrypted once at unlock, for the passages' paths and
        # the window's list both: none changes during the load (only quick commands run
        # meanwhile), while a collection may be created or renamed, so those are read again.
        # The window lists them at once: a large archive's index takes seconds to load, and
        # an empty list meanwhile reads as documents lost.
        self._load_moved = time.monotonic()
        listed = self._jobs.snapshot()
        self._emit(replace(listed, loading=True))
        documents = listed.documents

        def moved(done: int, total: int) -> None:
            self._load_moved = time.monotonic()
            self._emit(LoadingIndex(done, total))

        try:
            chunks = self._ingestion.load(documents, moved)
        except Exception as exc:
            if not isinstance(exc, (Stopped, VaultClosed)) and not self._closing.is_set() \
                    and not self._store.vault.closed:
                # A read error, say: a question must not wait for a load that will not come.
                said = message(exc, what_was_kept(LoadIndex()))
                self._lookups.unavailable(said)
                self._emit(Unavailable(said))
            raise
        for search in self._lookups.loaded_now():
            self._take(search)
        self._emit(Ready(chunks))
        snapshot = self._jobs.snapshot(documents)
        self._emit(snapshot)
        self._pump()  # a model change that came meanwhile decides what re-embedding is due
        due = any(c.behind(self._model) for c in snapshot.collections)
        if self._follow and due and not any(isinstance(p, Reembed) for p in self._pending):
            self._pending.append(Reembed())
        return chunks
