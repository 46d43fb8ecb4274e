"""Page citations on the hard PDF set (``tests/pdf_page_set.py``) with the bundled
embedding model, through the path ``docs search`` takes: the document service's import
(the isolated parser, page roles, chunking, the worker's embeddings, the vault) and its
search, with the question embedded as the terminal embeds it (the model's query prefix).

Contents, index and front-matter pages are weighed down (``search.ROLE_WEIGHTS``), and a
CJK pair found nowhere no longer fails the keyword coverage rule: the first hit from the
right file must carry the right page (±1) for at least 90 % of the questions in each
language, and the labelled retrieval sets must keep what they found before.
"""

from __future__ import annotations

import json
import os
from concurrent.futures import Future
from pathlib import Path

import pytest

from core.document_service import DocumentService
from inference.bundled import embedding_model
from inference.embedder import profile
from inference.protocol import Embed
from inference.worker import InferenceWorker
from storage.vault import Vault
from tests import pdf_page_set
from tests.retrieval_harness import FAST_KDF, WAIT, Collections, write_corpora

pytestmark = [pytest.mark.model, pytest.mark.slow]
E5 = embedding_model().sha256
MODES = ("bm25", "vector", "hybrid")
PAGE_FLOOR = 0.9
# Hybrid recall@5 of multilingual-e5-small (Q4_0) before roles and the CJK coverage rule
# (`python -m benchmarks --only retrieval`): 48 of the 49 English questions, 37 of the 38
# Chinese ones. Neither may drop.
RECALL_BEFORE = {"en": 48 / 49, "zh": 37 / 38}


def _question_vector(worker: InferenceWorker, question: str):
    future: Future = Future()
    worker.submit(Embed((profile(E5).query(question),), future, E5))
    return future.result(timeout=WAIT)[0]


@pytest.fixture(scope="module")
def pages(worker: InferenceWorker, tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict]:
    folder = tmp_path_factory.mktemp("pdf-pages")
    corpus = folder / "corpus"
    corpus.mkdir()
    pdf_page_set.write_corpus(corpus)
    vault = Vault.create(folder / "vault.db", "pages passphrase", FAST_KDF)
    service = DocumentService(vault, worker.submit, E5, lambda _event: None)
    service.start()
    try:
        loaded: Future = Future()
        service.load_index(done=loaded)
        loaded.result(timeout=WAIT)
        collection = service.create("pages").result(timeout=WAIT)
        done: Future = Future()
        service.add(collection.id, [corpus], done=done)
        report = done.result(timeout=WAIT)
        assert len(report.indexed) == len(pdf_page_set.DOCS) and not report.failed, report
        vectors: dict[str, object] = {}

        def ranked(question: pdf_page_set.Question, mode: str) -> list[tuple[str, int | None]]:
            if mode != "bm25" and question.text not in vectors:
                vectors[question.text] = _question_vector(worker, question.text)
            given = {E5: vectors[question.text]} if mode != "bm25" else {}
            hits = service.search(question.text, given, [collection.id], 5, mode).result(timeout=WAIT)
            return [(hit.chunk.path, hit.chunk.page) for hit in hits]

        found = {mode: pdf_page_set.evaluate(lambda q, m=mode: ranked(q, m)) for mode in MODES}
    finally:
        service.close(5.0)
        vault.close()
    out = Path(os.environ.get("HEARTH_PDF_PAGE_REPORT", folder / "pages.json"))
    out.write_text(json.dumps(found, indent=2))
    return found


def test_pdf_questions_cite_the_right_page_in_english_and_chinese(pages) -> None:
    hybrid = pages["hybrid"]
    assert hybrid["page_accuracy_en"] >= PAGE_FLOOR, pages
    assert hybrid["page_accuracy_zh"] >= PAGE_FLOOR, pages
    assert hybrid["file_recall@5_en"] == 1.0 and hybrid["file_recall@5_zh"] == 1.0, pages
    # hybrid is the default of `docs search` and the chat: it beats either half alone
    assert hybrid["page_accuracy_all"] >= max(pages["bm25"]["page_accuracy_all"],
                                              pages["vector"]["page_accuracy_all"]), pages


def test_the_retrieval_sets_keep_their_recall(worker: InferenceWorker,
                                              tmp_path_factory: pytest.TempPathFactory) -> None:
    folder = tmp_path_factory.mktemp("retrieval")
    collections = Collections(worker, E5, write_corpora(folder / "corpora"), folder / "vault")
    try:
        found = collections.measure(modes=("hybrid",))
    finally:
        collections.close()
    for language, before in RECALL_BEFORE.items():
        assert found[language]["hybrid"]["recall@5"] >= before - 1e-9, found
