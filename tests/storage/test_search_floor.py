"""Each embedding model's relevance floor: a passage found by vectors alone counts only
above its model's floor (multilingual-e5 puts unrelated texts near 0.7, MiniLM near 0)."""

from __future__ import annotations

import numpy as np

from storage.documents.indexes import Indexes
from storage.documents.search import MIN_COSINE, SearchIndex
from storage.documents.store import StoredChunk


def _chunk(i: int, text: str, model: str) -> StoredChunk:
    return StoredChunk(i, 1, i, text, f"/d/{i}.md", None, None, 0, 0, model)


def _unit(*values: float) -> np.ndarray:
    v = np.array(values, dtype=np.float32)
    return v / np.linalg.norm(v)


def test_a_vector_only_match_below_its_models_floor_is_not_relevant() -> None:
    indexes = Indexes(floor=lambda model: 0.76 if model == "e5" else MIN_COSINE)
    indexes.models[1] = "e5"
    indexes.add(_chunk(1, "Barn owls hunt at night.", "e5"), _unit(1.0, 0.0))
    question = _unit(0.7, 0.714)  # cosine 0.70: what e5 gives an unrelated pair
    assert indexes.search("What is the capital of Peru?", {"e5": question}, [1]) == []
    close = _unit(0.9, 0.436)  # cosine 0.90
    assert [h.chunk.id for h in indexes.search("owls at night", {"e5": close}, [1])] == [1]
    assert SearchIndex().min_cosine == MIN_COSINE  # an index of its own keeps the default
