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
