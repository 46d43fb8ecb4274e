"""The window reads the chats' texts for search ahead (#43): when the user comes to the
search box, off the UI thread, so the first search does not freeze the window for the
seconds a year of chats takes to decrypt. A focus the window gives by itself does not."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QEvent, Qt
from PySide6.QtGui import QFocusEvent
from PySide6.QtWidgets import QApplication

from tests.app.conftest import WAIT_MS

pytestmark = pytest.mark.gui


def _focus(window, reason: Qt.FocusReason) -> None:
    QApplication.sendEvent(window.search, QFocusEvent(QEvent.Type.FocusIn, reason))


def test_coming_to_the_search_box_reads_the_texts_and_the_search_then_decrypts_none(
        qtbot, make_window, monkeypatch) -> None:
    window = make_window()
    store = window.controller.store
    chat = store.create_chat("Harbour dues")
    store.add_message(chat.id, "user", "What does the pilot charge at night?")
    store.search.clear()
    _focus(window, Qt.FocusReason.OtherFocusReason)
    assert not store.search.ready
    _focus(window, Qt.FocusReason.MouseFocusReason)
    qtbot.waitUntil(lambda: store.search.ready, timeout=WAIT_MS)
    seen = []
    decrypt = store.vault.cipher.decrypt
    monkeypatch.setattr(store.vault.cipher, "decrypt",
                        lambda blob, table, *a, **k: seen.append(table) or decrypt(blob, table, *a, **k))
    window.search.setText("PILOT CHARGE")
    assert [window.chat_list.item(i).data(Qt.ItemDataRole.UserRole)
            for i in range(window.chat_list.count())] == [chat.id]
    assert "messages" not in seen


def test_past_a_few_thousand_messages_typing_shows_titles_at_once_and_the_messages_when_read(
        qtbot, make_window, monkeypatch) -> None:
    """A year of chats: the window never waits for the texts. It shows the chats whose titles
    match and says it is still searching; once the texts are read, the list is searched again."""
    import threading

    from app.chat import chat_list

    window = make_window()
    store = window.controller.store
    titled = store.create_chat("Pilot fees")
    said = store.create_chat("Harbour dues")
    store.add_message(said.id, "user", "What does the pilot charge at night?")
    window.controller.chats_changed.emit()
    store.search.clear()
    monkeypatch.setattr(chat_list, "SEARCH_AT_ONCE", 0)
    read, go_on = store.search._read, threading.Event()
    monkeypatch.setattr(store.search, "_read", lambda *row: go_on.wait(30) and read(*row))

    def shown() -> list[object]:
        return [window.chat_list.item(i).data(Qt.ItemDataRole.UserRole) or window.chat_list.item(i).text()
                for i in range(window.chat_list.count())]

    window.search.setText("pilot")
    assert shown() == [titled.id, "Searching the messages…"]  # at once: the reading waits on go_on
    go_on.set()
    qtbot.waitUntil(lambda: set(shown()) == {titled.id, said.id}, timeout=WAIT_MS)
