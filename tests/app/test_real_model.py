"""The window with the real starter model through llama.cpp: the paths a user takes."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import Qt

from inference.llama_engine import LlamaEngine
from inference.protocol import SamplingParams
from storage.chats import COMPLETE, INTERRUPTED, ChatStore
from storage.vault import Vault
from tests.app.conftest import PASSPHRASE, WAIT_MS

pytestmark = [pytest.mark.gui, pytest.mark.model]

SHORT = SamplingParams(max_tokens=40, temperature=0.0, seed=1)
WAIT = 6 * WAIT_MS


@pytest.fixture
def window(make_window, starter_model_path: Path):
    w = make_window(LlamaEngine, model=starter_model_path)
    w.controller.params = SHORT
    assert w.controller.model.ready, w.notice.text()
    return w


def ask(qtbot, window, text: str) -> None:
    window.input.setPlainText(text)
    with qtbot.waitSignal(window.controller.answer_finished, timeout=WAIT):
        qtbot.keyClick(window.input, Qt.Key.Key_Return)


def messages(window):
    return window.controller.store.messages(window.controller.current_chat.id)


def test_chat_with_the_starter_model(qtbot, window) -> None:
    ask(qtbot, window, "What is the capital of France?")
    answer = messages(window)[-1]
    assert answer.status == COMPLETE and answer.content.strip()
    assert answer.stats["tokens"] > 0 and answer.stats["tokens_per_second"] > 0
    assert window.conversation.message_widgets()[-1].text() == answer.content
    assert "tokens/s" in window.conversation.message_widgets()[-1].info.text()


def test_stop_mid_stream_then_regenerate(qtbot, window) -> None:
    window.controller.params = SamplingParams(max_tokens=400, temperature=0.0, seed=1)
    window.input.setPlainText("Write a long story about a lighthouse keeper and the sea.")
    with qtbot.waitSignal(window.controller.answer_updated, timeout=WAIT):
        window.send_button.click()
    with qtbot.waitSignal(window.controller.answer_finished, timeout=WAIT):
        qtbot.keyClick(window, Qt.Key.Key_Escape)
    stopped = messages(window)[-1]
    assert stopped.status == INTERRUPTED and stopped.content
    assert stopped.stats["tokens"] < 400

    window.controller.params = SHORT
    with qtbot.waitSignal(window.controller.answer_finished, timeout=WAIT):
        window.regenerate_button.click()
    after = messages(window)
    assert [m.role for m in after] == ["user", "assistant"]
    assert after[-1].status == COMPLETE and after[-1].id != stopped.id
    assert after[-1].versions == (stopped.id, after[-1].id)  # the stopped one is version 1


def test_an_answer_cut_off_at_the_length_limit_is_continued_by_the_model(qtbot, window) -> None:
    window.controller.params = SamplingParams(max_tokens=12, temperature=0.0, seed=1)
    ask(qtbot, window, "Count from 1 to 40, separated by commas.")
    cut = messages(window)[-1]
    assert cut.status == COMPLETE and cut.stats.get("cut_off") and cut.stats["tokens"] == 12
    widget = window.conversation.message_widgets()[-1]
    assert widget.continue_button.isVisible()
    # The figures alone ("12 tokens") did not say it was cut (#36, item 12).
    assert widget.info.text().startswith("Cut off at the length limit.")
    with qtbot.waitSignal(window.controller.answer_finished, timeout=WAIT):
        widget.continue_button.click()
    done = messages(window)[-1]
    widget = window.conversation.message_widgets()[-1]
    if not done.stats.get("cut_off"):
        assert "Cut off" not in widget.info.text()
    assert done.id == cut.id and done.content.startswith(cut.content)
    assert len(done.content) > len(cut.content) and done.stats["tokens"] > 12


def test_a_second_chat_while_the_first_is_idle(qtbot, window) -> None:
    ask(qtbot, window, "Say hello.")
    first_chat = window.controller.current_chat
    window.new_chat_button.click()
    ask(qtbot, window, "Name a colour.")
    assert window.controller.current_chat.id != first_chat.id
    assert len(messages(window)) == 2
    window.controller.chats.select(first_chat.id)
    assert [m.content for m in messages(window)][0] == "Say hello."


def test_quit_during_generation_joins_the_worker_and_frees_the_model(qtbot, window) -> None:
    window.controller.params = SamplingParams(max_tokens=2000, temperature=0.7)
    window.input.setPlainText("Tell me everything you know about the history of ships.")
    with qtbot.waitSignal(window.controller.answer_updated, timeout=WAIT):
        window.send_button.click()
    path = window.controller.store.path
    chat_id = window.controller.current_chat.id
    window.close()
    worker = window.controller.worker
    assert not worker.is_alive
    reopened = ChatStore(Vault.open(path, PASSPHRASE))
    answer = reopened.messages(chat_id)[-1]
    reopened.close()
    assert answer.status == INTERRUPTED and answer.content
