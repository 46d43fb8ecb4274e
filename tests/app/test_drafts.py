"""The unsent text of each chat survives switching chats, lock, auto-lock and restart,
encrypted in the vault (issue #18); sending it clears it."""

from __future__ import annotations

import pytest

from tests.app.conftest import WAIT_MS, unlock
from tests.app.test_vault_window import send
from tests.fakes import FakeEngine

pytestmark = pytest.mark.gui


def test_each_chat_keeps_its_draft_over_switching_lock_and_restart(qtbot, make_window) -> None:
    window = make_window(FakeEngine())
    send(qtbot, window, "first chat")
    first = window.controller.current_chat.id
    window.new_chat_button.click()
    send(qtbot, window, "second chat")
    second = window.controller.current_chat.id
    window.input.setPlainText("half a thought for the second")

    window.controller.chats.select(first)
    assert window.input.toPlainText() == ""  # the first chat has none
    window.input.setPlainText("a question for the first, not sent")
    window.controller.chats.select(second)
    assert window.input.toPlainText() == "half a thought for the second"
    window.controller.chats.select(first)
    assert window.input.toPlainText() == "a question for the first, not sent"

    window.vault.auto_lock()  # after ten idle minutes: the words stay
    assert window.input.toPlainText() == ""  # nothing shown while locked
    unlock(qtbot, window)
    window.controller.chats.select(first)
    assert window.input.toPlainText() == "a question for the first, not sent"

    window.close()  # quit and open again
    again = make_window(FakeEngine())
    again.controller.chats.select(second)
    assert again.input.toPlainText() == "half a thought for the second"
    again.controller.chats.select(first)
    assert again.input.toPlainText() == "a question for the first, not sent"
    send(qtbot, again, again.input.toPlainText())  # sent: no longer a draft
    again.vault.lock()
    unlock(qtbot, again)
    again.controller.chats.select(first)
    assert again.input.toPlainText() == ""


def test_a_pause_in_typing_writes_the_draft_so_a_crash_keeps_it(qtbot, make_window) -> None:
    window = make_window(FakeEngine())
    send(qtbot, window, "a chat")
    chat = window.controller.current_chat.id
    qtbot.keyClicks(window.input, "typed, then a pause")
    qtbot.waitUntil(lambda: window.controller.store.draft(chat) == "typed, then a pause", timeout=WAIT_MS)


def test_what_is_typed_before_the_first_chat_is_kept_and_sending_it_leaves_no_draft(qtbot, make_window) -> None:
    window = make_window(FakeEngine())
    assert window.controller.current_chat is None
    window.input.setPlainText("the very first words")
    window.vault.lock()
    unlock(qtbot, window)
    assert window.input.toPlainText() == "the very first words"
    send(qtbot, window, window.input.toPlainText())
    drafts = window.controller.drafts
    assert drafts.read(None) == "" and drafts.read(window.controller.current_chat.id) == ""


def test_a_draft_that_cannot_be_written_stays_in_the_box_and_none_is_kept_in_memory(
        qtbot, make_window, monkeypatch) -> None:
    """Review findings: a failed write must not lose the words on a switch of chats, and
    no draft's text is left in memory after a lock."""
    window = make_window(FakeEngine())
    send(qtbot, window, "first chat")
    first = window.controller.current_chat.id
    window.new_chat_button.click()
    send(qtbot, window, "second chat")
    window.input.setPlainText("words that must not be lost")

    def full_disk(*_args) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(window.controller.store, "set_draft", full_disk)
    window.controller.chats.select(first)
    assert window.input.toPlainText() == "words that must not be lost"
    assert "could not be saved" in window.notice.text()
    monkeypatch.undo()
    drafts = window.controller.drafts
    assert all(len(digest) == 32 for digest in drafts._written.values())  # digests only
    window.vault.lock()
    assert window.controller.drafts is None  # and none after the session
