"""The index changes in place (storage.documents.search, #43): its columns grow by doubling
and a word's postings are appended to, so adds with searches and removals between them
must rank exactly as the same adds made at once with the removals after (the same rows:
ties fall alike). A search before an add caches the words' postings; the next search must
see the passage added after it."""

from __future__ import annotations

import random

import numpy as np
import pytest

from storage.documents.search import SearchIndex
from storage.documents.store import StoredChunk

WORDS = ["harbour", "permit", "mooring", "fee", "anchor", "tide", "contract", "clause", "witness", "hearing", "dosage", "ward", "租金", "合同", "押金", "房东", "维修", "通知", "期限", "违约"]


def _chunk(i: int, rng: random.Random) -> StoredChunk:
    text = " ".join(rng.choice(WORDS) for _ in range(rng.randint(3, 30)))
    return StoredChunk(i, 1 + i % 3, i // 4, text, f"/d/{i // 4}.txt", None, None, 0, len(text), "m",
                       rng.choice(("", "", "nav")))


def _ranked(index: SearchIndex, question: str, vector: np.ndarray, ids: list[int] | None) -> list[tuple[int, float]]:
    return [(hit.chunk.id, round(hit.score, 9)) for hit in index.search(question, vector, k=8, collection_ids=ids)]


@pytest.mark.parametrize("seed", range(5))
def test_a_changed_index_ranks_as_one_built_from_what_is_left(seed: int) -> None:
    rng = random.Random(seed)
    vectors = np.random.default_rng(seed).standard_normal((2600, 8)).astype(np.float32)
    index = SearchIndex(min_cosine=0.1)
    kept: dict[int, StoredChunk] = {}
    gone_documents: set[int] = set()
    questions = [(" ".join(rng.sample(WORDS, 3)), vectors[2500 + q]) for q in range(20)]
    for i in range(2500):  # past two doublings of the columns (1,024 and 2,048 rows)
        chunk = _chunk(i, rng)
        index.add(chunk, vectors[i])
        kept[i] = chunk
        if i % 97 == 0:  # a search between adds caches its words' postings
            index.search(*questions[i % 20])
        if i % 211 == 0 and i:
            document = rng.choice(sorted({c.document_id for c in kept.values()}))
            index.remove_document(document)
            gone_documents.add(document)
            kept = {k: c for k, c in kept.items() if c.document_id != document}
    index.remove_collection(3)
    kept = {k: c for k, c in kept.items() if c.collection_id != 3}

    fresh = SearchIndex(min_cosine=0.1)
    for i in range(2500):
        fresh.add(index.chunks[i], vectors[i])
    for document in gone_documents:
        fresh.remove_document(document)
    fresh.remove_collection(3)
    assert len(index) == len(fresh) == len(kept)
    assert index.count(1) == fresh.count(1) and index.count(3) == 0
    for question, vector in questions:
        for ids in (None, [1], [1, 2]):
            assert _ranked(index, question, vector, ids) == _ranked(fresh, question, vector, ids)


def test_a_passage_added_after_a_search_is_found_by_the_next() -> None:
    index = SearchIndex(min_cosine=0.1)
    rng = random.Random(1)
    for i in range(400):
        text = "an orchid in the greenhouse" if i == 7 else f"filler text number {i}"
        index.add(StoredChunk(i, 1, i, text, "/f.txt", None, None, 0, 1, "m"),
                  np.array([1.0, 0.0, rng.random()], dtype=np.float32))
    assert [h.chunk.id for h in index.search("orchid", None, mode="bm25")] == [7]  # its postings cached
    index.add(StoredChunk(999, 1, 999, "orchid orchid quarantine", "/o.txt", None, None, 0, 1, "m"),
              np.array([0.0, 1.0, 0.0], dtype=np.float32))
    assert [h.chunk.id for h in index.search("orchid", None, mode="bm25")] == [999, 7]
    assert index.search("", np.array([0.0, 1.0, 0.0], dtype=np.float32), mode="vector")[0].chunk.id == 999


def test_the_collections_sums_follow_adds_and_removals_as_a_recount_would() -> None:
    """A search reads each collection's letters, words and passages from sums kept as
    passages come and go (not from every passage each time): they must be what counting
    the live passages says, and what a loaded index recounts."""
    import numpy as np

    from storage.documents.search import SearchIndex
    from storage.documents.store import StoredChunk
    from storage.documents.words import letters, terms

    rng = np.random.default_rng(4)
    index = SearchIndex(4)
    words = ["harbour", "fee", "mooring", "港口", "费用", "泊位", "the", "night"]
    for i in range(300):
        text = " ".join(rng.choice(words, size=int(rng.integers(1, 12))))
        index.add(StoredChunk(i + 1, 1 + i % 4, i // 10, text, "/x", None, None, 0, len(text)), rng.random(4) + 0.1)
    for document in (3, 7, 7, 12):
        index.remove_document(document)
    index.remove_collection(2)

    def counted(ids: list[int] | None) -> list[float]:
        live = [c for c in index.live() if ids is None or c.collection_id in ids]
        cjk = sum(letters(c.text)[0] for c in live)
        total = sum(letters(c.text)[1] for c in live)
        return [cjk, total, sum(len(terms(c.text)) for c in live), len(live)]

    for ids in (None, [1], [1, 3], [2], [2, 4], [9]):
        assert index._sums(ids).tolist() == counted(ids)
    kept = {cid: stats.copy() for cid, stats in index._stats.items()}
    index._recount()
    assert {cid: stats.tolist() for cid, stats in index._stats.items()} == \
        {cid: stats.tolist() for cid, stats in kept.items()}
