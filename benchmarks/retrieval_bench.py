"""Retrieval quality per embedding model: recall@5 (and recall@1, MRR) of keywords,
vectors and hybrid on the English, Chinese and cross-lingual sets, for the default model
and each earlier one that is here (``tests/retrieval_harness.py``), through the real
pipeline. The default model is also measured with its questions embedded without their
query prefix, which is what leaving the prefix out costs.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from benchmarks.common import Figure


def run(quick: bool = False) -> list[Figure]:
    from core.models import previous_embedding_models, resolve_embedding_model
    from inference.bundled import by_sha256, embedding_model
    from inference.embedder import LlamaEmbedder, profile
    from inference.llama_engine import LlamaEngine
    from inference.protocol import LoadEmbedder
    from inference.worker import InferenceWorker
    from tests.retrieval_harness import Collections, write_corpora

    figures: list[Figure] = []
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        os.environ.setdefault("HEARTH_DATA_DIR", str(tmp / "data"))
        models = [*previous_embedding_models(), (resolve_embedding_model(), embedding_model().sha256)]
        worker = InferenceWorker(LlamaEngine, lambda _e: None, embedder_factory=LlamaEmbedder)
        worker.start()
        corpora = write_corpora(tmp / "corpora")
        try:
            for path, sha in models:
                worker.submit(LoadEmbedder(path, sha))
                known = by_sha256(sha)
                name = known.name if known else path.name
                collections = Collections(worker, sha, corpora, tmp / sha[:12])
                try:
                    variants = [(True, "")]
                    if profile(sha).query_prefix and not quick:
                        variants.append((False, ", questions without the query prefix"))
                    for prefixed, note in variants:
                        modes = ("bm25", "vector", "hybrid") if prefixed else ("vector", "hybrid")
                        results = collections.measure(prefixed, modes)
                        for which, by_mode in results.items():
                            for mode, scores in by_mode.items():
                                figures.append(Figure(f"{which} {mode} recall@5, {name}{note}",
                                                      scores["recall@5"], "share", "", scores))
                finally:
                    collections.close()
        finally:
            worker.shutdown(5)
    return figures
