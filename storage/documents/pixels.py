"""A picture's pixels for a model that sees images, made in the isolated child.

The file is opened with the same checks as for text recognition (``images.open_image``:
PNG, JPEG or TIFF by its content, whatever its name says, its size checked before a pixel
is decoded). Its first frame only is taken (a TIFF's other pages, an animation's other
frames are not decoded) and made what a person sees by the same ``images.as_seen`` that
text recognition reads: turned upright as its EXIF orientation says, 16-bit levels scaled
to 8 bits, laid on white where it is transparent, and scaled down to ``MAX_SIDE`` pixels
on its longer side. What leaves the child is those pixels and their size: no EXIF
(location, camera, dates), no ICC profile, no text chunk, no thumbnail of the original.
"""

from __future__ import annotations

import base64
from typing import Any, BinaryIO

from storage.documents.images import as_seen, open_image
from storage.documents.reading import MAX_BYTES, read_bounded

MAX_SIDE = 1024  # the same bound as inference.protocol.MAX_PICTURE_SIDE (storage does not import it)


def pixels(fh: BinaryIO, suffix: str) -> dict[str, Any]:
    """{"width", "height", "rgb" (base64 of the RGB bytes, row by row)} of the open image."""
    from PIL import Image

    image = open_image(read_bounded(fh, MAX_BYTES.get(suffix.lstrip("."), MAX_BYTES["png"])))
    image.seek(0)
    image.draft("RGB", (MAX_SIDE, MAX_SIDE))  # a JPEG is decoded small from the start
    image = as_seen(image, MAX_SIDE, Image.Resampling.LANCZOS).convert("RGB")
    data = image.tobytes()
    return {"width": image.width, "height": image.height, "rgb": base64.b64encode(data).decode("ascii")}
