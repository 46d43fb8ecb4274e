"""Read aloud (#41) in the real window: an answer spoken by the system's own speech service
(speech-dispatcher with espeak-ng, installed by the test command, into the test's sound
server), its button saying so while it speaks; again stops it; a lock stops it; code and
Markdown marks are not read out, and a Chinese answer asks for a Chinese voice."""

from __future__ import annotations

import shutil

import pytest

from app.chat.read_aloud import chinese, speakable
from tests.app.conftest import WAIT_MS
from tests.fakes import FakeEngine

pytestmark = [pytest.mark.gui]


def test_what_is_read_is_the_answer_s_words() -> None:
    assert speakable("**Rent** is due monthly [1].\n```python\nprint(1)\n```\nSee [the lease](https://x).") == \
        "Rent is due monthly . See the lease."
    assert chinese("租金按月支付，见合同第3条。") and not chinese("Rent is 租金 in Chinese.")


@pytest.mark.skipif(shutil.which("speech-dispatcher") is None, reason=(
    "speech-dispatcher speaks for Qt Text to Speech on Linux: the test command installs it as root"))
def test_an_answer_is_read_aloud_and_stopped(qtbot, make_window, sound_server) -> None:
    engine = FakeEngine(tokens=["The ", "spare ", "fuse ", "is ", "in ", "the ", "blue ", "tin."])
    window = make_window(engine=engine)
    window.input.setPlainText("Where is the fuse?")
    window.send_button.click()
    qtbot.waitUntil(lambda: not window.controller.busy, timeout=WAIT_MS)
    answer = window.conversation.message_widgets()[-1]
    assert answer.read_button.isVisibleTo(answer) and answer.read_button.text() == "Read aloud"
    question = window.conversation.message_widgets()[0]
    assert not question.read_button.isVisibleTo(question)
    answer.read_button.click()
    assert window.read_aloud.current == answer.message_id and answer.read_button.text() == "■ Stop reading"
    qtbot.waitUntil(lambda: window.read_aloud.current == 0, timeout=60_000)  # spoken to its end
    assert answer.read_button.text() == "Read aloud"
    answer.read_button.click()
    answer.read_button.click()  # again: stop
    assert window.read_aloud.current == 0 and answer.read_button.text() == "Read aloud"
    answer.read_button.click()
    window.vault.lock()
    assert window.read_aloud.current == 0
