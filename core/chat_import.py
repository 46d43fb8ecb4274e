"""Chats brought from other apps (#40) into Hearth's vault: ChatGPT's export
(``conversations.json``), Open WebUI's export, LM Studio's conversation files, Jan's threads,
GPT4All's chat files and Hearth's own JSON export.

A file is read within bounds before anything of it is believed (``core.import_bounds``),
each format by its reader (``core.chat_formats``); this module is what an import does:
``read`` the file, ``save`` its chats into the vault all or nothing, ``report`` what came
in the user's words. Nothing is sent anywhere, and the source is left where it is: the
window then offers to delete it (``delete_source``), saying that deleting a file on an SSD
does not erase it.
"""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path
from typing import Any

from core import import_bounds as bounds
from core.chat_formats import recognised
from core.import_bounds import (  # ImportRefused: callers take it from here
    Found,
    ImportedChat,
    ImportRefused,
)
from i18n import join_sentences, translate


def read(path: Path) -> Found:
    """The chats in ``path`` (a file, Jan's thread folder or a folder of GPT4All's chats),
    its format recognised from its content; ImportRefused says why not, and where none of
    its items is a chat Hearth can read (the window would offer to delete the source)."""
    found = recognised(Path(path))
    if not found.chats:
        raise ImportRefused(translate("core.chat_import", "{name} holds no chat that Hearth can read: nothing "
                                      "was imported.").format(name=Path(path).name))
    return found


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
        messages = [Written(t.key, t.parent, t.role, t.content, t.created_at, {"imported_from": found.source},
                            t.status, t.cut_off, t.error) for t in chat.turns]
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
        said = join_sentences(said, translate("core.chat_import", "{count} message(s) longer than {limit} characters were "
                                "cut there.").format(count=found.cut, limit=f"{bounds.MAX_MESSAGE_CHARS:,}"))
    if found.over:
        said = join_sentences(said, translate("core.chat_import", "{count} message(s) past Hearth's limits ({chat} a chat, "
                                "{total} in all) were left out.").format(
                                    count=found.over, chat=f"{bounds.MAX_CHAT_MESSAGES:,}", total=f"{bounds.MAX_MESSAGES:,}"))
    if found.skipped:
        said = join_sentences(said, translate("core.chat_import", "{count} item(s) that were not chats or messages were "
                                "skipped.").format(count=found.skipped))
    if found.bare:
        said = join_sentences(said, translate("core.chat_import", "{count} message(s) came without their cited sources or "
                                "attached files: an import keeps messages' text.").format(count=found.bare))
    return said
