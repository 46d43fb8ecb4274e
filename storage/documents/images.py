"""Image files (PNG, JPEG, TIFF), read by text recognition and for a model that sees
pictures: their headers checked before any pixel is decoded, and their pixels made into
what a person sees (``as_seen``) before either reads them."""

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
ORIENTATION = 0x0112  # EXIF: how the stored pixels are turned to be seen upright
_TURNS = {2: "FLIP_LEFT_RIGHT", 3: "ROTATE_180", 4: "FLIP_TOP_BOTTOM", 5: "TRANSPOSE",
          6: "ROTATE_270", 7: "TRANSVERSE", 8: "ROTATE_90"}  # as PIL.ImageOps.exif_transpose


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


def as_seen(image: Any, max_side: int, resample: Any = None) -> Any:
    """The current frame of ``image`` as a person sees it, in 8-bit grey ("L") or RGB, no
    larger than ``max_side`` on its longer side: turned upright as its EXIF orientation
    says (a phone stores a portrait page sideways), 16-bit and floating-point levels scaled
    to 8 bits (Pillow's own conversion clips a 16-bit scan to white), and laid on white
    where it is transparent (converted as it is, a transparent pixel stored as (0, 0, 0, 0)
    is black, and black text on it vanishes). Text recognition and the pixels for a model
    that sees pictures both read what this returns, so the two never see different pages.
    The picture is scaled down before it is laid on white, so a large image costs its
    decoded size once, not once for every step."""
    from PIL import Image

    turn = _turn(image)
    image = _eight_bits(image)
    if image.mode != "RGBA" and (image.mode in ("LA", "PA", "RGBa", "La") or "transparency" in image.info):
        image = image.convert("RGBA")  # resizing RGBA weighs each pixel by its alpha
    elif image.mode == "1":
        image = image.convert("L")  # a bilevel scan shrunk as grey, not by dropping pixels
    elif image.mode not in ("L", "RGB", "RGBA"):
        image = image.convert("RGB")  # palette, CMYK, YCbCr, LAB
    image.thumbnail((max_side, max_side), resample if resample is not None else Image.Resampling.BICUBIC)
    if image.mode == "RGBA":
        image = Image.alpha_composite(Image.new("RGBA", image.size, (255, 255, 255, 255)), image).convert("RGB")
    return image.transpose(getattr(Image.Transpose, turn)) if turn else image


def _turn(image: Any) -> str | None:
    """The name of the transposition that EXIF orientation asks for; none for an image
    without one, or with nonsense there (shown as stored)."""
    try:
        orientation = image.getexif().get(ORIENTATION)
    except (ValueError, TypeError, OSError, SyntaxError, KeyError, AttributeError):
        return None
    return _TURNS.get(orientation) if isinstance(orientation, int) else None


def _eight_bits(image: Any) -> Any:
    """``image`` in 8-bit grey when its pixels are 16-bit, 32-bit or floating-point
    numbers; as it is otherwise. 16-bit levels keep their top byte (65535 is white). A
    32-bit or float image says nothing of its scale, so the usual ones are recognised
    (0..1, 0..255, 0..65535) and anything else is stretched from its darkest to its
    brightest pixel."""
    mode = image.mode
    if mode not in ("I", "F") and not mode.startswith("I;16"):
        return image
    import numpy as np
    from PIL import Image

    values = np.asarray(image)
    if mode.startswith("I;16"):
        return Image.fromarray((values.astype(np.uint16) >> 8).astype(np.uint8), "L")
    values = np.nan_to_num(values.astype(np.float32), nan=0.0, posinf=0.0, neginf=0.0)
    low, high = (float(values.min()), float(values.max())) if values.size else (0.0, 0.0)
    if low >= 0 and high <= 255:
        scale = 255.0 if mode == "F" and high <= 1.0 else 1.0
    elif low >= 0 and high <= 65535:
        scale = 1 / 257
    else:
        values -= low
        scale = 255.0 / (high - low)
    values *= scale
    return Image.fromarray(np.clip(values + 0.5, 0, 255).astype(np.uint8), "L")
