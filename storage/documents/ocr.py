"""Text recognition (OCR) of one scanned page, in the isolated parser's process.

A page of a PDF without a text layer is rendered by PDFium (``pypdfium2``), an image is
decoded by Pillow, and RapidOCR (PaddleOCR's PP-OCRv4 models for Chinese and English,
shipped inside its wheel, run by ONNX Runtime) reads the text. Nothing is downloaded:
the models are files of the installed package. This module is imported in the parser's
child only, where a page has its own time limit and the child its memory limit
(``isolation.OCR_MEMORY_LIMIT``); the rendering is bounded in pixels whatever size the
page claims.

The angle classifier is off: it turned some upright lines of a test scan upside down
(86 % of the words read with it, 100 % without); a page scanned sideways is turned by
the PDF's own /Rotate, which PDFium applies, and an image turned by its EXIF
orientation (a phone's photo of a page) is turned upright before it is read.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, BinaryIO

from storage.documents.images import MAX_IMAGE_PIXELS, as_seen, open_image
from storage.documents.reading import (
    IMAGE_TOO_LARGE,
    MAX_BYTES,
    PDF_DAMAGED,
    PDF_PASSWORD,
    read_bounded,
    refused,
)

DPI = 200  # 150 dpi lost a third of the words of a test page; 200 read them all
MAX_SIDE = 3000  # pixels of the longer side given to recognition
MAX_PAGE_CHARS = 100_000  # a dense A4 page holds about 5,000; more is not a page's text
_engine: Any = None


def _ocr() -> Any:
    global _engine
    if _engine is None:
        import onnxruntime

        # Its usage events, besides ORT_DISABLE_TELEMETRY (guard/egress.py): nothing is
        # queued on disk for a collector, nor a device id kept.
        if hasattr(onnxruntime, "disable_telemetry_events"):
            onnxruntime.disable_telemetry_events()
        from rapidocr_onnxruntime import RapidOCR

        _engine = RapidOCR(max_side_len=MAX_SIDE, print_verbose=False)
    return _engine


def _scale(width: float, height: float, dpi: float) -> float:
    """The render scale for a page of ``width`` × ``height`` points at ``dpi``, smaller
    when that would pass the pixel bounds (a page that claims to be a kilometre wide)."""
    scale = dpi / 72.0
    longest = max(width, height, 1.0) * scale
    if longest > MAX_SIDE:
        scale *= MAX_SIDE / longest
    return scale


def pdf_document(data: bytes) -> Any:
    """PDFium's document for the PDF in ``data``; the reasons a user reads if it is not one."""
    import pypdfium2 as pdfium

    try:
        return pdfium.PdfDocument(data)
    except pdfium.PdfiumError as exc:
        if "password" in str(exc).lower():
            raise refused(PDF_PASSWORD) from None
        raise refused(PDF_DAMAGED, error=f"PDFium: {str(exc)[:120]}") from None


@contextmanager
def pdf_page_handle(data: bytes, page: int) -> Iterator[Any]:
    """PDFium's page ``page`` (1-based) of the PDF in ``data``, its document closed after."""
    document = pdf_document(data)
    try:
        if not 1 <= page <= len(document):
            raise refused(PDF_DAMAGED, error=f"no page {page}")
        yield document[page - 1]
    finally:
        document.close()


def pdf_page(data: bytes, page: int) -> Any:
    """Page ``page`` (1-based) of the PDF in ``data``, rendered to a PIL image."""
    with pdf_page_handle(data, page) as handle:
        width, height = handle.get_size()
        return handle.render(scale=_scale(width, height, DPI), may_draw_forms=True).to_pil()


def image_page(data: bytes, page: int) -> Any:
    """Frame ``page`` (1-based) of an image file as a person sees it (``images.as_seen``),
    no larger than the bounds."""
    image = open_image(data)
    frames = int(getattr(image, "n_frames", 1) or 1)
    if not 1 <= page <= frames:
        raise refused(PDF_DAMAGED, error=f"no page {page}")
    image.seek(page - 1)
    width, height = image.size  # each frame its own size: checked again, before it is decoded
    if width * height > MAX_IMAGE_PIXELS:
        raise refused(IMAGE_TOO_LARGE, pixels=width * height / 1e6, limit=MAX_IMAGE_PIXELS // 1_000_000)
    return as_seen(image, MAX_SIDE)  # upright, 8 bits, transparency on white: as the user sees it


def recognise_file(fh: BinaryIO, suffix: str, page: int) -> str:
    """The text of one page of an open PDF or image, line by line in reading order."""
    limit = MAX_BYTES.get(suffix.lstrip("."), MAX_BYTES["pdf"])
    data = read_bounded(fh, limit)
    picture = pdf_page(data, page) if suffix == ".pdf" else image_page(data, page)
    return recognise(picture)[:MAX_PAGE_CHARS]


def recognise(picture: Any) -> str:
    """The text in a PIL image, one line of the page a line."""
    import numpy as np

    rgb = np.asarray(picture.convert("RGB"))
    found, _elapsed = _ocr()(rgb, use_cls=False, return_word_box=True)
    grey = np.asarray(picture.convert("L"))
    lines = []
    for line in found or []:
        text = str(line[1])
        chars, boxes = (line[4], line[3]) if len(line) > 4 else ((), ())
        if len(chars) == len(boxes) and len(chars) > 1:
            text = _spaced(grey, [str(c) for c in chars], boxes)
        if text.strip():
            lines.append(text)
    return "\n".join(lines)


_LATIN = re.compile(r"[0-9A-Za-z\u00c0-\u024f.,;:!?'\"()\-]")
WORD_GAP = 0.2  # of the line's height: blank columns this wide between two letters are a space
INK = 140  # grey levels below this are ink


def _spaced(grey: Any, chars: list[str], boxes: Any) -> str:
    """A line's characters with the spaces between Latin words put back where the page
    shows a gap. PP-OCRv4's Chinese-and-English model drops some of them on long lines of
    small English text ("Patientreferralletter"): 59–63 % of the words of two test pages
    were read without this, 98–100 % with it. Characters come with their boxes, so the
    ink between two of them is looked at; Chinese text, which has no spaces, is left as
    it is."""
    found = [chars[0]]
    for before, after, left, right in zip(chars, chars[1:], boxes, boxes[1:], strict=False):
        if before != " " and after != " " and _LATIN.match(before) and _LATIN.match(after):
            ys = [point[1] for point in (*left, *right)]
            top, bottom = max(0, int(min(ys))), max(0, int(max(ys)))
            start = max(0, int(sum(point[0] for point in left) / 4))
            end = max(start, int(sum(point[0] for point in right) / 4))
            ink = (grey[top:bottom, start:end] < INK).sum(axis=0)
            if bottom > top and _longest_blank(ink) >= WORD_GAP * (bottom - top):
                found.append(" ")
        found.append(after)
    return "".join(found)


def _longest_blank(ink: Any) -> int:
    longest = run = 0
    for column in ink:
        run = run + 1 if column == 0 else 0
        longest = max(longest, run)
    return longest
