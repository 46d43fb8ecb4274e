"""Retrieval quality: first the frozen evaluation set (``evalset``: real documents, questions
nobody tuned on, a held-out part), the figures the goals are judged by; then the project's
own small labelled sets per embedding model: recall@5 (and recall@1, MRR) of keywords,
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
        # --quick (the test command's form): the default model only.
        models = [*([] if quick else previous_embedding_models()),
                  (resolve_embedding_model(), embedding_model().sha256)]
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
    return evalset(quick) + figures


def evalset(quick: bool = False, modes: tuple[str, ...] = ("hybrid", "bm25", "vector"),
            misses_to: Path | None = None) -> list[Figure]:
    """The frozen evaluation set (tests/evalset): real Debian documentation in both
    languages and every format, the questions written from its meaning and committed before
    any tuning. Figures for the tuning part and the held-out part, per group (en, zh,
    cross), kind and format; ``misses_to`` gets the tuning part's misses, never the
    held-out part's."""
    from inference.bundled import embedding_model, provision
    from inference.embedder import LlamaEmbedder
    from inference.llama_engine import LlamaEngine
    from inference.protocol import LoadEmbedder
    from inference.worker import InferenceWorker
    from tests import evalset
    from tests.evalset import corpus
    from tests.evalset.runner import EvalCollections

    questions = evalset.load()
    if quick:  # a smoke run: every tenth question not about the three books, and only its files
        books = ("debian-reference.", "maint-guide.", "debian-edu-bookworm-manual.")
        questions = [q for q in questions if not q.file.startswith(books)][::10]
    figures: list[Figure] = []
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        os.environ.setdefault("HEARTH_DATA_DIR", str(tmp / "data"))
        folders = corpus.build(tmp / "corpus")
        files = None
        if quick:
            files = {name: sorted({folder / q.file for q in questions if q.collection == name})
                     for name, folder in folders.items()}
        model = embedding_model()
        path = provision(model, tmp / "models")
        worker = InferenceWorker(LlamaEngine, lambda _e: None, embedder_factory=LlamaEmbedder)
        worker.start()
        try:
            worker.submit(LoadEmbedder(path, model.sha256))
            collections = EvalCollections(worker, model.sha256, folders, tmp / "vault", files)
            try:
                for name, report in collections.reports.items():
                    figures.append(Figure(f"evalset import {name}: files indexed", len(report.indexed),
                                          "files", "", {"failed": [str(f) for f in report.failed],
                                                        "chunks": report.chunks,
                                                        "seconds": collections.import_seconds[name]}))
                for mode in modes:
                    results = evalset.evaluate(collections.search(mode), questions)
                    for part in ("tune", "held-out"):
                        for group in ("en", "zh", "cross"):
                            scores = results.get(f"{part}/{group}")
                            if scores is None:
                                continue
                            for key in ("recall@5", "recall@1", "mrr", "page"):
                                figures.append(Figure(f"evalset {mode} {part} {group} {key}",
                                                      scores[key], "share", "", scores))
                    figures.append(Figure(f"evalset {mode} all (slices in detail)",
                                          results["all"]["recall@5"], "share", "", results))
                    if misses_to is not None and mode == "hybrid":
                        tune = [q for q in questions if not q.held_out]
                        misses_to.write_text("\n".join(evalset.misses(collections.search(mode), tune)) + "\n")
            finally:
                collections.close()
        finally:
            worker.shutdown(5)
    return figures
