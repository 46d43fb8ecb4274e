"""An empty chat welcomes: what Hearth is, example prompts that fill the box, and while
the tiny starter model answers, a plain word that a larger one answers much better."""

from __future__ import annotations

from pathlib import Path

import pytest

from inference.bundled import starter_model
from tests.app.conftest import WAIT_MS
from tests.fakes import FakeEngine

pytestmark = pytest.mark.gui


def test_an_empty_chat_shows_examples_that_fill_the_box_and_leave_once_asked(qtbot, make_window) -> None:
    window = make_window(FakeEngine())
    welcome = window.conversation.welcome
    assert welcome.isVisible() and len(welcome.buttons) == 3
    assert not welcome.starter_note.isVisible()  # not the starter model here
    welcome.buttons[1].click()
    text = window.input.toPlainText()
    assert text == welcome.buttons[1].text() and window.controller.store.list_chats() == []  # not sent
    welcome.buttons[0].click()
    assert window.input.toPlainText() == text  # what is in the box is never replaced
    with qtbot.waitSignal(window.controller.answer_finished, timeout=WAIT_MS):
        window.send_button.click()
    assert not welcome.isVisible()
    window.new_chat_button.click()
    assert welcome.isVisible()


def test_with_the_starter_model_the_welcome_says_a_larger_model_answers_better(make_window) -> None:
    window = make_window(FakeEngine(), model=Path("/models") / starter_model().file)
    note = window.conversation.welcome.starter_note
    assert note.isVisible() and "much better answers" in note.text() and "Import" in note.text()


def test_the_examples_are_reached_with_tab_and_chosen_with_space(qtbot, make_window) -> None:
    from PySide6.QtCore import Qt
    from PySide6.QtWidgets import QApplication

    window = make_window(FakeEngine())
    first = window.conversation.welcome.buttons[0]
    window.model_picker.setFocus()
    for _ in range(5):
        qtbot.keyClick(QApplication.focusWidget(), Qt.Key.Key_Tab)
        if QApplication.focusWidget() is first:
            break
    assert QApplication.focusWidget() is first
    qtbot.keyClick(first, Qt.Key.Key_Space)
    assert window.input.toPlainText() == first.text() and window.input.hasFocus()
