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
