from __future__ import annotations

from pathlib import Path

import pytest

from storage.chats import COMPLETE, INTERRUPTED, STREAMING, ChatStore, StoreError


@pytest.fixture
def store(tmp_path: Path):
    s = ChatStore(tmp_path / "chats.db")
    yield s
    s.close()


def test_chats_are_listed_most_recent_first(store: ChatStore) -> None:
    first = store.create_chat("first")
    second = store.create_chat("second")
    assert [c.id for c in store.list_chats()] == [second.id, first.id]
    store.add_message(first.id, "user", "bump")
    assert [c.title for c in store.list_chats()] == ["first", "second"]


def test_messages_keep_their_order_and_updates(store: ChatStore) -> None:
    chat = store.create_chat()
    user = store.add_message(chat.id, "user", "question")
    answer = store.add_message(chat.id, "assistant", "", STREAMING)
    store.update_message(answer.id, content="partial")
    store.update_message(answer.id, content="full answer", status=COMPLETE, stats={"tokens": 3})
    messages = store.messages(chat.id)
    assert [(m.id, m.role, m.content, m.status) for m in messages] == [
        (user.id, "user", "question", COMPLETE),
        (answer.id, "assistant", "full answer", COMPLETE),
    ]
    assert messages[1].stats == {"tokens": 3}


def test_rename_and_delete(store: ChatStore) -> None:
    chat = store.create_chat()
    store.add_message(chat.id, "user", "hello")
    store.rename_chat(chat.id, "Renamed")
    assert store.get_chat(chat.id).title == "Renamed"
    store.delete_chat(chat.id)
    assert store.get_chat(chat.id) is None
    assert store.messages(chat.id) == []


def test_data_survives_reopen_and_streaming_answers_become_interrupted(tmp_path: Path) -> None:
    path = tmp_path / "chats.db"
    store = ChatStore(path)
    chat = store.create_chat("kept")
    store.add_message(chat.id, "user", "hi")
    store.add_message(chat.id, "assistant", "half an ans", STREAMING)
    store._engine.dispose()  # as after a crash: no clean close, no checkpoint

    reopened = ChatStore(path)
    messages = reopened.messages(chat.id)
    assert [m.content for m in messages] == ["hi", "half an ans"]
    assert messages[1].status == INTERRUPTED
    reopened.close()


def test_a_file_that_is_not_a_database_is_reported(tmp_path: Path) -> None:
    path = tmp_path / "chats.db"
    path.write_bytes(b"this is not sqlite" * 100)
    with pytest.raises(StoreError, match="damaged or not a Hearth database"):
        ChatStore(path)


def test_ids_of_deleted_messages_are_never_reused(store: ChatStore) -> None:
    chat = store.create_chat()
    store.add_message(chat.id, "user", "q")
    answer = store.add_message(chat.id, "assistant", "a")
    store.delete_message(answer.id)
    assert store.add_message(chat.id, "assistant", "b").id > answer.id
