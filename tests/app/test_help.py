"""Help inside the app (issue #36, item 7): Getting started and Keyboard shortcuts, in the
interface's language, the shortcuts read from the window's own actions."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.gui


def test_keyboard_shortcuts_list_the_windows_own_keys(qtbot, make_window) -> None:
    window = make_window()
    window.shortcuts_action.trigger()
    dialog = window.dialogs.help_dialog
    assert dialog.isVisible()
    rows = {dialog.table.item(r, 0).text(): dialog.table.item(r, 1).text() for r in range(dialog.table.rowCount())}
    assert rows["Lock now"] == "Ctrl+L" and rows["Regenerate answer"] == "Ctrl+R"
    assert rows["Models"] == "Ctrl+M" and rows["Documents"] == "Ctrl+D"
    assert rows["Send the message"] == "Enter" and rows["Stop the answer"] == "Esc"
    # A shortcut given to a menu later is in the list without touching the help.
    window.pin_action.setShortcut("Ctrl+P")
    window.shortcuts_action.trigger()
    assert any(window.dialogs.help_dialog.table.item(r, 1).text() == "Ctrl+P"
               for r in range(window.dialogs.help_dialog.table.rowCount()))


def test_getting_started_is_there_and_in_chinese(qtbot, make_window) -> None:
    window = make_window()
    window.getting_started_action.trigger()
    text = window.dialogs.help_dialog.page.toPlainText()
    assert "Getting started with Hearth" in text and "Settings ▸ Documents" in text and "not a source" in text
    window.dialogs.help_dialog.close()
    window.vault.settings.language = "zh_CN"
    window.appearance.apply_language()
    try:
        window.getting_started_action.trigger()
        text = window.dialogs.help_dialog.page.toPlainText()
        assert "Hearth 入门" in text and "Getting started" not in text
        window.shortcuts_action.trigger()
        assert window.dialogs.help_dialog.windowTitle() == "键盘快捷键"
    finally:
        window.vault.settings.language = "system"
        window.appearance.apply_language()
