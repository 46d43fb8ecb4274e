"""GPT4All's chat files (``gpt4all-<id>.chat``, one chat a file, in its models folder), read
for the import (#40).

GPT4All writes a chat with Qt's QDataStream (big-endian): a magic number, a format version
(1 to 12 as of GPT4All 3.10), the chat's date, id, names and model, its document
collections, the model's state before version 11 (skipped here: Hearth keeps none of it),
then its items: prompts with their attached files, responses with their sources and, from
version 12, the response's parts (text, thinking, tool calls and their results). The layout
is GPT4All's ``Chat::deserialize``, ``ChatLLM::deserialize`` and ``ChatItem::deserialize``;
this reads it without Qt, every length checked against what is left of the file, so a file
that lies about its sizes ends the chat it is in and nothing else.

What is kept: the user's prompts (with the text of the files attached to them, as GPT4All
gave them to the model) and the visible text of the answers. Thinking, tool calls and their
results and the model's saved state are not: they were never the chat's words.
"""

from __future__ import annotations

import re
import struct
from typing import Any

MAGIC = 0xF5D553CC
NEWEST = 12
MAX_DEPTH = 32  # sub-items in sub-items; QVariant maps in maps
MAX_ITEMS = 1_000_000


class Broken(Exception):
    """The file does not hold what its format says at this point."""


class Stream:
    """QDataStream's big-endian encoding, read from bytes with every length checked."""

    def __init__(self, data: bytes) -> None:
        self.data = data
        self.at = 0

    def take(self, count: int) -> bytes:
        if count < 0 or self.at + count > len(self.data):
            raise Broken(f"{count} bytes wanted at {self.at}, {len(self.data) - self.at} left")
        part = self.data[self.at:self.at + count]
        self.at += count
        return part

    def skip(self, count: int) -> None:
        if count < 0 or self.at + count > len(self.data):
            raise Broken(f"{count} bytes to skip at {self.at}, {len(self.data) - self.at} left")
        self.at += count

    def u8(self) -> int:
        return self.take(1)[0]

    def boolean(self) -> bool:
        return self.u8() != 0

    def i32(self) -> int:
        return int(struct.unpack(">i", self.take(4))[0])

    def u32(self) -> int:
        return int(struct.unpack(">I", self.take(4))[0])

    def i64(self) -> int:
        return int(struct.unpack(">q", self.take(8))[0])

    def u64(self) -> int:
        return int(struct.unpack(">Q", self.take(8))[0])

    def f64(self) -> float:
        return float(struct.unpack(">d", self.take(8))[0])

    def count(self, value: int) -> int:
        """A container's size as written (a qsizetype or an int), checked: a negative or
        impossibly large one is a broken file, not a loop to run."""
        if value < 0 or value > MAX_ITEMS or value > len(self.data) - self.at:
            raise Broken(f"a count of {value} at {self.at}")
        return value

    def size(self) -> int:
        """A Qt container's own size prefix: quint32, or 0xFFFFFFFE then a qint64 (Qt 6.7's
        extended size)."""
        value = self.u32()
        return self.count(self.i64() if value == 0xFFFFFFFE else value)

    def string(self) -> str:
        """A QString: its length in bytes (0xFFFFFFFF for a null string), then UTF-16BE."""
        length = self.u32()
        if length == 0xFFFFFFFF:
            return ""
        if length % 2:
            raise Broken(f"a string of {length} bytes at {self.at}")
        return self.take(length).decode("utf-16-be", errors="replace")

    def byte_array(self) -> bytes:
        length = self.u32()
        return b"" if length == 0xFFFFFFFF else self.take(length)

    def strings(self) -> list[str]:
        return [self.string() for _ in range(self.size())]

    def variant(self, depth: int = 0) -> Any:
        """A QVariant of the kinds a tool call's arguments hold (JSON's values); another
        kind cannot be skipped without Qt, so it ends the chat."""
        if depth > MAX_DEPTH:
            raise Broken("variants nested too deeply")
        kind = self.u32()
        self.u8()  # is null
        readers: dict[int, Any] = {0: lambda: None, 51: lambda: None, 1: self.boolean, 2: self.i32, 3: self.u32,
                                   4: self.i64, 5: self.u64, 6: self.f64, 10: self.string, 11: self.strings,
                                   12: self.byte_array}
        if kind in readers:
            return readers[kind]()
        if kind == 8:  # QVariantMap
            return {self.string(): self.variant(depth + 1) for _ in range(self.size())}
        if kind == 9:  # QVariantList
            return [self.variant(depth + 1) for _ in range(self.size())]
        raise Broken(f"a value of Qt type {kind}")


class Item:
    """One of GPT4All's chat items: its kind ("Prompt: ", "Response: "…) and its text."""

    def __init__(self, name: str, value: str) -> None:
        self.name = name
        self.value = value
        self.attachments: list[tuple[str, bytes]] = []
        self.parts: list[Item] = []


class Chat:
    def __init__(self) -> None:
        self.created = 0
        self.name = ""
        self.items: list[Item] = []


KINDS = ("System: ", "Prompt: ", "Response: ", "Text: ", "ToolCall: ", "ToolResponse: ", "Think: ")


def is_chat(data: bytes) -> bool:
    return data[:4] == struct.pack(">I", MAGIC)


def read(data: bytes) -> Chat:
    """The chat in one ``.chat`` file's bytes; Broken where they are not one."""
    stream = Stream(data)
    if stream.u32() != MAGIC:
        raise Broken("not a GPT4All chat")
    version = stream.i32()
    if not 1 <= version <= NEWEST:
        raise Broken(f"format version {version}")
    chat = Chat()
    chat.created = stream.i64()
    stream.string()  # id
    name, user_name = stream.string(), stream.string()
    chat.name = user_name or name
    stream.string()  # the model's id (its file name before version 5)
    if version >= 3:
        stream.strings()  # the document collections it used
    _model_state(stream, version)
    for _ in range(stream.count(stream.i32())):
        chat.items.append(_item(stream, version))
    if stream.at != len(data):
        raise Broken(f"{len(data) - stream.at} bytes past the chat's end")
    return chat


def _model_state(stream: Stream, version: int) -> None:
    """``ChatLLM::deserialize``: the model's state, kept in the file before version 11."""
    if version >= 11:
        return
    with_state = stream.boolean() if version >= 6 else True
    if version >= 2:
        stream.i32()  # model type
        stream.i32()  # state version
    stream.string()  # response
    stream.string()  # generated name
    stream.u32()  # tokens
    if not with_state:
        return
    if version < 4:
        stream.u32()  # response logits
    stream.u32()  # n_past
    if version >= 7:
        stream.u32()  # n_ctx
    if version < 9:
        stream.skip(stream.u64() * 4)  # logits
    stream.skip(stream.u64() * 4)  # token cache
    stream.byte_array()  # the state itself


def _item(stream: Stream, version: int) -> Item:
    """``ChatItem::deserialize``."""
    if version < 12:
        stream.i32()  # id
    name = stream.string()
    if name not in KINDS:
        raise Broken(f"an item of kind {name[:40]!r}")
    item = Item(name, stream.string())
    if version < 10:
        stream.string()  # the prompt, as it once was kept
    stream.string()  # new response
    stream.boolean()  # is current response
    stream.boolean()  # stopped
    stream.boolean()  # thumbs up
    stream.boolean()  # thumbs down
    if version >= 11 and name == "Response: ":
        stream.boolean()  # is error
    if version >= 8:
        for _ in range(stream.count(stream.i64())):
            for _field in range(7):  # collection, path, file, title, author, date, text
                stream.string()
            stream.i32(), stream.i32(), stream.i32()  # page, from, to
    elif version >= 3:
        stream.string()  # references
        stream.strings()  # their context
    if version >= 10:
        for _ in range(stream.count(stream.i64())):
            url = stream.byte_array().decode("utf-8", errors="replace")
            item.attachments.append((url.rsplit("/", 1)[-1], stream.byte_array()))
    if version >= 12:
        for _ in range(stream.count(stream.i64())):
            item.parts.append(_part(stream, version, 0))
    return item


def _part(stream: Stream, version: int, depth: int) -> Item:
    """``ChatItem::deserializeSubItems``: a response's parts, in parts."""
    if depth > MAX_DEPTH:
        raise Broken("parts nested too deeply")
    name = stream.string()
    if name not in KINDS[2:]:
        raise Broken(f"a part of kind {name[:40]!r}")
    part = Item(name, stream.string())
    if name == "ToolCall: ":
        stream.string()  # the tool's name
        for _ in range(stream.count(stream.i64())):
            stream.string()  # the argument's name
            stream.i32()  # its type
            stream.variant()  # its value
        stream.string()  # result
        stream.i32()  # error
        stream.string()  # error string
    elif name == "Think: ":
        stream.i32()  # thinking time
    for _ in range(stream.count(stream.i64())):
        part.parts.append(_part(stream, version, depth + 1))
    return part


_HIDDEN = re.compile(r"<think>.*?(</think>|$)", re.S)


def said(item: Item) -> str:
    """What the chat showed of an item: a prompt with its attached files' text (as GPT4All
    gave them to the model); an answer's text, its thinking and tool calls left out."""
    if item.name == "Prompt: ":
        parts = [f"## Attached: {name}" + ("" if b"\0" in content else
                                            "\n\n" + content.decode("utf-8", errors="replace"))
                 for name, content in item.attachments]
        return "\n\n".join([*parts, item.value])
    return _shown(item)


def _shown(item: Item) -> str:
    """An answer's visible text: its parts' (a part that thought or called a tool, then
    the text after it), then its own; thinking, tool calls and tool results hidden."""
    if item.name not in ("Response: ", "Text: "):
        return ""
    own = _HIDDEN.sub("", item.value.split("<tool_call>", 1)[0]).strip()
    return "\n\n".join(t for t in [*(_shown(part) for part in item.parts), own] if t)
