"""Drafts (core.drafts): kept in the vault, written only when they changed, and nothing of
their text kept in memory between writes."""

from __future__ import annotations

from core.drafts import Drafts
from core.session import Session
from storage.chats import ChatStore
from tests.storage.conftest import reopen


def test_a_draft_is_written_once_per_change_and_comes_back_after_a_lock(store: ChatStore, vault_path) -> None:
    session = Session(store)
    drafts = Drafts(session)
    chat = store.create_chat("notes")
    written: list[str] = []
    set_draft = store.set_draft
    store.set_draft = lambda chat_id, text: (written.append(text), set_draft(chat_id, text))[1]  # type: ignore[method-assign]

    assert drafts.save(chat.id, "half a thought")
    assert drafts.save(chat.id, "half a thought")  # unchanged: not written again
    assert drafts.save(None, "typed before any chat")
    assert written == ["half a thought"]
    assert all(len(digest) == 32 for digest in drafts._written.values())  # digests, never the text

    session.close()
    again = Session(reopen(vault_path))
    try:
        fresh = Drafts(again)
        assert fresh.read(chat.id) == "half a thought"
        assert fresh.read(None) == "typed before any chat"
    finally:
        again.close()


def test_a_draft_of_a_deleted_chat_is_dropped_and_a_closed_vault_says_false(store: ChatStore) -> None:
    session = Session(store)
    drafts = Drafts(session)
    chat = store.create_chat("gone soon")
    store.delete_chat(chat.id)
    assert drafts.save(chat.id, "nothing to keep it in")  # no chat: nothing written, no error
    session.close()
    assert drafts.save(None, "after the lock") is False  # refused by the closed vault, said
    assert drafts.read(None) == ""
