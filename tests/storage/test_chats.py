from __future__ import annotations

import sqlite3
from pathlib import Path

from storage.chats import COMPLETE, DAMAGED, INTERRUPTED, STREAMING, ChatStore
from tests.storage.conftest import reopen


def test_chats_are_listed_pinned_first_then_most_recent(store: ChatStore) -> None:
    first = store.create_chat("first")
    second = store.create_chat("second")
    third = store.create_chat("third")
    assert [c.title for c in store.list_chats()] == ["third", "second", "first"]
    store.add_message(first.id, "user", "bump")
    assert [c.title for c in store.list_chats()] == ["first", "third", "second"]
    store.pin_chat(second.id, True)
    assert [c.title for c in store.list_chats()] == ["second", "first", "third"]
    assert store.get_chat(second.id).pinned and not store.get_chat(third.id).pinned


def test_messages_keep_their_order_and_updates(store: ChatStore) -> None:
    chat = store.create_chat()
    user = store.add_message(chat.id, "user", "question")
    answer = store.add_message(chat.id, "assistant", "", STREAMING)
    store.update_message(answer.id, content="partial")
    assert store.messages(chat.id)[1].status == STREAMING  # still being written here
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


def test_a_streaming_answer_left_by_a_crash_reads_as_interrupted(vault_path: Path, store: ChatStore) -> None:
    chat = store.create_chat("kept")
    store.add_message(chat.id, "user", "hi")
    store.add_message(chat.id, "assistant", "half an ans", STREAMING)
    store.vault.engine.dispose()  # as after a crash: no clean close, no checkpoint

    reopened = reopen(vault_path)
    messages = reopened.messages(chat.id)
    assert [m.content for m in messages] == ["hi", "half an ans"]
    assert messages[1].status == INTERRUPTED
    reopened.close()


def test_ids_of_deleted_messages_are_never_reused(store: ChatStore) -> None:
    chat = store.create_chat()
    store.add_message(chat.id, "user", "q")
    answer = store.add_message(chat.id, "assistant", "a")
    store.delete_message(answer.id)
    assert store.add_message(chat.id, "assistant", "b").id > answer.id


def test_search_finds_titles_and_message_text_case_insensitively(store: ChatStore) -> None:
    a = store.create_chat("Tax questions")
    b = store.create_chat("Holiday")
    store.add_message(b.id, "user", "Where is the LIGHTHOUSE?")
    assert store.search("lighthouse") == [b.id]
    assert store.search("tax") == [a.id]
    store.add_message(a.id, "assistant", "the lighthouse is north")
    assert set(store.search("Lighthouse")) == {a.id, b.id}
    store.delete_chat(b.id)
    assert store.search("lighthouse") == [a.id]
    assert store.search("nothing like this") == []


def _payload(path: Path, table: str, row_id: int) -> bytes:
    with sqlite3.connect(path) as conn:
        return conn.execute(f"SELECT payload FROM {table} WHERE id=?", (row_id,)).fetchone()[0]


def _set_payload(path: Path, table: str, row_id: int, blob: bytes) -> None:
    with sqlite3.connect(path) as conn:
        conn.execute(f"UPDATE {table} SET payload=? WHERE id=?", (blob, row_id))


def test_a_flipped_byte_in_a_ciphertext_is_detected_and_named(vault_path: Path, store: ChatStore) -> None:
    chat = store.create_chat("chat")
    good = store.add_message(chat.id, "user", "fine")
    bad = store.add_message(chat.id, "assistant", "will be damaged")
    store.close()
    blob = bytearray(_payload(vault_path, "messages", bad.id))
    blob[len(blob) // 2] ^= 0x01
    _set_payload(vault_path, "messages", bad.id, bytes(blob))

    store = reopen(vault_path)
    messages = store.messages(chat.id)
    assert messages[0].id == good.id and messages[0].content == "fine"
    assert messages[1].status == DAMAGED and messages[1].content == ""
    assert any(f"row {bad.id}" in place for place in store.verify())
    store.close()


def test_ciphertexts_swapped_between_rows_are_detected(vault_path: Path, store: ChatStore) -> None:
    chat = store.create_chat("chat")
    one = store.add_message(chat.id, "user", "one")
    two = store.add_message(chat.id, "user", "two")
    other = store.create_chat("other")
    store.close()
    p1, p2 = _payload(vault_path, "messages", one.id), _payload(vault_path, "messages", two.id)
    _set_payload(vault_path, "messages", one.id, p2)
    _set_payload(vault_path, "messages", two.id, p1)
    # A chat's payload copied into a message's place fails too (another table).
    _set_payload(vault_path, "chats", chat.id, _payload(vault_path, "chats", other.id))

    store = reopen(vault_path)
    problems = store.verify()
    assert len(problems) == 3
    assert [m.status for m in store.messages(chat.id)] == [DAMAGED, DAMAGED]
    assert next(c for c in store.list_chats() if c.id == chat.id).damaged
    assert store.verify() == problems  # stable, not accumulating
    store.close()


def test_a_draft_is_kept_with_its_chat_in_the_vault_and_does_not_reorder_the_list(
        vault_path: Path, store: ChatStore) -> None:
    first = store.create_chat("first")
    second = store.create_chat("second")
    store.set_draft(first.id, "unsent words, DRAFT-CANARY-81")
    assert [c.title for c in store.list_chats()] == ["second", "first"]  # a draft is no activity
    assert store.draft(first.id) == "unsent words, DRAFT-CANARY-81" and store.draft(second.id) == ""
    store.vault.close()
    assert b"DRAFT-CANARY-81" not in vault_path.read_bytes()  # encrypted
    again = reopen(vault_path)
    assert again.draft(first.id) == "unsent words, DRAFT-CANARY-81"
    again.set_draft(first.id, "")
    assert again.draft(first.id) == ""
    again.vault.close()
