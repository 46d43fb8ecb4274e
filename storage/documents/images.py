"""Image files (PNG, JPEG, TIFF), which only text recognition reads: their headers
checked before any pixel is decoded."""

from __future__ import annotations

from typing import Any, BinaryIO

from storage.documents.reading import (
    IMAGE_TOO_LARGE,
    MAX_PAGES,
    NOT_IMAGE,
    PDF_PAGES,
    read_bounded,
    refused,
)

MAX_IMAGE_PIXELS = 60_000_000  # a 600-dpi A4 scan is 35 million; more is a bomb


def open_image(data: bytes) -> Any:
    """A PNG, JPEG or TIFF from ``data``, its header checked (format, size) before any
    pixel is decoded; ParseError for anything else, or for an image past the pixel limit
    (Pillow's own bomb check, made an error)."""
    import io
    import warnings

    from PIL import Image, UnidentifiedImageError

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", Image.DecompressionBombWarning)
            image = Image.open(io.BytesIO(data), formats=["PNG", "JPEG", "TIFF"])
    except (Image.DecompressionBombError, Image.DecompressionBombWarning):
        raise refused(IMAGE_TOO_LARGE, pixels=0.0, limit=MAX_IMAGE_PIXELS // 1_000_000) from None
    except (UnidentifiedImageError, OSError, ValueError, SyntaxError) as exc:
        raise refused(NOT_IMAGE, error=f"{type(exc).__name__}: {str(exc)[:120]}") from None
    width, height = image.size
    if width * height > MAX_IMAGE_PIXELS:
        raise refused(IMAGE_TOO_LARGE, pixels=width * height / 1e6, limit=MAX_IMAGE_PIXELS // 1_000_000)
    return image


def image_frames(fh: BinaryIO, limit: int) -> int:
    """How many pages an image file has (a TIFF may have several), at most MAX_PAGES."""
    image = open_image(read_bounded(fh, limit))
    frames = int(getattr(image, "n_frames", 1) or 1)
    if frames > MAX_PAGES:
        raise refused(PDF_PAGES, pages=frames, limit=MAX_PAGES)
    return frames
