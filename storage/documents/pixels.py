"""A picture's pixels for a model that sees images, made in the isolated child.

The file is opened with the same checks as for text recognition (``images.open_image``:
PNG, JPEG or TIFF by its content, whatever its name says, its size checked before a pixel
is decoded). Its first frame only is taken (a TIFF's other pages, an animation's other
frames are not decoded), turned upright as its EXIF orientation says, laid on white where
it is transparent and scaled down to ``MAX_SIDE`` pixels on its longer side. What leaves
the child is those pixels and their size: no EXIF (location, camera, dates), no ICC
profile, no text chunk, no thumbnail of the original.
"""

from __future__ import annotations

import base64
import contextlib
from typing import Any, BinaryIO

from storage.documents.images import open_image
from storage.documents.reading import MAX_BYTES, read_bounded

MAX_SIDE = 1024  # the same bound as inference.protocol.MAX_PICTURE_SIDE (storage does not import it)


def pixels(fh: BinaryIO, suffix: str) -> dict[str, Any]:
    """{"width", "height", "rgb" (base64 of the RGB bytes, row by row)} of the open image."""
    from PIL import Image, ImageOps

    image = open_image(read_bounded(fh, MAX_BYTES.get(suffix.lstrip("."), MAX_BYTES["png"])))
    image.seek(0)
    image.draft("RGB", (MAX_SIDE, MAX_SIDE))  # a JPEG is decoded small from the start
    with contextlib.suppress(ValueError, TypeError, OSError, SyntaxError):  # nonsense: as stored
        image = ImageOps.exif_transpose(image)
    if image.mode in ("RGBA", "LA", "PA") or (image.mode == "P" and "transparency" in image.info):
        image = image.convert("RGBA")
        white = Image.new("RGBA", image.size, (255, 255, 255, 255))
        image = Image.alpha_composite(white, image)
    image = image.convert("RGB")
    image.thumbnail((MAX_SIDE, MAX_SIDE), Image.Resampling.LANCZOS)
    data = image.tobytes()
    return {"width": image.width, "height": image.height, "rgb": base64.b64encode(data).decode("ascii")}
