"""A project as one encrypted file (#40), to move a matter to another computer with
Hearth: its settings and all its chats (their branches too), sealed with a passphrase
chosen for the file (Argon2id, AES-256-GCM), never written anywhere in plaintext; the
chats' pictures and documents' passages go as their messages keep them.

A file from elsewhere is a stranger's file: its size, the key derivation it asks for, the
compressed payload's size when inflated and the JSON's shape are all bounded before
anything of it is believed, and its chats are read as an import reads them
(``core.chat_import``): a damaged or tampered file does not open, and says so.

Collections are not in the file (their documents are the user's files, on this
computer): a project's collections are named, and those of the same name here are used.
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import zlib
from dataclasses import replace
from pathlib import Path
from typing import Any

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

from core.import_bounds import (
    MAX_BYTES,
    MAX_CHAT_MESSAGES,
    TITLE_CHARS,
    Found,
    ImportedChat,
    ImportRefused,
    Turn,
    bounded,
    clean,
    cut_off_of,
    error_of,
    seconds,
    state_of,
)
from core.projects import Project, ProjectError, Projects, project_of
from guard.text import one_line
from i18n import translate
from storage import export
from storage.chat_tree import FAILED
from storage.crypto import DEFAULT_KDF, KdfParams, derive_kek

MAGIC = b"HEARTH-PROJECT 1\n"
MAX_INFLATED = 256 << 20
# What a file's key derivation may ask for: what Hearth writes (64 MiB, 3 passes), with room
# to spare, not the terabyte a stranger's header could name.
KDF_LIMITS = {"memory_kib": (8, 1 << 20), "iterations": (1, 16), "lanes": (1, 16)}
NAMES_KEPT = ("model", "engine", "imported_from")  # of a message's figures, besides its sources and attachments
NAME_CHARS = 200
SAMPLING_RANGES = {"temperature": (0.0, 5.0), "top_p": (0.0, 1.0), "top_k": (0, 1000), "min_p": (0.0, 1.0),
                   "repeat_penalty": (0.5, 3.0), "max_tokens": (1, 100_000), "seed": (0, 2**31 - 1)}
SUFFIX = ".hearth-project"


def _ad(header: bytes) -> bytes:
    return MAGIC + header


def write(path: Path, store: Any, library: Any, project: Project, passphrase: str,
          collections: dict[int, str], kdf: KdfParams = DEFAULT_KDF) -> int:
    """Seal ``project`` and its chats into ``path`` (written whole or not at all); the
    number of chats."""
    chats = [c for c in store.list_chats() if project_of(c) == project.id]
    payload = {"project": {**project.as_dict(), "collections": [collections[c] for c in project.collections
                                                                 if c in collections]},
               "chats": [_chat(store, chat) for chat in chats]}
    salted = kdf.with_new_salt()
    nonce = os.urandom(12)
    header = json.dumps({"kdf": {"memory_kib": salted.memory_kib, "iterations": salted.iterations,
                                 "lanes": salted.lanes, "salt": salted.salt.hex()},
                         "nonce": nonce.hex()}).encode("ascii") + b"\n"
    sealed = AESGCM(derive_kek(passphrase, salted)).encrypt(
        nonce, zlib.compress(json.dumps(payload, ensure_ascii=False).encode("utf-8"), 6), _ad(header))
    export.write(path, MAGIC + header + sealed)
    return len(chats)


def _chat(store: Any, chat: Any) -> dict[str, Any]:
    """A chat with every message of its tree (each with its parent), the shown branch's
    last message named."""
    shown = store.messages(chat.id)
    everything = _every_branch(store, chat.id, shown)
    return {"title": chat.title, "created_at": chat.created_at,
            "settings": {k: v for k, v in chat.settings.items() if k not in ("disclosed",)},
            "shown": str(shown[-1].id) if shown else None,
            "messages": [{"key": str(m.id), "parent": str(m.parent) if m.parent else None, "role": m.role,
                          "content": m.content, "status": m.status, "created_at": m.created_at, "stats": m.stats}
                         for m in everything]}


def _every_branch(store: Any, chat_id: int, shown: list[Any]) -> list[Any]:
    """Every message of the chat, each branch's too (other versions, edited questions),
    parents before children."""
    seen = {m.id: m for m in shown}
    frontier = list(shown)
    while frontier:
        found = []
        for message in frontier:
            for version in message.versions:
                if version not in seen:
                    for other in store.messages(chat_id, through=version):
                        if other.id not in seen:
                            seen[other.id] = other
                            found.append(other)
        frontier = found
    return [seen[i] for i in sorted(seen)]


Read = tuple[Project, list[tuple[ImportedChat, dict[str, Any]]], Found, list[str]]


def read(path: Path, passphrase: str) -> Read:
    """The project, its chats (each with its settings), what was left out and the names of
    its collections; ImportRefused
    in words for a file that is not one, too large, damaged, or another passphrase's."""
    raw = bounded(path, MAX_BYTES)  # a regular file only, read without blocking
    if not raw.startswith(MAGIC):
        raise ImportRefused(translate("core.project_files", "{name} is not a Hearth project file.").format(
            name=path.name))
    header, newline, sealed = raw[len(MAGIC):].partition(b"\n")
    try:
        shape: Any = json.loads(header) if newline and len(header) < 4096 else None
        kdf = _kdf(shape["kdf"])
        nonce = bytes.fromhex(shape["nonce"])
    except (ValueError, KeyError, TypeError, OverflowError):  # OverflowError: memory_kib 1e400
        raise ImportRefused(translate("core.project_files", "{name} is not a Hearth project file.").format(
            name=path.name)) from None
    try:
        packed = AESGCM(derive_kek(passphrase, kdf)).decrypt(nonce, sealed, _ad(header + b"\n"))
    except (InvalidTag, ValueError):
        raise ImportRefused(translate("core.project_files", "{name} does not open with this passphrase (or it "
                                      "was changed since it was written).").format(name=path.name)) from None
    inflater = zlib.decompressobj()
    try:
        text = inflater.decompress(packed, MAX_INFLATED)
    except zlib.error:
        raise ImportRefused(translate("core.project_files", "{name} is damaged.").format(name=path.name)) from None
    if inflater.unconsumed_tail or _dense(text):
        raise ImportRefused(translate("core.project_files", "{name} holds more than Hearth reads.").format(
            name=path.name))
    try:
        payload = json.loads(text)
    except (ValueError, RecursionError):
        raise ImportRefused(translate("core.project_files", "{name} is damaged.").format(name=path.name)) from None
    return _payload(path, payload)


def _dense(text: bytes) -> bool:
    """Whether the text holds far more lists and objects than a project's chats make: each
    becomes a Python object of some 60 to 200 bytes, so ``[[],[],…]`` (3 bytes each,
    compressed to nearly nothing) made a file of a few hundred KiB take gigabytes to read.
    A project's messages are objects of a hundred bytes and more."""
    containers = text.count(b"[") + text.count(b"{")
    return containers > 100_000 and containers * 16 > len(text)


def _kdf(data: Any) -> KdfParams:
    params = KdfParams(int(data["memory_kib"]), int(data["iterations"]), int(data["lanes"]),
                       bytes.fromhex(str(data["salt"])))
    for key, (low, high) in KDF_LIMITS.items():
        if not low <= getattr(params, key) <= high:
            raise ValueError(key)
    if not 16 <= len(params.salt) <= 64:
        raise ValueError("salt")
    return params


def _payload(path: Path, payload: Any) -> Read:
    given = payload.get("project") if isinstance(payload, dict) else None
    data: dict[str, Any] = given if isinstance(given, dict) else {}
    project = Project.from_dict({**data, "collections": []})
    if project is None:
        raise ImportRefused(translate("core.project_files", "{name} is damaged.").format(name=path.name))
    names = [n for n in data.get("collections") or [] if isinstance(n, str)]
    found = Found("Hearth")
    chats: list[tuple[ImportedChat, dict[str, Any]]] = []
    for item in payload.get("chats") if isinstance(payload.get("chats"), list) else []:
        if not isinstance(item, dict) or not isinstance(item.get("messages"), list):
            found.skipped += 1
            continue
        turns = []
        keys: set[str] = set()
        # A message without text (a damaged one: its payload did not open) is left out as the
        # JSON import leaves it out, and what followed it follows the message before it
        # (its key here: the nearest one kept, None for the chat's start). A failed answer is
        # kept without text: failed before its first word, its error is what it shows.
        gone: dict[str, str | None] = {}
        for message in item["messages"][:MAX_CHAT_MESSAGES]:
            key = message.get("key") if isinstance(message, dict) else None
            if not isinstance(message, dict) or message.get("role") not in ("user", "assistant", "system") \
                    or not isinstance(key, str) or key in keys or key in gone:
                found.skipped += 1
                continue
            given = message.get("parent")
            parent = (given if given in keys else gone.get(given)) if isinstance(given, str) else None
            role, text = message["role"], found.text(message.get("content"))
            state = state_of(role, message.get("status"))
            if not text.strip() and state != FAILED:
                found.skipped += 1
                gone[key] = parent
                continue
            stats = message["stats"] if isinstance(message.get("stats"), dict) else {}
            turns.append(Turn(key, parent, role, text, seconds(message.get("created_at")), state,
                              cut_off_of(role, stats.get("cut_off")), error_of(role, state, stats.get("error"))))
            keys.add(key)
        title = _line(item["title"]) if isinstance(item.get("title"), str) else ""
        wanted = item.get("shown")
        wanted = gone.get(wanted) if isinstance(wanted, str) and wanted in gone else wanted
        shown = wanted if isinstance(wanted, str) and wanted in keys else (turns[-1].key if turns else None)
        chat = ImportedChat(title, seconds(item.get("created_at")), turns, shown)
        before = len(found.chats)
        found.keep(chat)
        if len(found.chats) > before:
            settings: dict[str, Any] = dict(item["settings"]) if isinstance(item.get("settings"), dict) else {}
            stats = {m["key"]: kept_stats(m["stats"]) for m in item["messages"][:MAX_CHAT_MESSAGES]
                     if isinstance(m, dict) and isinstance(m.get("key"), str) and isinstance(m.get("stats"), dict)}
            chats.append((chat, {**settings, "_stats": stats}))
    # A stranger's settings are read as values of their kind and range; its tool servers,
    # named on another computer, are not switched on here.
    return (replace(project, name=_line(project.name), instructions=clean(project.instructions), collections=(),
                    sampling=kept_sampling(project.sampling), tools=()), chats, found, names)


def _line(text: str) -> str:
    """A title or name from the file: one line of at most TITLE_CHARS, no control characters
    (a right-to-left override, an escape; two million characters)."""
    return clean(one_line(text)[:TITLE_CHARS])


def kept_stats(stats: dict[str, Any]) -> dict[str, Any]:
    """What a message from a project file keeps of its figures, each only in the shape
    Hearth writes it: the answer's model and engine (names of at most NAME_CHARS: the
    window makes them one line each time it shows the answer), its sources (without the
    paths, which named files on the other computer: a citation must not open a path a
    stranger chose) and its attachments' text and pictures (read back as any message's
    are), each a list of records. Kept as they came, "attachments": 5 made the chat fail
    to show ("'int' object is not iterable") each time it was chosen."""
    kept: dict[str, Any] = {k: clean(stats[k][:NAME_CHARS]) for k in NAMES_KEPT if isinstance(stats.get(k), str)}
    if isinstance(stats.get("sources"), list):
        kept["sources"] = [_source(s) for s in stats["sources"] if _numbered(s)]
    if isinstance(stats.get("attachments"), list):
        kept["attachments"] = [a for a in stats["attachments"] if isinstance(a, dict)]
    return kept


def _numbered(source: Any) -> bool:
    number = source.get("number") if isinstance(source, dict) else None
    return type(number) is int and 0 < number < 10_000


def _source(source: dict[str, Any]) -> dict[str, Any]:
    """A cited source as the window reads one: its path empty (the sources list took a
    missing one for damage: the chat stopped showing at its first cited answer, even in a
    project Hearth wrote itself), its label and text text."""
    return {**source, "path": "", "label": str(source.get("label") or ""), "text": str(source.get("text") or "")}


def kept_sampling(sampling: dict[str, Any]) -> dict[str, Any]:
    kept: dict[str, Any] = {}
    for key, (low, high) in SAMPLING_RANGES.items():
        value = sampling.get(key)
        if isinstance(value, (int, float)) and not isinstance(value, bool) and low <= value <= high \
                and math.isfinite(value):  # compared first: a 400-digit integer overflows isfinite
            kept[key] = int(value) if isinstance(low, int) else float(value)
    return kept


def import_into(path: Path, passphrase: str, store: Any, library: Any,
                collections: dict[str, int]) -> tuple[Project, Found, list[str]]:
    """Read ``path`` and add its project (under a free name) and its chats to the vault;
    the project, what was read, and the collection names not found here."""
    from storage.chat_bulk import Written, add_whole_chat

    project, chats, found, names = read(path, passphrase)
    here = [collections[n.casefold()] for n in names if n.casefold() in collections]
    missing = [n for n in names if n.casefold() not in collections]
    projects = Projects(library)
    name, number = project.name, 1
    while True:
        try:
            kept = projects.add(name, project.instructions, engine=project.engine,
                                engine_model=project.engine_model, collections=tuple(here),
                                sampling=project.sampling, tools=project.tools)
            break
        except ProjectError:
            number += 1
            if number > 100:
                raise
            name = translate("core.project_files", "{name} (imported {number})").format(name=project.name,
                                                                                      number=number)
    made_ids: list[int] = []
    try:
        for chat, settings in chats:
            stats = settings.pop("_stats", {})
            written = [Written(t.key, t.parent, t.role, t.content, t.created_at,
                               stats.get(t.key) if isinstance(stats.get(t.key), dict) else {}, t.status,
                               t.cut_off, t.error) for t in chat.turns]
            made = add_whole_chat(store, chat.title or translate("core.project_files", "Imported chat"),
                                  chat.created_at, written, chat.shown)
            made_ids.append(made.id)
            safe: dict[str, Any] = {"system_prompt": clean(settings["system_prompt"])} if isinstance(
                settings.get("system_prompt"), str) else {}
            if isinstance(settings.get("sampling"), dict) and kept_sampling(settings["sampling"]):
                safe["sampling"] = kept_sampling(settings["sampling"])
            store.set_chat_settings(made.id, {**safe, "project": kept.id, **({"collections": here} if here else {})})
    except BaseException:
        for chat_id in made_ids:  # all or nothing
            with contextlib.suppress(Exception):
                store.delete_chat(chat_id)
        with contextlib.suppress(Exception):
            projects.remove(kept.id)
        raise
    return kept, found, missing
