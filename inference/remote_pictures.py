"""A picture as an intranet engine that sees pictures is given it: a ``data:`` URI of a
JPEG made here from the pixels Hearth's isolated reader decoded (``core.pictures``), so
nothing of the original file (its bytes, location, camera, dates) leaves, and no image
file from a stranger is decoded in this process: these are pixels Hearth made. Made again
for each request (a few milliseconds): nothing of it is kept."""

from __future__ import annotations

import base64
import io

from inference.protocol import Picture

QUALITY = 90


def data_uri(picture: Picture) -> str:
    from PIL import Image

    buffer = io.BytesIO()
    Image.frombytes("RGB", (picture.width, picture.height), picture.rgb).save(buffer, "JPEG", quality=QUALITY)
    return "data:image/jpeg;base64," + base64.b64encode(buffer.getvalue()).decode("ascii")
