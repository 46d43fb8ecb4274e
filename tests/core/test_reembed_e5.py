"""The update to multilingual-e5-small: a collection built with all-MiniLM-L6-v2 (the
earlier versions' model, real) is re-embedded with e5 (real) in the background, answers
all the while, and afterwards finds English passages for Chinese questions.

The gate of ``test_document_service`` holds e5's Embed commands at a chosen step, so the
test can search while the re-embedding is under way, close the service there, and let
it resume, with no sleeps.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from core.document_progress import Progress
from inference.bundled import provision, retired_embedding_models, source_path
from inference.embedder import LlamaEmbedder, profile
from inference.llama_engine import LlamaEngine
from inference.protocol import CountTokens, Embed, LoadEmbedder
from inference.worker import InferenceWorker
from storage.documents.store import DocumentStore
from storage.vault import Vault
from tests import retrieval_set
from tests.core.test_document_service import (
    BUNDLED,
    CLOSE_WAIT,
    WAIT,
    Gate,
    Service,
    after_first,
    chunks_by_model,
    embed,
    switched,
)
from tests.storage.conftest import FAST_KDF

pytestmark = [pytest.mark.model, pytest.mark.slow]
E5 = BUNDLED
MINILM = retired_embedding_models()[0].sha256
ENGLISH = "What is the mooring fee per meter?"
CHINESE = "系泊费每米多少钱？"  # the same question: its answer is on harbor.pdf, page 3


@pytest.fixture(scope="module")
def minilm_path(tmp_path_factory) -> Path:
    model = retired_embedding_models()[0]
    if source_path(model) is None:
        pytest.fail("all-MiniLM-L6-v2 is not converted here: run `python3 packaging/bootstrap.py test`")
    return provision(model, tmp_path_factory.mktemp("minilm"))


@pytest.fixture(scope="module")
def worker(embedding_model_path: Path, minilm_path: Path):
    w = InferenceWorker(LlamaEngine, lambda _event: None, embedder_factory=LlamaEmbedder)
    w.start()
    w.submit(LoadEmbedder(minilm_path, MINILM))
    w.submit(LoadEmbedder(embedding_model_path, E5))
    yield w
    assert w.shutdown(5.0)


@pytest.fixture
def vault(tmp_path: Path):
    v = Vault.create(tmp_path / "vault" / "vault.db", "update passphrase", FAST_KDF)
    yield v
    v.close()


@pytest.fixture(scope="module")
def corpus(tmp_path_factory) -> Path:
    return retrieval_set.write_corpus(tmp_path_factory.mktemp("corpus"))


def question(worker, model: str, text: str) -> dict:
    """The question as the app embeds it for ``model``: with its query prefix."""
    return {model: embed(worker, model, profile(model).query(text))}


def first_hit(hits) -> tuple[str, int | None]:
    return (Path(hits[0].chunk.path).name, hits[0].chunk.page) if hits else ("", None)


def test_a_minilm_collection_is_re_embedded_with_e5_and_answers_chinese_questions_after(
        vault: Vault, worker, corpus: Path) -> None:
    before = Service(vault, worker.submit, MINILM)  # the earlier version
    work = before.create("work")
    assert len(before.add(work.id, [corpus]).result(timeout=WAIT).indexed) == 8
    assert before.service.close(CLOSE_WAIT)
    chunks = sum(1 for _ in DocumentStore(vault).iter_chunks())
    assert chunks_by_model(vault) == {MINILM: {384}}

    # The update: the service now embeds with e5, and re-embeds in the background.
    gate = Gate(worker, after_first(E5))
    after = Service(vault, gate.submit, E5)
    assert after.chunks == chunks  # the old index loads whole and answers at once
    gate.wait_held()  # one document re-embedded, the next one waits
    progress = after.until(lambda e: isinstance(e, Progress) and e.reembedding)
    assert progress.collection_id == work.id and progress.files_total == 8
    assert DocumentStore(vault).get_collection(work.id).embedding_model == MINILM
    # Search works meanwhile, on the old vectors only (never e5's against MiniLM's).
    hits = after.search(ENGLISH, question(worker, MINILM, ENGLISH), [work.id])
    assert first_hit(hits) == ("harbor.pdf", 3) and {h.chunk.model for h in hits} == {MINILM}
    hits = after.search(ENGLISH, question(worker, E5, ENGLISH), [work.id])
    assert first_hit(hits) == ("harbor.pdf", 3) and all(h.cosine == -1.0 for h in hits)  # keywords

    held = list(gate.held)
    gate.open()
    after.until(lambda e: switched(e, E5))
    assert chunks_by_model(vault) == {E5: {384}}
    assert sum(1 for _ in DocumentStore(vault).iter_chunks()) == chunks  # the same passages
    hits = after.search(CHINESE, question(worker, E5, CHINESE), [work.id])
    assert first_hit(hits) == ("harbor.pdf", 3), [(h.chunk.path, h.chunk.page) for h in hits]
    assert {h.chunk.model for h in hits} == {E5} and hits[0].cosine > profile(E5).min_cosine
    # Passages were embedded as e5 wants them; the stored text is the document's own.
    texts = [t for c in [*gate.passed, *held] if c.model == E5 for t in c.texts]
    prefix = profile(E5).passage_prefix
    assert prefix and len(texts) == chunks and all(t.startswith(prefix) for t in texts)
    assert not any(c.text.startswith(prefix) for c, _ in DocumentStore(vault).iter_chunks())
    assert after.service.close(CLOSE_WAIT)


def test_the_re_embedding_stops_at_quit_and_resumes_with_the_rest(
        vault: Vault, worker, corpus: Path) -> None:
    before = Service(vault, worker.submit, MINILM)
    work = before.create("work")
    before.add(work.id, [corpus]).result(timeout=WAIT)
    assert before.service.close(CLOSE_WAIT)

    gate = Gate(worker, after_first(E5))
    stopped = Service(vault, gate.submit, E5)
    gate.wait_held()
    assert stopped.service.close(CLOSE_WAIT)  # as if Hearth were locked or quit here
    store = DocumentStore(vault)
    assert store.get_collection(work.id).embedding_model == MINILM  # the old model answers
    done = {d for d, models in store.chunk_models(work.id).items() if E5 in models}
    assert len(done) == 1
    left: dict[int, int] = {}
    for chunk, _vector in store.iter_chunks([work.id]):
        if chunk.model == MINILM and chunk.document_id not in done:
            left[chunk.document_id] = left.get(chunk.document_id, 0) + 1

    counted = Gate(worker, lambda _c: False)
    resumed = Service(vault, counted.submit, E5)
    resumed.until(lambda e: switched(e, E5))
    embedded = [t for c in counted.passed if c.model == E5 for t in c.texts]
    assert len(embedded) == sum(left.values())  # the rest only: the done document is not redone
    assert chunks_by_model(vault) == {E5: {384}}
    hits = resumed.search(CHINESE, question(worker, E5, CHINESE), [work.id])
    assert first_hit(hits) == ("harbor.pdf", 3)
    assert resumed.service.close(CLOSE_WAIT)


def test_new_files_are_cut_for_e5_and_fit_its_input(tmp_path: Path, vault: Vault, worker) -> None:
    """Chunks of at most 256 e5 tokens, and heading + prefix + text within 512 positions."""
    long_text = " ".join(f"Clause {i}: the tenant keeps the stairwell clear at all times." for i in range(300))
    (tmp_path / "lease.md").write_text("# House rules for every tenant of the building\n" + long_text + "\n")
    counted = Gate(worker, lambda _c: False)
    s = Service(vault, counted.submit, E5)
    work = s.create("lease")
    report = s.add(work.id, [tmp_path / "lease.md"]).result(timeout=WAIT)
    assert report.indexed and report.chunks > 5
    texts = [t for c in counted.passed if isinstance(c, Embed) for t in c.texts]
    lengths = count_tokens(worker, texts)
    assert max(lengths) <= 512 - 2
    bodies = count_tokens(worker, [c.text for c, _ in DocumentStore(vault).iter_chunks()])
    assert max(bodies) <= 256 + 8 and sum(bodies) / len(bodies) > 150  # joined units count a bit more
    assert s.service.close(CLOSE_WAIT)


def count_tokens(worker, texts: list[str]) -> list[int]:
    from concurrent.futures import Future

    future: Future = Future()
    worker.submit(CountTokens(tuple(texts), future, E5))
    return future.result(timeout=WAIT)
