"""The passphrase field as a user meets it (issue #36, item 12): show and hide, a Caps
Lock warning, zxcvbn's advice in the interface's language, and an error that goes once
the passphrase it was about is changed."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLineEdit

from app.vault.lock_screen import LockScreen, strength

pytestmark = pytest.mark.gui


@pytest.fixture
def screen(qtbot) -> LockScreen:
    widget = LockScreen()
    qtbot.addWidget(widget)
    widget.show_create()
    widget.show()
    return widget


def test_show_and_hide_the_passphrase_and_hidden_again_next_time(screen: LockScreen) -> None:
    assert screen.passphrase.echoMode() == QLineEdit.EchoMode.Password
    screen.reveal.trigger()
    assert screen.passphrase.echoMode() == screen.confirm.echoMode() == QLineEdit.EchoMode.Normal
    assert screen.reveal.text() == "Hide passphrase"
    screen.show_unlock()  # locked again: never shown by default
    assert screen.passphrase.echoMode() == QLineEdit.EchoMode.Password and not screen.reveal.isChecked()


def test_caps_lock_is_said_when_letters_come_out_against_shift(qtbot, screen: LockScreen) -> None:
    qtbot.keyClicks(screen.passphrase, "lantern")
    assert not screen.caps.isVisible()
    qtbot.keyClick(screen.passphrase, "Q", Qt.KeyboardModifier.NoModifier)  # a capital without Shift
    assert screen.caps.isVisible()
    qtbot.keyClick(screen.passphrase, "7")  # a digit says nothing either way
    assert screen.caps.isVisible()
    qtbot.keyClick(screen.passphrase, "q")
    assert not screen.caps.isVisible()
    qtbot.keyClick(screen.confirm, "q", Qt.KeyboardModifier.ShiftModifier)  # small with Shift: on
    assert screen.caps.isVisible()


def test_the_error_goes_when_the_passphrase_is_changed(qtbot, screen: LockScreen) -> None:
    qtbot.keyClicks(screen.passphrase, "short")
    screen.submit.click()
    assert screen.error.isVisible() and "at least" in screen.error.text()
    qtbot.keyClicks(screen.passphrase, " lantern quarry velvet")
    assert not screen.error.isVisible()  # no red "Use at least 10 characters" beside "strong"
    assert screen.strength.text().startswith("Strength: strong")


def test_zxcvbns_advice_is_said_in_chinese(qtbot) -> None:
    from app.shell import language

    language.apply("zh_CN")
    try:
        for typed in ("password1", "qwertyuiop", "Johnsmith1990", "aaaaaaaaaaaa", "p@ssw0rd"):
            word, hint = strength(typed)
            assert word and hint and not any("a" <= c.lower() <= "z" for c in hint.replace("“aaa”", "")
                                             .replace("“abc”", "").replace("“6543”", "").replace("“@”", "")
                                             .replace("“a”", "").replace("“abcabcabc”", "")), hint
    finally:
        language.apply("system")


def test_the_eye_is_an_eye_reached_by_tab_named_and_toggled_by_space(qtbot, screen: LockScreen) -> None:
    """An eye (drawn: no icon theme needed), struck through while the passphrase shows,
    reached from the confirmation field with Tab, said by its name, toggled by Space."""
    from PySide6.QtGui import QIcon

    from app.shell.reveal import RevealButton, eye_pixmap

    button = screen.reveal_button
    assert isinstance(button, RevealButton) and button.defaultAction() is screen.reveal
    icon = screen.reveal.icon()
    shown, hidden = (icon.pixmap(24, QIcon.Mode.Normal, state).toImage()
                     for state in (QIcon.State.On, QIcon.State.Off))
    color = button.palette().color(button.foregroundRole())
    assert hidden == eye_pixmap(24, color, struck=False).toImage()
    assert shown == eye_pixmap(24, color, struck=True).toImage() and shown != hidden
    screen.confirm.setFocus()
    qtbot.waitUntil(screen.confirm.hasFocus)
    qtbot.keyClick(screen.confirm, Qt.Key.Key_Tab)
    assert button.hasFocus() and button.accessibleName() == "Show passphrase"
    assert button.toolTip() and button.accessibleDescription()
    qtbot.keyClick(button, Qt.Key.Key_Space)
    assert screen.passphrase.echoMode() == screen.confirm.echoMode() == QLineEdit.EchoMode.Normal
    assert button.accessibleName() == "Hide passphrase" and button.isChecked()
    qtbot.keyClick(button, Qt.Key.Key_Space)
    assert screen.passphrase.echoMode() == QLineEdit.EchoMode.Password
    screen.show_unlock()  # the confirmation hidden: Tab goes from the passphrase to the eye
    screen.passphrase.setFocus()
    qtbot.waitUntil(screen.passphrase.hasFocus)
    qtbot.keyClick(screen.passphrase, Qt.Key.Key_Tab)
    assert button.hasFocus()


def test_a_passphrase_asked_in_a_dialog_has_the_eye_too(qtbot, monkeypatch) -> None:
    """Change passphrase, a backup's passphrase, an export's: the same eye as the lock
    screen, in the Tab order after the field, and the text typed comes back."""
    from PySide6.QtWidgets import QDialog

    from app.shell import dialogs
    from app.shell.reveal import PassphraseDialog

    seen: list[PassphraseDialog] = []

    def answer(box: QDialog) -> int:
        assert isinstance(box, PassphraseDialog)
        seen.append(box)
        box.show()
        qtbot.waitUntil(box.field.hasFocus)
        qtbot.keyClicks(box.field, "a long passphrase")
        assert box.field.echoMode() == QLineEdit.EchoMode.Password
        qtbot.keyClick(box.field, Qt.Key.Key_Tab)
        assert box.reveal.hasFocus() and box.reveal.accessibleName() == "Show passphrase"
        qtbot.keyClick(box.reveal, Qt.Key.Key_Space)
        assert box.field.echoMode() == QLineEdit.EchoMode.Normal
        box.accept()
        return int(QDialog.DialogCode.Accepted.value)

    monkeypatch.setattr(PassphraseDialog, "exec", answer)
    assert dialogs.passphrase(None, "Change passphrase", "New passphrase:") == "a long passphrase"
    assert len(seen) == 1
