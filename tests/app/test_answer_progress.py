"""Before the first word of a long prompt the answer says what is happening, and Stop
works all through it (issue #18, item 2). The real model's reports are tested in
tests/inference/test_llama_engine.py; here an engine that reads slowly."""

from __future__ import annotations

import threading

import pytest
from PySide6.QtCore import QLocale

from tests.app.conftest import WAIT_MS
from tests.fakes import FakeEngine

pytestmark = pytest.mark.gui


class SlowReader(FakeEngine):
    """Reads its prompt in steps, reporting each, before its first token; waits at a step
    until the test lets it go on."""

    def __init__(self) -> None:
        super().__init__(tokens=["The", " answer"])
        self.report = None
        self.go_on = threading.Event()

    def set_prompt_progress(self, report) -> None:
        self.report = report

    def stream(self, messages, params, should_stop):
        total = 1240
        for done in (0, 434, 868):
            if should_stop():
                return
            if self.report is not None:
                self.report(done, total)
            self.go_on.wait(10)
            self.go_on.clear()
        yield from super().stream(messages, params, should_stop)


def ask_slowly(make_window, text: str):
    """A window whose engine reads slowly, asked ``text``: (engine, window, the answer's widget)."""
    engine = SlowReader()
    window = make_window(engine)
    window.input.setPlainText(text)
    window.send_button.click()
    return engine, window, window.conversation.message_widgets()[-1]


def test_reading_a_long_prompt_says_how_far_then_the_words_come(qtbot, make_window) -> None:
    engine, window, widget = ask_slowly(make_window, "a question with a long history")
    count = QLocale().toString(1240)  # "1,240" or "1240", as the interface's language writes it
    qtbot.waitUntil(lambda: f"Reading {count} tokens… 0%" in widget.info.text(), timeout=WAIT_MS)
    engine.go_on.set()
    qtbot.waitUntil(lambda: f"Reading {count} tokens… 35%" in widget.info.text(), timeout=WAIT_MS)
    engine.go_on.set()
    qtbot.waitUntil(lambda: "70%" in widget.info.text(), timeout=WAIT_MS)
    with qtbot.waitSignal(window.controller.answer_finished, timeout=WAIT_MS):
        engine.go_on.set()
    assert "Reading" not in widget.info.text()  # the figures of the finished answer now
    assert widget.text() == engine.expected_text(1)


def test_stop_works_while_the_prompt_is_read(qtbot, make_window) -> None:
    engine, window, widget = ask_slowly(make_window, "stop me while you read")
    qtbot.waitUntil(lambda: "Reading" in widget.info.text(), timeout=WAIT_MS)
    window.controller.stop()
    engine.go_on.set()
    qtbot.waitUntil(lambda: not window.controller.busy, timeout=WAIT_MS)
    messages = window.controller.store.messages(window.controller.current_chat.id)
    assert [m.role for m in messages] == ["user"]  # stopped before the first word: nothing kept


def test_the_estimate_follows_the_pace_so_far_and_searching_is_said(qtbot, monkeypatch) -> None:
    from app.chat import message
    from app.chat.message import MessageWidget
    from inference.protocol import READING, SEARCHING
    from storage.chats import STREAMING, Message

    clock = [100.0]
    monkeypatch.setattr(message.time, "monotonic", lambda: clock[0])
    widget = MessageWidget(Message(1, 1, 0, "assistant", "", STREAMING, {"model": "m"}))
    qtbot.addWidget(widget)
    widget.set_progress(SEARCHING, 0, 0)
    assert widget.info.text() == "Searching your documents…"
    widget.set_progress(READING, 0, 1200)
    assert "left" not in widget.info.text()  # no pace yet
    clock[0] += 2.0
    widget.set_progress(READING, 400, 1200)  # 200 tokens a second: 800 to go
    assert widget.info.text().endswith("33% (about 4 s left)")
    widget.stream_text("The")
    assert widget.info.text() == "Generating…"
