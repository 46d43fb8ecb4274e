"""The document pipeline with the real embedding model: ingestion, bad input, retrieval quality."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from app.documents import Documents
from inference.embedder import LlamaEmbedder
from inference.llama_engine import LlamaEngine
from inference.worker import InferenceWorker
from storage.documents.store import FAILED, INDEXED, SKIPPED
from storage.vault import Vault
from tests import documents_corpus as corpus
from tests import retrieval_set
from tests.storage.conftest import FAST_KDF

pytestmark = pytest.mark.model


@pytest.fixture(scope="module")
def worker(embedding_model_path: Path):
    from inference.protocol import LoadEmbedder

    events = []
    w = InferenceWorker(LlamaEngine, events.append, embedder_factory=LlamaEmbedder)
    w.start()
    w.submit(LoadEmbedder(embedding_model_path))
    yield w
    assert w.shutdown(5.0)


@pytest.fixture
def documents(tmp_path: Path, worker):
    vault = Vault.create(tmp_path / "vault.db", "documents passphrase", FAST_KDF)
    yield Documents(vault, worker.submit, "embedding-sha")
    vault.close()


@pytest.fixture(scope="module")
def retrieval_results(tmp_path_factory, worker) -> dict[str, dict[str, float]]:
    folder = retrieval_set.write_corpus(tmp_path_factory.mktemp("corpus"))
    vault = Vault.create(tmp_path_factory.mktemp("v") / "vault.db", "p4ssphrase", FAST_KDF)
    docs = Documents(vault, worker.submit, "embedding-sha")
    collection = docs.collection("eval", create=True)
    report = docs.add(collection, [folder])
    assert len(report.indexed) == 8, report

    def search(question: str, mode: str):
        vector = docs.embed([question])[0]
        return [(h.chunk.path, h.chunk.page, h.chunk.heading)
                for h in docs.hits(question, vector, [collection.id], k=5, mode=mode)]

    results = {mode: retrieval_set.evaluate(search, mode) for mode in ("bm25", "vector", "hybrid")}
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


def test_a_batch_with_bad_files_indexes_the_good_ones_and_says_why_for_the_rest(
    documents: Documents, tmp_path: Path
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
    collection = documents.collection("batch", create=True)
    report = documents.add(collection, [folder, tmp_path / "missing.pdf"])

    statuses = {Path(d.path).name: (d.status, d.reason) for d in documents.store.documents(collection.id)}
    assert statuses["good.md"][0] == INDEXED or statuses["copy-of-good.md"][0] == INDEXED
    assert SKIPPED in (statuses["good.md"][0], statuses["copy-of-good.md"][0])  # the duplicate
    assert statuses["locked.pdf"] == (FAILED, statuses["locked.pdf"][1]) and "password" in statuses["locked.pdf"][1]
    assert "not a zip" in statuses["fake.docx"][1]
    assert "binary" in statuses["noise.txt"][1]
    assert "too large" in statuses["huge.txt"][1]
    assert any("does not exist" in why for _, why in report.failed)
    hits = documents.hits("owls hunting", documents.embed(["owls hunting"])[0], [collection.id])
    assert hits and Path(hits[0].chunk.path).name in ("good.md", "copy-of-good.md")


def test_unreadable_files_are_reported(documents: Documents, tmp_path: Path, monkeypatch) -> None:
    path = tmp_path / "private.txt"
    path.write_text("text")
    # Root reads anything, so the permission check is made to say no, as it would for a user.
    real_access = os.access
    monkeypatch.setattr(os, "access", lambda p, mode: False if str(p) == str(path) else real_access(p, mode))
    report = documents.add(documents.collection("perm", create=True), [path])
    assert report.failed and "permission denied" in report.failed[0][1]


def test_changed_and_deleted_files_are_noticed(documents: Documents, tmp_path: Path) -> None:
    folder = tmp_path / "watched"
    folder.mkdir()
    (folder / "a.md").write_text("# A\nThe secret word is pelican.\n")
    (folder / "b.md").write_text("# B\nNothing here.\n")
    collection = documents.collection("watched", create=True)
    documents.add(collection, [folder])
    collection = documents.collection("watched")
    (folder / "a.md").write_text("# A\nThe secret word is flamingo now.\n")
    os.utime(folder / "a.md", (1, 1))
    (folder / "b.md").unlink()
    report = documents.refresh(collection)
    assert any("no longer there" in why for _, why in report.skipped)
    assert [Path(d.path).name for d in documents.store.documents(collection.id)] == ["a.md"]
    vector = documents.embed(["secret word"])[0]
    texts = [h.chunk.text for h in documents.hits("secret word", vector, [collection.id])]
    assert any("flamingo" in t for t in texts) and not any("pelican" in t for t in texts)


def test_cancel_and_resume(documents: Documents, tmp_path: Path) -> None:
    import threading

    folder = tmp_path / "many"
    folder.mkdir()
    for i in range(6):
        (folder / f"note{i}.md").write_text(f"# Note {i}\nFact number {i} is here.\n")
    collection = documents.collection("many", create=True)
    cancel = threading.Event()

    def progress(state) -> None:
        if state.files_done >= 2:
            cancel.set()

    first = documents.add(collection, [folder], progress, cancel)
    assert first.cancelled and 2 <= len(first.indexed) < 6
    second = documents.add(documents.collection("many"), [folder])
    assert len(second.indexed) == 6 - len(first.indexed)
    assert len([s for s in second.skipped if "unchanged" in s[1]]) == len(first.indexed)


def test_a_new_embedding_model_indexes_the_collection_again(documents: Documents, tmp_path: Path) -> None:
    folder = tmp_path / "notes"
    folder.mkdir()
    for name in ("a.md", "b.md"):
        (folder / name).write_text(f"# {name}\nSome text about {name}.\n")
    collection = documents.collection("notes", create=True)
    assert len(documents.add(collection, [folder]).indexed) == 2
    documents.embedding_model = "another-model-sha"
    again = documents.add(documents.collection("notes"), [folder])
    assert len(again.indexed) == 2  # not "unchanged": the vectors came from another model
    assert documents.collection("notes").embedding_model == "another-model-sha"
    assert len(documents.index) == 2
