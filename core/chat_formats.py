"""Each app's chat export read into an import's records (#40): ChatGPT's export
(``conversations.json``), Open WebUI's export, LM Studio's conversation files, Jan's threads,
GPT4All's chat files (``core.gpt4all_chat``; one file, or its folder with all of them) and
Hearth's own JSON export, the format recognised from the file's content (``recognised``).

Each is read within the bounds of ``core.import_bounds``: items of the wrong shape are
skipped and counted, never guessed at. Branches are kept where the source has them
(ChatGPT's and Open WebUI's trees, LM Studio's versions), with the branch the source
showed shown; an answer the source says was stopped before its end stays so
(``Turn.status``), where the source says it: Hearth's own "status", ChatGPT's
"finish_details", Open WebUI's "done", Jan's "status". One it says ended at the length
limit stays cut off (``Turn.cut_off``: Hearth's "cut_off", ChatGPT's "max_tokens"), and a
failed one keeps why (``Turn.error``: Hearth's "error"); no other format is known to say so.
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from core import gpt4all_chat
from core import import_bounds as bounds
from core.import_bounds import (
    Found,
    ImportedChat,
    ImportRefused,
    Turn,
    bounded,
    cut_off_of,
    decoded,
    error_of,
    role_of,
    seconds,
    state_of,
    title_of,
    values,
)
from i18n import translate
from storage.chat_tree import COMPLETE, FAILED, INTERRUPTED

log = logging.getLogger(__name__)

MAX_BLOCKS = 10_000  # content blocks of one LM Studio message
# A tree's node as the readers give it: parent key, role, text, time, whether the source
# says the answer stopped before its end, and whether it says it ended at the length limit.
Node = tuple[str | None, Any, Any, float, bool, bool]
_LINE = re.compile(r"[^\n]+")


def recognised(path: Path) -> Found:
    """The chats in ``path``, its format recognised from its content (ImportRefused in words
    for a file Hearth cannot read)."""
    if path.is_dir():
        chats = sorted(f for f in path.glob("gpt4all-*.chat") if f.is_file() and not f.is_symlink())
        if chats:
            return _gpt4all(path, chats)
        path = path / "messages.jsonl"
    raw = bounded(path)
    if gpt4all_chat.is_chat(raw):
        return _gpt4all(path.parent, [path], {path: raw})
    if values(raw) > bounds.MAX_VALUES:
        raise ImportRefused(translate("core.chat_import", "{name} holds more than {limit} values (messages, "
                                      "fields, numbers): more than Hearth reads in one import. Nothing was "
                                      "imported.").format(name=path.name, limit=f"{bounds.MAX_VALUES:,}"))
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


def _gpt4all(folder: Path, files: list[Path], read_already: dict[Path, bytes] | None = None) -> Found:
    """GPT4All: one chat a file. A file that is not one, or breaks partway, is skipped
    and counted; the files together are bounded like one export."""
    found = Found("GPT4All")
    left = bounds.MAX_BYTES
    for file in files[:bounds.MAX_CHATS]:
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
                    "few at a time.").format(name=folder.name, limit=bounds.MAX_BYTES >> 20))
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
        found.keep(ImportedChat(title_of(chat.name), seconds(chat.created), turns,
                                turns[-1].key if turns else None))
    return found


def _tree(found: Found, nodes: dict[str, Node]) -> list[Turn]:
    """Turns from a source's tree (key: parent key, role, text, time, stopped, cut off), parents first;
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
        _parent, given, content, when, stopped, cut = nodes[key]
        role = role_of(given)
        text = found.text(content) if role else ""
        if role and text.strip():
            turns.append(Turn(key, above, role, text, when, _stopped(role, stopped), cut_off_of(role, cut)))
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
        nodes: dict[str, Node] = {}
        for key, node in list(mapping.items())[:bounds.MAX_CHAT_MESSAGES * 2]:
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
            # Stopped by its user: "interrupted"; still being written when exported: "in_progress";
            # ended at the length limit: "max_tokens".
            finish = _dict(_dict(message.get("metadata")).get("finish_details")).get("type")
            nodes[key] = (parent, author.get("role"), text, seconds(message.get("create_time")),
                          finish == "interrupted" or message.get("status") == "in_progress", finish == "max_tokens")
        turns = _tree(found, nodes)
        found.keep(ImportedChat(title_of(item.get("title")), seconds(item.get("create_time")), turns,
                                _shown(turns, nodes, item.get("current_node"))))
    return found


def _shown(turns: list[Turn], nodes: dict[str, Node], leaf: Any) -> str | None:
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
        nodes: dict[str, Node] = {}
        for key, message in list(messages.items())[:bounds.MAX_CHAT_MESSAGES * 2]:
            if not isinstance(message, dict) or not isinstance(key, str):
                found.skipped += 1
                continue
            parent = message.get("parentId") if isinstance(message.get("parentId"), str) else None
            nodes[key] = (parent, message.get("role"), message.get("content"),
                          seconds(message.get("timestamp")), message.get("done") is False, False)  # not finished
        turns = _tree(found, nodes)
        title = title_of(item.get("title")) or title_of(chat.get("title"))
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
        for index, slot in enumerate(_list(item.get("messages"))[:bounds.MAX_CHAT_MESSAGES]):
            versions = slot.get("versions") if isinstance(slot, dict) else None
            if not isinstance(versions, list) or not versions:
                found.skipped += 1
                continue
            selected = slot.get("currentlySelected") if isinstance(slot.get("currentlySelected"), int) else 0
            chosen: str | None = None
            for number, version in enumerate(versions[:50]):
                text = _lm_text(found, version)
                role = role_of(version.get("role")) if isinstance(version, dict) else None
                if role is None or not text.strip():
                    found.skipped += 1
                    continue
                key = f"{index}.{number}"
                turns.append(Turn(key, parent, role, text))
                if number == selected or chosen is None:
                    chosen = key
            parent = chosen if chosen is not None else parent
        found.keep(ImportedChat(title_of(item.get("name")), seconds(item.get("createdAt")), turns, parent))
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
    project's chats. Messages' figures are not kept, but for an answer's "cut_off" and a failed
    one's "error" (the window acts on them): one that cited sources or had files is counted. A
    message without text is left out, but for a failed answer (one that failed before its first
    word is kept so by Hearth: its error is what it shows)."""
    found = Found("Hearth")
    for item in _dicts(found, items):
        chats = item.get("chats") if "project" in item else [item]
        found.skipped += not isinstance(chats, list)
        for chat in _dicts(found, _list(chats)):
            messages = _list(chat.get("messages"))
            found.over += max(0, len(messages) - bounds.MAX_CHAT_MESSAGES)
            turns: list[Turn] = []
            for given in messages[:bounds.MAX_CHAT_MESSAGES]:
                message = _dict(given)
                role = role_of(message.get("role"))
                text = found.text(message.get("content")) if role else ""
                state = state_of(role, message.get("status")) if role else ""
                if role is None or not (text.strip() or state == FAILED):  # failed before a word: its error shows
                    found.skipped += 1
                    continue
                stats = _dict(message.get("stats"))
                found.bare += any(_list(stats.get(k)) for k in ("sources", "attachments"))
                turns.append(Turn(str(len(turns)), turns[-1].key if turns else None, role, text,
                                  seconds(message.get("created_at")), state, cut_off_of(role, stats.get("cut_off")),
                                  error_of(role, state, stats.get("error"))))
            found.keep(ImportedChat(title_of(chat.get("title")), seconds(chat.get("created_at")), turns,
                                    turns[-1].key if turns else None))
    return found


def _jan(path: Path, text: str) -> Found:
    """Jan: a thread's messages.jsonl, one message a line (its title in thread.json beside it)."""
    found = Found("Jan")
    turns: list[Turn] = []
    for number, line in enumerate(_lines(text)):
        if not line.strip():
            continue
        if number >= bounds.MAX_CHAT_MESSAGES:
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
        role = role_of(message.get("role"))
        said = found.text(said)
        if role is None or not said.strip():
            found.skipped += 1
            continue
        turns.append(Turn(str(number), turns[-1].key if turns else None, role, said,
                          seconds(message.get("created_at") or message.get("created")),
                          _stopped(role, message.get("status") in ("stopped", "pending"))))
    title = ""
    try:  # read as the export is: a FIFO there waited for ever, a link to /dev/zero read without end
        thread = json.loads(decoded(bounded(path.parent / "thread.json", 1 << 20)))
        title = title_of(thread.get("title")) if isinstance(thread, dict) else ""
    except (ImportRefused, ValueError, RecursionError):
        pass
    found.keep(ImportedChat(title, turns[0].created_at if turns else 0.0, turns, turns[-1].key if turns else None))
    return found


def _stopped(role: str, stopped: bool) -> str:
    """An answer's state from a source's word that it stopped before its end (a question's is complete)."""
    return INTERRUPTED if stopped and role == "assistant" else COMPLETE


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
