"""The parent's check of what the parser process says: a reply is believed only in the
shape an honest child gives it.

The child is as untrusted as the files it reads (``parser_child``). Its reply is JSON, of
a size the parent bounds when it reads it (``isolation``); here every field is checked
for its type and its limits (a sha256 that is one, sections with a known role, a picture
no larger than asked, a page's text no longer than a page holds), and a reason or note
the child sent as a kind and values is said again in the parent's language, the values
only ever going into it through .format(). Anything else is ``Malformed``.
"""

from __future__ import annotations

import json
import re
from typing import Any

from storage.documents import parsers
from storage.documents.pages import ROLES
from storage.documents.parser_child import reason

_SHA256 = re.compile(r"[0-9a-f]{64}")


class Malformed(Exception):
    """The child's reply is not one it could have sent honestly."""


def checked(data: bytes, op: str) -> dict[str, Any]:
    """The child's reply, if it has the shape of one; Malformed if not."""
    try:
        reply = json.loads(data)
    except (ValueError, UnicodeDecodeError, RecursionError):  # nested past the stack: no reply
        raise Malformed("not JSON") from None

    def integer(value: object, optional: bool = False) -> bool:
        return (value is None and optional) or (type(value) is int and value >= 0)

    def text(value: object, optional: bool = False) -> bool:
        return (value is None and optional) or isinstance(value, str)

    def said(kind: object, values: object) -> str:
        """The text of what the child said as a kind and values, built here, in the
        interface language; the values only ever go into it through .format()."""
        if not isinstance(kind, str) or not isinstance(values, dict) \
                or not all(type(v) in (str, int, float) for v in values.values()):
            raise Malformed("a kind or values of the wrong shape")
        try:
            return reason(kind, values)
        except (KeyError, ValueError, TypeError, IndexError, ArithmeticError):
            raise Malformed("a kind Hearth does not know, or values that do not fit it") from None

    if not isinstance(reply, dict) or not integer(reply.get("peak")):
        raise Malformed("not an object with a peak")
    if reply.get("status") == "error":
        if not text(reply.get("reason")):
            raise Malformed("an error without a reason")
        if "kind" in reply:  # said again here, in the parent's language
            reply["reason"] = said(reply["kind"], reply.get("values"))
        return reply
    if reply.get("status") != "ok":
        raise Malformed("no status")
    if op == "hash":
        if not isinstance(reply.get("sha256"), str) or not _SHA256.fullmatch(reply["sha256"]):
            raise Malformed("no sha256")
        return reply
    if op == "picture":
        from storage.documents.page_picture import MAX_MARKS, MAX_PREVIEW_SIDE

        width, height, pixels, marks = (reply.get(k) for k in ("width", "height", "pixels", "marks"))
        if not (type(width) is int and type(height) is int and 0 < width <= MAX_PREVIEW_SIDE
                and 0 < height <= MAX_PREVIEW_SIDE and isinstance(pixels, str)
                and len(pixels) == 4 * ((width * height + 2) // 3)):
            raise Malformed("a picture of the wrong size")
        if not isinstance(marks, list) or len(marks) > MAX_MARKS or not all(
                isinstance(m, list) and len(m) == 4 and all(type(v) is int and -1 <= v <= MAX_PREVIEW_SIDE + 1
                                                           for v in m) for m in marks):
            raise Malformed("marks of the wrong shape")
        return reply
    if op == "transcribe":
        from storage.documents.speech import MAX_SECONDS, MAX_SEGMENTS, MAX_TEXT

        segments = reply.get("segments")
        seconds: Any = reply.get("seconds")
        if not isinstance(segments, list) or len(segments) > MAX_SEGMENTS or not isinstance(reply.get("language"), str) \
                or type(seconds) not in (int, float) or not 0 <= seconds <= MAX_SECONDS + 1 \
                or type(reply.get("cut", False)) is not bool:
            raise Malformed("no segments")

        def honest(s: object) -> bool:
            return (isinstance(s, list) and len(s) == 3 and isinstance(s[2], str) and bool(s[2].strip())
                    and all(type(t) in (int, float) and 0 <= t <= MAX_SECONDS + 1 for t in s[:2]) and s[0] <= s[1])

        if not all(honest(s) for s in segments) or sum(len(s[2]) for s in segments) > MAX_TEXT:
            raise Malformed("segments of the wrong shape")
        return reply
    if op == "listen":
        from storage.documents.speech import LISTEN_SECONDS, MAX_SECONDS, RATE

        pcm, start = reply.get("pcm"), reply.get("start")
        if not (reply.get("rate") == RATE and isinstance(start, (int, float)) and not isinstance(start, bool)
                and 0 <= start <= MAX_SECONDS
                and isinstance(pcm, str) and len(pcm) <= 4 * ((int(2 * RATE * LISTEN_SECONDS) + 2) // 3)):
            raise Malformed("sound of the wrong shape")
        return reply
    if op == "pixels":
        from storage.documents.pixels import MAX_SIDE

        width, height, rgb = (reply.get(k) for k in ("width", "height", "rgb"))
        if not (type(width) is int and type(height) is int and 0 < width <= MAX_SIDE and 0 < height <= MAX_SIDE
                and isinstance(rgb, str) and len(rgb) == 4 * width * height):
            raise Malformed("pixels of the wrong size")
        return reply
    if op == "ocr":
        from storage.documents.ocr import MAX_PAGE_CHARS

        if not text(reply.get("text")) or len(reply["text"]) > MAX_PAGE_CHARS:
            raise Malformed("no text, or more than a page holds")
        return reply
    scanned = reply.setdefault("scanned", [])  # (none said: none)
    if not isinstance(scanned, list) or not all(type(n) is int and 1 <= n <= parsers.MAX_PAGES for n in scanned) \
            or len(set(scanned)) != len(scanned):
        raise Malformed("scanned pages of the wrong shape")
    sections, notes = reply.get("sections"), reply.get("notes")
    if not isinstance(sections, list) or not isinstance(notes, list) \
            or not all(isinstance(n, list) and len(n) == 2 for n in notes):
        raise Malformed("no sections or notes")
    reply["notes"] = [said(kind, values) for kind, values in notes]
    for section in sections:
        if not (isinstance(section, list) and len(section) == 4 and text(section[0])
                and integer(section[1], optional=True) and text(section[2], optional=True)
                and isinstance(section[3], str) and section[3] in ROLES):
            raise Malformed("a section of the wrong shape")
    return reply
