"""What the user rewrote stays when it cannot be saved or asked: an earlier question edited
in place (the model not loaded, a full disk), and a chat's settings (a full disk). The
editor and the dialog keep the words; the message says what was not saved, and promises
no retry that never comes."""

from __future__ import annotations

import sys

import pytest
import shiboken6
from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import QDialog

from tests.app.conftest import WAIT_MS
from tests.app.test_vault_window import send
from tests.fakes import FakeEngine

pytestmark = pytest.mark.gui

EDITED = "a carefully rewritten, much longer version of my question"


def _edit_and_enter(qtbot, window):
    widget = window.conversation.message_widgets()[0]
    widget.edit_button.click()
    widget.editor.text.setPlainText(EDITED)
    qtbot.keyClick(widget.editor.text, Qt.Key.Key_Return)
    return widget


def _contents(window) -> list[str]:
    return [m.content for m in window.controller.store.messages(window.controller.current_chat.id)]


def test_an_edit_refused_because_the_model_is_not_loaded_stays_in_its_editor(qtbot, make_window) -> None:
    window = make_window(FakeEngine())
    send(qtbot, window, "original question")
    window.controller.model.unavailable("the model file is missing")
    widget = _edit_and_enter(qtbot, window)
    assert widget.editing and widget.editor.text.toPlainText() == EDITED
    assert "the model file is missing" in window.notice.text()
    assert _contents(window)[0] == "original question"


def test_an_edit_on_a_full_disk_stays_in_its_editor_and_is_asked_once_freed(
        qtbot, make_window, make_small_disk, monkeypatch) -> None:
    from app.shell import startup

    said: list[str] = []
    monkeypatch.setattr("app.shell.dialogs.warn", lambda _parent, _title, text: said.append(text))
    monkeypatch.setattr(sys, "excepthook", startup._calm_dialog)  # as the app has it
    disk = make_small_disk(8)
    monkeypatch.setenv("HEARTH_DATA_DIR", str(disk.path))
    window = make_window(FakeEngine())
    send(qtbot, window, "original question")
    disk.fill()
    widget = _edit_and_enter(qtbot, window)
    assert said == []  # no uncaught fault: the turn said it in words
    assert "The disk is full" in window.notice.text() and "stays in its editor" in window.notice.text()
    assert "keeps trying" not in window.notice.text()  # nothing retries an edit
    assert widget.editing and widget.editor.text.toPlainText() == EDITED
    disk.free()
    with qtbot.waitSignal(window.controller.answer_finished, timeout=WAIT_MS):
        qtbot.keyClick(widget.editor.text, Qt.Key.Key_Return)
    assert not shiboken6.isValid(widget) or not widget.editing  # asked: its editor went
    assert _contents(window)[0] == EDITED


def test_chat_settings_refused_by_a_full_disk_come_back_with_what_was_typed(
        qtbot, make_window, make_small_disk, monkeypatch) -> None:
    from app.chat.settings_dialog import ChatSettingsDialog

    prompt = "You are my contract reviewer. Always cite the clause number."
    disk = make_small_disk(8)
    monkeypatch.setenv("HEARTH_DATA_DIR", str(disk.path))
    window = make_window(FakeEngine())
    send(qtbot, window, "a chat")
    shown: list[str] = []  # the system prompt each time the dialog is shown

    def typed_then_ok(self) -> QDialog.DialogCode:
        shown.append(self.system_prompt.toPlainText())
        if len(shown) == 1:
            self.system_prompt.setPlainText(prompt)  # typed the first time only
        return QDialog.DialogCode.Accepted

    said: list[str] = []

    def warn(_parent, _title, text) -> None:
        said.append(text)
        disk.free()  # the user makes room, then presses Save again

    monkeypatch.setattr(ChatSettingsDialog, "exec", typed_then_ok)
    monkeypatch.setattr("app.shell.dialogs.warn", warn)
    disk.fill()
    QTimer.singleShot(0, window.dialogs.chat_settings)  # as the menu runs it
    qtbot.waitUntil(lambda: len(shown) == 2, timeout=WAIT_MS)
    assert len(said) == 1 and "The disk is full" in said[0] and "not saved" in said[0]
    assert "keeps trying" not in said[0]
    assert shown == ["", prompt]  # shown again with the user's words
    chat = window.controller.store.get_chat(window.controller.current_chat.id)
    assert chat.settings.get("system_prompt") == prompt


def test_an_uncaught_full_disk_promises_no_retry(qtbot, monkeypatch) -> None:
    """The window's last resort says a change was not saved, and that trying again is the user's."""
    import errno

    from app.shell import startup

    said: list[str] = []
    monkeypatch.setattr("app.shell.dialogs.warn", lambda _parent, _title, text: said.append(text))
    startup._calm_dialog(OSError, OSError(errno.ENOSPC, "No space left on device"), None)
    assert said and "The disk is full" in said[0] and "keeps trying" not in said[0]
    assert "try again" in said[0]



def _editing(window, text: str) -> None:
    widget = window.conversation.message_widgets()[0]
    widget.edit_button.click()
    assert widget.editing
    widget.editor.text.setPlainText(text)


def test_a_question_being_edited_is_kept_over_an_auto_lock(qtbot, make_window) -> None:
    """A review: the words of a question being edited in place went with the lock's cleared
    conversation; only the message box's draft was kept."""
    from tests.app.conftest import unlock

    window = make_window(FakeEngine())
    send(qtbot, window, "original question")
    chat = window.controller.current_chat.id
    _editing(window, EDITED)
    window.input.setPlainText("something else I was typing")
    window.vault.auto_lock()
    assert "The question you were editing was put in the message box" in window.lock_screen.error.text()
    unlock(qtbot, window)
    window.controller.chats.select(chat)
    assert window.input.toPlainText() == "something else I was typing\n\n" + EDITED
    assert _contents(window)[0] == "original question"  # asked again only if the user does


def test_a_question_being_edited_is_kept_over_a_quit(qtbot, make_window) -> None:
    from storage.chats import ChatStore
    from storage.vault import Vault
    from tests.app.conftest import PASSPHRASE

    window = make_window(FakeEngine())
    send(qtbot, window, "original question")
    chat, path = window.controller.current_chat.id, window.controller.store.path
    _editing(window, EDITED)
    assert window.close()
    store = ChatStore(Vault.open(path, PASSPHRASE))
    try:
        assert store.draft(chat) == EDITED
    finally:
        store.close()


def test_the_sampling_fields_are_editable_only_while_they_are_used(qtbot, make_window, monkeypatch) -> None:
    from app.chat.settings_dialog import ChatSettingsDialog

    window = make_window(FakeEngine())
    send(qtbot, window, "a chat")
    seen: list[bool] = []

    def tick_then_ok(self) -> QDialog.DialogCode:
        assert not self.override.isChecked()
        seen.append(self.temperature.isEnabled() or self.seed.isEnabled())
        self.override.setChecked(True)
        seen.append(self.temperature.isEnabled() and self.seed.isEnabled())
        self.temperature.setValue(0.25)
        return QDialog.DialogCode.Accepted

    monkeypatch.setattr(ChatSettingsDialog, "exec", tick_then_ok)
    QTimer.singleShot(0, window.dialogs.chat_settings)  # as the menu runs it
    qtbot.waitUntil(lambda: len(seen) == 2, timeout=WAIT_MS)
    assert seen == [False, True]  # greyed while unticked, editable once ticked
    chat = window.controller.current_chat
    qtbot.waitUntil(lambda: window.controller.store.get_chat(chat.id).settings.get("sampling") is not None,
                    timeout=WAIT_MS)
    assert window.controller.store.get_chat(chat.id).settings["sampling"]["temperature"] == 0.25
