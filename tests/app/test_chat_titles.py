"""A chat named after its first question: as much of the first line as a title needs, cut
between words (between characters in Chinese) with "…", elided by the list and the header
at their real width, the whole title in their tooltips."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt

from core.history import TITLE_COLUMNS, named_after, title_from
from tests.app.conftest import WAIT_MS

ENGLISH = ("How should the harbour office schedule the winter ferries when the ice arrives "
           "early and the mooring fees change in December?")
CHINESE = "请根据港口手册说明冬季渡轮的时刻表在冰期提前到来并且十二月系泊费用调整的时候应该怎样安排才最合理"


def test_a_long_english_question_is_cut_between_words() -> None:
    title = title_from(ENGLISH + "\nsecond line")
    assert title.endswith("…") and len(title) > 48
    kept = title[:-1]
    assert ENGLISH.startswith(kept) and ENGLISH[len(kept)] == " "  # a whole word ends it
    assert len(title) <= TITLE_COLUMNS


def test_a_long_chinese_question_is_cut_between_characters_as_long_on_screen() -> None:
    title = title_from(CHINESE)
    assert title.endswith("…") and CHINESE.startswith(title[:-1])
    assert 2 * len(title[:-1]) + 1 <= TITLE_COLUMNS and 2 * len(title[:-1]) >= TITLE_COLUMNS - 3


def test_short_lines_and_accents_stay_whole() -> None:
    assert title_from("Lamp room hours?\nMore") == "Lamp room hours?"
    accented = "e\u0301" * 100  # é as a letter and its accent: never parted
    title = title_from(accented)
    assert title.endswith("…") and title[-2] == "\u0301"


def test_a_chat_named_by_the_old_rule_is_still_known_as_named_after_its_question() -> None:
    """Editing the first question renames the chat only if it was named after it."""
    old = ENGLISH[:47] + "…"
    assert named_after(old, ENGLISH) and named_after(title_from(ENGLISH), ENGLISH)
    assert not named_after("My own name", ENGLISH)


@pytest.mark.gui
@pytest.mark.parametrize("question", [ENGLISH, CHINESE], ids=["english", "chinese"])
def test_the_list_and_the_header_elide_the_title_and_show_it_whole_as_a_tooltip(
        qtbot, make_window, question: str) -> None:
    window = make_window()
    window.input.setPlainText(question)
    with qtbot.waitSignal(window.controller.answer_finished, timeout=WAIT_MS):
        window.send_button.click()
    title = window.controller.current_chat.title
    assert title == title_from(question) and len(title) > (48 if question is ENGLISH else 30)
    item = window.chat_list.currentItem()
    assert item.text() == title and title in item.toolTip()
    assert window.chat_list.textElideMode() == Qt.TextElideMode.ElideRight
    header = window.chat_title
    assert header.text() == title and title in header.toolTip()
