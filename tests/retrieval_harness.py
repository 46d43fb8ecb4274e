"""The three labelled retrieval sets through the real document pipeline, for one embedding
model: the English set (``retrieval_set``), the Chinese set (``retrieval_set_zh``) and the
cross-lingual set (``retrieval_set_cross``, asked of the other language's collection).

Used by the tests that hold the figures to their floors and by ``python -m benchmarks
--only retrieval``, which prints them for every embedding model that is here. Questions
are embedded as the app embeds them: with the model's query prefix (``prefixed=False``
shows what leaving it out costs).
"""

from __future__ import annotations

from concurrent.futures import Future
from pathlib import Path
from typing import Any

import numpy as np

from core.document_service import DocumentService
from inference.embedder import profile
from inference.protocol import Embed
from storage.crypto import KdfParams
from storage.vault import Vault
from tests import retrieval_set, retrieval_set_cross, retrieval_set_zh

MODES = ("bm25", "vector", "hybrid")
WAIT = 600.0
FAST_KDF = KdfParams(memory_kib=64, iterations=1, lanes=1)


def write_corpora(folder: Path) -> dict[str, Path]:
    return {retrieval_set_cross.EN: retrieval_set.write_corpus(folder / "en"),
            retrieval_set_cross.ZH: retrieval_set_zh.write_corpus(folder / "zh")}


class Collections:
    """A vault with the English and the Chinese corpus indexed by ``model``."""

    def __init__(self, worker: Any, model: str, corpora: dict[str, Path], folder: Path) -> None:
        self.worker = worker
        self.model = model
        folder.mkdir(parents=True, exist_ok=True)
        self.vault = Vault.create(folder / "vault.db", "retrieval passphrase", FAST_KDF)
        self.service = DocumentService(self.vault, worker.submit, model, lambda _event: None)
        self.service.start()
        loaded: Future = Future()
        self.service.load_index(done=loaded)
        loaded.result(timeout=WAIT)
        self.ids: dict[str, int] = {}
        self.chunks = 0
        for name, corpus in corpora.items():
            collection = self.service.create(name).result(timeout=WAIT)
            done: Future = Future()
            self.service.add(collection.id, [corpus], done=done)
            report = done.result(timeout=WAIT)
            assert len(report.indexed) == 8 and not report.failed, report
            self.ids[name] = collection.id
            self.chunks += report.chunks
        self._vectors: dict[tuple[str, bool], np.ndarray] = {}

    def question_vector(self, question: str, prefixed: bool = True) -> np.ndarray:
        key = (question, prefixed)
        if key not in self._vectors:
            text = profile(self.model).query(question) if prefixed else question.strip()
            future: Future = Future()
            self.worker.submit(Embed((text,), future, self.model))
            self._vectors[key] = future.result(timeout=WAIT)[0]
        return self._vectors[key]

    def hits(self, question: str, corpus: str, mode: str, prefixed: bool = True) -> list:
        vectors = {self.model: self.question_vector(question, prefixed)} if mode != "bm25" else {}
        return self.service.search(question, vectors, [self.ids[corpus]], 5, mode).result(timeout=WAIT)

    def measure(self, prefixed: bool = True, modes: tuple[str, ...] = MODES) -> dict[str, dict[str, dict]]:
        """{set: {mode: {recall@1, recall@5, mrr}}} for the three sets."""
        en, zh = retrieval_set_cross.EN, retrieval_set_cross.ZH
        results: dict[str, dict[str, dict]] = {"en": {}, "zh": {}, "cross": {}}
        for mode in modes:
            results["en"][mode] = retrieval_set.evaluate(
                lambda q, m: [(h.chunk.path, h.chunk.page, h.chunk.heading)
                              for h in self.hits(q, en, m, prefixed)], mode)
            results["zh"][mode] = retrieval_set_zh.evaluate(
                lambda q, m=mode: [Path(h.chunk.path).name for h in self.hits(q, zh, m, prefixed)])
            results["cross"][mode] = retrieval_set_cross.evaluate(
                lambda q, m=mode: [(Path(h.chunk.path).name, h.chunk.text)
                                   for h in self.hits(q.text, q.corpus, m, prefixed)])
        return results

    def close(self) -> None:
        self.service.close(5.0)
        self.vault.close()
