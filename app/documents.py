"""Document collections: ingestion (background-safe, no Qt) and retrieval for answers.

Files go through: the size and type checks, a hash (duplicates are skipped), the
isolated parser (time and memory limits), token-aware chunking with the embedding
model's tokenizer, embedding in the inference worker (in batches, behind any chat
answer), and the encrypted store; then into the in-memory search index. Each file
gets its own status and reason, and one bad file never stops the rest.
"""

from __future__ import annotations

import logging
import os
import threading
import time
from collections.abc import Callable, Iterable
from concurrent.futures import Future
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np

from inference.bundled import sha256_of
from inference.protocol import CountTokens, Embed
from inference.rag import Passage
from storage.documents import parsers
from storage.documents.chunking import chunk_sections, unit_texts
from storage.documents.isolation import IsolatedParser
from storage.documents.parsers import ParseError
from storage.documents.search import Hit, SearchIndex
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
from storage.vault import Vault

log = logging.getLogger(__name__)
EMBED_BATCH = 32
WORKER_TIMEOUT = 600.0


@dataclass
class Progress:
    files_total: int = 0
    files_done: int = 0
    chunks_done: int = 0
    current: str = ""
    started: float = field(default_factory=time.monotonic)

    @property
    def eta_seconds(self) -> float | None:
        if not self.files_done or self.files_done >= self.files_total:
            return None
        rate = (time.monotonic() - self.started) / self.files_done
        return rate * (self.files_total - self.files_done)


@dataclass
class Report:
    indexed: list[str] = field(default_factory=list)
    skipped: list[tuple[str, str]] = field(default_factory=list)
    failed: list[tuple[str, str]] = field(default_factory=list)
    chunks: int = 0
    cancelled: bool = False


def expand(paths: Iterable[Path]) -> tuple[list[Path], list[tuple[str, str]]]:
    """Files under ``paths`` (folders recursively, symlink loops cut); problems found on the way."""
    files: list[Path] = []
    problems: list[tuple[str, str]] = []
    seen_dirs: set[tuple[int, int]] = set()
    seen_files: set[tuple[int, int]] = set()
    for path in paths:
        path = Path(path)
        if not path.exists():
            problems.append((str(path), "does not exist (or is a broken link)"))
            continue
        if path.is_file():
            info = path.stat()
            if (info.st_dev, info.st_ino) not in seen_files:
                seen_files.add((info.st_dev, info.st_ino))
                files.append(path)
            continue
        for root, dirs, names in os.walk(path, followlinks=True, onerror=lambda e: problems.append(
                (str(e.filename), f"cannot be read ({e.strerror})"))):
            info = os.stat(root)
            if (info.st_dev, info.st_ino) in seen_dirs:
                dirs[:] = []  # a symlink loop: this folder was visited already
                continue
            seen_dirs.add((info.st_dev, info.st_ino))
            dirs[:] = sorted(d for d in dirs if not d.startswith("."))
            for name in sorted(names):
                file = Path(root) / name
                if name.startswith(".") or not parsers.supported(file):
                    continue
                try:
                    stat = file.stat()
                except OSError as exc:
                    problems.append((str(file), f"cannot be read ({exc.strerror})"))
                    continue
                if (stat.st_dev, stat.st_ino) not in seen_files:
                    seen_files.add((stat.st_dev, stat.st_ino))
                    files.append(file)
    return files, problems


def label(chunk: StoredChunk) -> str:
    where = f"page {chunk.page}" if chunk.page else (chunk.heading or "")
    name = Path(chunk.path).name
    return f"{name}, {where}" if where else name


class Documents:
    """Collections of one unlocked vault, with their in-memory index. No Qt."""

    def __init__(self, vault: Vault, submit: Callable[[object], None], embedding_model: str) -> None:
        self.store = DocumentStore(vault)
        self.index = SearchIndex()
        self._submit = submit
        self.embedding_model = embedding_model  # sha256 of the model in use
        self._write_lock = threading.Lock()

    # Worker round trips -----------------------------------------------------------
    def _ask(self, command_type, texts: list[str]):
        future: Future = Future()
        self._submit(command_type(tuple(texts), future))
        return future.result(timeout=WORKER_TIMEOUT)

    def embed(self, texts: list[str]) -> np.ndarray:
        return self._ask(Embed, texts)

    def count_tokens(self, texts: list[str]) -> list[int]:
        return self._ask(CountTokens, texts)

    # Index ------------------------------------------------------------------------
    def load_index(self) -> int:
        """Decrypt every chunk into memory; re-embed collections built by another model."""
        for chunk, vector in self.store.iter_chunks():
            self.index.add(chunk, vector)
        return len(self.index)

    def collections(self) -> list[Collection]:
        return self.store.collections()

    def collection(self, name: str, create: bool = False) -> Collection | None:
        found = self.store.find_collection(name)
        if found is None and create:
            found = self.store.create_collection(name)
            found = replace(found, embedding_model=self.embedding_model)
            self.store.update_collection(found)
        return found

    def delete_collection(self, collection_id: int) -> None:
        self.store.delete_collection(collection_id)
        self.index.remove_collection(collection_id)

    # Ingestion --------------------------------------------------------------------
    def add(self, collection: Collection, paths: list[Path], progress: Callable[[Progress], None] | None = None,
            cancel: threading.Event | None = None) -> Report:
        """Index ``paths`` into ``collection``; resumable (unchanged files are skipped)."""
        cancel = cancel or threading.Event()
        sources = sorted({*collection.sources, *(str(Path(p).resolve()) for p in paths)})
        collection = replace(collection, sources=sources)
        if collection.embedding_model != self.embedding_model:
            self._reembed_all(collection)
            collection = replace(collection, embedding_model=self.embedding_model)
        self.store.update_collection(collection)
        files, problems = expand(paths)
        report = Report(failed=list(problems))
        state = Progress(files_total=len(files))
        known = {d.path: d for d in self.store.documents(collection.id)}
        by_hash = {d.sha256: d for d in known.values() if d.status == INDEXED}
        with IsolatedParser() as parser:
            for file in files:
                if cancel.is_set():
                    report.cancelled = True
                    break
                state.current = file.name
                if progress:
                    progress(state)
                self._add_file(collection, file, known, by_hash, parser, report, cancel)
                state.files_done += 1
                state.chunks_done = report.chunks
                if progress:
                    progress(state)
        return report

    def _add_file(self, collection: Collection, file: Path, known: dict[str, Document],
                  by_hash: dict[str, Document], parser: IsolatedParser, report: Report,
                  cancel: threading.Event) -> None:
        path = str(file.resolve())
        record = known.get(path) or Document(0, collection.id, path, PENDING)

        def finish(status: str, reason: str = "", **changes) -> None:
            saved = self.store.save_document(replace(record, status=status, reason=reason, **changes))
            known[path] = saved
            if status == INDEXED:
                report.indexed.append(path)
                by_hash[saved.sha256] = saved
            elif status == SKIPPED:
                report.skipped.append((path, reason))
            else:
                report.failed.append((path, reason))

        try:
            stat = file.stat()
            if not os.access(file, os.R_OK):
                raise PermissionError("permission denied")
        except OSError as exc:
            finish(FAILED, f"cannot be read ({getattr(exc, 'strerror', None) or exc})")
            return
        if record.status == INDEXED and record.size == stat.st_size and record.mtime == stat.st_mtime:
            report.skipped.append((path, "unchanged since it was indexed"))
            return
        limit = parsers.MAX_BYTES.get(file.suffix.lower().lstrip("."), parsers.MAX_TEXT_BYTES)
        if stat.st_size > limit:
            finish(FAILED, f"too large ({stat.st_size / (1 << 20):,.0f} MB; the limit is {limit >> 20} MB)",
                   size=stat.st_size, mtime=stat.st_mtime)
            return
        sha = sha256_of(file)
        twin = by_hash.get(sha)
        if twin is not None and twin.path != path:
            finish(SKIPPED, f"the same content as {Path(twin.path).name}", size=stat.st_size,
                   mtime=stat.st_mtime, sha256=sha)
            return
        try:
            sections, notes = parser.parse(file)
        except ParseError as exc:
            finish(FAILED, str(exc), size=stat.st_size, mtime=stat.st_mtime, sha256=sha)
            return
        # One round trip to the worker for all units; only pieces of over-long units
        # (rare) are counted one by one afterwards.
        units = list(dict.fromkeys(unit_texts(sections)))
        units_cache: dict[str, int] = dict(zip(units, self.count_tokens(units), strict=True)) if units else {}

        def count(text: str) -> int:
            if text not in units_cache:
                units_cache[text] = self.count_tokens([text])[0]
            return units_cache[text]

        chunks = chunk_sections(sections, count)
        vectors = []
        for start in range(0, len(chunks), EMBED_BATCH):
            if cancel.is_set():
                report.cancelled = True
                finish(PENDING, "cancelled before it was finished", size=stat.st_size, sha256=sha)
                return
            batch = chunks[start:start + EMBED_BATCH]
            vectors.append(self.embed([(c.heading + "\n" if c.heading else "") + c.text for c in batch]))
        matrix = np.vstack(vectors) if vectors else np.zeros((0, 1), dtype=np.float32)
        with self._write_lock:
            record = self.store.save_document(replace(record, status=PENDING, size=stat.st_size,
                                                      mtime=stat.st_mtime, sha256=sha))
            ids = self.store.replace_chunks(record, chunks, matrix)
            self.index.remove_document(record.id)
            for chunk_id, chunk, vector in zip(ids, chunks, matrix, strict=True):
                self.index.add(StoredChunk(chunk_id, collection.id, record.id, chunk.text, path,
                                           chunk.page, chunk.heading, chunk.start, chunk.end), vector)
        report.chunks += len(chunks)
        finish(INDEXED, "", size=stat.st_size, mtime=stat.st_mtime, sha256=sha,
               chunks=len(chunks), notes=notes)

    def _reembed_all(self, collection: Collection) -> None:
        """The embedding model changed: forget the old vectors; the files are indexed again."""
        for document in self.store.documents(collection.id):
            self.store.save_document(replace(document, status=PENDING, reason="embedding model changed"))
        self.index.remove_collection(collection.id)

    def refresh(self, collection: Collection, progress=None, cancel=None) -> Report:
        """Notice changed, moved or deleted files: re-index the changed, drop the missing."""
        report = Report()
        for document in self.store.documents(collection.id):
            if not Path(document.path).exists():
                self.store.delete_document(document.id)
                self.index.remove_document(document.id)
                report.skipped.append((document.path, "no longer there: removed from the collection"))
        sources = [Path(s) for s in collection.sources if Path(s).exists()]
        added = self.add(collection, sources, progress, cancel) if sources else Report()
        added.skipped = report.skipped + added.skipped
        return added

    # Retrieval --------------------------------------------------------------------
    def hits(self, question: str, vector, collection_ids: list[int], k: int = 5,
             mode: str = "hybrid") -> list[Hit]:
        return self.index.search(question, vector, k=k, collection_ids=collection_ids, mode=mode)

    def passages(self, question: str, vector, collection_ids: list[int], k: int = 5) -> list[Passage]:
        return [Passage(n, label(h.chunk), h.chunk.text, h.chunk.path, h.chunk.page, h.chunk.heading)
                for n, h in enumerate(self.hits(question, vector, collection_ids, k), start=1)]

    def searcher(self, collection_ids: list[int], k: int = 5) -> Callable[[str, object], list[Passage]]:
        def search(question: str, vector) -> list[Passage]:
            return self.passages(question, vector, collection_ids, k)

        return search
