"""The index's cosines over int8 codes, and the exact cosines of a question's nearest:
the same passages first as float32 would put there, by SimSIMD and without it."""

from __future__ import annotations

import numpy as np
import pytest

from storage.documents import cosine
from storage.documents.search import CANDIDATES, RESCORED, SearchIndex, top
from storage.documents.store import StoredChunk


def _unit(rows: np.ndarray) -> np.ndarray:
    return rows / np.linalg.norm(rows, axis=-1, keepdims=True)


@pytest.fixture(scope="module")
def clustered() -> tuple[np.ndarray, np.ndarray]:
    """Passages near a few topics (as real embeddings are: many close cosines), and
    questions near the same topics."""
    rng = np.random.default_rng(11)
    centres = rng.standard_normal((40, 384))
    matrix = _unit(centres[rng.integers(0, 40, 20_000)] + 0.6 * rng.standard_normal((20_000, 384)))
    questions = _unit(centres[rng.integers(0, 40, 30)] + 0.6 * rng.standard_normal((30, 384)))
    return matrix.astype(np.float32), questions.astype(np.float32)


@pytest.mark.parametrize("simd", [True, False], ids=["simsimd", "numpy"])
def test_int8_cosines_are_float32_s_within_a_few_thousandths_and_hold_the_nearest(
        clustered, simd: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    if simd:
        assert cosine.simsimd is not None, "simsimd is a dependency (pyproject.toml)"
    else:
        monkeypatch.setattr(cosine, "simsimd", None)
    matrix, questions = clustered
    codes, scales = cosine.coded(matrix)
    assert codes.dtype == np.int8 and scales.dtype == np.float32 and codes.nbytes == matrix.nbytes // 4
    held = []
    for q in questions:
        exact = matrix @ q
        found = cosine.cosines(codes, scales, q)
        assert found.dtype == np.float32 and found.shape == exact.shape
        assert np.abs(found - exact).max() < 4e-3  # the codes' rounding, rows and question
        # What the index takes again from the exact vectors holds the exact first fifty.
        held.append(len(set(top(exact, CANDIDATES).tolist()) & set(top(found, RESCORED).tolist())) / CANDIDATES)
    assert np.mean(held) == 1.0


def test_simsimd_and_numpy_give_the_same_cosines(clustered, monkeypatch: pytest.MonkeyPatch) -> None:
    matrix, questions = clustered
    codes, scales = cosine.coded(matrix[:3000])
    by_simsimd = cosine.cosines(codes, scales, questions[0])
    monkeypatch.setattr(cosine, "simsimd", None)
    assert np.array_equal(cosine.cosines(codes, scales, questions[0]), by_simsimd)


def test_coding_a_block_at_a_time_is_coding_the_whole() -> None:
    rng = np.random.default_rng(2)
    rows = _unit(rng.standard_normal((cosine.BLOCK * 2 + 5, 16))).astype(np.float32)
    codes, scales = cosine.coded(rows)
    one = [cosine.coded(row) for row in rows[-3:]]
    assert np.array_equal(codes[-3:], np.stack([c for c, _s in one]))
    assert np.array_equal(scales[-3:], np.array([s for _c, s in one]))
    assert np.abs(codes).max() == cosine.LEVELS


def test_no_rows_a_zero_vector_and_a_view_of_the_filled_rows() -> None:
    empty = np.zeros((0, 8), dtype=np.int8)
    assert cosine.cosines(empty, np.zeros(0, dtype=np.float32), np.ones(8, dtype=np.float32)).shape == (0,)
    codes, scales = cosine.coded(np.eye(8, dtype=np.float32))
    assert cosine.cosines(codes[:3], scales[:3], np.eye(8, dtype=np.float32)[1]).tolist() == [0.0, 1.0, 0.0]
    zero_codes, zero_scale = cosine.coded(np.zeros(8, dtype=np.float32))
    assert not zero_codes.any() and zero_scale == 1.0


def test_the_index_keeps_int8_codes_and_gives_its_nearest_their_exact_cosine() -> None:
    rng = np.random.default_rng(5)
    index = SearchIndex()
    vectors = rng.standard_normal((200, 16)).astype(np.float32)
    for i, v in enumerate(vectors):
        index.add(StoredChunk(i + 1, 1, i, f"passage {i}", f"/d/{i}.txt", None, None, 0, 9), v)
    assert index._codes.dtype == np.int8
    question = vectors[42] + 0.3 * rng.standard_normal(16).astype(np.float32)
    hits = index.search("", question, k=3, mode="vector")
    assert hits[0].chunk.id == 43
    exact = _unit(vectors[42]) @ _unit(question)
    assert hits[0].cosine == pytest.approx(exact, abs=1e-3)  # float16's rounding, not int8's


def test_the_nearest_are_read_from_the_vault_s_vectors_where_the_index_keeps_none() -> None:
    rng = np.random.default_rng(8)
    vectors = _unit(rng.standard_normal((300, 16))).astype(np.float32)
    asked: list[list[int]] = []

    def read(ids: list[int]) -> dict[int, np.ndarray]:
        asked.append(list(ids))
        return {i: vectors[i - 1] * 2.0 for i in ids if i != 7}  # row 7 gone meanwhile

    index = SearchIndex(vectors=read)
    for i, v in enumerate(vectors):
        index.add(StoredChunk(i + 1, 1, i, f"passage {i}", f"/d/{i}.txt", None, None, 0, 9), v)
    assert index._exact is None
    question = vectors[6] * 0.9 + vectors[10] * 0.4
    hits = {h.chunk.id: h.cosine for h in index.search("", question, k=20, mode="vector")}
    assert len(asked) == 1 and len(asked[0]) == RESCORED
    exact = vectors @ _unit(question)
    for row_id, found in hits.items():
        if row_id == 7:  # no vector read: its code's cosine
            assert found == pytest.approx(exact[6], abs=4e-3) and found != pytest.approx(exact[6], abs=1e-7)
        else:
            assert found == pytest.approx(exact[row_id - 1], abs=1e-6)
    assert 7 in hits and 11 in hits


def test_the_vault_read_holds_no_import_up_and_a_passage_taken_out_meanwhile_is_not_found() -> None:
    """The exact vectors are read from the vault (milliseconds) without the index's lock:
    an import adds and removes passages meanwhile, and what was removed is not a hit."""
    import threading

    rng = np.random.default_rng(9)
    vectors = _unit(rng.standard_normal((300, 16))).astype(np.float32)
    during: list[bool] = []

    def read(ids: list[int]) -> dict[int, np.ndarray]:
        def import_meanwhile() -> None:
            index.add(StoredChunk(1000, 1, 999, "added meanwhile", "/d/new.txt", None, None, 0, 9), vectors[5])
            index.remove_document(5)  # row 6, the nearest
        other = threading.Thread(target=import_meanwhile)
        other.start()
        other.join(timeout=30)
        during.append(not other.is_alive())  # it did not wait for this search to end
        return {i: vectors[5 if i == 1000 else i - 1] for i in ids}

    index = SearchIndex(vectors=read)
    for i, v in enumerate(vectors):
        index.add(StoredChunk(i + 1, 1, i, f"passage {i}", f"/d/{i}.txt", None, None, 0, 9), v)
    hits = [h.chunk.id for h in index.search("", vectors[5], k=5, mode="vector")]
    assert during == [True]
    assert 6 not in hits and len(hits) == 5
    assert index.search("", vectors[5], k=1, mode="vector")[0].chunk.id == 1000  # the next search finds it
