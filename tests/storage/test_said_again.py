"""A document's reason and notes are stored as a kind and values too, and said again in
the language of whoever reads them (issue #36, item 3): "1 page read by text recognition
(OCR)" stayed English in the Chinese documents table, because it was stored as text at
import."""

from __future__ import annotations

import pytest

import i18n
from storage.documents import reading
from storage.documents.store import SKIPPED, Document, DocumentStore


@pytest.fixture
def chinese():
    i18n.install(i18n.Catalog.load("zh_CN"))
    yield
    i18n.install(None)


def test_a_reason_imported_in_english_reads_in_chinese(store, chinese) -> None:
    i18n.install(i18n.Catalog.load("en"))  # imported under English (its plural forms)
    documents = DocumentStore(store.vault)
    collection = documents.create_collection("Work")
    reason = reading.reason(reading.SAME_CONTENT, {"name": "a.pdf"})
    notes = [reading.reason(reading.RECOGNISED, {"pages": 1}), "a note of an older version, as text"]
    assert reason == "the same content as a.pdf" and notes[0] == "1 page read by text recognition (OCR)"
    documents.save_document(Document(0, collection.id, "/docs/b.pdf", SKIPPED, reason, notes=notes,
                                     said={"reason": reading.said_of(reason),
                                           "notes": [reading.said_of(n) for n in notes]}))
    assert documents.documents(collection.id)[0].reason == "the same content as a.pdf"
    i18n.install(i18n.Catalog.load("zh_CN"))  # read under Chinese
    found = documents.documents(collection.id)[0]
    assert "a.pdf" in found.reason and "same content" not in found.reason
    assert "OCR" in found.notes[0] and "read by text recognition" not in found.notes[0]
    assert found.notes[1] == "a note of an older version, as text"  # no kind: as it was


def test_a_kind_this_version_does_not_know_reads_as_it_was_stored() -> None:
    assert reading.say_again(["from-a-later-version", {}], "as stored") == "as stored"
    assert reading.say_again(None, "as stored") == "as stored"
    assert reading.say_again([reading.PDF_PAGES, {"pages": "not a count", "limit": 2000}], "kept") == "kept"
