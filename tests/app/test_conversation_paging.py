"""Opening a chat builds what it shows: the newest messages, and older ones on request;
selecting a chat does not rebuild or decrypt the chat list."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.gui


def _long_chat(window, count: int):
    store = window.controller.store
    chat = store.create_chat("long chat")
    for n in range(count):
        store.add_message(chat.id, "user" if n % 2 == 0 else "assistant", f"message {n}")
    return chat


def test_a_long_chat_opens_with_its_newest_page_and_older_ones_come_on_request(qtbot, make_window) -> None:
    window = make_window()
    chat = _long_chat(window, 100)
    window.controller.chats_changed.emit()
    window.controller.chats.select(chat.id)
    view = window.conversation
    page = view.PAGE
    texts = [w.text() for w in view.message_widgets()]
    assert texts == [f"message {n}" for n in range(100 - page, 100)]
    assert view.earlier_button.isVisible() and f"({100 - page} not shown)" in view.earlier_button.text()
    view.earlier_button.click()
    assert [w.text() for w in view.message_widgets()] == [f"message {n}" for n in range(100 - 2 * page, 100)]
    view.earlier_button.click()
    assert [w.text() for w in view.message_widgets()] == [f"message {n}" for n in range(100)]
    assert not view.earlier_button.isVisible()


def test_selecting_a_chat_does_not_rebuild_the_chat_list(qtbot, make_window, monkeypatch) -> None:
    window = make_window()
    first = _long_chat(window, 3)
    second = _long_chat(window, 3)
    window.controller.chats_changed.emit()
    calls = []
    original = window.controller.store.list_chats
    monkeypatch.setattr(window.controller.store, "list_chats", lambda: calls.append(1) or original())
    for chat in (first, second, first):
        row = next(i for i in range(window.chat_list.count())
                   if window.chat_list.item(i).data(256) == chat.id)  # Qt.UserRole
        window.chat_list.setCurrentRow(row)
        assert window.controller.current_chat.id == chat.id
        assert window.chat_title.text() == "long chat"
    assert calls == []
