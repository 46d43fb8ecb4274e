"""Each answer's header names the model that wrote it, as stored with it (issue #18)."""

from __future__ import annotations

from app.chat.message import MessageWidget, writer
from storage.chats import COMPLETE, STREAMING, Message


def answer(stats: dict, status: str = COMPLETE) -> Message:
    return Message(1, 1, 0, "assistant", "An answer.", status, stats)


def test_the_header_names_the_writer_not_the_model_loaded_now(qtbot) -> None:
    widget = MessageWidget(answer({"model": "SmolLM2 135M"}))
    qtbot.addWidget(widget)
    assert widget.author.text() == "SmolLM2 135M"
    assert widget.accessibleName() == "Answer from SmolLM2 135M"


def test_an_engine_answer_names_the_engine_and_its_model(qtbot) -> None:
    widget = MessageWidget(answer({"model": "", "engine": "Team server"}, STREAMING))
    qtbot.addWidget(widget)
    assert widget.author.text() == "Team server"  # the engine did not say its model yet
    widget.show_message(answer({"model": "qwen2.5-7b", "engine": "Team server"}))
    assert widget.author.text() == "qwen2.5-7b on Team server"


def test_an_old_answer_without_a_writer_is_not_given_the_current_model(qtbot) -> None:
    widget = MessageWidget(answer({}))
    qtbot.addWidget(widget)
    assert widget.author.text() == "Assistant"


def test_a_hostile_name_is_one_printable_line_cut_short() -> None:
    name = "evil\u202e\nmodel<b>" + "x" * 500
    shown = writer({"model": name, "engine": "corp\x00"})
    assert "\u202e" not in shown and "\n" not in shown and "\x00" not in shown
    assert len(shown) < 200 and shown.endswith("on corp")
