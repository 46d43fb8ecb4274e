"""Chats brought from other apps (#40): ChatGPT's export (``conversations.json``), Open WebUI's
export, LM Studio's conversation files, Jan's threads, GPT4All's chat files (``core.gpt4all_chat``;
one file, or its folder with all of them) and Hearth's own JSON export, read into Hearth's vault.

An import file is a stranger's file like any document: it is read within bounds before
anything of it is believed. Its size is bounded before it is parsed (``MAX_BYTES``), the
JSON's nesting by the parser (a file nested past it is refused in words), and what it
holds by counts: chats, messages a chat and in all, and characters a message (a longer
message is cut, and the report says how many were). Items of the wrong shape are skipped
and counted, never guessed at. Branches are kept where the source has them (ChatGPT's
and Open WebUI's trees, LM Studio's versions), with the branch the source showed shown.

Nothing is sent anywhere, and the source is left where it is: the window then offers to
delete it (``delete_source``), saying that deleting a file on an SSD does not erase it.
"""

from __future__ import annotations

import json
import logging
import math
import os
import re
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from core import gpt4all_chat
from guard.files import NotRegular, open_regular
from guard.text import one_line
from i18n import translate

log = logging.getLogger(__name__)

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
MAX_BLOCKS = 10_000  # content blocks of one LM Studio message
LATEST = 4_102_444_800.0  # 2100-01-01: a later time is not a message's
_LINE = re.compile(r"[^\n]+")
ROLES = {"user": "user", "human": "user", "assistant": "assistant", "gpt": "assistant", "model": "assistant",
         "system": "system"}


class ImportRefused(Exception):
    """Why a file cannot be imported, in the user's words."""


@dataclass
class Turn:
    key: str
    parent: str | None  # None: the chat's first message
    role: str
    content: str
    created_at: float = 0.0


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


def read(path: Path) -> Found:
    """The chats in ``path`` (a file, Jan's thread folder or a folder of GPT4All's chats),
    its format recognised from its content; ImportRefused says why not, and where none of
    its items is a chat Hearth can read (the window would offer to delete the source)."""
    found = _read(Path(path))
    if not found.chats:
        raise ImportRefused(translate("core.chat_import", "{name} holds no chat that Hearth can read: nothing "
                                      "was imported.").format(name=Path(path).name))
    return found


def _read(path: Path) -> Found:
    if path.is_dir():
        chats = sorted(f for f in path.glob("gpt4all-*.chat") if f.is_file() and not f.is_symlink())
        if chats:
            return _gpt4all(path, chats)
        path = path / "messages.jsonl"
    raw = bounded(path)
    if gpt4all_chat.is_chat(raw):
        return _gpt4all(path.parent, [path], {path: raw})
    if values(raw) > MAX_VALUES:
        raise ImportRefused(translate("core.chat_import", "{name} holds more than {limit} values (messages, "
                                      "fields, numbers): more than Hearth reads in one import. Nothing was "
                                      "imported.").format(name=path.name, limit=f"{MAX_VALUES:,}"))
    text = decoded(raw)
    del raw  # its text is what is parsed: the bytes need not stay beside it
    if path.name.endswith(".jsonl"):
        return _jan(path, text)
    try:
        data = json.loads(text)
    except RecursionError:
        raise ImportRefused(translate("core.chat_import", "{name} is nested too deeply to be a chat "
                                      "export.").format(name=path.name)) from None
    except ValueError:
        raise ImportRefused(translate("core.chat_import", "{name} is not JSON: Hearth imports ChatGPT's "
                                      "conversations.json, Open WebUI's export, LM Studio's conversation files, "
                                      "Jan's threads, GPT4All's chats and its own JSON export.").format(
                                          name=path.name)) from None
    items = data if isinstance(data, list) else [data]
    first = next((i for i in items if isinstance(i, dict)), {})
    if "mapping" in first:
        return _chatgpt(items)
    if isinstance(first.get("chat"), dict) or isinstance(first.get("history"), dict):
        return _open_webui(items)
    if isinstance(first.get("messages"), list) and any(isinstance(m, dict) and "versions" in m
                                                       for m in first["messages"][:50]):
        return _lm_studio(items)
    if _is_hearth(first):
        return _hearth(items)
    raise ImportRefused(translate("core.chat_import", "{name} is not a chat export Hearth knows: it imports "
                                  "ChatGPT's conversations.json, Open WebUI's export, LM Studio's conversation "
                                  "files, Jan's threads, GPT4All's chats and its own JSON export.").format(
                                      name=path.name))


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
            name=path.name, reason=exc.strerror or exc)) from None
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


def _gpt4all(folder: Path, files: list[Path], read_already: dict[Path, bytes] | None = None) -> Found:
    """GPT4All: one chat a file. A file that is not one, or breaks partway, is skipped
    and counted; the files together are bounded like one export."""
    found = Found("GPT4All")
    left = MAX_BYTES
    for file in files[:MAX_CHATS]:
        raw = (read_already or {}).get(file)
        if raw is None:
            try:
                size = file.stat().st_size
            except OSError:  # gone meanwhile (GPT4All saves a chat by replacing its file)
                found.skipped += 1
                continue
            if size > left:
                raise ImportRefused(translate(
                    "core.chat_import", "The chats in {name} are larger than {limit} MB together: import them a "
                    "few at a time.").format(name=folder.name, limit=MAX_BYTES >> 20))
            try:
                raw = bounded(file, left)
            except ImportRefused:  # not readable (permissions): the others still come
                if len(files) == 1:
                    raise
                log.warning("a GPT4All chat could not be read; skipped")
                found.skipped += 1
                continue
        left -= len(raw)
        try:
            chat = gpt4all_chat.read(raw)
        except gpt4all_chat.Broken as exc:
            log.warning("a GPT4All chat was skipped: %s", exc)  # where it broke, not its name
            if len(files) == 1:
                raise ImportRefused(translate("core.chat_import", "{name} is a GPT4All chat that Hearth cannot read: "
                                              "it is damaged, or from a GPT4All newer than Hearth knows. Nothing "
                                              "was imported.").format(name=file.name)) from None
            found.skipped += 1
            continue
        turns: list[Turn] = []
        for number, item in enumerate(chat.items):
            role = {"Prompt: ": "user", "Response: ": "assistant"}.get(item.name)
            content = found.text(gpt4all_chat.said(item)) if role else ""
            if not content.strip():
                found.skipped += 1
                continue
            turns.append(Turn(str(number), turns[-1].key if turns else None, role or "", content,
                              seconds(chat.created)))
        found.keep(ImportedChat(_title(chat.name), seconds(chat.created), turns,
                                turns[-1].key if turns else None))
    return found


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


def _title(value: Any) -> str:
    """A title as one line of at most TITLE_CHARS, without control characters (a right-to-
    left override made "Invoice‮fdp.exe" read as "Invoiceexe.pdf" in the chat list), made
    from its start: made one line whole, a title of megabytes became a list of its words."""
    head = value[:TITLE_CHARS * 64] if isinstance(value, str) else ""
    return clean(one_line(head)[:TITLE_CHARS]) if head.strip() else ""


def _role(value: Any) -> str | None:
    """The role Hearth keeps for a source's role; None for any other, a number or a list too
    (``[…] in ROLES`` raised "unhashable type": an internal error)."""
    return ROLES.get(value) if isinstance(value, str) else None


def _tree(found: Found, nodes: dict[str, tuple[str | None, Any, Any, float]]) -> list[Turn]:
    """Turns from a source's tree (key: parent key, role, text, time), parents first;
    a message without a known role or any text is left out, what follows it hung on its
    parent. A node no root leads to (a loop in the source) is left out and counted."""
    children: dict[str | None, list[str]] = {}
    for key, (parent, *_rest) in nodes.items():
        children.setdefault(parent if parent in nodes else None, []).append(key)
    for keys in children.values():
        keys.sort(key=lambda k: (nodes[k][3], k))  # siblings oldest first, as Hearth keeps them
    turns: list[Turn] = []
    stack: list[tuple[str, str | None]] = [(key, None) for key in reversed(children.get(None, []))]
    visited = 0
    while stack:
        key, above = stack.pop()
        visited += 1
        _parent, given, content, when = nodes[key]
        role = _role(given)
        text = found.text(content) if role else ""
        if role and text.strip():
            turns.append(Turn(key, above, role, text, when))
            above = key
        stack.extend((child, above) for child in reversed(children.get(key, [])))
    found.skipped += len(nodes) - visited
    return turns


def _chatgpt(items: list[Any]) -> Found:
    found = Found("ChatGPT")
    for item in _dicts(found, items):
        mapping = item.get("mapping")
        if not isinstance(mapping, dict):
            found.skipped += 1
            continue
        nodes: dict[str, tuple[str | None, Any, Any, float]] = {}
        for key, node in list(mapping.items())[:MAX_CHAT_MESSAGES * 2]:
            if not isinstance(node, dict) or not isinstance(key, str):
                found.skipped += 1
                continue
            message = _dict(node.get("message"))
            author = _dict(message.get("author"))
            content = _dict(message.get("content"))
            parts = _list(content.get("parts"))
            text = "\n".join(p for p in parts if isinstance(p, str)) if content.get("content_type") in (
                None, "text", "multimodal_text") else ""
            parent = node.get("parent") if isinstance(node.get("parent"), str) else None
            nodes[key] = (parent, author.get("role"), text, seconds(message.get("create_time")))
        turns = _tree(found, nodes)
        found.keep(ImportedChat(_title(item.get("title")), seconds(item.get("create_time")), turns,
                                _shown(turns, nodes, item.get("current_node"))))
    return found


def _shown(turns: list[Turn], nodes: dict[str, tuple[str | None, Any, Any, float]], leaf: Any) -> str | None:
    keys = {t.key for t in turns}
    key = leaf if isinstance(leaf, str) else None
    seen: set[str] = set()
    while key is not None and key not in keys and key not in seen:
        seen.add(key)
        key = nodes[key][0] if key in nodes else None
    return key if key in keys else (turns[-1].key if turns else None)


def _open_webui(items: list[Any]) -> Found:
    found = Found("Open WebUI")
    for item in _dicts(found, items):
        chat = _dict(item.get("chat")) or item
        history = _dict(chat.get("history"))
        messages = _dict(history.get("messages"))
        nodes: dict[str, tuple[str | None, Any, Any, float]] = {}
        for key, message in list(messages.items())[:MAX_CHAT_MESSAGES * 2]:
            if not isinstance(message, dict) or not isinstance(key, str):
                found.skipped += 1
                continue
            parent = message.get("parentId") if isinstance(message.get("parentId"), str) else None
            nodes[key] = (parent, message.get("role"), message.get("content"),
                          seconds(message.get("timestamp")))
        turns = _tree(found, nodes)
        title = _title(item.get("title")) or _title(chat.get("title"))
        found.keep(ImportedChat(title, seconds(item.get("created_at") or chat.get("timestamp")), turns,
                                _shown(turns, nodes, history.get("currentId"))))
    return found


def _lm_studio(items: list[Any]) -> Found:
    """LM Studio: each message a list of versions, one of them selected; the versions
    are siblings, and what follows hangs under the selected one."""
    found = Found("LM Studio")
    for item in _dicts(found, items):
        turns: list[Turn] = []
        parent: str | None = None
        for index, slot in enumerate(_list(item.get("messages"))[:MAX_CHAT_MESSAGES]):
            versions = slot.get("versions") if isinstance(slot, dict) else None
            if not isinstance(versions, list) or not versions:
                found.skipped += 1
                continue
            selected = slot.get("currentlySelected") if isinstance(slot.get("currentlySelected"), int) else 0
            chosen: str | None = None
            for number, version in enumerate(versions[:50]):
                text = _lm_text(found, version)
                role = _role(version.get("role")) if isinstance(version, dict) else None
                if role is None or not text.strip():
                    found.skipped += 1
                    continue
                key = f"{index}.{number}"
                turns.append(Turn(key, parent, role, text))
                if number == selected or chosen is None:
                    chosen = key
            parent = chosen if chosen is not None else parent
        found.keep(ImportedChat(_title(item.get("name")), seconds(item.get("createdAt")), turns, parent))
    return found


def _lm_text(found: Found, version: Any) -> str:
    if not isinstance(version, dict):
        return ""
    blocks = _list(version.get("content"))[:MAX_BLOCKS]
    for step in _list(version.get("steps")):
        if len(blocks) >= MAX_BLOCKS:  # copied whole at each step before: quadratic, hours for 25 MB
            break
        if isinstance(step, dict) and isinstance(step.get("content"), list):
            blocks.extend(step["content"][: MAX_BLOCKS - len(blocks)])
    return found.text("".join(b.get("text", "") for b in blocks if isinstance(b, dict)
                              and isinstance(b.get("text"), str)))


def _is_hearth(item: dict[str, Any]) -> bool:
    """Whether ``item`` is Hearth's JSON export: a project's, or a chat's (its messages with a "status")."""
    messages = item.get("messages")
    return ("project" in item and isinstance(item.get("chats"), list)) or (
        "title" in item and "created_at" in item and isinstance(messages, list)
        and (not messages or any(isinstance(m, dict) and "status" in m for m in messages[:50])))


def _hearth(items: list[Any]) -> Found:
    """Hearth's own JSON export (``storage.export``): a chat's shown branch (no other is in it), or a
    project's chats. Messages' figures are not kept: one that cited sources or had files is counted."""
    found = Found("Hearth")
    for item in _dicts(found, items):
        chats = item.get("chats") if "project" in item else [item]
        found.skipped += not isinstance(chats, list)
        for chat in _dicts(found, _list(chats)):
            messages = _list(chat.get("messages"))
            found.over += max(0, len(messages) - MAX_CHAT_MESSAGES)
            turns: list[Turn] = []
            for given in messages[:MAX_CHAT_MESSAGES]:
                message = _dict(given)
                role = _role(message.get("role"))
                text = found.text(message.get("content")) if role else ""
                if role is None or not text.strip():
                    found.skipped += 1
                    continue
                found.bare += any(_list(_dict(message.get("stats")).get(k)) for k in ("sources", "attachments"))
                turns.append(Turn(str(len(turns)), turns[-1].key if turns else None, role, text,
                                  seconds(message.get("created_at"))))
            found.keep(ImportedChat(_title(chat.get("title")), seconds(chat.get("created_at")), turns,
                                    turns[-1].key if turns else None))
    return found


def _jan(path: Path, text: str) -> Found:
    """Jan: a thread's messages.jsonl, one message a line (its title in thread.json beside it)."""
    found = Found("Jan")
    turns: list[Turn] = []
    for number, line in enumerate(_lines(text)):
        if not line.strip():
            continue
        if number >= MAX_CHAT_MESSAGES:
            found.over += 1
            continue
        try:
            message = json.loads(line)
        except (ValueError, RecursionError):
            message = None
        if not isinstance(message, dict):
            found.skipped += 1
            continue
        content = message.get("content")
        parts = content if isinstance(content, list) else [{"text": {"value": content}}]
        said = "".join(_jan_text(part) for part in parts[:10_000])
        role = _role(message.get("role"))
        said = found.text(said)
        if role is None or not said.strip():
            found.skipped += 1
            continue
        turns.append(Turn(str(number), turns[-1].key if turns else None, role, said,
                          seconds(message.get("created_at") or message.get("created"))))
    title = ""
    try:  # read as the export is: a FIFO there waited for ever, a link to /dev/zero read without end
        thread = json.loads(decoded(bounded(path.parent / "thread.json", 1 << 20)))
        title = _title(thread.get("title")) if isinstance(thread, dict) else ""
    except (ImportRefused, ValueError, RecursionError):
        pass
    found.keep(ImportedChat(title, turns[0].created_at if turns else 0.0, turns, turns[-1].key if turns else None))
    return found


def _lines(text: str) -> Iterator[str]:
    """A JSON Lines file's lines that are not empty, one at a time, split at "\n" only: JSON
    may hold U+2028, U+2029 and U+0085 unescaped (JavaScript writes them so), and
    ``str.splitlines`` cut a message at them into pieces that were each skipped."""
    return (match.group() for match in _LINE.finditer(text))


def _jan_text(part: Any) -> str:
    """One part of a Jan message: {"text": {"value": …}} (or {"text": …})."""
    text = _dict(part).get("text")
    value = _dict(text).get("value") if isinstance(text, dict) else text
    return value if isinstance(value, str) else ""


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def _dicts(found: Found, items: list[Any]) -> Iterator[dict[str, Any]]:
    for item in items:
        if isinstance(item, dict):
            yield item
        else:
            found.skipped += 1


def delete_source(path: Path) -> None:
    """Remove the source file after an import (OSError as it comes; a folder, Jan's thread,
    is not removed: its other files are the user's to judge). On an SSD this does not
    erase its content: the window says so before it asks."""
    if Path(path).is_dir():
        raise IsADirectoryError(21, translate("core.chat_import", "a folder is not deleted by Hearth: delete it "
                                              "yourself if you want it gone"))
    os.remove(path)


def untitled(chat: ImportedChat) -> str:
    """A title for a chat the source left without one: its first question, or its date."""
    first = next((t.content for t in chat.turns if t.role == "user"), "")
    if first.strip():
        return " ".join(first.split())[:60]
    return time.strftime("%Y-%m-%d %H:%M", time.localtime(chat.created_at or time.time()))


def save(store: Any, found: Found, cancel: threading.Event | None = None) -> list[int]:
    """Write the chats found into the vault, all or nothing (``storage.chat_bulk``: in
    batches that leave the window room to write, shown once all are in); their ids. An
    import that did not finish raises ``storage.chat_bulk.ImportStopped`` from its cause;
    ``not_imported`` says what it left. ``cancel`` set (a lock) stops it between batches,
    its part removed while the vault is open (``was_cancelled``)."""
    from storage.chat_bulk import WholeChat, Written, import_chats

    def whole(chat: ImportedChat) -> WholeChat:  # built as it is written: no second copy of them all
        messages = [Written(t.key, t.parent, t.role, t.content, t.created_at, {"imported_from": found.source})
                    for t in chat.turns]
        return WholeChat(chat.title or untitled(chat), chat.created_at, messages, chat.shown)

    return import_chats(store, (whole(chat) for chat in found.chats), cancel=cancel)


def was_cancelled(exc: BaseException) -> bool:
    """Whether the import stopped because it was asked to (a lock), not on a fault."""
    from storage.chat_bulk import ImportCancelled

    return isinstance(exc.__cause__, ImportCancelled)


def not_imported(exc: BaseException) -> str:
    """What an import that failed with ``exc`` left in the vault, in the user's words:
    none of its chats, either removed already or hidden until they can be."""
    from storage.chat_bulk import ImportStopped

    if isinstance(exc, ImportStopped) and exc.left:
        return translate("core.chat_import", "None of the chats was imported. The part written before it "
                         "stopped is hidden, and is removed the next time Hearth is unlocked or imports chats.")
    return translate("core.chat_import", "None of the chats was imported; your vault is as it was.")


def report(found: Found) -> str:
    """What an import did, in a few words for the user."""
    said = translate("core.chat_import", "Imported {chats} chat(s) with {messages} message(s) from {source}.").format(
        chats=len(found.chats), messages=found.messages, source=found.source)
    if found.cut:
        said += " " + translate("core.chat_import", "{count} message(s) longer than {limit} characters were "
                                "cut there.").format(count=found.cut, limit=f"{MAX_MESSAGE_CHARS:,}")
    if found.over:
        said += " " + translate("core.chat_import", "{count} message(s) past Hearth's limits ({chat} a chat, "
                                "{total} in all) were left out.").format(
                                    count=found.over, chat=f"{MAX_CHAT_MESSAGES:,}", total=f"{MAX_MESSAGES:,}")
    if found.skipped:
        said += " " + translate("core.chat_import", "{count} item(s) that were not chats or messages were "
                                "skipped.").format(count=found.skipped)
    if found.bare:
        said += " " + translate("core.chat_import", "{count} message(s) came without their cited sources or "
                                "attached files: an import keeps messages' text.").format(count=found.bare)
    return said
