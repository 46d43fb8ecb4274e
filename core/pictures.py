"""Pictures attached to a question, for a model that sees them (#39).

An attached image is read twice in the isolated child: by text recognition, for every
model (its text becomes passages), and as pixels (``IsolatedParser.pixels``: the first
frame, upright, at most 1024 pixels a side, nothing of its metadata), which the message
keeps, compressed, encrypted with it in the vault. A model with a projector is given those
pixels (``ChatMessage.pictures``, built from the stored message each turn); any other
model and every intranet engine are not.
"""

from __future__ import annotations

import base64
import zlib
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from inference.protocol import MAX_PICTURE_SIDE, Picture
from storage.documents.isolation import Identity, IsolatedParser

IMAGE_SUFFIXES = frozenset({".png", ".jpg", ".jpeg", ".tif", ".tiff"})


def read_picture(parser: IsolatedParser, path: Path, identity: Identity) -> Picture | None:
    """An image file's pixels, decoded in the child (ParseError as a parse); None for any
    other kind of file."""
    if path.suffix.lower() not in IMAGE_SUFFIXES:
        return None
    width, height, rgb = parser.pixels(path, identity)
    return Picture(width, height, rgb)


def stored(picture: Picture) -> list[Any]:
    """How a message keeps a picture: its size and its pixels, compressed."""
    return [picture.width, picture.height, base64.b64encode(zlib.compress(picture.rgb, 6)).decode("ascii")]


def from_stored(item: Any) -> Picture | None:
    """A kept picture, or None for anything that is not one (a damaged entry, a size past
    the bound: the compressed pixels are never inflated past the size they claim)."""
    try:
        width, height, packed = item
        if not (isinstance(width, int) and isinstance(height, int) and isinstance(packed, str)):
            return None
        if not (0 < width <= MAX_PICTURE_SIDE and 0 < height <= MAX_PICTURE_SIDE):
            return None
        size = width * height * 3
        inflater = zlib.decompressobj()
        rgb = inflater.decompress(base64.b64decode(packed, validate=True), size + 1)
        if len(rgb) != size or not inflater.eof:
            return None
        return Picture(width, height, rgb)
    except (ValueError, TypeError, zlib.error):
        return None


def pictures_of(stats: Mapping[str, Any] | None, key: str = "attachments") -> tuple[Picture, ...]:
    """The pictures a stored user message's attachments keep, in order."""
    found = []
    items: Sequence[Any] = (stats or {}).get(key) or []
    for item in items:
        picture = from_stored(item.get("picture")) if isinstance(item, dict) and item.get("picture") else None
        if picture is not None:
            found.append(picture)
    return tuple(found)


def chat_has_pictures(store: Any, chat_id: int) -> bool:
    """Whether any question of the chat keeps a picture (``store``: None, none); the kept
    pixels are not unpacked to tell."""
    if store is None:
        return False
    return any(isinstance(item, dict) and item.get("picture")
               for m in store.messages(chat_id) if m.role == "user"
               for item in ((m.stats or {}).get("attachments") or []))
