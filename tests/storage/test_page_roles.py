"""Page roles from the parser to the index: a generated PDF with a contents page and roman
front matter gets its roles in the (isolated) parser, the parent refuses a role it does not
know, the vault keeps a chunk's role (old rows have none), and hostile page labels are
borne. The search side is in ``test_search_roles.py``."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import numpy as np
import pytest
from pypdf import PdfWriter
from pypdf.generic import ArrayObject, DictionaryObject, NameObject, NumberObject, TextStringObject
from sqlalchemy import insert, update

from storage import schema
from storage.db import inserted_id
from storage.documents import parser_replies, parsers, pdf
from storage.documents.chunking import Chunk, chunk_sections
from storage.documents.isolation import IsolatedParser
from storage.documents.pages import FRONT, NAV
from storage.documents.parsers import Section
from storage.documents.store import INDEXED, Document, DocumentStore
from storage.vault import Vault
from tests import documents_corpus as corpus
from tests.pdf_layout import Doc, h1, h2, index, p, title, toc, write_pdfs
from tests.storage.conftest import FAST_KDF, PASSPHRASE

MANUAL = Doc(
    "manual.pdf", "en", "Field Guide to Small Mammals", front=3,
    index_terms=("badgers", "dens", "foxes", "night", "owls"),
    pages=(
        (title("Field Guide to Small Mammals"), p("Second edition, 2024.")),
        (h1("Contents"), toc()),
        (h1("About this guide"),
         p("This guide covers owls, foxes and badgers: where they live, what they eat and when "
           "they are seen. Each animal has a chapter of its own.")),
        (h1("1 Owls"), h2("1.1 Hunting"), p("Owls hunt at night, mostly voles and mice."),
         h2("1.2 Nests"), p("Barn owls nest in old barns and church towers.")),
        (h1("2 Foxes"), h2("2.1 Dens"), p("Foxes raise their cubs in dens dug into banks."),
         h2("2.2 Food"), p("Foxes eat rabbits, birds, fruit and what people throw away.")),
        (h1("3 Badgers"), h2("3.1 Setts"), p("Badgers live in setts, large networks of dens."),
         h2("3.2 Activity"), p("Badgers leave the sett at dusk and forage through the night.")),
        (h1("Index"), index()),
    ))
ROLES = [FRONT, NAV, FRONT, "", "", "", NAV]


@pytest.fixture(scope="module")
def parser():
    with IsolatedParser(timeout=60) as p:
        yield p


@pytest.mark.parametrize("labels", [True, False], ids=["page-labels", "no-page-labels"])
def test_a_pdf_with_a_contents_and_front_matter_gets_its_roles(tmp_path: Path, parser,
                                                              labels: bool) -> None:
    """With page labels i-iii, 1-4 the roman pages are front matter; without, the pages
    before the one where the contents' first entry ("1 Owls") begins are."""
    path = write_pdfs([dataclasses.replace(MANUAL, page_labels=labels)], tmp_path)[0]
    sections, _ = parser.parse(path)  # through the child and the parent's checks
    assert [s.page for s in sections] == list(range(1, 8))
    assert [s.role for s in sections] == ROLES
    chunks = chunk_sections(sections, lambda text: len(text.split()))
    assert {(c.page, c.role) for c in chunks} == {(n, role) for n, role in enumerate(ROLES, start=1)}


def test_a_plain_pdf_and_other_files_have_no_roles(tmp_path: Path, parser) -> None:
    path = corpus.pdf(tmp_path / "a.pdf", ["First page about owls.", "Second page about foxes."])
    assert [s.role for s in parser.parse(path)[0]] == ["", ""]
    (tmp_path / "b.md").write_text("# Contents\n1 Owls ...... 1\n2 Foxes ..... 2\n3 Badgers ... 3\n"
                                   "4 Index ..... 4\n")
    assert [s.role for s in parser.parse(tmp_path / "b.md")[0]] == [""]


def _relabelled(source: Path, target: Path, labels: object) -> Path:
    writer = PdfWriter(clone_from=str(source))
    writer.root_object[NameObject("/PageLabels")] = labels
    writer.write(str(target))
    return target


def _range(start: int, style: str, prefix: str = "") -> list:
    entry = DictionaryObject({NameObject("/S"): NameObject(style)})
    if prefix:
        entry[NameObject("/P")] = TextStringObject(prefix)
    return [NumberObject(start), entry]


def test_hostile_page_labels_are_borne_and_bounded(tmp_path: Path) -> None:
    source = corpus.pdf(tmp_path / "plain.pdf", ["A cover.", "Owls hunt at night.", "Foxes dig dens."])

    def roles(labels: object) -> list[str]:
        path = _relabelled(source, tmp_path / "labelled.pdf", labels)
        return [s.role for s in parsers.parse(path)[0]]

    plain = DictionaryObject({NameObject("/Nums"): ArrayObject(_range(0, "/r") + _range(1, "/D"))})
    assert roles(plain) == [FRONT, "", ""]  # i, 1, 2: the cover is front matter
    # a label tree too long to walk once per page is not read at all
    crafted = ArrayObject(_range(0, "/r") + _range(1, "/D"))
    for _ in range(pdf.MAX_LABEL_RANGES):
        crafted += _range(1, "/D")
    assert roles(DictionaryObject({NameObject("/Nums"): crafted})) == ["", "", ""]
    # kids, a label tree that is not one, and absurd prefixes: no labels, and no refusal
    kids = DictionaryObject({NameObject("/Kids"): ArrayObject([plain])})
    long_prefix = DictionaryObject({NameObject("/Nums"): ArrayObject(
        _range(0, "/r", "x" * 100_000) + _range(1, "/D"))})
    for labels in (kids, NumberObject(7), DictionaryObject(), long_prefix,
                   DictionaryObject({NameObject("/Nums"): NumberObject(3)})):
        assert len(roles(labels)) == 3


def test_page_labels_that_raise_are_none() -> None:
    class Reader:
        root_object = DictionaryObject({NameObject("/PageLabels"): DictionaryObject(
            {NameObject("/Nums"): ArrayObject()})})

        @property
        def page_labels(self) -> list[str]:
            raise RecursionError("a crafted tree")

    assert pdf._page_labels(Reader(), 3) == []


def _reply(*sections: list) -> bytes:
    return json.dumps({"status": "ok", "sections": list(sections), "notes": [], "peak": 1}).encode()


def test_the_parent_refuses_a_role_it_does_not_know() -> None:
    checked = parser_replies.checked(_reply(["text", 1, None, "nav"], ["more", 2, None, ""],
                                        ["front", 3, "Preface", "front"]), "parse")
    assert [Section(*s).role for s in checked["sections"]] == [NAV, "", FRONT]
    for role in ("evil", "NAV", None, 1, ["nav"], "nav\x00"):
        with pytest.raises(parser_replies.Malformed):
            parser_replies.checked(_reply(["text", 1, None, role]), "parse")
    with pytest.raises(parser_replies.Malformed):  # a section without its role
        parser_replies.checked(_reply(["text", 1, None]), "parse")


def test_the_vault_keeps_each_chunk_s_role(tmp_path: Path) -> None:
    vault = Vault.create(tmp_path / "vault.db", PASSPHRASE, FAST_KDF)
    try:
        store = DocumentStore(vault)
        collection = store.create_collection("guide")
        document = store.save_document(Document(0, collection.id, "/guide.pdf", INDEXED))
        chunks = [Chunk("Contents", 0, 1, None, 0, 8, NAV), Chunk("Owls hunt.", 1, 2, None, 0, 10),
                  Chunk("About", 2, 3, None, 0, 5, FRONT)]
        store.replace_chunks(document, chunks, np.ones((3, 4), dtype=np.float32), "model")
        assert [c.role for c, _ in store.iter_chunks()] == [NAV, "", FRONT]
        assert [c.role for c in store.document_chunks(document.id, "model")] == [NAV, "", FRONT]
        # rows as Hearth wrote them before chunks had roles, and one with a role unknown here
        for extra in ({}, {"role": "sidebar"}):
            with vault.engine.begin() as conn:
                row_id = inserted_id(conn.execute(insert(schema.chunks).values(
                    collection_id=collection.id, document_id=document.id, payload=b"", vector=b"")))
                payload = {"text": "an old passage", "page": 4, "heading": None, "start": 0,
                           "end": 14, "section": 3, "model": "model", **extra}
                bind = (collection.id, document.id)
                conn.execute(update(schema.chunks).where(schema.chunks.c.id == row_id).values(
                    payload=vault.cipher.encrypt(json.dumps(payload).encode(), "chunks", "payload",
                                                 row_id, bind),
                    vector=vault.cipher.encrypt(np.ones(4, np.float32).tobytes(), "chunks",
                                                "vector", row_id, bind)))
        assert [c.role for c, _ in store.iter_chunks()] == [NAV, "", FRONT, "", ""]
        assert [c.role for c in store.document_chunks(document.id, "model")][3:] == ["", ""]
    finally:
        vault.close()
