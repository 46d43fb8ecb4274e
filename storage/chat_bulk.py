"""Whole chats written at once, as an import brings them (#40).

One chat is one transaction for the chat and all its messages, sealed and bound like any
others (``ChatStore.add_message`` takes one transaction, and rewrites the chat's list, for
each message: thousands of imported messages would take minutes).

An import of many chats is all or nothing, though it is not one transaction: an export
can hold thousands of chats, and one transaction for all of them would hold the vault's
write lock (``Vault.transaction``) for a minute, during which the window could save
nothing (a message sent, an answer's checkpoint). So the import writes in batches of a
fraction of a second, letting the window's writes in between, and is made whole another
way. Before its first chat, a record ``import:<token>`` is committed to ``vault_meta``;
each chat it writes carries the token inside its sealed payload (``IMPORT_MARK``); the
record is deleted, in one small transaction, once the last chat is in. While the record
is there, the chat list does not show the import's chats (``ChatStore.list_chats``). An
import that fails removes what it wrote; one that could not (a full disk refuses even
deletions) or never got the chance (the process was killed) is removed by
``undo_unfinished``: at the next unlock by the Hearth that holds the data folder, and
before the next import, so that trying again does not bring the chats twice.
"""

from __future__ import annotations

import logging
import secrets
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import Connection, delete, func, insert, select, update

from guard.text import one_line
from storage import instance_lock, schema
from storage.chats import (
    COMPLETE,
    FAILED,
    IMPORT_MARK,
    INTERRUPTED,
    NOT_IN_RECORD,
    ROOT,
    STREAMING,
    UNFINISHED_IMPORT,
    Chat,
    ChatStore,
    StoreError,
    Tree,
    unfinished_imports,
)
from storage.db import inserted_id

log = logging.getLogger(__name__)

BATCH_SECONDS = 0.25  # about how long one transaction of an import holds the write lock
PAUSE_SECONDS = 0.005  # between two batches: a write the window is waiting with goes first
DELETE_BATCH = 200  # chats removed in one transaction when an import is undone
# The states an imported answer is written in. "streaming" is not one: it is an answer this
# very store is writing now (an import's stopped there: interrupted); any other, complete.
WRITTEN_STATES = {COMPLETE: COMPLETE, INTERRUPTED: INTERRUPTED, FAILED: FAILED, STREAMING: INTERRUPTED}
# Of a failed answer's error, the characters written (one line): what the window shows
# under it (an intranet engine's are cut to 300 already); an import's come from strangers' files.
ERROR_CHARS = 1_000

_running: set[str] = set()  # the imports under way in this process (their tokens)
_running_lock = threading.Lock()


@dataclass(frozen=True)
class Written:
    """One message to write: ``parent`` is an earlier one's ``key`` (None: the first)."""

    key: str
    parent: str | None
    role: str
    content: str
    created_at: float = 0.0
    stats: dict[str, Any] = field(default_factory=dict)
    status: str = COMPLETE  # an answer's: INTERRUPTED when the source says it stopped before its end
    cut_off: bool = False  # an answer's: it ended at the length limit (the window offers Continue)
    error: str = ""  # a failed answer's: why, as the window shows it


@dataclass(frozen=True)
class WholeChat:
    """A chat to import: its title, its time, its messages and the branch it shows."""

    title: str
    created_at: float
    messages: Sequence[Written]
    shown: str | None = None


class ImportStopped(Exception):
    """An import did not finish (its cause is ``__cause__``): none of its chats is shown.
    ``left``: some of them are still in the vault, hidden, waiting to be removed
    (``undo_unfinished``) because removing them failed too."""

    def __init__(self, left: bool) -> None:
        super().__init__("the import did not finish" + (" (its part written is left hidden)" if left else ""))
        self.left = left


def add_whole_chat(store: ChatStore, title: str, created_at: float, messages: Sequence[Written],
                   shown: str | None = None) -> Chat:
    """Write the chat and its messages (parents before children), in one transaction,
    showing the branch through ``shown`` (the newest at each fork otherwise)."""
    with store.vault.transaction() as conn:
        chat, written = _write(store, conn, WholeChat(title, created_at, messages, shown))
    _indexed(store, written)
    return chat


class ImportCancelled(Exception):
    """The import was asked to stop (the vault is locking): what it wrote is removed while
    the vault is still open."""


def import_chats(store: ChatStore, chats: Iterable[WholeChat],
                 clock: Callable[[], float] = time.monotonic,
                 cancel: threading.Event | None = None) -> list[int]:
    """Write ``chats`` all or nothing (see the module's docstring); their ids. Raises
    ImportStopped, from what stopped it, when it did not finish; ``cancel``, once set,
    stops it between two batches (ImportStopped from ImportCancelled)."""
    undo_unfinished(store, spare_running=True)  # an earlier try's part first: nothing twice
    token = secrets.token_hex(16)
    with _running_lock:
        _running.add(token)
    made: list[int] = []
    try:
        with store.vault.transaction() as conn:
            after = conn.scalar(select(func.max(schema.chats.c.id))) or 0
            conn.execute(insert(schema.vault_meta).values(key=UNFINISHED_IMPORT + token, value=str(after)))
        pending = iter(chats)
        while True:
            written: list[tuple[int, int, str]] = []
            batch: list[int] = []
            with store.vault.transaction() as conn:
                started, finished = clock(), True
                for chat in pending:
                    made_chat, messages = _write(store, conn, chat, token)
                    batch.append(made_chat.id)
                    written += messages
                    if clock() - started >= BATCH_SECONDS:
                        finished = False
                        break
            made += batch
            _indexed(store, written)
            if finished:
                break
            if cancel is not None and cancel.is_set():
                raise ImportCancelled()
            time.sleep(PAUSE_SECONDS)
        with store.vault.transaction() as conn:  # the import is whole: its chats show from now on
            conn.execute(delete(schema.vault_meta).where(schema.vault_meta.c.key == UNFINISHED_IMPORT + token))
    except Exception as exc:
        raise ImportStopped(left=not _undo_after_failure(store, token)) from exc
    except BaseException:  # interrupted (Ctrl+C in the terminal): undone all the same, and said so
        _undo_after_failure(store, token)
        raise
    finally:
        with _running_lock:
            _running.discard(token)
    return made


def _undo_after_failure(store: ChatStore, token: str) -> bool:
    """Remove what the failed import ``token`` wrote; False if that failed too (a full disk
    can refuse deletions, a lock closes the vault): then it is done later."""
    try:
        _undo(store, token)
    except Exception:
        log.warning("the chats of a failed import could not be removed yet", exc_info=True)
        return False
    return True


def undo_unfinished(store: ChatStore, spare_running: bool = False) -> int:
    """Remove the chats of imports that did not finish (how many chats). ``spare_running``:
    not those under way in this process (a new import, beside one still running). Else,
    by the Hearth that holds the data folder only: a command that merely reads runs
    beside the window, which may be importing."""
    if not spare_running and not instance_lock.held(store.path.parent):
        return 0
    with store.vault.engine.connect() as conn:
        tokens = unfinished_imports(conn)
    with _running_lock:
        spared = set(_running) if spare_running else set()
    removed = 0
    for token in sorted(tokens - spared):
        removed += _undo(store, token)
    return removed


def _undo(store: ChatStore, token: str) -> int:
    """The chats marked with ``token`` removed, a batch a transaction, then its record."""
    key = UNFINISHED_IMPORT + token
    c = schema.chats.c
    with store.vault.engine.connect() as conn:
        after = conn.scalar(select(schema.vault_meta.c.value).where(schema.vault_meta.c.key == key))
        start = int(after) if after is not None and str(after).isdigit() else 0
        rows = conn.execute(select(c.id, c.payload).where(c.id > start)).all()
    marked = []
    for row_id, blob in rows:
        data = store.payloads.unseal("chats", row_id, blob, places=[], keep=False, skipped=NOT_IN_RECORD)
        if isinstance(data, dict) and data.get(IMPORT_MARK) == token:
            marked.append(row_id)
    for at in range(0, len(marked), DELETE_BATCH):
        chunk = marked[at:at + DELETE_BATCH]
        with store.vault.transaction() as conn:
            conn.execute(delete(schema.messages).where(schema.messages.c.chat_id.in_(chunk)))
            conn.execute(delete(schema.chats).where(c.id.in_(chunk)))
        for chat_id in chunk:
            store.search.chat_deleted(chat_id)
        time.sleep(PAUSE_SECONDS)
    with store.vault.transaction() as conn:
        conn.execute(delete(schema.vault_meta).where(schema.vault_meta.c.key == key))
    if marked:
        log.warning("removed %d chats of an import that did not finish", len(marked))
    return len(marked)


def _write(store: ChatStore, conn: Connection, chat: WholeChat,
           token: str | None = None) -> tuple[Chat, list[tuple[int, int, str]]]:
    """The chat and its messages in the caller's transaction; the chat, and each message
    as (id, chat id, text) for the search once that commits. ``token``: the import's mark."""
    now = time.time()
    created = chat.created_at or now
    chat_id = inserted_id(conn.execute(insert(schema.chats).values(payload=b"")))
    ids: dict[str, int] = {}
    written: list[tuple[int, int, str]] = []
    tree = Tree({}, {})
    for position, message in enumerate(chat.messages, start=1):
        if message.key in ids or (message.parent is not None and message.parent not in ids):
            raise StoreError(f"message {position} of an import follows none written before it")
        status = written_status(message)
        data = {"role": message.role, "content": message.content, "status": status,
                "stats": written_stats(message, status), "created_at": message.created_at or created, "version": 1}
        message_id = inserted_id(conn.execute(
            insert(schema.messages).values(chat_id=chat_id, position=position, payload=b"")))
        conn.execute(update(schema.messages).where(schema.messages.c.id == message_id).values(
            payload=store.payloads.seal("messages", message_id, data, (chat_id, position))))
        ids[message.key] = message_id
        written.append((message_id, chat_id, message.content))
        tree.parents[message_id] = ROOT if message.parent is None else ids[message.parent]
    if chat.shown in ids:
        tree.choose(ids[chat.shown])
    record: dict[str, Any] = {"title": chat.title, "created_at": created, "updated_at": now, "pinned": False,
                              "messages": {str(i): 1 for i in ids.values()}}
    if token is not None:
        record[IMPORT_MARK] = token
    tree.dump(record)
    conn.execute(update(schema.chats).where(schema.chats.c.id == chat_id).values(
        payload=store.payloads.seal("chats", chat_id, record, keep=token is None)))
    return Chat(chat_id, chat.title, created, now), written


def written_status(message: Written) -> str:
    """The state ``message`` is written in (``WRITTEN_STATES``): its own for an answer,
    whatever the file it came from said; a question's is complete."""
    status: Any = message.status
    if message.role != "assistant" or not isinstance(status, str):
        return COMPLETE
    return WRITTEN_STATES.get(status, COMPLETE)


def written_stats(message: Written, status: str) -> dict[str, Any]:
    """The figures ``message`` is written with: its own, but for the two the window acts on,
    which are written only from ``Written``'s fields and in the shape Hearth writes them:
    "cut_off" (the length limit: its note and Continue) only ``True`` and only for an answer
    written complete, "error" (what a failed answer shows) only a failed answer's, one line
    of at most ERROR_CHARS."""
    stats = {k: v for k, v in message.stats.items() if k not in ("cut_off", "error")}
    if message.role != "assistant":
        return stats
    if status == COMPLETE and message.cut_off is True:
        stats["cut_off"] = True
    if status == FAILED and isinstance(message.error, str) and message.error.strip():
        stats["error"] = one_line(message.error[:ERROR_CHARS * 64])[:ERROR_CHARS]
    return stats


def _indexed(store: ChatStore, written: list[tuple[int, int, str]]) -> None:
    """Committed: the messages go into the chats' search."""
    for message_id, chat_id, content in written:
        store.search.written(message_id, chat_id, content)
