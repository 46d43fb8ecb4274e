"""The indexes of every embedding model, and which answers for each collection.

One ``SearchIndex`` holds the vectors of one model; ``Indexes`` keeps one per model,
routes each collection's passages and questions to its model's, merges the hits of
several, and seals and restores them all as one file (``index_file``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

from storage.documents.index_file import Item
from storage.documents.search import MIN_COSINE, Hit, SearchIndex, Texts, Vectors, nonces_of
from storage.documents.store import StoredChunk


class Indexes:
    """One SearchIndex per embedding model; each collection answers from its model's."""

    def __init__(self, floor: Callable[[str], float] | None = None, texts: Texts | None = None,
                 vectors: Vectors | None = None) -> None:
        self._by_model: dict[str, SearchIndex] = {}
        self._texts = texts  # where the passages' texts are read (``SearchIndex.texts``)
        self._vectors = vectors  # and their exact vectors (``SearchIndex.vectors``)
        self.models: dict[int, str] = {}  # collection id -> the model whose vectors answer
        self._floor = floor or (lambda _model: MIN_COSINE)  # each model's relevance floor

    def index(self, model: str) -> SearchIndex:
        if model not in self._by_model:
            self._by_model[model] = SearchIndex(model=model, min_cosine=self._floor(model), texts=self._texts,
                                                 vectors=self._vectors)
        return self._by_model[model]

    def __len__(self) -> int:
        return sum(len(index) for index in self._by_model.values())

    def dimensions(self, model: str) -> int:
        """The size of ``model``'s vectors here, 0 while it has none."""
        index = self._by_model.get(model)
        return index.dimensions if index is not None else 0

    def count(self, collection_id: int) -> int:
        model = self.models.get(collection_id)
        index = self._by_model.get(model) if model is not None else None
        return index.count(collection_id) if index is not None else 0

    def clear(self) -> None:
        self._by_model.clear()

    @property
    def changes(self) -> int:
        return sum(index.changes for index in self._by_model.values())

    @property
    def removed(self) -> int:
        """Live passages taken out since each index was made or restored (``SearchIndex.removed``)."""
        return sum(index.removed for index in self._by_model.values())

    def ids(self) -> np.ndarray:
        """The row ids of every live passage."""
        found = [index.ids() for index in self._by_model.values()]
        return np.concatenate(found) if found else np.zeros(0, dtype=np.int64)

    def export(self, rows_now: tuple[np.ndarray, np.ndarray], check: Callable[[], None] = lambda: None,
               ) -> tuple[dict[str, Any], list[Item]]:
        """Every index as the items of a sealed file (``SearchIndex.export``)."""
        described: list[dict[str, Any]] = []
        items: list[Item] = []
        for i, index in enumerate(self._by_model.values()):
            said, its = index.export(f"{i}.", lambda ids: nonces_of(ids, *rows_now), check)
            described.append(said)
            items += its
        return {"indexes": described}, items

    def restore(self, header: Mapping[str, Any], arrays: Mapping[str, np.ndarray], paths: Mapping[int, str],
                rows_now: tuple[np.ndarray, np.ndarray]) -> None:
        """The indexes a sealed file held, less what is not so in the rows now and the
        passages of a model their collection no longer answers with."""
        restored = [SearchIndex.restore(said, arrays, f"{i}.", paths, rows_now, self._texts, self._vectors)
                    for i, said in enumerate(header["indexes"])]
        for index in restored:
            index.min_cosine = self._floor(index.model)  # today's floor for the model
            for collection_id in list(index._by_collection):
                if self.models.get(collection_id) != index.model:
                    index.remove_collection(collection_id)
            self._by_model[index.model] = index

    def add(self, chunk: StoredChunk, vector: np.ndarray) -> None:
        """ValueError if the vector does not fit its model's index (another size)."""
        self.index(chunk.model).add(chunk, vector)

    def move_document(self, document_id: int, path: str) -> None:
        for index in self._by_model.values():
            index.move_document(document_id, path)

    def remove_document(self, document_id: int) -> None:
        for index in self._by_model.values():
            index.remove_document(document_id)

    def remove_collection(self, collection_id: int) -> None:
        for index in self._by_model.values():
            index.remove_collection(collection_id)

    def section(self, path: str, page: int | None, heading: str | None) -> list[StoredChunk]:
        """The chunks of one page (or section) of the file at ``path``, as the collections
        answering now hold them: those of one document (the first found), in reading order."""
        found = [(c, index) for model, index in self._by_model.items() for c in index.on_page(path, page, heading)
                 if self.models.get(c.collection_id) == model]
        if not found:
            return []
        document = min(c.document_id for c, _index in found)
        held = [c for c, _index in found if c.document_id == document]
        index = next(index for c, index in found if c.document_id == document)
        return sorted(index.with_texts(held), key=lambda c: (c.start, c.end))

    def search(self, question: str, vectors: Mapping[str, Any], collection_ids: list[int],
               k: int = 5, mode: str = "hybrid") -> list[Hit]:
        """Each collection in its model's index, with that model's question vector (by
        keywords alone where there is none); the hits of several models merged by their
        rank-fusion scores."""
        groups: dict[str, list[int]] = {}
        for collection_id in collection_ids:
            if collection_id in self.models:
                groups.setdefault(self.models[collection_id], []).append(collection_id)
        hits: list[Hit] = []
        for model, ids in groups.items():
            index = self._by_model.get(model)
            if index is not None:
                hits += index.search(question, vectors.get(model), k=k, collection_ids=ids, mode=mode)
        if len(groups) > 1:
            hits = sorted(hits, key=lambda h: h.score, reverse=True)[:k]
        return hits
