"""A PDF's pages: their text layers (PDFium), their roles, and the pages that are scans."""

from __future__ import annotations

import io
import re
from typing import Any, BinaryIO

from storage.documents.pages import MAX_LABEL, page_roles
from storage.documents.reading import (
    MAX_BYTES,
    MAX_LABEL_RANGES,
    MAX_PAGES,
    MIN_LAYER_CHARS,
    PDF_DAMAGED,
    PDF_PAGES,
    PDF_PASSWORD,
    Budget,
    ParseError,
    Section,
    refused,
    size_check,
)


def read_pdf(fh: BinaryIO, budget: Budget) -> tuple[list[Section], list[int]]:
    """The pages' text layers, and the pages that have none to speak of (scans).

    The text is PDFium's (pypdfium2), the engine the page images come from too. pypdf
    read the words of many real PDFs run together: LaTeX sets its word spaces as
    positioning, not as space characters, and pypdf gave "grep(1)canbeusedtoperform" for
    the Debian Reference, which neither the keywords nor the embedding can match.
    PDFium places the spaces from the glyphs' positions. pypdf still reads the page
    labels (front matter numbered i, ii, ...)."""
    size_check(fh, MAX_BYTES["pdf"])
    import pypdfium2 as pdfium

    data = fh.read()
    try:
        document = pdfium.PdfDocument(data)
    except pdfium.PdfiumError as exc:
        if "password" in str(exc).lower():
            raise refused(PDF_PASSWORD) from None
        raise refused(PDF_DAMAGED, error=str(exc)[:120]) from exc
    try:
        pages = len(document)
        if pages > MAX_PAGES:
            raise refused(PDF_PAGES, pages=pages, limit=MAX_PAGES)
        texts = []
        for index in range(pages):
            if budget.left <= 0:
                budget.truncated = True
                break
            texts.append(budget.take(_page_text(document, index)))
        roles = page_roles(texts, _page_labels(data, len(texts)))
        scanned = [number for number, text in enumerate(texts, start=1)
                   if len("".join(text.split())) < MIN_LAYER_CHARS]
        # A scan's stray characters stay, for when its recognition reads nothing.
        return [Section(text, page=number, role=role)
                for number, (text, role) in enumerate(zip(texts, roles, strict=True), start=1)], scanned
    except ParseError:
        raise
    except Exception as exc:  # a damaged page: PdfiumError, or worse
        raise refused(PDF_DAMAGED, error=f"{type(exc).__name__}: {str(exc)[:120]}") from exc
    finally:
        document.close()


# PDFium marks a word hyphenated at a line's end with U+FFFE (U+0002 in older builds)
# before the line break: the word is joined again. Lines end in CR LF.
_HYPHEN_BREAK = re.compile("[\ufffe\x02][ \t]*(?:\r\n|\r|\n)?")


def _page_text(document: Any, index: int) -> str:
    page = document[index]
    try:
        textpage = page.get_textpage()
        try:
            text = textpage.get_text_range()
        finally:
            textpage.close()
    finally:
        page.close()
    return _HYPHEN_BREAK.sub("", text).replace("\r\n", "\n").replace("\r", "\n")


def _page_labels(data: bytes, pages: int) -> list[str]:
    """The PDF's page labels ("i", "ii", "1", ...) of its first ``pages`` pages, each cut
    to ``MAX_LABEL`` characters. None when the file has none, or its label tree is not a
    plain list of at most ``MAX_LABEL_RANGES`` ranges (pypdf walks it once per page: a
    crafted one would cost minutes), or it is damaged. They only help to tell front
    matter apart: a file is never refused for them."""
    try:
        from pypdf import PdfReader

        reader = PdfReader(io.BytesIO(data), strict=False)
        if reader.is_encrypted:
            reader.decrypt("")
        tree = reader.root_object.get("/PageLabels")
        tree = tree.get_object() if tree is not None else None
        if not isinstance(tree, dict) or "/Kids" in tree:
            return []
        nums = tree.get("/Nums")
        nums = nums.get_object() if nums is not None else None
        if not isinstance(nums, list) or len(nums) > 2 * MAX_LABEL_RANGES:
            return []
        labels = reader.page_labels
        if not isinstance(labels, list):
            return []
        return [label[:MAX_LABEL] if isinstance(label, str) else "" for label in labels[:pages]]
    except Exception:  # pypdf raises many types on damaged files
        return []
