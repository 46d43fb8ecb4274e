"""Search weighs contents, index and front-matter pages down (not out), and a CJK pair that
no passage holds (most straddle two words of the question) does not fail the keyword
coverage rule for the passage that holds every real word."""

from __future__ import annotations

import numpy as np
import pytest

from storage.documents import search
from storage.documents.indexes import Indexes
from storage.documents.pages import FRONT, NAV
from storage.documents.search import ROLE_WEIGHTS, SearchIndex
from storage.documents.store import StoredChunk
from storage.documents.words import terms


def _chunk(i: int, text: str, role: str = "", collection: int = 1, page: int | None = None
           ) -> StoredChunk:
    return StoredChunk(i, collection, i, text, f"/d/{i}.pdf", page or i, None, 0, len(text),
                       "model", role)


def _unit(*values: float) -> np.ndarray:
    v = np.array(values, dtype=np.float32)
    return v / np.linalg.norm(v)


QUESTION = "fuel dock opening hours"
LISTING = "3.2 Fuel dock opening hours extended"  # a revision list: the best match by words
ANSWER = ("The fuel dock at the head of pontoon F is open from 06:00 to 22:00 every day; its "
          "opening hours are the same on public holidays.")


def _listing_and_answer(role: str) -> SearchIndex:
    index = SearchIndex()
    index.add(_chunk(1, LISTING, role), _unit(1.0, 0.0))  # the closest vector too
    index.add(_chunk(2, ANSWER), _unit(0.9, 0.436))
    return index


def test_without_a_role_the_listing_wins() -> None:
    hits = _listing_and_answer("").search(QUESTION, _unit(1.0, 0.0))
    assert [h.chunk.id for h in hits] == [1, 2]


@pytest.mark.parametrize("role", [NAV, FRONT])
def test_nav_and_front_pages_are_weighed_down(role: str) -> None:
    plain = _listing_and_answer("").search(QUESTION, _unit(1.0, 0.0))
    hits = _listing_and_answer(role).search(QUESTION, _unit(1.0, 0.0))
    assert [h.chunk.id for h in hits] == [2, 1]
    assert ROLE_WEIGHTS[role] < 1.0
    assert hits[1].score == pytest.approx(plain[0].score * ROLE_WEIGHTS[role])
    assert hits[0].score == pytest.approx(plain[1].score)  # a body page keeps its score
    for mode in ("bm25", "vector"):  # the same in each mode alone
        found = _listing_and_answer(role).search(QUESTION, _unit(1.0, 0.0), mode=mode)
        assert [h.chunk.id for h in found] == [2, 1], mode


def test_a_nav_page_alone_is_still_found() -> None:
    index = SearchIndex()
    index.add(_chunk(1, "1.3 Requests and charges ........ 1\n3.2 Fuel dock ........ 3", NAV),
              _unit(1.0, 0.0))
    index.add(_chunk(2, "Barn owls hunt at night."), _unit(0.0, 1.0))
    assert [h.chunk.id for h in index.search("fuel dock", _unit(1.0, 0.0))] == [1]


def test_weights_hold_across_the_indexes_of_several_models() -> None:
    indexes = Indexes()
    indexes.models.update({1: "a", 2: "b"})
    indexes.add(StoredChunk(1, 1, 1, LISTING, "/a.pdf", 2, None, 0, 0, "a", NAV), _unit(1.0, 0.0))
    indexes.add(StoredChunk(2, 2, 2, ANSWER, "/b.pdf", 7, None, 0, 0, "b"), _unit(1.0, 0.0))
    hits = indexes.search(QUESTION, {"a": _unit(1.0, 0.0), "b": _unit(1.0, 0.0)}, [1, 2])
    assert [h.chunk.id for h in hits] == [2, 1]


GARBAGE_QUESTION = "码头的垃圾每天几点收？"
GARBAGE = "每天早上八点在各泊位前的码头收集垃圾。"
FUEL = "加油码头每天早上六点到晚上十点开放。"
BOOMS = "围油栏存放在3号泊位。"


def _harbor() -> SearchIndex:
    index = SearchIndex()
    for i, text in enumerate((GARBAGE, FUEL, BOOMS), start=1):
        index.add(_chunk(i, text), _unit(1.0, float(i)))
    return index


def test_cjk_pairs_found_nowhere_do_not_fail_the_coverage_rule() -> None:
    """The question's pairs 头的, 的垃, 圾每, 天几, 几点, 点收 straddle its words and are in no
    passage; only 码头, 垃圾 and 每天 are real. Counted, they would leave the answer a
    coverage of about 0.13, and hybrid search (the keyword half's only chance here: no
    question vector) would find nothing."""
    index = _harbor()
    found = set(terms(GARBAGE) + terms(FUEL) + terms(BOOMS))
    asked = terms(GARBAGE_QUESTION)
    assert {"码头", "垃圾", "每天"} <= set(asked) and len(set(asked) - found) >= 5
    scores, coverage = index._bm25(GARBAGE_QUESTION, index._mask(None), index._sums(None))
    assert coverage[0] == pytest.approx(1.0)
    assert coverage[1] < search.MIN_COVERAGE and coverage[2] == 0.0  # no 垃圾: still refused
    hits = index.search(GARBAGE_QUESTION, None, mode="hybrid")
    assert [h.chunk.id for h in hits] == [1]


def test_a_cjk_pair_of_another_collection_counts_as_found_nowhere() -> None:
    index = _harbor()
    index.add(_chunk(4, "头的的垃圾每天几点收", collection=2), _unit(0.0, 1.0))
    hits = index.search(GARBAGE_QUESTION, None, collection_ids=[1], mode="hybrid")
    assert [h.chunk.id for h in hits] == [1]
    _scores, coverage = index._bm25(GARBAGE_QUESTION, index._mask([1]), index._sums([1]))
    assert coverage[0] == pytest.approx(1.0)


def test_an_unknown_latin_word_still_counts_against_coverage() -> None:
    index = SearchIndex()
    index.add(_chunk(1, "Barn owls hunt at night."), _unit(1.0, 0.0))
    index.add(_chunk(2, "Foxes dig dens."), _unit(0.0, 1.0))
    assert [h.chunk.id for h in index.search("owls quasar nebula", None, mode="hybrid")] == []
    assert [h.chunk.id for h in index.search("owls quasar nebula", None, mode="bm25")] == [1]
    # beside a Chinese pair found nowhere (not counted), the unknown Latin word still is
    assert index.search("owls quasar 星云", None, mode="hybrid") == []
