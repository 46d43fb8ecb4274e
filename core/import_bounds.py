"""What a chat import reads a stranger's file into, and the bounds it reads it within (#40).

An import file is a stranger's file like any document: it is read within bounds before
anything of it is believed. Its size is bounded before it is parsed (``MAX_BYTES``, and
``values`` counts what parsing it would make), and what it holds by counts: chats,
messages a chat and in all, and characters a message (a longer message is cut, and the
report says how many were). What a source writes as a time, a title, a role, a
message's state, whether an answer was cut off at the length limit or why it failed is
taken only in the shapes Hearth knows, anything else left out or made safe.
``core.chat_formats`` reads each app's format into these records.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from guard.files import NotRegular, open_regular
from guard.text import one_line
from i18n import translate
from storage.chat_bulk import ERROR_CHARS
from storage.chat_tree import COMPLETE, FAILED, INTERRUPTED, STREAMING
from storage.errors import why_not

MAX_BYTES = 256 << 20
# The JSON's values, counted before it is parsed (``values``): each becomes a Python object
# of 40 to 200 bytes, so 256 MB of ``[[],[],…]`` took 6.8 GB. A ChatGPT export of 256 MB
# holds 20 to 30 million; this many come to about 1.6 GB, as such an export does.
MAX_VALUES = 32_000_000
MAX_CHATS = 20_000
MAX_MESSAGES = 500_000  # in all
MAX_CHAT_MESSAGES = 20_000
MAX_MESSAGE_CHARS = 1_000_000
TITLE_CHARS = 200
LATEST = 4_102_444_800.0  # 2100-01-01: a later time is not a message's
ROLES = {"user": "user", "human": "user", "assistant": "assistant", "gpt": "assistant", "model": "assistant",
         "system": "system"}
# A message's state as Hearth's own files write it (``storage.export``), as the import keeps
# it: an answer "streaming" when it was written out stopped there (it is no answer being
# written now); any other value, "damaged" among them, is not believed (complete).
STATES = {COMPLETE: COMPLETE, INTERRUPTED: INTERRUPTED, STREAMING: INTERRUPTED, FAILED: FAILED}


class ImportRefused(Exception):
    """Why a file cannot be imported, in the user's words."""


@dataclass
class Turn:
    key: str
    parent: str | None  # None: the chat's first message
    role: str
    content: str
    created_at: float = 0.0
    status: str = COMPLETE  # an answer the source says stopped before its end: INTERRUPTED
    cut_off: bool = False  # an answer the source says ended at the length limit (``cut_off_of``)
    error: str = ""  # why a failed answer failed, as the source says it (``error_of``)


@dataclass
class ImportedChat:
    title: str
    created_at: float
    turns: list[Turn]
    shown: str | None = None  # the last message of the branch the source showed


@dataclass
class Found:
    """What a file held: its chats, and what was left out or cut, counted."""

    source: str  # the format's name, as the report says it
    chats: list[ImportedChat] = field(default_factory=list)
    skipped: int = 0  # items of the wrong shape
    cut: int = 0  # messages cut at MAX_MESSAGE_CHARS
    over: int = 0  # messages past the count limits
    messages: int = 0
    bare: int = 0  # messages whose cited sources or attached files were left out (their text kept)

    def keep(self, chat: ImportedChat) -> None:
        if not chat.turns:
            self.skipped += 1
            return
        if len(self.chats) >= MAX_CHATS:
            self.over += len(chat.turns)
            return
        room = min(MAX_CHAT_MESSAGES, MAX_MESSAGES - self.messages)
        if len(chat.turns) > room:
            self.over += len(chat.turns) - max(room, 0)
            chat.turns = _closed(chat.turns[:max(room, 0)])
            if chat.shown not in {t.key for t in chat.turns}:
                chat.shown = chat.turns[-1].key if chat.turns else None
        if chat.turns:
            self.messages += len(chat.turns)
            self.chats.append(chat)

    def text(self, raw: Any) -> str:
        """A message's text from the source: a string (a longer one cut and counted), its
        lone surrogates (JSON's "\\ud83d" alone) replaced: they are no text."""
        if not isinstance(raw, str):
            return ""
        if len(raw) > MAX_MESSAGE_CHARS:
            self.cut += 1
            raw = raw[:MAX_MESSAGE_CHARS]
        return clean(raw)


def _closed(turns: list[Turn]) -> list[Turn]:
    """The turns whose parents are among them (a cut tree stays a tree)."""
    kept: list[Turn] = []
    keys: set[str] = set()
    for turn in turns:
        if turn.parent is None or turn.parent in keys:
            kept.append(turn)
            keys.add(turn.key)
    return kept


def bounded(path: Path, limit: int | None = None) -> bytes:
    """A file's bytes, refused in words when it cannot be read or holds more than ``limit``
    (MAX_BYTES unless said)."""
    limit = MAX_BYTES if limit is None else limit
    try:
        fh, info = open_regular(path)  # a FIFO made the read wait for ever
        with fh:
            if info.st_size > limit:
                raise ImportRefused(translate("core.chat_import", "{name} is larger than {limit} MB.").format(
                    name=path.name, limit=limit >> 20))
            raw = fh.read(limit + 1)
    except NotRegular:
        raise ImportRefused(translate("core.chat_import", "{name} is not a file.").format(name=path.name)) from None
    except OSError as exc:
        raise ImportRefused(translate("core.chat_import", "{name} cannot be read: {reason}.").format(
            name=path.name, reason=why_not(exc))) from None
    if len(raw) > limit:
        raise ImportRefused(translate("core.chat_import", "{name} is larger than {limit} MB.").format(
            name=path.name, limit=limit >> 20))
    return raw


def decoded(raw: bytes) -> str:
    """JSON's text in the encoding it is in, as ``json.loads`` finds it for bytes: UTF-8 with
    a byte order mark or without, UTF-16 or UTF-32 (an export saved again by Notepad, or by
    Windows PowerShell's ``>``, was refused as not JSON); what does not decode replaced."""
    return raw.decode(json.detect_encoding(raw), errors="replace")


def values(raw: bytes) -> int:
    """About how many Python objects parsing the JSON (or JSON Lines) ``raw`` makes, counted
    in C without parsing it: a value after each comma, each list, each object (twice: a dict
    is three times a list's size), each string (two quotes), each line. Commas and quotes
    within strings count too; a chat export holds few, and counting more only refuses sooner."""
    return (2 * raw.count(b"{") + raw.count(b"[") + raw.count(b",") + raw.count(b'"') // 2
            + raw.count(b"\n"))


def clean(text: str) -> str:
    """``text`` with what UTF-8 cannot hold (lone surrogates) replaced."""
    return text.encode("utf-8", "replace").decode("utf-8")


def seconds(value: Any) -> float:
    """A time as the sources write it (seconds, or milliseconds), 0 for anything else: not a
    number, infinite, before 1970 or after 2100."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return 0.0
    try:
        value = float(value)  # a 400-digit integer raised OverflowError: an internal error
    except OverflowError:
        return 0.0
    if not math.isfinite(value) or value <= 0:
        return 0.0
    value = value / 1000 if value > 1e11 else value
    return value if value < LATEST else 0.0


def title_of(value: Any) -> str:
    """A title as one line of at most TITLE_CHARS, without control characters (a right-to-
    left override made "Invoice‮fdp.exe" read as "Invoiceexe.pdf" in the chat list), made
    from its start: made one line whole, a title of megabytes became a list of its words."""
    head = value[:TITLE_CHARS * 64] if isinstance(value, str) else ""
    return clean(one_line(head)[:TITLE_CHARS]) if head.strip() else ""


def role_of(value: Any) -> str | None:
    """The role Hearth keeps for a source's role; None for any other, a number or a list too
    (``[…] in ROLES`` raised "unhashable type": an internal error)."""
    return ROLES.get(value) if isinstance(value, str) else None


def state_of(role: str, value: Any) -> str:
    """The state Hearth keeps for an answer's "status" in its own files (``STATES``):
    complete for any other value, a number or a list too, and for a question."""
    if role != "assistant" or not isinstance(value, str):
        return COMPLETE
    return STATES.get(value, COMPLETE)


def cut_off_of(role: str, value: Any) -> bool:
    """Whether the source says an answer ended at the length limit: ``True`` itself only
    (not "yes", 1 or a list), and never a question."""
    return role == "assistant" and value is True


def error_of(role: str, status: str, value: Any) -> str:
    """Why a failed answer failed, as the window will show it: a string only, one line of
    at most ERROR_CHARS printable characters ("" for anything else, and for an answer
    that did not fail or a question). Made one line from its start: a stranger's error of
    megabytes is not read whole."""
    if role != "assistant" or status != FAILED or not isinstance(value, str):
        return ""
    return clean(one_line(value[:ERROR_CHARS * 64])[:ERROR_CHARS])
