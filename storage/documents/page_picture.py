"""A PDF page as a picture for the source viewer, with the cited passage's place marked
(issue #35, item 5): a wrong citation is visible at a glance.

Rendered by PDFium in the isolated parser's child, like the pages read by OCR, and sent
to the parent as raw grey pixels (no image format to decode: whatever a hostile PDF did
to the child, the parent only copies bytes of a size it checks into a QImage). The place
of the passage is PDFium's own: the first words of the passage are searched in the
page's text, shorter and shorter until found, and their character boxes become
rectangles in the picture's pixels.
"""

from __future__ import annotations

import base64
from typing import Any, BinaryIO

from storage.documents.ocr import pdf_page_handle
from storage.documents.reading import MAX_BYTES, read_bounded

PREVIEW_DPI = 100
MAX_PREVIEW_SIDE = 1400  # pixels of the longer side: a page that claims to be huge is drawn small
MAX_MARKS = 64
NEEDLE_WORDS = (12, 8, 5)  # the passage's first words, searched in this many, until found


def _scale(width: float, height: float) -> float:
    scale = PREVIEW_DPI / 72.0
    longest = max(width, height, 1.0) * scale
    return scale * (MAX_PREVIEW_SIDE / longest) if longest > MAX_PREVIEW_SIDE else scale


def _marks(handle: Any, passage: str, width: int, height: int) -> list[list[int]]:
    """The rectangles (pixels of a ``width`` × ``height`` picture: left, top, right,
    bottom) of the passage's first words. PDFium's own mapping from the page's space to
    the picture's: a page turned by /Rotate (a landscape page) or whose box does not start
    at 0 came out of the picture, and the parent refused the reply as crafted."""
    words = passage.split()
    if not words:
        return []
    text = handle.get_textpage()
    try:
        for count in NEEDLE_WORDS:
            needle = " ".join(words[:count])
            if len(needle) < 4:
                continue
            searcher = text.search(needle, match_case=False)
            try:
                found = searcher.get_next()
            finally:
                searcher.close()
            if not found:
                continue
            index, length = found
            rects = []
            for n in range(min(text.count_rects(index, length), MAX_MARKS)):
                left, bottom, right, top = text.get_rect(n)
                (x0, y0), (x1, y1) = (_device(handle, width, height, x, y) for x, y in ((left, bottom), (right, top)))
                box = [max(0, min(x0, x1)), max(0, min(y0, y1)), min(width, max(x0, x1) + 1),
                       min(height, max(y0, y1) + 1)]
                if box[0] < box[2] and box[1] < box[3]:
                    rects.append(box)
            return rects
        return []
    finally:
        text.close()


def _device(handle: Any, width: int, height: int, x: float, y: float) -> tuple[int, int]:
    """A point of the page's space in the picture's pixels (as PDFium draws the page)."""
    import ctypes

    import pypdfium2.raw as pdfium

    device_x, device_y = ctypes.c_int(), ctypes.c_int()
    pdfium.FPDF_PageToDevice(handle.raw, 0, 0, width, height, 0, x, y,
                             ctypes.byref(device_x), ctypes.byref(device_y))
    return device_x.value, device_y.value


def page_picture(fh: BinaryIO, page: int, passage: str) -> dict[str, Any]:
    """Page ``page`` (1-based) of the open PDF: {"width", "height", "pixels" (base64 of
    one grey byte a pixel, row by row), "marks": [[left, top, right, bottom], ...]}."""
    with pdf_page_handle(read_bounded(fh, MAX_BYTES["pdf"]), page) as handle:
        width, height = handle.get_size()
        scale = _scale(width, height)
        picture = handle.render(scale=scale, grayscale=True, may_draw_forms=True).to_pil().convert("L")
        return {"width": picture.width, "height": picture.height,
                "pixels": base64.b64encode(picture.tobytes()).decode("ascii"),
                "marks": _marks(handle, passage, picture.width, picture.height)}
