"""The document pipeline with the real embedding model: ingestion, bad input, retrieval quality.

Through ``core.document_service`` as the window and the terminal use it: one service
thread owns the store, the index and the parser; the test waits on the futures its
commands carry.
"""

from __future__ import annotations

import json
import os
import queue
import re
import shutil
from concurrent.futures import Future
from pathlib import Path

import numpy as np
import pytest

from core.document_progress import Progress
from core.document_service import DocumentService
from inference.bundled import embedding_model
from inference.embedder import LlamaEmbedder, profile
from inference.llama_engine import LlamaEngine
from inference.protocol import Embed, LoadEmbedder
from inference.worker import InferenceWorker
from storage.documents.store import FAILED, INDEXED, SKIPPED, DocumentStore
from storage.vault import Vault
from tests import documents_corpus as corpus
from tests import retrieval_set, retrieval_set_zh
from tests.core.test_document_service import build_narrow_model
from tests.storage.conftest import FAST_KDF

pytestmark = pytest.mark.model
WAIT = 120.0
MODEL = embedding_model().sha256


@pytest.fixture(scope="module")
def worker(embedding_model_path: Path):
    events: list = []
    w = InferenceWorker(LlamaEngine, events.append, embedder_factory=LlamaEmbedder)
    w.start()
    w.submit(LoadEmbedder(embedding_model_path, MODEL))
    yield w
    assert w.shutdown(5.0)


class Docs:
    """A started service on a vault, with synchronous calls for the tests."""

    def __init__(self, vault: Vault, worker, model: str = MODEL, sink=None) -> None:
        self.vault = vault
        self.worker = worker
        self.events: queue.Queue = queue.Queue()
        self.sink = sink
        self.service = DocumentService(vault, worker.submit, model, self._event)
        self.service.start()
        loaded: Future = Future()
        self.service.load_index(done=loaded)
        loaded.result(timeout=WAIT)

    def _event(self, event) -> None:
        self.events.put(event)
        if self.sink is not None:
            self.sink(event)

    def collection(self, name: str):
        return self.service.create(name).result(timeout=WAIT)

    def add(self, collection, paths):
        done: Future = Future()
        self.service.add(collection.id, list(paths), done=done)
        return done.result(timeout=WAIT)

    def refresh(self):
        done: Future = Future()
        self.service.refresh_all(done=done)
        return done.result(timeout=WAIT)

    def documents(self, collection):
        return DocumentStore(self.vault).documents(collection.id)  # read as a bystander

    def embed(self, text: str, model: str = MODEL) -> np.ndarray:
        """A question as the app embeds it: with the model's query prefix (e5's "query: ")."""
        future: Future = Future()
        self.worker.submit(Embed((profile(model).query(text),), future, model))
        return future.result(timeout=WAIT)[0]

    def hits(self, question: str, collection, mode: str = "hybrid", model: str = MODEL):
        vectors = {model: self.embed(question, model)} if mode != "bm25" else {}
        return self.service.search(question, vectors, [collection.id], 5, mode).result(timeout=WAIT)

    def close(self) -> None:
        assert self.service.close(5.0)


@pytest.fixture
def documents(tmp_path: Path, worker):
    vault = Vault.create(tmp_path / "vault.db", "documents passphrase", FAST_KDF)
    docs = Docs(vault, worker)
    yield docs
    docs.close()
    vault.close()


@pytest.fixture(scope="module")
def retrieval_results(tmp_path_factory, worker) -> dict[str, dict[str, float]]:
    folder = retrieval_set.write_corpus(tmp_path_factory.mktemp("corpus"))
    vault = Vault.create(tmp_path_factory.mktemp("v") / "vault.db", "p4ssphrase", FAST_KDF)
    docs = Docs(vault, worker)
    collection = docs.collection("eval")
    report = docs.add(collection, [folder])
    assert len(report.indexed) == 8, report

    def search(question: str, mode: str):
        return [(h.chunk.path, h.chunk.page, h.chunk.heading)
                for h in docs.hits(question, collection, mode)]

    results = {mode: retrieval_set.evaluate(search, mode) for mode in ("bm25", "vector", "hybrid")}
    docs.close()
    vault.close()
    out = Path(os.environ.get("HEARTH_RETRIEVAL_REPORT", tmp_path_factory.mktemp("r") / "retrieval.json"))
    out.write_text(json.dumps(results, indent=2))
    return results


def test_hybrid_retrieval_beats_bm25_and_vectors_alone(retrieval_results) -> None:
    bm25, vector, hybrid = (retrieval_results[m] for m in ("bm25", "vector", "hybrid"))
    assert len(retrieval_set.QUESTIONS) >= 40
    assert hybrid["mrr"] > bm25["mrr"] and hybrid["mrr"] > vector["mrr"], retrieval_results
    assert hybrid["recall@5"] >= max(bm25["recall@5"], vector["recall@5"]), retrieval_results
    assert hybrid["recall@5"] >= 0.85, retrieval_results


@pytest.fixture(scope="module")
def chinese_results(tmp_path_factory, worker) -> dict[str, dict[str, float]]:
    """The Chinese set through the real pipeline, and, as the baseline in the same run, the
    same chunks in an index that splits text at non-word characters only (as before)."""
    import re

    from storage.documents import search as search_module
    from storage.documents.words import STOPWORDS

    folder = retrieval_set_zh.write_corpus(tmp_path_factory.mktemp("zh"))
    vault = Vault.create(tmp_path_factory.mktemp("v") / "vault.db", "p4ssphrase", FAST_KDF)
    docs = Docs(vault, worker)
    collection = docs.collection("中文")
    report = docs.add(collection, [folder])
    assert len(report.indexed) == 8, report

    def search(mode: str):
        return lambda question: [Path(h.chunk.path).name for h in docs.hits(question, collection, mode)]

    results = {mode: retrieval_set_zh.evaluate(search(mode)) for mode in ("bm25", "vector", "hybrid")}
    chunks = list(DocumentStore(vault).iter_chunks())
    docs.close()
    vault.close()
    words = re.compile(r"\w+")
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(search_module, "terms", lambda text: [
            w for w in words.findall(text.casefold()) if w not in STOPWORDS])
        baseline = search_module.SearchIndex()
        for chunk, vector in chunks:
            baseline.add(chunk, vector)
        results["bm25, words split at punctuation only"] = retrieval_set_zh.evaluate(
            lambda question: [Path(h.chunk.path).name for h in baseline.search(question, None, 5, mode="bm25")])
    out = Path(os.environ.get("HEARTH_RETRIEVAL_REPORT_ZH", tmp_path_factory.mktemp("r") / "zh.json"))
    out.write_text(json.dumps(results, indent=2, ensure_ascii=False))
    return results


def test_chinese_questions_find_chinese_documents_by_their_words(chinese_results) -> None:
    """Keyword search over character pairs, fillers removed: the right file in the first five
    for most questions, where splitting at punctuation alone found few."""
    bm25 = chinese_results["bm25"]
    before = chinese_results["bm25, words split at punctuation only"]
    assert len(retrieval_set_zh.QUESTIONS) >= 30
    assert bm25["recall@5"] >= 0.85 and bm25["recall@5"] > before["recall@5"], chinese_results
    assert chinese_results["hybrid"]["recall@5"] >= 0.85, chinese_results


def test_a_batch_with_bad_files_indexes_the_good_ones_and_says_why_for_the_rest(
    documents: Docs, tmp_path: Path
) -> None:
    folder = tmp_path / "batch"
    folder.mkdir()
    (folder / "good.md").write_text("# Owls\nBarn owls hunt at night over open fields.\n")
    shutil.copyfile(folder / "good.md", folder / "copy-of-good.md")
    corpus.pdf(folder / "locked.pdf", ["secret"], password="pw")
    (folder / "fake.docx").write_text("not a zip")
    (folder / "noise.txt").write_bytes(os.urandom(2048))
    with open(folder / "huge.txt", "wb") as fh:
        fh.truncate(1 << 30)
    (folder / "loop").symlink_to(folder, target_is_directory=True)  # a symlink loop
    os.mkfifo(folder / "pipe.txt")  # reading it would block the import for ever
    collection = documents.collection("batch")
    report = documents.add(collection, [folder, tmp_path / "missing.pdf"])

    statuses = {Path(d.path).name: (d.status, d.reason) for d in documents.documents(collection)}
    assert statuses["good.md"][0] == INDEXED or statuses["copy-of-good.md"][0] == INDEXED
    assert SKIPPED in (statuses["good.md"][0], statuses["copy-of-good.md"][0])  # the duplicate
    assert statuses["locked.pdf"] == (FAILED, statuses["locked.pdf"][1]) and "password" in statuses["locked.pdf"][1]
    assert "not a zip" in statuses["fake.docx"][1]
    assert "binary" in statuses["noise.txt"][1]
    assert "too large" in statuses["huge.txt"][1]
    assert any("does not exist" in why for _, why in report.failed)
    assert any(path.endswith("pipe.txt") and "not a regular file" in why for path, why in report.failed)
    hits = documents.hits("owls hunting", collection)
    assert hits and Path(hits[0].chunk.path).name in ("good.md", "copy-of-good.md")


def test_unreadable_files_are_reported(documents: Docs, tmp_path: Path, monkeypatch) -> None:
    path = tmp_path / "private.txt"
    path.write_text("text")
    # Root reads anything, so the permission check is made to say no, as it would for a user.
    real_access = os.access
    monkeypatch.setattr(os, "access", lambda p, mode: False if str(p) == str(path) else real_access(p, mode))
    report = documents.add(documents.collection("perm"), [path])
    # Said in the user's words; the system's ("permission denied") are in the log only.
    assert report.failed and report.failed[0][1] == "cannot be read (Hearth is not allowed to read it; check its permissions)"


def test_changed_and_deleted_files_are_noticed(documents: Docs, tmp_path: Path) -> None:
    folder = tmp_path / "watched"
    folder.mkdir()
    (folder / "a.md").write_text("# A\nThe secret word is pelican.\n")
    (folder / "b.md").write_text("# B\nNothing here.\n")
    collection = documents.collection("watched")
    documents.add(collection, [folder])
    (folder / "a.md").write_text("# A\nThe secret word is flamingo now.\n")
    os.utime(folder / "a.md", (1, 1))
    (folder / "b.md").unlink()
    [report] = documents.refresh()
    assert any("no longer there" in why for _, why in report.skipped)
    assert [Path(d.path).name for d in documents.documents(collection)] == ["a.md"]
    texts = [h.chunk.text for h in documents.hits("secret word", collection)]
    assert any("flamingo" in t for t in texts) and not any("pelican" in t for t in texts)


def test_cancel_and_resume(tmp_path: Path, worker) -> None:
    folder = tmp_path / "many"
    folder.mkdir()
    for i in range(6):
        (folder / f"note{i}.md").write_text(f"# Note {i}\nFact number {i} is here.\n")
    vault = Vault.create(tmp_path / "vault.db", "documents passphrase", FAST_KDF)
    docs: Docs
    cancelled: list[int] = []

    def progress(event) -> None:  # on the service's thread, as a window's cancel would come
        if isinstance(event, Progress) and event.files_done >= 2 and not cancelled:
            cancelled.append(event.files_done)
            docs.service.cancel()

    docs = Docs(vault, worker, sink=progress)
    collection = docs.collection("many")
    first = docs.add(collection, [folder])
    assert first.cancelled and 2 <= len(first.indexed) < 6
    docs.sink = None
    second = docs.add(collection, [folder])
    assert len(second.indexed) == 6 - len(first.indexed)
    assert len([s for s in second.skipped if "unchanged" in s[1]]) == len(first.indexed)
    docs.close()
    vault.close()


def test_a_collection_of_another_model_is_re_embedded_before_new_files_join_it(
        tmp_path: Path, worker) -> None:
    """Old behaviour kept: a collection is never filled by two models. New: its passages
    are embedded again from the vault (the files are not parsed again)."""
    narrow = build_narrow_model(tmp_path / "narrow-192.gguf")
    from inference.bundled import sha256_of

    narrow_sha = sha256_of(narrow)
    worker.submit(LoadEmbedder(narrow, narrow_sha))
    folder = tmp_path / "notes"
    folder.mkdir()
    for name in ("a.md", "b.md"):
        (folder / name).write_text(f"# {name}\nSome text about {name}.\n")
    vault = Vault.create(tmp_path / "vault.db", "documents passphrase", FAST_KDF)
    first = Docs(vault, worker)
    collection = first.collection("notes")
    assert len(first.add(collection, [folder]).indexed) == 2
    first.close()

    again = Docs(vault, worker, model=narrow_sha)  # re-embeds (in the background or first)
    (folder / "c.md").write_text("# c.md\nSome text about c.md.\n")
    report = again.add(collection, [folder])
    assert len(report.indexed) == 1 and len([s for s in report.skipped if "unchanged" in s[1]]) == 2
    store = DocumentStore(vault)
    assert store.get_collection(collection.id).embedding_model == narrow_sha
    assert {(c.model, len(v)) for c, v in store.iter_chunks()} == {(narrow_sha, 192)}
    hits = again.hits("text about c.md", collection, model=narrow_sha)
    assert hits and {h.chunk.model for h in hits} == {narrow_sha}
    again.close()
    vault.close()


def test_an_epub_a_presentation_and_a_workbook_are_each_found_by_a_question(documents: Docs, tmp_path: Path) -> None:
    folder = tmp_path / "office"
    folder.mkdir()
    corpus.epub(folder / "guide.epub", [("Arrival", "Visitors arrive by ferry from the mainland."),
                                        ("Wildlife", "Puffins nest on the northern cliffs every spring.")])
    corpus.pptx(folder / "plan.pptx", [("Agenda", "Welcome and introductions", ""),
                                       ("Budget", "The new roof costs 18,000 euros", "Ask the board")])
    corpus.xlsx_shared(folder / "staff.xlsx", {"Rooms": [["Name", "Office"], ["Miriam Okafor", "Room 314"]]})
    collection = documents.collection("office")
    report = documents.add(collection, [folder])
    assert sorted(Path(p).name for p in report.indexed) == ["guide.epub", "plan.pptx", "staff.xlsx"]
    top = documents.hits("Where do puffins nest?", collection)[0].chunk
    assert Path(top.path).name == "guide.epub" and "northern cliffs" in top.text
    top = documents.hits("How much does the roof cost?", collection)[0].chunk
    assert (Path(top.path).name, top.page) == ("plan.pptx", 2)  # the slide is its page
    top = documents.hits("Which office is Miriam Okafor in?", collection)[0].chunk
    assert Path(top.path).name == "staff.xlsx" and "Room 314" in top.text and top.heading == "Rooms"


@pytest.mark.slow
def test_a_scan_and_a_mixed_pdf_are_read_by_ocr_and_cited_by_page(documents: Docs, tmp_path: Path) -> None:
    from tests import scans

    folder = tmp_path / "scans"
    folder.mkdir()
    scans.mixed_pdf(folder / "manual.pdf", [
        "Chapter one. The harbour master opens the gates at dawn and closes them at dusk.",
        scans.page(scans.ENGLISH),
        "Chapter three. Ferries to the island leave from pier four every hour."])
    for leftover in folder.glob("*-scan*.png"):
        leftover.unlink()  # (the page image the mixed PDF was made from)
    scans.page(scans.CHINESE, chinese=True, seed=2, rotation=-0.8).save(folder / "通知.png")
    seen: list = []
    documents.sink = seen.append
    collection = documents.collection("scans")
    report = documents.add(collection, [folder])
    assert sorted(Path(p).name for p in report.indexed) == ["manual.pdf", "通知.png"], report.failed
    states = {Path(d.path).name: d for d in documents.documents(collection)}
    # (No translator in this test: the plural form is the source's, "1 pages".)
    assert [re.sub("pages?", "page", n) for n in states["manual.pdf"].notes] == [
        "1 page read by text recognition (OCR)"], states["manual.pdf"].notes
    pages = [p for p in seen if getattr(p, "pages_total", 0)]
    assert pages and pages[0].pages_total == 1 and pages[0].current == "manual.pdf"  # said while reading
    top = documents.hits("How many steps does the lighthouse staircase have?", collection)[0].chunk
    assert (Path(top.path).name, top.page) == ("manual.pdf", 2) and "143" in top.text
    top = documents.hits("Where do the ferries leave from?", collection)[0].chunk
    assert (Path(top.path).name, top.page) == ("manual.pdf", 3)  # the text layer, as before
    top = documents.hits("灯塔楼梯有多少级台阶？", collection)[0].chunk
    assert Path(top.path).name == "通知.png" and top.page == 1 and "一百四十三" in top.text
