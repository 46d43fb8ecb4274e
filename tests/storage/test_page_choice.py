"""A paged document's first place among the hits goes to the passage that holds the
question's words together (#35: the cited page), among its first passages in the fused
ranking; the documents found and their order do not change."""

from __future__ import annotations

import numpy as np

from storage.documents.page_choice import best_window, chosen
from storage.documents.search import SearchIndex
from storage.documents.store import StoredChunk

FILLER = [f"filler{n}" for n in range(200)]


def _words(at: dict[int, str], length: int) -> str:
    """``length`` filler words with the given words at their places."""
    return " ".join(at.get(n, FILLER[n]) for n in range(length))


def _vector(cosine: float) -> np.ndarray:
    return np.array([cosine, (1 - cosine ** 2) ** 0.5, 0.0, 0.0], dtype=np.float32)


def _index() -> SearchIndex:
    index = SearchIndex(dimensions=4)
    manual = "/docs/kernel-manual.pdf"
    pages = [
        # page 2: every word of the question, twice, but each far from the others; nearest
        # by the vector and by BM25, so first in the fused order
        (2, _words({0: "tainted", 10: "tainted", 60: "module", 70: "module", 120: "signature",
                    130: "signature"}, 150), 0.95),
        # page 3: the three together, once each
        (3, _words({40: "tainted", 41: "module", 42: "signature"}, 150), 0.90),
        # page 4: two of them together
        (4, _words({40: "tainted", 41: "module"}, 150), 0.85),
    ]
    for n, (page, text, cosine) in enumerate(pages):
        index.add(StoredChunk(n + 1, 1, 1, text, manual, page, None, 0, len(text)), _vector(cosine))
    for n in range(20):  # other documents, on other things
        text = _words({5: f"topic{n}"}, 80)
        index.add(StoredChunk(100 + n, 1, 10 + n, text, f"/docs/other-{n}.pdf", 1, None, 0, len(text)),
                  np.array([0.0, 0.0, 1.0, 0.0], dtype=np.float32))
    return index


def test_the_page_holding_the_question_s_words_together_is_cited() -> None:
    index = _index()
    question = "tainted module signature"
    vector = np.array([1.0, 0.0, 0.0, 0.0], dtype=np.float32)
    by_vector = index.search(question, vector, k=3, mode="vector")
    assert [h.chunk.page for h in by_vector] == [2, 3, 4]  # the fused order alone would cite page 2
    hits = index.search(question, vector, k=3, mode="hybrid")
    assert [h.chunk.page for h in hits] == [3, 2, 4]
    assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)
    assert {h.chunk.document_id for h in hits} == {1}
    assert hits[0].chunk.text.split()[40:43] == ["tainted", "module", "signature"]


def test_a_place_beyond_the_hits_can_be_chosen_and_the_other_documents_keep_theirs() -> None:
    index = _index()
    hits = index.search("tainted module signature", np.array([1.0, 0.0, 0.0, 0.0], dtype=np.float32),
                        k=1, mode="hybrid")
    assert [h.chunk.page for h in hits] == [3]  # the document's second passage, past k


def test_best_window_counts_each_word_once_within_one_window() -> None:
    weights = {"a": 1.0, "b": 2.0, "c": 2.5}
    words = ["a", "a", "x", "b"] + ["x"] * 50 + ["c"]
    assert best_window(words, weights, width=4) == 3.0  # a and b; c is far
    assert best_window(words[-3:], weights, width=40) == 2.5  # shorter than a window
    assert best_window(["x"] * 45 + ["c", "b"], weights, width=40) == 4.5  # the last window ends at the end
    assert best_window([], weights) == 0.0 and best_window(words, {}) == 0.0


def test_chosen_needs_more_than_a_swap_of_two() -> None:
    assert chosen([1.0]) == 0
    assert chosen([1.0, 2.0]) == 0  # a tie of the two orders keeps the fused one
    assert chosen([1.0, 3.0, 2.0]) == 1
    assert chosen([3.0, 1.0, 2.0]) == 0
