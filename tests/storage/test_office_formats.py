"""EPUB, PowerPoint and Excel files, written by the real writers (ebooklib, python-pptx,
openpyxl), read by our parsers in the isolated process; and the hostile cases the DOCX
parser has: bombs, DTDs, broken and lying files."""

from __future__ import annotations

import zipfile
from pathlib import Path

import pytest

from storage.documents.isolation import IsolatedParser
from storage.documents.parsers import SUPPORTED, ParseError
from tests import documents_corpus as corpus


@pytest.fixture(scope="module")
def parser():
    with IsolatedParser(timeout=60) as p:
        yield p


def rejected(parser, path: Path, words: str) -> None:
    with pytest.raises(ParseError) as caught:
        parser.parse(path)
    assert words in str(caught.value), str(caught.value)


def test_the_new_formats_are_supported() -> None:
    assert {".epub", ".pptx", ".xlsx"} <= SUPPORTED


def test_an_epub_is_read_chapter_by_chapter_in_reading_order(tmp_path: Path, parser) -> None:
    path = corpus.epub(tmp_path / "book.epub", [("The harbour", "The ferry leaves at seven."),
                                         ("The island", "The island has 212 inhabitants.")])
    sections, notes = parser.parse(path)
    text = [(s.heading, s.text) for s in sections]
    assert [h for h, _ in text if h in ("The harbour", "The island")] == ["The harbour", "The island"]
    island = next(t for h, t in text if h == "The island")
    assert "212 inhabitants" in island
    assert not any("steal()" in t for _, t in text) and notes == []


def test_an_epub_zipped_inside_one_folder_is_read_too(tmp_path: Path, parser) -> None:
    """Debian's own Debian Edu manual (debian-edu-doc) is zipped with every part under
    epub/; e-book readers open it, so Hearth does. A folder that does not hold the whole
    package is not taken for its root."""
    book = corpus.epub(tmp_path / "book.epub", [("Thin clients", "LTSP serves 40 thin clients.")])
    nested = tmp_path / "nested.epub"
    with zipfile.ZipFile(book) as source, zipfile.ZipFile(nested, "w") as target:
        for info in source.infolist():
            target.writestr("epub/" + info.filename, source.read(info.filename))
    sections, _ = parser.parse(nested)
    assert any("40 thin clients" in s.text for s in sections)
    stray = tmp_path / "stray.epub"
    with zipfile.ZipFile(book) as source, zipfile.ZipFile(stray, "w") as target:
        for info in source.infolist():
            target.writestr("epub/" + info.filename, source.read(info.filename))
        target.writestr("other/readme.txt", "not the package")
    rejected(parser, stray, "no document body")


def test_a_presentation_gives_a_section_per_slide_with_its_notes(tmp_path: Path, parser) -> None:
    path = corpus.pptx(tmp_path / "deck.pptx", [("Budget", "Travel costs 4,300 euros", "Ask finance first"),
                                         ("Timeline", "Launch in March", "")])
    sections, _ = parser.parse(path)
    assert [(s.page, s.heading) for s in sections] == [(1, "Budget"), (2, "Timeline")]
    assert "4,300 euros" in sections[0].text and "Ask finance first" in sections[0].text
    assert "Launch in March" in sections[1].text


@pytest.mark.parametrize("write", [corpus.xlsx, corpus.xlsx_shared], ids=["openpyxl", "xlsxwriter"])
def test_a_workbook_gives_a_section_per_sheet_with_its_rows(tmp_path: Path, parser, write) -> None:
    path = write(tmp_path / "book.xlsx", {"Staff": [["Name", "Room"], ["Ada", 14], ["Lin", "B2"]],
                                         "Budget": [["Item", "Cost"], ["Boat", 1250.5], ["Flag", True]]})
    sections, _ = parser.parse(path)
    assert [s.heading for s in sections] == ["Staff", "Budget"]
    assert sections[0].text.splitlines() == ["Name | Room", "Ada | 14", "Lin | B2"]
    assert "Boat | 1250.5" in sections[1].text and "Flag | TRUE" in sections[1].text


@pytest.mark.parametrize("suffix", [".epub", ".pptx", ".xlsx"])
def test_a_bomb_a_plain_file_and_a_broken_zip_are_refused(tmp_path: Path, parser, suffix: str) -> None:
    kind = suffix[1:].upper()
    rejected(parser, corpus.docx_bomb(tmp_path / f"bomb{suffix}", expanded=300 << 20),
             f"the {kind} expands to")
    (tmp_path / f"fake{suffix}").write_text("I am plain text")
    rejected(parser, tmp_path / f"fake{suffix}", f"not a valid {kind} file (it is not a zip archive)")
    good = {".epub": lambda p: corpus.epub(p, [("A", "b")]), ".pptx": lambda p: corpus.pptx(p, [("A", "b", "")]),
            ".xlsx": lambda p: corpus.xlsx(p, {"A": [["b"]]})}[suffix](tmp_path / f"good{suffix}")
    data = bytearray(good.read_bytes())
    cut = tmp_path / f"cut{suffix}"
    cut.write_bytes(bytes(data[: len(data) // 2]))  # the directory at the end is gone
    rejected(parser, cut, f"not a valid {kind} file")
    lying = tmp_path / f"a-word-file{suffix}"  # a DOCX under this name: a zip, but not this kind
    lying.write_bytes(corpus.docx(tmp_path / "real.docx", [("Intro", "Hello.")]).read_bytes())
    rejected(parser, lying, f"not a valid {kind} file (it has no document body)")


@pytest.mark.parametrize("suffix, part, root", [
    (".xlsx", "xl/workbook.xml", '<workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main">'),
    (".pptx", "ppt/presentation.xml", '<p:presentation xmlns:p="http://schemas.openxmlformats.org/'
                                      'presentationml/2006/main">'),
    (".epub", "META-INF/container.xml", '<container xmlns="urn:oasis:names:tc:opendocument:xmlns:container">'),
])
def test_a_part_that_declares_entities_is_refused_unexpanded(tmp_path: Path, parser, suffix, part, root) -> None:
    path = tmp_path / f"laughs{suffix}"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr(part, '<?xml version="1.0"?><!DOCTYPE x [<!ENTITY a "aaaaaaaaaa">'
                               '<!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">]>' + root + "&b;</x>")
    rejected(parser, path, "declares a DTD")


def test_a_shared_string_index_out_of_range_reads_as_empty_not_a_crash(tmp_path: Path, parser) -> None:
    path = corpus.xlsx_shared(tmp_path / "book.xlsx", {"Sheet": [["kept"], ["also kept"]]})
    patched = tmp_path / "patched.xlsx"
    with zipfile.ZipFile(path) as source, zipfile.ZipFile(patched, "w", zipfile.ZIP_DEFLATED) as target:
        for info in source.infolist():
            data = source.read(info.filename)
            if info.filename == "xl/worksheets/sheet1.xml":
                assert b'<c r="A2" t="s"><v>1</v>' in data
                data = data.replace(b'<c r="A2" t="s"><v>1</v>', b'<c r="A2" t="s"><v>99999999</v>')
            target.writestr(info, data)
    sections, _ = parser.parse(patched)
    assert sections[0].text.strip() == "kept"


def test_a_presentation_whose_slide_points_outside_is_read_without_it(tmp_path: Path, parser) -> None:
    """A relationship may name any part (or a path that climbs out of the package): only
    parts inside the zip are ever read, and a missing one is skipped."""
    path = corpus.pptx(tmp_path / "deck.pptx", [("First", "one", ""), ("Second", "two", "")])
    patched = tmp_path / "patched.pptx"
    with zipfile.ZipFile(path) as source, zipfile.ZipFile(patched, "w", zipfile.ZIP_DEFLATED) as target:
        for info in source.infolist():
            data = source.read(info.filename)
            if info.filename == "ppt/_rels/presentation.xml.rels":
                data = data.replace(b'Target="slides/slide1.xml"', b'Target="../../../../etc/passwd"')
            target.writestr(info, data)
    sections, _ = parser.parse(patched)
    assert [s.heading for s in sections] == ["Second"] and sections[0].page == 2
