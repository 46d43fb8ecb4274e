"""The search index's passages as columns: a passage's StoredChunk is made when one is
asked for (a hit, a page opened from a citation), not kept.

A million StoredChunk objects took about 230 MB (the object and an int object for each
of its id, document, page, start and end); as packed columns they take 55 bytes a
passage. A document's path is kept once for the document, a heading and a model's name
once each. The texts are kept only by an index that does not read them from the vault
(``SearchIndex.texts``): one of its own, in a test or a benchmark.
"""

from __future__ import annotations

from array import array
from collections.abc import Iterator, Mapping
from typing import SupportsIndex

import numpy as np

from storage.documents.pages import ROLES
from storage.documents.store import StoredChunk

NO_PAGE = -(1 << 62)  # a passage without a page
NO_HEADING = -1


class Records:
    """Append-only columns, one row a passage, in the index's order."""

    def __init__(self, keeps_texts: bool) -> None:
        self.ids = array("q")
        self.collections = array("q")
        self.documents = array("q")
        self.pages = array("q")  # NO_PAGE for none
        self.starts = array("q")
        self.ends = array("q")
        self.roles = array("B")  # index into ROLES (0: "")
        self.headings = array("i")  # index into heading_texts; NO_HEADING for none
        self.models = array("H")  # index into model_names
        self.heading_texts: list[str] = []
        self._heading_ids: dict[str, int] = {}
        self.model_names: list[str] = []
        self._model_ids: dict[str, int] = {}
        self.paths: dict[int, str] = {}  # document -> its path now
        self.texts: list[str] | None = [] if keeps_texts else None

    def __len__(self) -> int:
        return len(self.ids)

    def __iter__(self) -> Iterator[StoredChunk]:
        for i in range(len(self.ids)):
            yield self[i]

    def __getitem__(self, at: SupportsIndex) -> StoredChunk:
        i = at.__index__()
        page, heading, role = self.pages[i], self.headings[i], self.roles[i]
        document = self.documents[i]
        return StoredChunk(self.ids[i], self.collections[i], document,
                           self.texts[i] if self.texts is not None else "",
                           self.paths.get(document, ""), None if page == NO_PAGE else page,
                           None if heading == NO_HEADING else self.heading_texts[heading],
                           self.starts[i], self.ends[i], self.model_names[self.models[i]],
                           ROLES[role] if role < len(ROLES) else "")

    @staticmethod
    def _number(value: str, names: list[str], numbers: dict[str, int]) -> int:
        """``value``'s place in ``names``, added there the first time."""
        found = numbers.get(value)
        if found is None:
            found = numbers[value] = len(names)
            names.append(value)
        return found

    def heading_id(self, heading: str | None) -> int:
        return NO_HEADING if heading is None else self._number(heading, self.heading_texts, self._heading_ids)

    def held_heading(self, heading: str) -> int | None:
        """A heading's number, None where no passage has it."""
        return self._heading_ids.get(heading)

    def _model_id(self, model: str) -> int:
        return self._number(model, self.model_names, self._model_ids)

    def append(self, chunk: StoredChunk) -> None:
        self.paths[chunk.document_id] = chunk.path
        heading, model = self.heading_id(chunk.heading), self._model_id(chunk.model)
        self.ids.append(chunk.id)
        self.collections.append(chunk.collection_id)
        self.documents.append(chunk.document_id)
        self.pages.append(NO_PAGE if chunk.page is None else chunk.page)
        self.starts.append(chunk.start)
        self.ends.append(chunk.end)
        self.roles.append(ROLES.index(chunk.role) if chunk.role in ROLES else 0)
        self.headings.append(heading)
        self.models.append(model)
        if self.texts is not None:
            self.texts.append(chunk.text)

    def extend(self, columns: dict[str, np.ndarray], headings: list[str], model: str,
               paths: Mapping[int, str], texts: list[str] | None) -> None:
        """Rows given as columns (a sealed file's): ``columns`` names each of ``ids``,
        ``collections``, ``documents``, ``pages``, ``starts``, ``ends``, ``roles`` (as
        here) and ``headings`` (indices into ``headings``)."""
        # The given headings' numbers here (a heading held already keeps its own).
        table = np.asarray([*(self.heading_id(h) for h in headings), NO_HEADING], dtype=np.int32)
        given = np.asarray(columns["headings"], dtype=np.int64)
        columns = {**columns, "headings": table[np.where(given < 0, len(headings), given)]}
        count = len(columns["ids"])
        for name in ("ids", "collections", "documents", "pages", "starts", "ends", "roles", "headings"):
            column: array = getattr(self, name)
            values = np.ascontiguousarray(columns[name], dtype=np.dtype(column.typecode))
            if len(values) != count:
                raise ValueError(f"the passages' {name} do not match their ids")
            column.frombytes(values.tobytes())
        self.models.frombytes(np.full(count, self._model_id(model), dtype=np.uint16).tobytes())
        for document in np.unique(np.asarray(columns["documents"], dtype=np.int64)).tolist():
            self.paths[document] = paths.get(document, "")
        if self.texts is not None:
            self.texts.extend(texts if texts is not None else [""] * count)

    def column(self, name: str) -> np.ndarray:
        """A copy of one column (a view would keep the column from growing)."""
        values: array = getattr(self, name)
        return np.frombuffer(values, dtype=np.dtype(values.typecode)).copy()
