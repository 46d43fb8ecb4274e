"""The index's cosines over float16 vectors: the same passages first as float32 would
put there, by SimSIMD and without it."""

from __future__ import annotations

import numpy as np
import pytest

from storage.documents import cosine
from storage.documents.search import SearchIndex, top
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
def test_float16_cosines_are_float32_s_within_a_thousandth_and_keep_the_first_fifty(
        clustered, simd: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    if simd:
        assert cosine.simsimd is not None, "simsimd is a dependency (pyproject.toml)"
    else:
        monkeypatch.setattr(cosine, "simsimd", None)
    matrix, questions = clustered
    half = matrix.astype(np.float16)
    kept = []
    for q in questions:
        exact = matrix @ q
        found = cosine.cosines(half, q)
        assert found.dtype == np.float32 and found.shape == exact.shape
        # float16's rounding of the rows and the question, added in float32 (a kernel that
        # adds in float16, AVX-512 FP16's, is 2.2e-4 off: storage.documents.cosine)
        assert np.abs(found - exact).max() < 1.2e-4
        kept.append(len(set(top(exact, 50).tolist()) & set(top(found, 50).tolist())) / 50)
    assert np.mean(kept) >= 0.99  # the candidates fusion ranks are float32's


def test_no_rows_and_a_view_of_the_filled_rows() -> None:
    assert cosine.cosines(np.zeros((0, 8), dtype=np.float16), np.ones(8, dtype=np.float32)).shape == (0,)
    rows = np.eye(8, dtype=np.float16)
    assert cosine.cosines(rows[:3], np.eye(8, dtype=np.float32)[1]).tolist() == [0.0, 1.0, 0.0]


def test_the_index_keeps_float16_and_ranks_its_nearest_passage_first() -> None:
    rng = np.random.default_rng(5)
    index = SearchIndex()
    vectors = rng.standard_normal((200, 16)).astype(np.float32)
    for i, v in enumerate(vectors):
        index.add(StoredChunk(i + 1, 1, i, f"passage {i}", f"/d/{i}.txt", None, None, 0, 9), v)
    assert index._vectors.dtype == np.float16
    hits = index.search("", vectors[42] * 3, k=3, mode="vector")
    assert hits[0].chunk.id == 43 and hits[0].cosine == pytest.approx(1.0, abs=1e-3)
