"""How keywords and vectors are fused (storage.documents.search): in a collection of real
size every keyword match ranks, as it should for a paraphrased question that shares a
word or two with its passage; in a small one, or for a question in a script the
collection hardly holds, only a match covering half the question's weight does; and a
hit is never returned without some evidence (covering keywords, or a cosine above the
floor). Measured on the frozen evaluation set (tests/evalset)."""

from __future__ import annotations

import numpy as np

from storage.documents import search
from storage.documents.search import SearchIndex
from storage.documents.store import StoredChunk

QUESTION = "How can I keep my disk from silently failing without me noticing?"
# Shares "disk" and "failing" with the question: well under half its weight.
KEYWORD = "A failing disk reports its own health through SMART attributes."
CLOSER = "Backups protect data whatever happens to the machine."


def _chunk(i: int, text: str) -> StoredChunk:
    return StoredChunk(i, 1, i, text, f"/d/{i}.txt", None, None, 0, len(text), "model")


def _unit(*values: float) -> np.ndarray:
    v = np.array(values, dtype=np.float32)
    return v / np.linalg.norm(v)


def _index(fillers: int) -> SearchIndex:
    index = SearchIndex(min_cosine=0.5)
    index.add(_chunk(1, KEYWORD), _unit(0.8, 0.6, 0.0))  # cosine 0.8 with the question
    index.add(_chunk(2, CLOSER), _unit(0.9, 0.436, 0.0))  # cosine 0.9: the vectors' first
    for i in range(fillers):
        index.add(_chunk(10 + i, f"Unrelated passage number {i} about topic{i}."), _unit(0.0, 0.0, 1.0))
    return index


def test_the_question_covers_less_than_half_with_its_keywords() -> None:
    index = _index(search.SMALL_COLLECTION)
    _scores, coverage = index._bm25(QUESTION, index._mask(None), index._sums(None))
    assert 0 < coverage[0] < search.MIN_COVERAGE


def test_in_a_real_sized_collection_a_partial_keyword_match_ranks() -> None:
    index = _index(search.SMALL_COLLECTION)
    hits = index.search(QUESTION, _unit(1.0, 0.0, 0.0), k=2)
    assert [h.chunk.id for h in hits] == [1, 2]  # keywords and vectors agree on 1


def test_in_a_small_collection_only_covering_keyword_matches_rank() -> None:
    index = _index(20)
    hits = index.search(QUESTION, _unit(1.0, 0.0, 0.0), k=2)
    assert [h.chunk.id for h in hits] == [2, 1]  # the vectors alone decide


def test_a_question_in_another_script_is_told_apart() -> None:
    index = _index(search.SMALL_COLLECTION)
    # Chinese, with the two English words the passage holds: it matches them, but the
    # collection is English and the question is not.
    question = "disk 和 failing 是什么意思，我的硬盘会不会在我不知道的情况下坏掉？"
    assert index._cross_script(question, index._sums(None))
    assert not index._cross_script(QUESTION, index._sums(None))


def test_no_evidence_no_hit_whatever_the_size() -> None:
    index = _index(search.SMALL_COLLECTION)
    # Below the cosine floor everywhere, and one shared word of several.
    hits = index.search("Which disk brand do penguins prefer for their igloos?", _unit(-1.0, 0.0, 0.2))
    assert hits == []


def test_a_chinese_collection_is_cjk_despite_its_latin_commands() -> None:
    index = SearchIndex(min_cosine=0.5)
    index.add(_chunk(1, "在编译软件之前，先使用 apt-get install build-essential 安装基本的编译工具，"
                        "然后在源代码目录中运行 make 命令；编译器 gcc 会随这个软件包一起安装。"),
              _unit(1.0, 0.0))
    assert index._cross_script("How do I install the compilers?", index._sums(None))
    assert not index._cross_script("怎样安装编译工具？", index._sums(None))
