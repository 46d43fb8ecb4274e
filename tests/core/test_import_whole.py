"""An import of many chats is all or nothing (``storage.chat_bulk``), though it writes in
short batches: a full disk part-way, a process killed part-way and a lock part-way leave
none of its chats shown, and none in the vault once it can remove them; trying again
brings each chat once; the window's own writes are not held up while it runs."""

from __future__ import annotations

import json
import os
import secrets
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from core import chat_import
from core.session import Session
from storage import chat_bulk
from storage.chat_bulk import ImportStopped
from storage.chats import ChatStore
from storage.errors import trouble
from storage.instance_lock import InstanceLock
from storage.vault import Vault
from tests.storage.conftest import FAST_KDF, PASSPHRASE

ROOT = Path(__file__).resolve().parents[2]


def export(path: Path, count: int, size: int) -> Path:
    """A ChatGPT export of ``count`` chats, each a question of ``size`` random bytes (as hex)
    and its answer."""
    def node(key, parent, role, text, when, children=()):
        return {"id": key, "parent": parent, "children": list(children), "message": {
            "id": key, "author": {"role": role}, "create_time": when,
            "content": {"content_type": "text", "parts": [text]}}}

    chats = []
    for i in range(count):
        when = 1700000000 + i
        chats.append({"title": f"imported {i}", "create_time": float(when), "current_node": "a",
                      "mapping": {"q": node("q", None, "user", secrets.token_hex(size), when, ["a"]),
                                  "a": node("a", "q", "assistant", "ok", when + 1)}})
    path.write_text(json.dumps(chats))
    return path


def rows(path: Path) -> tuple[int, list[str]]:
    """What the file holds, read as SQLite sees it: the chat rows, and the import records."""
    conn = sqlite3.connect(path)
    try:
        chats = conn.execute("SELECT count(*) FROM chats").fetchone()[0]
        records = [r[0] for r in conn.execute("SELECT key FROM vault_meta WHERE key LIKE 'import:%'")]
        return chats, records
    finally:
        conn.close()


def titles(store: ChatStore) -> list[str]:
    return sorted(c.title for c in store.list_chats())


def test_an_import_stopped_by_a_full_disk_leaves_nothing_and_a_retry_brings_each_chat_once(
        make_small_disk, monkeypatch, tmp_path: Path) -> None:
    disk = make_small_disk(32)
    monkeypatch.setenv("HEARTH_DATA_DIR", str(disk.path))
    store = ChatStore(Vault.create(disk.path / "vault.db", PASSPHRASE, FAST_KDF))
    try:
        store.create_chat("mine")
        found = chat_import.read(export(tmp_path / "conversations.json", 150, 20_000))  # 6 MB
        disk.fill()
        filler = disk.path / ".filler"
        os.truncate(filler, filler.stat().st_size - (2 << 20))  # 2 MB free: the disk fills part-way
        with pytest.raises(ImportStopped) as stopped:
            chat_import.save(store, found)
        fault = trouble(stopped.value)
        assert fault is not None and fault.kind == "full"
        said = fault.message(chat_import.not_imported(stopped.value))
        assert said.startswith("The disk is full. None of the chats was imported")
        assert "Error" not in said and "Stopped" not in said and "keeps trying" not in said
        assert titles(store) == ["mine"]  # none of them shows
        chats, records = rows(store.path)
        if stopped.value.left:  # the disk refused even their removal (secure_delete writes zeros)
            assert "is hidden, and is removed the next time" in said and chats > 1 and len(records) == 1
        else:
            assert "your vault is as it was" in said and (chats, records) == (1, [])
        disk.free()
        assert len(chat_import.save(store, found)) == 150
        assert len(titles(store)) == 151 and rows(store.path) == (151, [])
        assert store.verify() == []
    finally:
        store.close()


# An import in its own process, killed once two batches (of one chat each) are committed.
_KILLED_PART_WAY = """
import os, signal, sys
from pathlib import Path
from core import chat_import
from storage import chat_bulk
from storage.chats import ChatStore
from storage.instance_lock import InstanceLock
from storage.vault import Vault

pauses = []
def pause(_seconds):
    pauses.append(1)
    if len(pauses) == 2:
        os.kill(os.getpid(), signal.SIGKILL)
chat_bulk.time.sleep = pause
chat_bulk.BATCH_SECONDS = 0.0
folder = Path(sys.argv[1])
InstanceLock(folder).acquire()
store = ChatStore(Vault.open_live(folder / "vault.db", sys.argv[3]))
chat_import.save(store, chat_import.read(Path(sys.argv[2])))
"""


def test_a_killed_import_shows_none_of_its_chats_and_the_next_unlock_removes_them(tmp_path: Path) -> None:
    folder = tmp_path / "data"
    folder.mkdir()
    store = ChatStore(Vault.create(folder / "vault.db", PASSPHRASE, FAST_KDF))
    store.create_chat("mine")
    store.close()
    source = export(tmp_path / "conversations.json", 20, 100)
    run = subprocess.run([sys.executable, "-c", _KILLED_PART_WAY, str(folder), str(source), PASSPHRASE],
                         cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)}, capture_output=True,
                         text=True, timeout=120)
    assert run.returncode == -signal.SIGKILL, run.stderr
    chats, records = rows(folder / "vault.db")
    assert chats == 3 and len(records) == 1  # two of the import's chats committed, and its record

    reader = Session.open(folder / "vault.db", PASSPHRASE)  # a command that only reads, beside
    try:
        assert titles(reader.store) == ["mine"]  # none of the import's chats shows
    finally:
        reader.close()
    assert rows(folder / "vault.db")[0] == 3  # and it removed nothing: it holds no lock

    lock = InstanceLock(folder)
    lock.acquire()
    try:
        session = Session.open(folder / "vault.db", PASSPHRASE)  # the Hearth holding the folder
        try:
            assert titles(session.store) == ["mine"]
        finally:
            session.close()
    finally:
        lock.release()
    assert rows(folder / "vault.db") == (1, [])


def test_an_import_cut_by_a_lock_is_hidden_then_removed_before_the_next_import(
        store: ChatStore, vault_path: Path, tmp_path: Path, monkeypatch) -> None:
    """Locked part-way, the import cannot remove what it wrote (the vault is closed): the
    chats stay hidden, and the next import, after unlocking, removes them first."""
    monkeypatch.setattr(chat_bulk, "BATCH_SECONDS", 0.0)
    found = chat_import.read(export(tmp_path / "conversations.json", 30, 100))
    failed: list[BaseException] = []

    def importing() -> None:
        try:
            chat_import.save(store, found)
        except BaseException as exc:  # noqa: BLE001 - the test reads it
            failed.append(exc)

    worker = threading.Thread(target=importing)
    worker.start()
    deadline = time.monotonic() + 10
    while rows(vault_path)[0] < 3 and time.monotonic() < deadline:
        time.sleep(0.001)
    store.close()  # the lock
    worker.join(10)
    assert failed and isinstance(failed[0], ImportStopped) and failed[0].left
    assert "hidden" in chat_import.not_imported(failed[0])
    left, records = rows(vault_path)
    assert left >= 3 and len(records) == 1

    again = ChatStore(Vault.open(vault_path, PASSPHRASE))  # unlocked (no lock held: left as it is)
    try:
        assert titles(again) == []
        assert len(chat_import.save(again, found)) == 30
        assert rows(vault_path) == (30, []) and len(titles(again)) == 30  # each once
    finally:
        again.close()


def test_the_windows_writes_go_on_while_a_big_import_runs(store: ChatStore, tmp_path: Path) -> None:
    """The import lets go of the write lock between short batches: a message sent meanwhile
    is saved at once, not after the whole import."""
    found = chat_import.read(export(tmp_path / "conversations.json", 1500, 2000))
    chat = store.create_chat("mine")
    done = threading.Event()
    worker = threading.Thread(target=lambda: (chat_import.save(store, found), done.set()))
    worker.start()
    waits = []
    try:
        while not done.is_set() and len(waits) < 10:
            started = time.monotonic()
            store.add_message(chat.id, "user", f"sent during the import {len(waits)}")
            waits.append(time.monotonic() - started)
            time.sleep(0.05)
    finally:
        worker.join(120)
    assert done.is_set() and len(titles(store)) == 1501
    assert waits and max(waits) < 1.5, waits  # a batch is about a quarter of a second
