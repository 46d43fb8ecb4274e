"""Document collections: the ingestion steps into the store and the per-model indexes (no
Qt, no thread).

Files go through: the folder walk (regular files inside the chosen folder only: links
that lead out of it are skipped and reported), the size and type checks, a hash
(duplicates are skipped) and the parse, both in the isolated parser process (time and
memory limits, and stopped by a cancel), token-aware chunking with the embedding
model's tokenizer, embedding in the inference worker (in batches, behind any chat
answer), and the encrypted store; then into the in-memory search index. Each file
gets its own status and reason, and one bad file never stops the rest.

Everything here runs on the document service's thread (``core.document_service``),
which alone owns the store, the indexes and the parser. What the steps need from
outside comes in through ``Steps`` (``core.document_progress``, with the ``Progress`` and
``Report`` they give): the worker's embeddings, the parser, and ``check``, which raises
``Stopped`` when the job must end and answers searches meanwhile.

Every vector is made by a named embedding model, and each collection answers from the
vectors of its recorded model only, in that model's own ``SearchIndex``: two models'
vectors never meet, whatever their sizes. What the model wants around a passage (its
prefix) and how long its chunks are come from its ``EmbeddingProfile``. A collection
moves to another model by ``core.reembedding``.
"""

from __future__ import annotations

import errno
import logging
import os
import stat as stat_module
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np

from core import reembedding
from core.document_progress import Progress, Report, Steps, Stopped
from core.folders import Candidate, expand, identity_of, is_regular
from core.reembedding import CHECK_EVERY
from i18n import translate
from inference.embedder import N_CTX, SPECIAL_TOKENS, profile
from inference.errors import InferenceError
from storage.db import VaultClosed
from storage.documents import parsers, reading
from storage.documents.chunking import MAX_TOKENS, chunk_sections, unit_texts
from storage.documents.index_file import UnusableIndexFile
from storage.documents.indexes import Indexes
from storage.documents.isolation import OCR_MEMORY_LIMIT, IsolatedParser  # noqa: F401 - for app, cli (#37)
from storage.documents.lexicon import lexicon as dictionary  # noqa: F401 - for cli's self-test
from storage.documents.lexicon import warm as warm_dictionary
from storage.documents.parsers import ParseError, Section
from storage.documents.store import (
    FAILED,
    INDEXED,
    PENDING,
    SKIPPED,
    Collection,
    Document,
    DocumentStore,
    StoredChunk,
)
from storage.documents.words import terms  # noqa: F401 - for app (#37)
from storage.errors import trouble, why_kind

log = logging.getLogger(__name__)
SAVE_AFTER = 100  # passages added or taken out before the index is saved again, at least
SAVE_AT_MOST = 5_000  # ...and at most (a fiftieth of the index between)
_UNCHANGED = "unchanged"  # indexed already, the same size and time: nothing to do


def _said(exc: ParseError) -> str:
    """A ParseError's reason with what it says as data, where it has it."""
    if exc.kind:
        try:
            return parsers.reason(exc.kind, exc.values)
        except (KeyError, ValueError, TypeError):
            return str(exc)
    first = exc.args[0] if exc.args else ""
    return first if isinstance(first, str) else str(exc)


def _screen(file: Candidate, record: Document) -> os.stat_result | tuple[str, str, dict[str, Any]]:
    """The file's metadata if its content is to be read, else what becomes of it: a status,
    the reason and the fields to record. Metadata only: the content is read in the parser
    process."""
    path = str(file.path)  # real already: resolving it again would follow a new link
    try:
        info = os.lstat(path)
        if not os.access(path, os.R_OK):
            raise PermissionError(errno.EACCES, "permission denied")
    except OSError as exc:
        reason = getattr(exc, "strerror", None) or str(exc)
        return FAILED, parsers.reason(reading.UNREADABLE, {"error": reason, "why": why_kind(exc)}), {}
    if stat_module.S_ISLNK(info.st_mode) or identity_of(info) != file.identity:
        return FAILED, parsers.reason(reading.CHANGED, {}), {}
    if not is_regular(info):
        return FAILED, parsers.reason(reading.NOT_REGULAR, {}), {}
    if record.status == INDEXED and record.size == info.st_size and record.mtime == info.st_mtime \
            and record.reader == parsers.READER_VERSION:
        return _UNCHANGED, translate("core.documents", "unchanged since it was indexed"), {}
    if record.status == FAILED and file.path.suffix.lower() in reading.AUDIO_SUFFIXES and \
            record.size == info.st_size and record.mtime == info.st_mtime and record.reader == parsers.READER_VERSION:
        # A recording that could not be recognised is not recognised again at every check
        # (half an hour of work each time): only once it changes.
        return _UNCHANGED, translate("core.documents", "unchanged since it could not be read"), {}
    limit = parsers.size_limit(file.path)
    if info.st_size > limit:
        return FAILED, parsers.too_large(info.st_size, limit), {"size": info.st_size, "mtime": info.st_mtime}
    return info


def _this_file_alone(exc: Exception) -> bool:
    """Whether a failure belongs to one file, so that the import goes on with the next:
    not a stop, a locked or closed vault, the machine's trouble (a full disk: every file
    would meet it), the embedding model's or the worker's (no file can be embedded; the
    worker's refusals are InferenceErrors), nor a wait for the worker that ran out."""
    return not isinstance(exc, (Stopped, VaultClosed, InferenceError, TimeoutError)) and trouble(exc) is None


class Ingestion:
    """The steps of loading, importing, refreshing and re-embedding, on the owner's thread."""

    def __init__(self, store: DocumentStore, indexes: Indexes, steps: Steps,
                 between_files: Callable[[], None] | None = None) -> None:
        self.store = store
        self.indexes = indexes
        self.steps = steps
        # Called after each file of an import (the service saves the index there when due:
        # an import of hours has no idle time for it).
        self._between_files = between_files
        self._saved = 0  # the index's changes when it was last saved or restored
        self._removed = 0  # and the passages taken out of it then (``removal_unsaved``)
        self._unsaved = False  # no usable file: the next save is due whatever changed
        self._sealed_with: int | None = None  # the vault's key then (a passphrase change retires it)

    # Index ------------------------------------------------------------------------
    def load(self, documents: Mapping[int, Sequence[Document]] | None = None,
             progress: Callable[[int, int], None] | None = None) -> int:
        """Decrypt the chunks into memory: for each collection, its recorded model's only.
        The index sealed at the last save comes back whole where its rows are unchanged;
        only the rows it does not hold are read and tokenised (``index_file``).

        ``documents``: each collection's documents, where the caller has read them already
        (the service, for the window's list): their paths are taken from them. Otherwise
        they are read here, once for the saved index and the rows both. ``progress(done,
        total)``: the rows read so far, at each whole percent."""
        models = {c.id: c.embedding_model for c in self.store.collections()}
        self.indexes.models.update(models)
        started = time.monotonic()
        paths = ({d.id: d.path for found in documents.values() for d in found} if documents is not None
                 else self.store.document_paths())
        missing = self._restore(paths)
        restored = len(self.indexes)
        read = 0
        total = len(missing) if missing is not None else self.store.chunk_count()
        shown = 0
        for n, (chunk, vector) in enumerate(self.store.iter_chunks(ids=missing, paths=paths), start=1):
            read = n
            if n % CHECK_EVERY == 0:
                self.steps.check()
                if progress is not None and total and (percent := min(100, 100 * n // total)) > shown:
                    shown = percent
                    progress(n, total)
            if models.get(chunk.collection_id) != chunk.model:
                continue  # left by a re-embedding that did not finish: not the answer
            try:
                self.indexes.add(chunk, vector)
            except ValueError:
                log.warning("chunk %d does not fit its model's index: left out", chunk.id)
        log.info("search index loaded in %.1f s: %d passages from the saved index, %d rows read",
                 time.monotonic() - started, restored, read)
        if len(self.indexes):  # passages to ask about, maybe in the other language: read it now
            warm_dictionary()
        return len(self.indexes)

    def _restore(self, paths: Mapping[int, str]) -> list[int] | None:
        """The ids of the rows the saved index does not hold (None: it holds nothing usable,
        so every row is read); ``paths``: each document's path now."""
        key = self.store.sealing_key()  # before the file is read: a change meanwhile makes a save due
        try:
            header, arrays = self.store.saved_index()
        except UnusableIndexFile as exc:
            log.info("the saved search index is not used (%s): it is built from the vault", exc)
            self.store.drop_saved_index()
            self._unsaved = True  # saved as soon as it holds anything
            return None
        except Exception as exc:  # the file is never the truth: whatever it does, the rows answer
            log.warning("the saved search index could not be read (%s): it is built from the vault",
                        type(exc).__name__)
            self.store.drop_saved_index()
            self._unsaved = True
            return None
        rows_now = self.store.chunk_nonces(self.steps.check)
        try:
            self.indexes.restore(header, arrays, paths, rows_now)
        except Exception as exc:
            log.warning("the saved search index does not read (%s): it is built from the vault", type(exc).__name__)
            self.indexes.clear()
            self._unsaved = True
            return None
        del arrays
        # The restored index counts what it left out as changes, and as passages taken out:
        # the file still holds their words, so a save is due (``removal_unsaved``).
        self._saved = self._removed = 0
        self._sealed_with = key
        return np.setdiff1d(rows_now[0], self.indexes.ids(), assume_unique=True).tolist()

    @property
    def removal_unsaved(self) -> bool:
        """Whether passages were taken out of the index (a file removed, gone or read again,
        a collection deleted, rows a load left out) since its file was last written: the
        file still holds their words, headings and vectors, which must not outlive them."""
        return self.indexes.removed > self._removed

    def index_due(self, by_amount: bool = False) -> bool:
        """Whether the index should be saved now: at once after anything was taken out of
        it (``removal_unsaved``, whatever the amount), else when it has changed enough since
        it was saved that the next unlock would read many rows again: a hundred passages,
        or a fiftieth of the index, up to 5,000 (about a second and a half of catching up).
        ``by_amount``: that alone (between the files of an import); a missing file is
        otherwise saved at any change."""
        if not by_amount and self.removal_unsaved:
            return True
        changed = self.indexes.changes - self._saved
        if self._unsaved and not by_amount:
            return changed > 0
        if self._sealed_with is not None and self._sealed_with != self.store.sealing_key():
            # A passphrase change removed the file: the next unlock would read every row
            # (minutes at a million passages) unless it is sealed again under the new key.
            return len(self.indexes) > 0
        return changed > 0 and changed >= max(SAVE_AFTER, min(SAVE_AT_MOST, len(self.indexes) // 50))

    def saved_now(self) -> None:
        """Count the index as saved as it is (after a save that failed: not at once again).
        A file that still holds passages taken out since it was written is deleted instead
        (``drop_stale_index``): the next unlock reads their rows again, but it cannot find
        what was removed."""
        self.drop_stale_index()
        self._saved, self._unsaved, self._sealed_with = self.indexes.changes, False, self.store.sealing_key()
        self._removed = self.indexes.removed

    def drop_stale_index(self) -> bool:
        """Delete the index file if passages were taken out since it was written (a save
        that failed, or that a lock or a quit stopped or came before); True if so. Deleting
        it is enough: it is sealed with the vault's key, and what it held of them goes with
        it (a save writes a partial file and renames it over the old one, which goes then)."""
        if not self.removal_unsaved:
            return False
        try:
            self.store.drop_saved_index()
        except OSError as exc:
            log.warning("the saved search index holds passages taken out since, and could not be deleted (%s)",
                        type(exc).__name__)
            return False
        log.info("the saved search index held passages taken out since: deleted")
        return True

    def save_index(self, check: Callable[[], None]) -> int:
        """Seal the index into its file; its size. ``check`` may raise to stop (the file
        that was there stays)."""
        changes, removed, key = self.indexes.changes, self.indexes.removed, self.store.sealing_key()
        header, items = self.indexes.export(self.store.chunk_nonces(check), check)
        size = self.store.save_index(header, items, check, key)
        self._saved, self._removed, self._unsaved, self._sealed_with = changes, removed, False, key
        return size

    def create(self, name: str, model: str) -> Collection:
        found = self.store.find_collection(name)
        if found is not None:
            return found
        created = replace(self.store.create_collection(name), embedding_model=model)
        self.store.update_collection(created)
        self.indexes.models[created.id] = model
        return created

    def rename(self, collection_id: int, name: str) -> Collection | None:
        """The collection under its new name (None: it is gone). A name another collection
        has is refused by the caller, which knows them all; here it keeps the old one."""
        collection = self.store.get_collection(collection_id)
        name = " ".join(name.split())
        taken = self.store.find_collection(name)
        if collection is None or not name or (taken is not None and taken.id != collection_id):
            return collection
        renamed = replace(collection, name=name)
        self.store.update_collection(renamed)
        return renamed

    def remove_document(self, collection_id: int, document_id: int) -> None:
        """Take one file out of the collection: its passages go from the vault and the index,
        and it is not added again by a check for changes (a folder among the sources still
        holds it) until the user adds it again."""
        collection = self.store.get_collection(collection_id)
        document = next((d for d in self.store.documents(collection_id) if d.id == document_id), None)
        if collection is None or document is None:
            return
        sources = [s for s in collection.sources if s != document.path]
        excluded = sorted({*collection.excluded, document.path}) if sources == collection.sources \
            else collection.excluded
        self.store.update_collection(replace(collection, sources=sources, excluded=excluded))
        self.store.delete_document(document.id)
        self.indexes.remove_document(document.id)

    def delete(self, collection_id: int) -> None:
        self.store.delete_collection(collection_id)
        self.indexes.remove_collection(collection_id)
        self.indexes.models.pop(collection_id, None)

    # Embedding --------------------------------------------------------------------
    def reembed(self, collection: Collection, model: str) -> Collection:
        """The collection's passages embedded with ``model`` and switched to (``core.reembedding``)."""
        return reembedding.reembed(self.store, self.indexes, self.steps, collection, model)

    # Ingestion --------------------------------------------------------------------
    def add(self, collection: Collection, paths: list[Path], model: str) -> Report:
        """Index ``paths`` into ``collection`` with ``model``; resumable (unchanged files are
        skipped). A collection on another model is re-embedded first."""
        report = Report(collection_id=collection.id)
        try:
            if collection.embedding_model != model:
                collection = self.reembed(collection, model)
            given = [str(Path(p).resolve()) for p in paths]
            sources = sorted({*collection.sources, *given})
            # A file the user removed comes back only when added again by itself.
            excluded = [e for e in collection.excluded if e not in given]
            collection = replace(collection, sources=sources, excluded=excluded)
            self.steps.check()
            self.store.update_collection(collection)
            found = expand(paths)
            report.failed += found.failed
            report.skipped += found.skipped
            files = [f for f in found.files if str(f.path) not in excluded]
            state = Progress(files_total=len(files), collection_id=collection.id)
            known = {d.path: d for d in self.store.documents(collection.id)}
            by_hash = {d.sha256: d for d in known.values() if d.status == INDEXED}
            for i, file in enumerate(files):
                self.steps.check()
                state = replace(state, current=file.path.name)
                self.steps.progress(state)
                try:
                    self._add_file(collection, file, model, known, by_hash, report,
                                   after=files[i + 1] if i + 1 < len(files) else None, state=state)
                except Exception as exc:
                    if not _this_file_alone(exc):
                        raise
                    # A fault of this file's alone (a bug it meets): the others still go in.
                    log.error("a file could not be indexed", exc_info=exc)
                    report.failed.append((str(file.path), translate(
                        "core.documents", "Hearth could not index this file (an internal error; the "
                        "details are in the log).")))
                state = replace(state, files_done=state.files_done + 1, chunks_done=report.chunks)
                self.steps.progress(state)
                if self._between_files is not None:
                    self._between_files()
        except Stopped as stop:
            if stop.closing:
                raise
            report.cancelled = True
        return report

    def _add_file(self, collection: Collection, file: Candidate, model: str,
                  known: dict[str, Document], by_hash: dict[str, Document], report: Report,
                  after: Candidate | None = None, state: Progress | None = None) -> None:
        """Index one file; ``after``, the file that comes next, is read ahead meanwhile."""
        path = str(file.path)  # real already: resolving it again would follow a new link
        record = known.get(path) or Document(0, collection.id, path, PENDING)

        def finish(status: str, reason: str = "", **changes: Any) -> None:
            self.steps.check()
            # What it says, kept as data too: said again in the reader's language (#36 item 3).
            notes = changes.get("notes", [])
            said = {"reason": reading.said_of(reason), "notes": [reading.said_of(n) for n in notes]}
            saved = self.store.save_document(replace(record, status=status, reason=reason, said=said,
                                                     **changes))
            known[path] = saved
            if status == INDEXED:
                report.indexed.append(path)
                by_hash[saved.sha256] = saved
            elif status == SKIPPED:
                report.skipped.append((path, reason))
            else:
                report.failed.append((path, reason))

        screened = _screen(file, record)
        if not isinstance(screened, os.stat_result):
            status, reason, changes = screened
            if status == _UNCHANGED:
                report.skipped.append((path, reason))
            else:
                finish(status, reason, **changes)
            return
        info = screened
        try:
            sha = self.steps.digest(file.path, file.identity)
        except ParseError as exc:
            finish(FAILED, _said(exc), size=info.st_size, mtime=info.st_mtime)
            return
        twin = by_hash.get(sha)
        if twin is not None and twin.path != path and not os.path.exists(twin.path):
            # The same file under another name (renamed or moved, its old place empty): its
            # passages stay and say where it is now, read and embedded again for nothing.
            overwritten = known.get(path)
            if overwritten is not None and overwritten.id and overwritten.id != twin.id:
                self.store.delete_document(overwritten.id)  # moved over another file: that one's passages go
                self.indexes.remove_document(overwritten.id)
            moved = self.store.save_document(replace(twin, path=path, size=info.st_size, mtime=info.st_mtime))
            self.indexes.move_document(twin.id, path)
            known.pop(twin.path, None)
            known[path] = by_hash[sha] = moved
            report.skipped.append((path, translate("core.documents", "renamed or moved: its passages were "
                                                   "kept")))
            return
        if twin is not None and twin.path != path:
            twin_name = Path(twin.path).name
            finish(SKIPPED, parsers.reason(reading.SAME_CONTENT, {"name": twin_name}),
                   size=info.st_size, mtime=info.st_mtime, sha256=sha)
            return
        try:
            sections, notes, scanned = self.steps.parse(file.path, file.identity)
            if scanned:
                sections, notes = self._recognise(file, sections, notes, scanned, state)
        except ParseError as exc:
            finish(FAILED, _said(exc), size=info.st_size, mtime=info.st_mtime, sha256=sha,
                   reader=parsers.READER_VERSION)
            return
        if after is not None:  # the parser reads the next file while this one is embedded
            nxt = known.get(str(after.path)) or Document(0, collection.id, str(after.path), PENDING)
            if isinstance(_screen(after, nxt), os.stat_result):
                self.steps.read_ahead(after.path, after.identity)
        # One round trip to the worker for all units, headings and the passage prefix; the
        # pieces of an over-long unit (rare) one more each such unit.
        shape = profile(model)
        prefix = [shape.passage_prefix] if shape.passage_prefix else []
        units = list(dict.fromkeys(unit_texts(sections) + prefix))
        counts = self.steps.count_tokens(units, model) if units else []
        units_cache: dict[str, int] = dict(zip(units, counts, strict=True))

        def count(text: str) -> int:
            return count_many([text])[0]

        def count_many(texts: list[str]) -> list[int]:
            missing = [t for t in dict.fromkeys(texts) if t not in units_cache]
            if missing:
                units_cache.update(zip(missing, self.steps.count_tokens(missing, model), strict=True))
            return [units_cache[t] for t in texts]

        # One input holds N_CTX positions: the special tokens, the prefix, the heading, the text.
        room = N_CTX - SPECIAL_TOKENS - (count(shape.passage_prefix) if shape.passage_prefix else 0)
        chunks = chunk_sections(sections, count, max_tokens=shape.chunk_tokens or MAX_TOKENS, room=room,
                                count_many=count_many)
        matrix = reembedding.embed_chunks(self.steps, chunks, model)
        self.steps.check()
        expected = self.indexes.dimensions(model)
        if expected and len(chunks) and matrix.shape[1] != expected:  # before anything is stored
            raise reembedding.other_size(model, matrix.shape[1], expected)
        record = self.store.save_document(replace(record, status=PENDING, size=info.st_size,
                                                  mtime=info.st_mtime, sha256=sha))
        ids = self.store.replace_chunks(record, chunks, matrix, model)
        self.indexes.remove_document(record.id)
        for chunk_id, chunk, vector in zip(ids, chunks, matrix, strict=True):
            self.indexes.add(StoredChunk(chunk_id, collection.id, record.id, chunk.text, path,
                                         chunk.page, chunk.heading, chunk.start, chunk.end, model,
                                         chunk.role),
                             vector)
        report.chunks += len(chunks)
        finish(INDEXED, "", size=info.st_size, mtime=info.st_mtime, sha256=sha,
               chunks=len(chunks), notes=notes, reader=parsers.READER_VERSION)

    def _recognise(self, file: Candidate, sections: list[Section], notes: list[str], scanned: list[int],
                   state: Progress | None) -> tuple[list[Section], list[str]]:
        """Read the scanned pages by OCR, one request (and one time limit) a page, saying
        how far it is; a page that cannot be read is said in the notes, the rest kept."""
        read: list[Section] = []
        failed: list[int] = []
        began = time.monotonic()
        left = parsers.MAX_CHARS - sum(len(s.text) for s in sections)
        for done, page in enumerate(scanned):
            self.steps.check()
            if left <= 0:
                notes = [*notes, parsers.reason(parsers.TRUNCATED, {"chars": parsers.MAX_CHARS})]
                break
            if state is not None:
                self.steps.progress(replace(state, pages_done=done, pages_total=len(scanned), pages_started=began))
            try:
                text = self.steps.recognise(file.path, file.identity, page)
            except ParseError as exc:
                failed.append(page)
                log.warning("page %d of a scan could not be read: %s", page, exc)
                continue
            if text.strip():
                read.append(Section(text[:left], page=page))
                left -= len(text)
        recognised = {s.page for s in read}
        # The text layer of a page read by recognition gives way (its stray characters).
        sections = [s for s in sections if s.page not in recognised]
        if not sections and not read:
            raise ParseError(parsers.reason(parsers.NO_TEXT if not failed else reading.NO_PAGE_RECOGNISED, {}))
        notes = [*notes, parsers.reason(reading.RECOGNISED, {"pages": len(read)})]
        if failed:
            notes.append(parsers.reason(reading.NOT_RECOGNISED, {"pages": ", ".join(map(str, failed))}))
        merged = sorted([*sections, *read], key=lambda s: (s.page or 0))
        return merged, notes

    def refresh(self, collection: Collection, model: str) -> Report:
        """Catch up with the sources: index what is new or changed (unchanged files, by
        size and time, are not read again), keep the passages of a file renamed or moved
        (found by its content), then drop the files no longer there. Stopped at any point,
        the index is whole: each file's passages change in one step."""
        sources = [Path(s) for s in collection.sources if Path(s).exists()]
        added = self.add(collection, sources, model) if sources else Report(collection_id=collection.id)
        if added.cancelled:
            return added
        gone: list[tuple[str, str]] = []
        try:
            for document in self.store.documents(collection.id):
                if not os.path.exists(document.path):  # a link whose file is gone is gone too
                    self.steps.check()
                    self.store.delete_document(document.id)
                    self.indexes.remove_document(document.id)
                    gone.append((document.path, translate(
                        "core.documents", "no longer there: removed from the collection")))
            current = self.store.get_collection(collection.id)
            if current is not None:
                self.store.update_collection(replace(current, caught_up=time.time()))
        except Stopped as stop:
            if stop.closing:
                raise
            added.cancelled = True
        added.skipped = gone + added.skipped
        return added
