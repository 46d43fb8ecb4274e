"""Parsing real files of every supported kind, and bad input: a clear reason, nothing hangs."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from storage.documents.isolation import MEMORY_LIMIT, IsolatedParser
from storage.documents.parsers import ParseError
from tests import documents_corpus as corpus


@pytest.fixture(scope="module")
def parser():
    with IsolatedParser(timeout=60) as p:
        yield p


def test_pdf_pages_keep_their_numbers(tmp_path: Path, parser) -> None:
    path = corpus.pdf(tmp_path / "a.pdf", ["First page about owls.", "Second page about foxes."])
    sections, notes = parser.parse(path)
    assert [(s.page, s.text.strip()) for s in sections] == [(1, "First page about owls."),
                                                            (2, "Second page about foxes.")]
    assert notes == []


def test_docx_headings_become_sections(tmp_path: Path, parser) -> None:
    path = corpus.docx(tmp_path / "a.docx", [("Intro", "Hello there."), ("Costs", "It costs 5 euros.")])
    sections, _ = parser.parse(path)
    assert [(s.heading, "costs 5" in s.text) for s in sections] == [("Intro", False), ("Costs", True)]


def test_docx_tables_stay_in_reading_order_and_deleted_text_is_left_out(tmp_path: Path, parser) -> None:
    import docx as python_docx  # a real DOCX writer makes the file; the reader under test is ours

    document = python_docx.Document()
    document.add_heading("Fees", level=1)
    document.add_paragraph("The table below lists fees.")
    table = document.add_table(rows=2, cols=2)
    for (row, col), text in {(0, 0): "Item", (0, 1): "Cost", (1, 0): "Filing", (1, 1): "40 €"}.items():
        table.cell(row, col).text = text
    document.add_heading("Deadlines", level=2)
    run = document.add_paragraph("Filed within ").add_run("thirty days")
    run.add_tab()
    run.add_text("of notice.")
    path = tmp_path / "fees.docx"
    document.save(str(path))
    _with_tracked_deletion(path, "REDACTED-WITHDRAWN")
    sections, _ = parser.parse(path)
    assert [s.heading for s in sections] == ["Fees", "Deadlines"]
    assert "Item | Cost\nFiling | 40 €" in sections[0].text
    assert "Filed within thirty days\tof notice." in sections[1].text
    assert "REDACTED-WITHDRAWN" not in " ".join(s.text for s in sections)


def _with_tracked_deletion(path: Path, deleted: str) -> None:
    """Add a tracked deletion (Word's w:del/w:delText) to the last paragraph."""
    import zipfile

    with zipfile.ZipFile(path) as archive:
        parts = {info.filename: archive.read(info) for info in archive.infolist()}
    xml = parts["word/document.xml"].decode()
    marker = "</w:p><w:sectPr"
    deletion = f'<w:del w:id="9" w:author="a"><w:r><w:delText>{deleted}</w:delText></w:r></w:del>'
    assert marker in xml
    parts["word/document.xml"] = xml.replace(marker, deletion + marker, 1).encode()
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in parts.items():
            archive.writestr(name, data)


def test_docx_with_a_dtd_is_refused(tmp_path: Path, parser) -> None:
    import zipfile

    path = tmp_path / "laughs.docx"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("word/document.xml", '<?xml version="1.0"?><!DOCTYPE lol [<!ENTITY a "aaaa">]>'
                         '<w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main">'
                         "<w:body><w:p><w:r><w:t>&a;</w:t></w:r></w:p></w:body></w:document>")
    rejected(parser, path, "declares a DTD")
    with zipfile.ZipFile(tmp_path / "empty.docx", "w") as archive:
        archive.writestr("hello.txt", "not a word document")
    rejected(parser, tmp_path / "empty.docx", "no document body")


def test_html_text_only(tmp_path: Path, parser) -> None:
    path = tmp_path / "page.html"
    path.write_text("<html><head><style>p{}</style><script>steal()</script></head><body>"
                    "<h2>Menu</h2><p>Soup &amp; bread</p><img src='https://tracker.example/x.png'>"
                    "<iframe src='https://evil.example'></iframe></body></html>")
    sections, _ = parser.parse(path)
    text = " ".join(s.text for s in sections)
    assert "Soup & bread" in text and "steal" not in text and "p{}" not in text
    assert "tracker" not in text and sections[0].heading == "Menu"


@pytest.mark.parametrize(("name", "content", "headings"), [
    ("notes.md", "# One\nalpha\n## Two\nbeta\n", ["One", "Two"]),
    ("guide.rst", "Setup\n=====\n\nalpha\n\nUsage\n-----\n\nbeta\n", ["Setup", "Usage"]),
    ("tool.py", "def f():\n    return 1\n", [None]),
    ("plain.txt", "just text\n", [None]),
])
def test_text_formats(tmp_path: Path, parser, name: str, content: str, headings: list) -> None:
    path = tmp_path / name
    path.write_text(content)
    sections, _ = parser.parse(path)
    assert [s.heading for s in sections] == headings


def test_a_rst_title_with_an_overline_leaves_no_line_of_adornment(tmp_path: Path, parser) -> None:
    """The Python documentation's HOWTOs open with an overlined title; the overline was
    kept as text, became a passage of "*" of its own, and was among the first hits of
    unrelated questions (an embedding of nothing is near everything)."""
    path = tmp_path / "curses.rst"
    path.write_text("**********************************\n  Curses Programming with Python\n"
                    "**********************************\n\nThe curses library supplies a "
                    "terminal-independent screen-painting facility.\n\n----\n\nStarting\n"
                    "========\n\nCall initscr() first.\n")
    sections, _ = parser.parse(path)
    assert [s.heading for s in sections] == ["Curses Programming with Python", "Starting"]
    text = "\n".join(s.text for s in sections)
    assert "***" not in text and "----" not in text and "====" not in text
    assert "screen-painting" in text and "initscr()" in text


def rejected(parser, path: Path, reason: str) -> None:
    with pytest.raises(ParseError, match=reason):
        parser.parse(path)


def test_encrypted_and_corrupt_pdfs(tmp_path: Path, parser) -> None:
    rejected(parser, corpus.pdf(tmp_path / "locked.pdf", ["secret"], password="pw"), "password-protected")
    (tmp_path / "corrupt.pdf").write_bytes(b"%PDF-1.7\n1 0 obj garbage endobj\n" + os.urandom(2000))
    rejected(parser, tmp_path / "corrupt.pdf", "damaged|no text")


@pytest.mark.slow
def test_a_pdf_decompression_bomb_is_contained(tmp_path: Path, parser) -> None:
    rejected(parser, corpus.pdf_bomb(tmp_path / "bomb.pdf"), "memory|damaged|no text|longer than")
    assert parser.last_peak_rss < MEMORY_LIMIT  # peak resident memory of the parser process
    sections, _ = parser.parse(corpus.pdf(tmp_path / "ok.pdf", ["still working"]))
    assert sections[0].text.strip() == "still working"


@pytest.mark.slow
@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="reads /proc (Linux)")
def test_the_parsers_peak_memory_is_its_own_not_its_parents(tmp_path: Path) -> None:
    """A parent holding much memory (models) must not make a small parse look big: the
    child's maxrss from getrusage would carry the parent's high-water mark over the fork."""
    held = b"\x01" * (1600 << 20)  # written, so resident in this process
    try:
        with IsolatedParser(timeout=60) as fresh:  # spawned now, from the big parent
            sections, _ = fresh.parse(corpus.pdf(tmp_path / "small.pdf", ["a small page"]))
            assert sections[0].text.strip() == "a small page"
            assert fresh.last_peak_rss < 400 << 20, fresh.last_peak_rss
    finally:
        del held


def test_docx_bomb_and_docx_that_is_not_a_zip(tmp_path: Path, parser) -> None:
    rejected(parser, corpus.docx_bomb(tmp_path / "bomb.docx", expanded=300 << 20), "decompression bomb")
    (tmp_path / "fake.docx").write_text("I am plain text")
    rejected(parser, tmp_path / "fake.docx", "not a zip")


def test_huge_and_binary_text_files(tmp_path: Path, parser) -> None:
    huge = tmp_path / "huge.txt"
    with open(huge, "wb") as fh:
        fh.truncate(1 << 30)  # 1 GB, sparse: costs no disk
    rejected(parser, huge, "too large")
    (tmp_path / "data.txt").write_bytes(os.urandom(4096))
    rejected(parser, tmp_path / "data.txt", "binary")
    (tmp_path / "empty.md").write_text("   \n")
    rejected(parser, tmp_path / "empty.md", "no text")


def test_a_parser_that_hangs_is_stopped(tmp_path: Path) -> None:
    from tests.storage.parser_children import slow_child

    fine = tmp_path / "fine.txt"
    fine.write_text("hello")
    slow = tmp_path / "slow-parse.txt"  # the child parses it for ever
    slow.write_text("hello")
    with IsolatedParser(timeout=1.0, child=slow_child) as quick:
        quick.parse(fine)  # started and warm
        with pytest.raises(ParseError, match="longer than 1 s"):
            quick.parse(slow)
        assert quick.parse(fine)[0][0].text == "hello"  # a fresh child took over


def test_a_fifo_or_a_device_is_refused_at_once_not_waited_for(tmp_path: Path, parser) -> None:
    os.mkfifo(tmp_path / "blocked.txt")  # a read would block: nobody writes to it
    rejected(parser, tmp_path / "blocked.txt", "not a regular file")
    rejected(parser, Path("/dev/zero"), "supported type")
    os.symlink("/dev/zero", tmp_path / "zeros.txt")
    rejected(parser, tmp_path / "zeros.txt", "is a link")


BILLION_LAUGHS_DOCTYPE = ('<!DOCTYPE lolz [<!ENTITY lol "lol">'
                          + "".join(f'<!ENTITY lol{n} "{("&lol%s;" % (n - 1 or "")) * 10}">'
                                    for n in range(1, 5))
                          + "]>")


def _with_document_xml(path: Path, xml: bytes) -> None:
    import zipfile

    import docx as python_docx

    document = python_docx.Document()
    document.add_paragraph("placeholder")
    document.save(str(path))
    with zipfile.ZipFile(path) as archive:
        parts = {info.filename: archive.read(info) for info in archive.infolist()}
    assert "word/document.xml" in parts
    parts["word/document.xml"] = xml
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in parts.items():
            archive.writestr(name, data)


def test_a_utf16_docx_with_entity_expansion_is_refused_unexpanded(tmp_path: Path, parser) -> None:
    """A byte search for "<!DOCTYPE" misses UTF-16; the XML parser itself must refuse it."""
    body = ('<w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main">'
            "<w:body><w:p><w:r><w:t>{}</w:t></w:r></w:p></w:body></w:document>")
    head = '<?xml version="1.0" encoding="UTF-16"?>'
    laughs = tmp_path / "laughs16.docx"
    xml = (head + BILLION_LAUGHS_DOCTYPE + body.format("&lol4;")).encode("utf-16")
    assert b"<!DOCTYPE" not in xml and b"<!ENTITY" not in xml
    _with_document_xml(laughs, xml)
    with pytest.raises(ParseError, match="declares a DTD") as refused:
        parser.parse(laughs)
    assert "lol" not in str(refused.value)
    # The same package without the DTD is read, UTF-16 and all.
    plain = tmp_path / "plain16.docx"
    _with_document_xml(plain, (head + body.format("Harbour fees, 汉字")).encode("utf-16"))
    assert [s.text for s in parser.parse(plain)[0]] == ["Harbour fees, 汉字"]
