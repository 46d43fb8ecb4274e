"""The chats' texts read into memory ahead of the first search (storage.chat_search, #43):
a year of chats is a million messages, about ten seconds to decrypt, which the window now
spends off the UI thread when the search box is first used. What is written, changed or
deleted while they are read is not missed; a cancel or a lock midway keeps nothing."""

from __future__ import annotations

import threading

import pytest

from storage import chat_search
from storage.chats import ChatStore


def _fill(store: ChatStore, chats: int = 3, per_chat: int = 5) -> list[int]:
    ids = []
    for c in range(chats):
        chat = store.create_chat(f"chat {c}")
        ids.append(chat.id)
        for p in range(per_chat):
            store.add_message(chat.id, "user", f"note {p} of chat {c}")
    return ids


def _counting(store: ChatStore, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    seen: list[str] = []
    decrypt = store.vault.cipher.decrypt

    def counted(blob, table, *args, **kwargs):
        seen.append(table)
        return decrypt(blob, table, *args, **kwargs)

    monkeypatch.setattr(store.vault.cipher, "decrypt", counted)
    return seen


def test_after_warming_a_search_decrypts_no_message(store: ChatStore, monkeypatch: pytest.MonkeyPatch) -> None:
    ids = _fill(store)
    store.payloads.clear()  # as after an unlock: nothing read yet
    seen = _counting(store, monkeypatch)
    assert store.search.warm()
    warmed = seen.count("messages")
    assert warmed == 15
    assert store.search.chats("NOTE 4 OF CHAT 1") == [ids[1]]
    assert seen.count("messages") == warmed


def test_what_is_written_while_the_texts_are_read_is_found(store: ChatStore,
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    ids = _fill(store)
    gone = store.add_message(ids[2], "user", "a sentence about the harbour")
    changed = store.messages(ids[0])[0]
    already_read = store.messages(ids[1])[0]  # read in the second batch, before the change
    store.search.clear()
    monkeypatch.setattr(chat_search, "READ_BATCH", 4)
    read = store.search._read
    calls = [0]

    def reading(*row):
        calls[0] += 1
        if calls[0] == 6:  # between batches, and inside one: as another thread would write
            store.add_message(ids[1], "assistant", "the lighthouse keeper's answer")
            store.update_message(changed.id, content="an edited question about tides")
            store.delete_message(gone.id)
            store.delete_message(already_read.id)
            store.delete_chat(ids[2])
        return read(*row)

    monkeypatch.setattr(store.search, "_read", reading)
    assert store.search.warm()
    monkeypatch.setattr(store.search, "_read", read)
    assert store.search.chats("lighthouse keeper") == [ids[1]]
    assert store.search.chats("tides") == [ids[0]]
    assert store.search.chats("note 0 of chat 0") == []  # the edit replaced it
    assert store.search.chats("harbour") == []
    assert store.search.chats("of chat 2") == []
    texts = store.search._texts
    assert texts is not None and already_read.id not in texts and gone.id not in texts
    assert store.search.chats("note 0 of chat 1") == [] and store.search.chats("note 1 of chat 1") == [ids[1]]
    assert not {k for k, (chat, _t) in texts.items() if chat == ids[2]}


def test_a_cancel_keeps_nothing_and_the_next_search_still_reads(store: ChatStore) -> None:
    ids = _fill(store)
    store.search.clear()
    cancel = threading.Event()
    cancel.set()
    assert not store.search.warm(cancel)
    assert store.search._texts is None
    assert store.search.chats("note 2 of chat 2") == [ids[2]]


def test_texts_being_read_when_the_store_closes_are_dropped(store: ChatStore,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    _fill(store)
    store.search.clear()
    read = store.search._read

    def reading(*row):
        store.search.clear()  # the store closes meanwhile
        return read(*row)

    monkeypatch.setattr(store.search, "_read", reading)
    assert not store.search.warm()
    assert store.search._texts is None


def test_a_search_waits_for_the_texts_another_thread_is_reading(store: ChatStore,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    ids = _fill(store)
    store.search.clear()
    read = store.search._read
    started, go_on, searcher_waits = threading.Event(), threading.Event(), threading.Event()
    problems: list[str] = []

    def reading(*row):
        started.set()
        if not go_on.wait(30):
            problems.append("the reader was never let go")
        return read(*row)

    wait = store.search._lock.wait

    def waiting(*args, **kwargs):
        searcher_waits.set()  # the search is waiting for the reader, not reading itself
        return wait(*args, **kwargs)

    monkeypatch.setattr(store.search, "_read", reading)
    monkeypatch.setattr(store.search._lock, "wait", waiting)
    warming = threading.Thread(target=store.search.warm)
    warming.start()
    assert started.wait(30)
    found: list[list[int]] = []
    searching = threading.Thread(target=lambda: found.append(store.search.chats("note 3 of chat 0")))
    searching.start()
    assert searcher_waits.wait(30)
    go_on.set()
    warming.join(30)
    searching.join(30)
    assert found == [[ids[0]]] and problems == []
    assert not warming.is_alive() and not searching.is_alive()


def test_the_search_does_not_fill_the_row_cache(store: ChatStore) -> None:
    """The row cache keeps the shown chat's rows (and is emptied at a close): reading every
    message for search must neither evict them nor put plaintext back after a close."""
    _fill(store)
    store.payloads.clear()
    store.search.clear()
    assert store.search.warm()
    assert not [key for key in store.payloads._rows if key[0] == "messages"]
