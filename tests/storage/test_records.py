"""The search index's passages kept as columns: each comes back as it went in, a
document's path is kept once and follows a move, and a page opened from a citation
finds its passages without making every passage's record."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from storage.documents.indexes import Indexes
from storage.documents.records import Records
from storage.documents.search import SearchIndex
from storage.documents.store import StoredChunk


def _chunk(i: int, **changes: object) -> StoredChunk:
    fields: dict[str, object] = {
        "id": 10 + i, "collection_id": 1 + i % 2, "document_id": 100 + i // 3, "text": f"passage {i}",
        "path": f"/case/{i // 3}.pdf", "page": (i % 5) or None, "heading": ["Costs", None, "审理"][i % 3],
        "start": 7 * i, "end": 7 * i + 5000, "model": "e5", "role": ["", "nav", "front"][i % 3]}
    fields.update(changes)
    return StoredChunk(**fields)  # type: ignore[arg-type]


@pytest.mark.parametrize("keeps_texts", [True, False])
def test_each_passage_comes_back_as_it_went_in(keeps_texts: bool) -> None:
    records = Records(keeps_texts)
    chunks = [_chunk(i) for i in range(12)] + [_chunk(12, page=1 << 40, start=0, end=1 << 33, role="odd")]
    for chunk in chunks:
        records.append(chunk)
    assert len(records) == 13 and bool(records)
    for got, chunk in zip(records, chunks, strict=True):
        expected = replace(chunk, text=chunk.text if keeps_texts else "",
                           role="" if chunk.role == "odd" else chunk.role)  # a role not known: the body's
        assert got == expected
    assert records[np.int64(4)] == records[4]
    assert len(records.heading_texts) == 2 and len(records.paths) == 5


def test_columns_come_back_as_copies_and_the_columns_still_grow() -> None:
    records = Records(keeps_texts=False)
    records.append(_chunk(0))
    ids = records.column("ids")
    records.append(_chunk(1))  # no view of the column is held: it can grow
    assert ids.tolist() == [10] and records.column("ids").tolist() == [10, 11]


def test_rows_given_as_columns_share_the_headings_already_held() -> None:
    records = Records(keeps_texts=True)
    records.append(_chunk(0))  # heading "Costs"
    records.extend({"ids": np.array([50, 51]), "collections": np.array([3, 3]), "documents": np.array([9, 9]),
                    "pages": np.array([2, 3]), "starts": np.array([0, 10]), "ends": np.array([10, 20]),
                    "roles": np.array([0, 1]), "headings": np.array([0, -1])},
                   ["Costs"], "e5", {9: "/new.md"}, ["a", "b"])
    assert records[1] == StoredChunk(50, 3, 9, "a", "/new.md", 2, "Costs", 0, 10, "e5", "")
    assert records[2] == StoredChunk(51, 3, 9, "b", "/new.md", 3, None, 10, 20, "e5", "nav")
    assert records.heading_texts == ["Costs"]
    with pytest.raises(ValueError, match="do not match"):
        records.extend({"ids": np.array([1]), "collections": np.array([1, 2]), "documents": np.array([1]),
                        "pages": np.array([1]), "starts": np.array([1]), "ends": np.array([1]),
                        "roles": np.array([0]), "headings": np.array([-1])}, [], "e5", {}, None)


def test_a_moved_file_s_passages_say_where_it_is_and_its_page_opens() -> None:
    indexes = Indexes()
    index = indexes.index("e5")
    indexes.models[1] = indexes.models[2] = "e5"
    rng = np.random.default_rng(1)
    for i in range(12):
        index.add(_chunk(i), rng.standard_normal(8).astype(np.float32))
    page = indexes.section("/case/1.pdf", 3, "Costs")
    assert [(c.id, c.path, c.page, c.heading, c.text) for c in page] == [(13, "/case/1.pdf", 3, "Costs", "passage 3")]
    indexes.move_document(101, "/archive/1.pdf")
    assert indexes.section("/case/1.pdf", 3, "Costs") == []
    moved = indexes.section("/archive/1.pdf", 3, "Costs")
    assert [c.id for c in moved] == [13] and moved[0].path == "/archive/1.pdf"
    assert indexes.section("/archive/1.pdf", 3, "a heading nobody has") == []
    assert index.chunks.heading_texts == ["Costs", "审理"]  # asking added none
    indexes.remove_document(101)
    assert indexes.section("/archive/1.pdf", 3, "Costs") == []


def test_a_passage_takes_under_sixty_bytes_in_its_columns() -> None:
    records = Records(keeps_texts=False)
    for i in range(2000):
        records.append(_chunk(i))
    held = sum(getattr(records, name).itemsize for name in
               ("ids", "collections", "documents", "pages", "starts", "ends", "roles", "headings", "models"))
    assert held <= 60  # where its record took about 230
    assert isinstance(SearchIndex().chunks, Records)
