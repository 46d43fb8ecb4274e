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
    assert store.search.chats("lighthouse") == [b.id]
    assert store.search.chats("tax") == [a.id]
    store.add_message(a.id, "assistant", "the lighthouse is north")
    assert set(store.search.chats("Lighthouse")) == {a.id, b.id}
    store.delete_chat(b.id)
    assert store.search.chats("lighthouse") == [a.id]
    assert store.search.chats("nothing like this") == []


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


def _contents(store: ChatStore, chat_id: int) -> list[str]:
    return [m.content for m in store.messages(chat_id)]


def test_deleting_one_message_keeps_what_followed_it(vault_path: Path, store: ChatStore) -> None:
    chat = store.create_chat()
    ids = [store.add_message(chat.id, role, text).id for role, text in
           [("user", "q1"), ("assistant", "a1"), ("user", "q2"), ("assistant", "a2")]]
    store.delete_message(ids[1])
    assert _contents(store, chat.id) == ["q1", "q2", "a2"]
    assert store.messages(chat.id)[1].parent == ids[0]
    store.delete_message(ids[0])  # the first: what followed is first now
    assert _contents(store, chat.id) == ["q2", "a2"]
    store.close()
    again = reopen(vault_path)
    assert _contents(again, chat.id) == ["q2", "a2"] and again.verify() == []
    again.close()


def test_deleting_the_version_shown_shows_another_and_the_rest_of_the_chat(store: ChatStore) -> None:
    chat = store.create_chat()
    question = store.add_message(chat.id, "user", "q")
    first = store.add_message(chat.id, "assistant", "version 1")
    second = store.add_message(chat.id, "assistant", "version 2", parent=question.id)
    follow = store.add_message(chat.id, "user", "follow-up to version 2")
    assert _contents(store, chat.id) == ["q", "version 2", "follow-up to version 2"]
    assert store.messages(chat.id)[1].versions == (first.id, second.id)
    store.delete_message(second.id)
    # The follow-up stays where it was, now beside version 1.
    shown = store.messages(chat.id)
    assert [m.content for m in shown] == ["q", "follow-up to version 2"]
    assert shown[1].versions == (first.id, follow.id)
    store.choose(first.id)
    assert _contents(store, chat.id) == ["q", "version 1"]


def test_a_message_can_follow_only_one_of_its_own_chat(store: ChatStore) -> None:
    import pytest

    from storage.chats import StoreError

    one, other = store.create_chat(), store.create_chat()
    foreign = store.add_message(other.id, "user", "elsewhere")
    with pytest.raises(StoreError):
        store.add_message(one.id, "assistant", "misplaced", parent=foreign.id)
    assert store.messages(one.id) == []


def test_a_chat_written_before_versions_reads_as_one_line(store: ChatStore) -> None:
    """A chat whose payload lists no parents (an older Hearth wrote it) is in position order,
    and takes versions from then on."""
    chat = store.create_chat()
    ids = [store.add_message(chat.id, role, text).id for role, text in
           [("user", "q1"), ("assistant", "a1"), ("user", "q2"), ("assistant", "a2")]]
    with store.vault.transaction() as conn:
        data = store._chat_data(conn, chat.id)
        del data["parents"], data["chosen"]
        store._write_chat(conn, chat.id, data)
    assert [m.id for m in store.messages(chat.id)] == ids
    store.add_message(chat.id, "assistant", "a2, again", parent=ids[2])
    assert _contents(store, chat.id) == ["q1", "a1", "q2", "a2, again"]
    assert store.verify() == []


def test_a_fork_loop_in_the_tree_cannot_hang_a_read(store: ChatStore) -> None:
    from storage.chats import Tree

    tree = Tree({1: 0, 2: 3, 3: 2}, {})
    assert tree.branch() == [1] and tree.path(2) == [2, 3]
    assert tree.branch(through=2) == [1]
