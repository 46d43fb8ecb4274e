"""Images in the local API's messages (#39): an ``image_url`` part whose URL is a ``data:``
URI of a PNG, JPEG or TIFF is read as an attachment is (``core.attachments``: in the
isolated children, its text by text recognition) and its text given to the model as
passages; any other URL is refused, because Hearth fetches nothing from the network.
This is how a text model answers about a screenshot; a model that sees pictures is also
given their pixels (with the last question).

The bytes go to a private temporary folder only for the child to read them, and are
deleted at once; the request body's size limit bounds them first.
"""

from __future__ import annotations

import base64
import binascii
import re
import shutil
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from core.attachments import MAX_ATTACHMENTS, passages, private_folder, read_all, write_private
from inference.protocol import ChatMessage, Picture
from inference.rag import Passage

_DATA_URI = re.compile(r"data:(image/(?:png|jpeg|jpg|tiff));base64,(.*)", re.DOTALL | re.IGNORECASE)
_SUFFIXES = {"image/png": ".png", "image/jpeg": ".jpg", "image/jpg": ".jpg", "image/tiff": ".tiff"}


class ImagesRefused(ValueError):
    """Why a request's images cannot be read (an HTTP 400, in the client's words)."""


def image_parts(raw: Sequence[Any]) -> list[tuple[str, bytes]]:
    """The images of the request's messages, as (suffix, bytes); ImagesRefused for a URL
    that is not a ``data:`` URI of an image Hearth reads."""
    found: list[tuple[str, bytes]] = []
    for message in raw:
        content = message.get("content") if isinstance(message, dict) else None
        for part in content if isinstance(content, list) else ():
            if not isinstance(part, dict) or part.get("type") != "image_url":
                continue
            image = part.get("image_url")
            url = str(image.get("url") if isinstance(image, dict) else image or "").strip()
            if url.lower().startswith(("http://", "https://", "ftp://", "file:")):
                raise ImagesRefused("Hearth fetches nothing from the network or the disk for a request: "
                                    "send the image itself, as a data: URI (data:image/png;base64,…).")
            matched = _DATA_URI.fullmatch(url)
            if matched is None:
                raise ImagesRefused("An image must be a data: URI of a PNG, JPEG or TIFF image, "
                                    "base64-encoded.")
            try:
                data = base64.b64decode("".join(matched[2].split()), validate=True)
            except (binascii.Error, ValueError):
                raise ImagesRefused("An image's data: URI is not valid base64.") from None
            found.append((_SUFFIXES[matched[1].lower()], data))
    if len(found) > MAX_ATTACHMENTS:
        raise ImagesRefused(f"At most {MAX_ATTACHMENTS} images can be sent in one request.")
    return found


def image_passages(images: Sequence[tuple[str, bytes]], question: str) -> tuple[list[Passage], tuple[Picture, ...]]:
    """The images' text, as passages for ``question``, and their pixels for a model that
    sees pictures (AttachmentRefused for an image that cannot be read: a bomb, a broken
    file; one without text only where the model cannot see it either)."""
    folder = private_folder("hearth-images-")
    try:
        paths = [write_private(folder, f"image-{number}{suffix}", data)
                 for number, (suffix, data) in enumerate(images, start=1)]
        read = read_all(paths)
        return passages(read, question), tuple(a.picture for a in read if a.picture is not None)
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def with_pictures(messages: list[ChatMessage], pictures: tuple[Picture, ...]) -> list[ChatMessage]:
    """The request's messages, its pictures given with its last question (a model that
    does not see pictures is not given them: ``inference.llama_engine``)."""
    last = max((i for i, m in enumerate(messages) if m.role == "user"), default=None)
    if last is None or not pictures:
        return messages
    return [replace(m, pictures=pictures) if i == last else m for i, m in enumerate(messages)]
