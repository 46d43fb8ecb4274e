"""The three labelled retrieval sets through the real document pipeline, for one embedding
model: the English set (``retrieval_set``), the Chinese set (``retrieval_set_zh``) and the
cross-lingual set (``retrieval_set_cross``, asked of the other language's collection).

Used by the tests that hold the figures to their floors and by ``python -m benchmarks
--only retrieval``, which prints them for every embedding model that is here. Questions
are embedded as the app embeds them: with the model's query prefix (``prefixed=False``
shows what leaving it out costs).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests import retrieval_set, retrieval_set_cross, retrieval_set_zh
from tests.evalset.runner import FAST_KDF, EvalCollections

__all__ = ["FAST_KDF", "MODES", "WAIT", "Collections", "write_corpora"]
MODES = ("bm25", "vector", "hybrid")
WAIT = 600.0


def write_corpora(folder: Path) -> dict[str, Path]:
    return {retrieval_set_cross.EN: retrieval_set.write_corpus(folder / "en"),
            retrieval_set_cross.ZH: retrieval_set_zh.write_corpus(folder / "zh")}


class Collections(EvalCollections):
    """A vault with the English and the Chinese corpus indexed by ``model``."""

    def __init__(self, worker: Any, model: str, corpora: dict[str, Path], folder: Path) -> None:
        super().__init__(worker, model, corpora, folder)
        for report in self.reports.values():
            assert len(report.indexed) == 8 and not report.failed, report
        self.chunks = sum(report.chunks for report in self.reports.values())

    def measure(self, prefixed: bool = True, modes: tuple[str, ...] = MODES) -> dict[str, dict[str, dict]]:
        """{set: {mode: {recall@1, recall@5, mrr}}} for the three sets."""
        en, zh = retrieval_set_cross.EN, retrieval_set_cross.ZH
        results: dict[str, dict[str, dict]] = {"en": {}, "zh": {}, "cross": {}}
        for mode in modes:
            results["en"][mode] = retrieval_set.evaluate(
                lambda q, m: [(h.chunk.path, h.chunk.page, h.chunk.heading)
                              for h in self.hits(q, en, 5, m, prefixed)], mode)
            results["zh"][mode] = retrieval_set_zh.evaluate(
                lambda q, m=mode: [Path(h.chunk.path).name for h in self.hits(q, zh, 5, m, prefixed)])
            results["cross"][mode] = retrieval_set_cross.evaluate(
                lambda q, m=mode: [(Path(h.chunk.path).name, h.chunk.text)
                                   for h in self.hits(q.text, q.corpus, 5, m, prefixed)])
        return results
