"""The frozen questions through the real document pipeline: both collections imported by
the document service (parsers in their isolated child, OCR, chunking, the embedding model
on the inference worker), questions embedded as the terminal's ``docs search`` embeds them
and searched as it searches."""

from __future__ import annotations

import time
from concurrent.futures import Future
from pathlib import Path
from typing import Any

import numpy as np

from core.document_service import DocumentService
from inference.embedder import profile
from inference.protocol import Embed
from storage.crypto import KdfParams
from storage.vault import Vault
from tests.evalset import Question, Ranked

WAIT = 3600.0
FAST_KDF = KdfParams(memory_kib=64, iterations=1, lanes=1)


class EvalCollections:
    """A vault with the ``en`` and ``zh`` collections (``corpus.build``), indexed by ``model``
    (the sha256 the worker's embedder answers to)."""

    def __init__(self, worker: Any, model: str, corpora: dict[str, Path], folder: Path,
                 files: dict[str, list[Path]] | None = None) -> None:
        """Each of ``corpora`` (name: folder) imported as a collection of that name: the
        folder, or only ``files[name]`` where given."""
        self.worker = worker
        self.model = model
        folder.mkdir(parents=True, exist_ok=True)
        self.vault = Vault.create(folder / "vault.db", "evaluation passphrase", FAST_KDF)
        self.service = DocumentService(self.vault, worker.submit, model, lambda _event: None)
        self.service.start()
        loaded: Future = Future()
        self.service.load_index(done=loaded)
        loaded.result(timeout=WAIT)
        self.ids: dict[str, int] = {}
        self.reports: dict[str, Any] = {}
        self.import_seconds: dict[str, float] = {}
        for name, corpus in corpora.items():
            collection = self.service.create(name).result(timeout=WAIT)
            done: Future = Future()
            started = time.perf_counter()
            self.service.add(collection.id, (files or {}).get(name) or [corpus], done=done)
            self.reports[name] = done.result(timeout=WAIT)
            self.import_seconds[name] = time.perf_counter() - started
            self.ids[name] = collection.id
        self._vectors: dict[tuple[str, bool], np.ndarray] = {}

    def question_vector(self, question: str, prefixed: bool = True) -> np.ndarray:
        """The question embedded as the app embeds it: with the model's query prefix
        (``prefixed=False`` shows what leaving it out costs)."""
        key = (question, prefixed)
        if key not in self._vectors:
            text = profile(self.model).query(question) if prefixed else question.strip()
            future: Future = Future()
            self.worker.submit(Embed((text,), future, self.model))
            self._vectors[key] = future.result(timeout=WAIT)[0]
        return self._vectors[key]

    def hits(self, question: str, collection: str, k: int = 5, mode: str = "hybrid",
             prefixed: bool = True) -> list:
        vectors = {self.model: self.question_vector(question, prefixed)} if mode != "bm25" else {}
        return self.service.search(question, vectors, [self.ids[collection]], k, mode).result(timeout=WAIT)

    def search(self, mode: str = "hybrid", k: int = 5):
        def ranked(q: Question) -> Ranked:
            return [(Path(h.chunk.path).name, h.chunk.page) for h in self.hits(q.question, q.collection, k, mode)]
        return ranked

    def close(self) -> None:
        self.service.close(5.0)
        self.vault.close()
