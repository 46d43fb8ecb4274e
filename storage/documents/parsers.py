"""Turn a file into text sections (with page or heading), within fixed limits: the one
entry point, by type, to the readers of each format.

Well-kept parsers do the work (pypdf, ``storage.documents.pdf``; the standard library's
zip and HTML parsers and defusedxml for XML, ``office`` and ``markup``); only the Markdown
and reStructuredText heading rules are ours. Every parser is bounded by
``storage.documents.reading``'s limits: file size, pages, extracted characters, and for
the zip packages the zip's expanded size and ratio, checked before any part is read.
Run them through ``isolation.IsolatedParser``, which adds a time limit and a memory limit
in a separate process.

Files are opened once, by ``reading.open_regular``; the hash and the parse read that
descriptor, within the same size bound. What callers use of ``reading`` is named here too.
"""

from __future__ import annotations

from pathlib import Path
from typing import BinaryIO

from storage.documents.images import image_frames
from storage.documents.markup import read_html, read_markdown, read_rst
from storage.documents.office import read_docx, read_epub, read_pptx, read_xlsx
from storage.documents.pdf import read_pdf
from storage.documents.reading import (
    CODE_SUFFIXES,
    HTML_SUFFIXES,
    IMAGE_SUFFIXES,
    MARKDOWN_SUFFIXES,
    MAX_BYTES,
    MAX_CHARS,
    MAX_PAGES,
    NO_EXTENSION,
    NO_TEXT,
    RST_SUFFIXES,
    SUPPORTED,
    TEXT_SUFFIXES,
    TRUNCATED,
    UNSUPPORTED,
    Budget,
    Identity,
    ParseError,
    Said,
    Section,
    Value,
    digest,
    open_regular,
    read_text,
    reason,
    refused,
    size_limit,
    supported,
    too_large,
)

__all__ = ["MAX_CHARS", "MAX_PAGES", "NO_TEXT", "SUPPORTED", "TRUNCATED", "Identity", "ParseError",
           "Said", "Section", "Value", "digest", "open_regular", "parse", "parse_file", "parse_said",
           "reason", "refused", "size_limit", "supported", "too_large", "READER_VERSION"]

# How files are read and cut into passages. A document indexed by an older version is
# read again at the next refresh (at unlock), in the background, its old passages
# answering until its new ones replace them in one step. Raise it with every change that
# changes the passages of files already indexed.
# 1: pypdf's PDF text; reST overlines and word-less chunks kept (before 2026-12).
# 2: PDFium's PDF text with its word spaces; reST adornments and passages without a
#    letter or a digit left out; an EPUB zipped inside one folder read.
READER_VERSION = 2


def _unsupported(suffix: str) -> ParseError:
    return refused(UNSUPPORTED, suffix=suffix) if suffix else refused(NO_EXTENSION)


def parse(path: Path, identity: Identity | None = None) -> tuple[list[Section], list[str]]:
    """Sections of ``path`` and notes (a truncation, say), its text layer only (pages
    that are scans are left to ``parse_said``'s caller). Raises ParseError, for a file
    with no text layer at all too."""
    sections, notes, _scanned = parse_said(path, identity)
    if not sections:
        raise refused(NO_TEXT)
    return sections, [reason(kind, values) for kind, values in notes]


def parse_said(path: Path, identity: Identity | None = None) -> tuple[list[Section], list[Said], list[int]]:
    """``parse``, with the notes as data (kind, values) for another process to say, and
    the pages to read by text recognition (a scanned PDF's, an image's)."""
    suffix = path.suffix.lower()
    if suffix not in SUPPORTED:
        raise _unsupported(suffix)
    with open_regular(path, identity) as fh:
        return _parse_file(suffix, fh)


def parse_file(suffix: str, fh: BinaryIO) -> tuple[list[Section], list[str]]:
    """Sections and notes of an open file of type ``suffix`` (".pdf", ".md", ...)."""
    sections, notes, _scanned = _parse_file(suffix, fh)
    if not sections:
        raise refused(NO_TEXT)
    return sections, [reason(kind, values) for kind, values in notes]


def _parse_file(suffix: str, fh: BinaryIO) -> tuple[list[Section], list[Said], list[int]]:
    budget = Budget()
    scanned: list[int] = []
    if suffix == ".pdf":
        sections, scanned = read_pdf(fh, budget)
    elif suffix in IMAGE_SUFFIXES:
        sections, scanned = [], list(range(1, image_frames(fh, MAX_BYTES[suffix[1:]]) + 1))
    elif suffix == ".docx":
        sections = read_docx(fh, budget)
    elif suffix == ".epub":
        sections = read_epub(fh, budget)
    elif suffix == ".pptx":
        sections = read_pptx(fh, budget)
    elif suffix == ".xlsx":
        sections = read_xlsx(fh, budget)
    elif suffix in HTML_SUFFIXES:
        sections = read_html(read_text(fh), budget)
    elif suffix in MARKDOWN_SUFFIXES:
        sections = read_markdown(read_text(fh), budget)
    elif suffix in RST_SUFFIXES:
        sections = read_rst(read_text(fh), budget)
    elif suffix in TEXT_SUFFIXES | CODE_SUFFIXES:
        sections = [Section(budget.take(read_text(fh)))]
    else:
        raise _unsupported(suffix)
    sections = [s for s in sections if s.text.strip()]
    if not sections and not scanned:
        raise refused(NO_TEXT)
    notes: list[Said] = [(TRUNCATED, {"chars": MAX_CHARS})] if budget.truncated else []
    return sections, notes, scanned
