"""A PDF's pages: their text layers (pypdf), their roles, and the pages that are scans."""

from __future__ import annotations

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
    """The pages' text layers, and the pages that have none to speak of (scans)."""
    size_check(fh, MAX_BYTES["pdf"])
    from pypdf import PdfReader
    from pypdf.errors import FileNotDecryptedError, PdfReadError

    try:
        reader = PdfReader(fh, strict=False)
        if reader.is_encrypted:
            try:
                reader.decrypt("")  # many PDFs are "encrypted" with an empty password
                reader.pages[0].extract_text()
            except (FileNotDecryptedError, NotImplementedError, PdfReadError):
                raise refused(PDF_PASSWORD) from None
        pages = len(reader.pages)
        if pages > MAX_PAGES:
            raise refused(PDF_PAGES, pages=pages, limit=MAX_PAGES)
        texts = []
        for page in reader.pages:
            if budget.left <= 0:
                budget.truncated = True
                break
            texts.append(budget.take(page.extract_text() or ""))
        roles = page_roles(texts, _page_labels(reader, len(texts)))
        scanned = [number for number, text in enumerate(texts, start=1)
                   if len("".join(text.split())) < MIN_LAYER_CHARS]
        # A scan's stray characters stay, for when its recognition reads nothing.
        return [Section(text, page=number, role=role)
                for number, (text, role) in enumerate(zip(texts, roles, strict=True), start=1)], scanned
    except ParseError:
        raise
    except Exception as exc:  # pypdf raises many types on damaged files
        raise refused(PDF_DAMAGED, error=f"{type(exc).__name__}: {str(exc)[:120]}") from exc


def _page_labels(reader: Any, pages: int) -> list[str]:
    """The PDF's page labels ("i", "ii", "1", ...) of its first ``pages`` pages, each cut
    to ``MAX_LABEL`` characters. None when the file has none, or its label tree is not a
    plain list of at most ``MAX_LABEL_RANGES`` ranges (pypdf walks it once per page: a
    crafted one would cost minutes), or it is damaged. They only help to tell front
    matter apart: a file is never refused for them."""
    try:
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
