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


def test_a_parser_that_hangs_is_stopped(tmp_path: Path, monkeypatch) -> None:
    slow = tmp_path / "slow.txt"
    slow.write_text("hello")
    with IsolatedParser(timeout=1.0) as quick:
        quick.parse(slow)  # started and warm
        quick._conn.send("/dev/zero-is-not-a-text-file.txt")  # nothing answers this twice
        quick._conn.recv()
        # A file read that blocks: a FIFO with no writer.
        fifo = tmp_path / "blocked.txt"
        os.mkfifo(fifo)
        with pytest.raises(ParseError, match="longer than 1 s"):
            quick.parse(fifo)
        assert quick.parse(slow)[0][0].text == "hello"  # a fresh child took over
