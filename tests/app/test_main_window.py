"""The main window driven like a user would, with a fake engine (fast, deterministic)."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import Qt

from app.shell.main_window import MainWindow
from storage.chats import COMPLETE, INTERRUPTED, ChatStore
from storage.vault import Vault
from tests.app.conftest import PASSPHRASE, WAIT_MS, edit_in_place
from tests.fakes import FakeEngine

pytestmark = pytest.mark.gui


def type_and_send(qtbot, window: MainWindow, text: str) -> None:
    window.input.setFocus()
    qtbot.keyClicks(window.input, text)
    with qtbot.waitSignal(window.controller.answer_finished, timeout=WAIT_MS):
        qtbot.keyClick(window.input, Qt.Key.Key_Return)


def stored(window: MainWindow):
    chat = window.controller.current_chat
    return window.controller.store.messages(chat.id) if chat else []


def test_window_has_chat_list_conversation_and_input(make_window) -> None:
    window = make_window()
    assert window.chat_list.isVisible()
    assert window.conversation.isVisible()
    assert window.input.isVisible()
    assert "Fake model" in window.model_label.text()


def test_enter_sends_and_the_answer_streams_in_with_its_figures(qtbot, make_window) -> None:
    engine = FakeEngine(tokens=["Hello", " there", "!"], delay=0.01)
    window = make_window(engine)
    updates = []
    window.controller.answer_updated.connect(lambda _id, text: updates.append(text))
    type_and_send(qtbot, window, "Hi model")

    assert window.input.toPlainText() == ""
    widgets = window.conversation.message_widgets()
    assert [w.role for w in widgets] == ["user", "assistant"]
    assert widgets[0].text() == "Hi model"
    assert widgets[1].text() == engine.expected_text(1)
    assert updates and updates[-1] == engine.expected_text(1)
    assert "tokens/s" in widgets[1].info.text() and "first token" in widgets[1].info.text()
    assert [(m.role, m.content, m.status) for m in stored(window)] == [
        ("user", "Hi model", COMPLETE),
        ("assistant", engine.expected_text(1), COMPLETE),
    ]
    assert window.chat_list.count() == 1
    assert window.chat_list.item(0).text() == "Hi model"


def test_shift_enter_is_a_new_line_not_a_send(qtbot, make_window) -> None:
    window = make_window()
    qtbot.keyClicks(window.input, "line one")
    qtbot.keyClick(window.input, Qt.Key.Key_Return, Qt.KeyboardModifier.ShiftModifier)
    qtbot.keyClicks(window.input, "line two")
    assert window.input.toPlainText() == "line one\nline two"
    assert window.controller.current_chat is None


def test_an_empty_prompt_is_not_sent_and_says_why(qtbot, make_window) -> None:
    window = make_window()
    qtbot.keyClicks(window.input, "   ")
    qtbot.keyClick(window.input, Qt.Key.Key_Return)
    assert window.notice.isVisible() and "Type a message" in window.notice.text()
    assert window.controller.store.list_chats() == []


def test_escape_stops_generation_and_keeps_the_partial_answer(qtbot, make_window) -> None:
    engine = FakeEngine(tokens=["word "] * 2000, delay=0.005)
    window = make_window(engine)
    qtbot.keyClicks(window.input, "go on forever")
    with qtbot.waitSignal(window.controller.answer_updated, timeout=WAIT_MS):
        qtbot.keyClick(window.input, Qt.Key.Key_Return)
    assert window.stop_button.isEnabled() and not window.send_button.isEnabled()
    with qtbot.waitSignal(window.controller.answer_finished, timeout=WAIT_MS):
        qtbot.keyClick(window, Qt.Key.Key_Escape)
    answer = stored(window)[-1]
    assert answer.status == INTERRUPTED
    assert answer.content.startswith("[1] word") and len(answer.content) < len("word ") * 2000
    assert "Stopped" in window.conversation.message_widgets()[-1].info.text()
    assert window.send_button.isEnabled() and not window.stop_button.isEnabled()


def test_stop_button_stops_too(qtbot, make_window) -> None:
    window = make_window(FakeEngine(tokens=["x"] * 2000, delay=0.005))
    qtbot.keyClicks(window.input, "hello")
    with qtbot.waitSignal(window.controller.answer_updated, timeout=WAIT_MS):
        window.send_button.click()
    with qtbot.waitSignal(window.controller.answer_finished, timeout=WAIT_MS):
        window.stop_button.click()
    assert stored(window)[-1].status == INTERRUPTED


def test_regenerate_adds_a_version_and_the_versions_control_moves_between_them(qtbot, make_window) -> None:
    engine = FakeEngine()
    window = make_window(engine)
    type_and_send(qtbot, window, "question")
    with qtbot.waitSignal(window.controller.answer_finished, timeout=WAIT_MS):
        window.regenerate_button.click()
    messages = stored(window)
    assert [m.role for m in messages] == ["user", "assistant"]
    assert messages[1].content == engine.expected_text(2)
    widgets = window.conversation.message_widgets()
    assert [w.text() for w in widgets] == ["question", engine.expected_text(2)]
    # The regenerated answer was asked with the same history: system + the question only.
    assert [m.content for m in engine.calls[-1]][1:] == ["question"]
    answer = widgets[1]
    assert answer.version_label.isVisible() and answer.version_label.text() == "2/2"
    assert answer.previous_button.isEnabled() and not answer.next_button.isEnabled()
    assert not widgets[0].version_label.isVisible()  # one version of the question
    answer.previous_button.click()
    qtbot.waitUntil(lambda: window.conversation.message_widgets()[1].text() == engine.expected_text(1),
                    timeout=WAIT_MS)
    first = window.conversation.message_widgets()[1]
    assert first.version_label.text() == "1/2" and first.version_label.accessibleName() == "Version 1 of 2"
    assert stored(window)[1].content == engine.expected_text(1)  # chosen: the chat shows it from now on
    first.next_button.click()
    qtbot.waitUntil(lambda: window.conversation.message_widgets()[1].text() == engine.expected_text(2),
                    timeout=WAIT_MS)


def test_editing_an_earlier_question_makes_a_branch_and_keeps_the_old_one(qtbot, make_window, monkeypatch) -> None:
    engine = FakeEngine()
    window = make_window(engine)
    for question in ("first", "second", "third"):
        type_and_send(qtbot, window, question)
    second = next(w for w in window.conversation.message_widgets() if w.text() == "second")
    assert second.edit_button is not None and second.edit_button.isVisible()
    with qtbot.waitSignal(window.controller.answer_finished, timeout=WAIT_MS):
        edit_in_place(qtbot, second, "second, reworded")
    qtbot.waitUntil(lambda: len(window.conversation.message_widgets()) == 4, timeout=WAIT_MS)
    answer = engine.expected_text(4)
    widgets = window.conversation.message_widgets()
    assert [w.text() for w in widgets] == ["first", engine.expected_text(1), "second, reworded", answer]
    assert [m.content for m in stored(window)] == ["first", engine.expected_text(1), "second, reworded", answer]
    assert [m.content for m in engine.calls[-1]][1:] == ["first", engine.expected_text(1), "second, reworded"]
    # Answers have no edit button.
    assert [w.edit_button is not None for w in widgets] == [True, False, True, False]
    # The old branch is there, behind the edited question's versions control.
    assert widgets[2].version_label.text() == "2/2"
    widgets[2].previous_button.click()
    qtbot.waitUntil(lambda: len(window.conversation.message_widgets()) == 6, timeout=WAIT_MS)
    assert [w.text() for w in window.conversation.message_widgets()] == [
        "first", engine.expected_text(1), "second", engine.expected_text(2), "third", engine.expected_text(3)]
    assert window.conversation.message_widgets()[0] is widgets[0]  # what did not change stays


def test_copy_puts_the_exact_text_on_the_clipboard(qtbot, make_window) -> None:
    from PySide6.QtWidgets import QApplication

    engine = FakeEngine(tokens=["**bold** and ", "`code`"])
    window = make_window(engine)
    window.input.setPlainText("  a question,\n  with two lines ")
    with qtbot.waitSignal(window.controller.answer_finished, timeout=WAIT_MS):
        window.send_button.click()
    question, answer = window.conversation.message_widgets()
    question.copy_button.click()
    assert QApplication.clipboard().text() == "  a question,\n  with two lines "
    answer.copy_button.click()
    assert QApplication.clipboard().text() == "[1] **bold** and `code`"  # the Markdown, as written


def test_deleting_one_message_keeps_the_rest_of_the_chat(qtbot, make_window, monkeypatch) -> None:
    engine = FakeEngine()
    window = make_window(engine)
    for question in ("first", "second"):
        type_and_send(qtbot, window, question)
    asked: list[str] = []
    monkeypatch.setattr("app.shell.dialogs.confirm", lambda _p, _t, text, _b: asked.append(text) or True)
    window.conversation.message_widgets()[1].delete_button.click()
    qtbot.waitUntil(lambda: len(window.conversation.message_widgets()) == 3, timeout=WAIT_MS)
    assert asked and "rest of the chat stays" in asked[0]
    assert [w.text() for w in window.conversation.message_widgets()] == ["first", "second", engine.expected_text(2)]
    assert [m.content for m in stored(window)] == ["first", "second", engine.expected_text(2)]
    monkeypatch.setattr("app.shell.dialogs.confirm", lambda *_a: False)  # said no: nothing goes
    window.conversation.message_widgets()[0].delete_button.click()
    assert len(stored(window)) == 3


def test_an_answer_stopped_midway_can_be_continued(qtbot, make_window) -> None:
    engine = FakeEngine(tokens=["word "] * 400, delay=0.005)
    window = make_window(engine)
    window.input.setPlainText("tell me more")
    with qtbot.waitSignal(window.controller.answer_updated, timeout=WAIT_MS):
        window.send_button.click()
    with qtbot.waitSignal(window.controller.answer_finished, timeout=WAIT_MS):
        window.stop_button.click()
    answer = window.conversation.message_widgets()[-1]
    assert answer.continue_button.isVisible()
    assert not window.conversation.message_widgets()[0].continue_button.isVisible()
    cut = answer.text()
    engine.tokens, engine.delay = [" The end."], 0.0
    with qtbot.waitSignal(window.controller.answer_finished, timeout=WAIT_MS):
        answer.continue_button.click()
    shown = window.conversation.message_widgets()
    assert len(shown) == 2 and shown[1].text().startswith(cut) and shown[1].text().endswith(" The end.")
    assert not shown[1].continue_button.isVisible()  # complete now
    assert stored(window)[1].content == shown[1].text()


def test_new_chat_stays_in_a_chat_still_blank_rather_than_pile_up_empty_ones(qtbot, make_window) -> None:
    window = make_window(FakeEngine())
    store = window.controller.store
    type_and_send(qtbot, window, "first chat")
    window.new_chat_button.click()
    blank = window.controller.current_chat
    window.new_chat_button.click()
    window.new_chat_action.trigger()
    assert window.controller.current_chat.id == blank.id and len(store.list_chats()) == 2
    window.input.setPlainText("half a question")  # words typed: the chat is no longer blank
    window.new_chat_button.click()
    assert window.controller.current_chat.id != blank.id and len(store.list_chats()) == 3
    assert store.draft(blank.id) == "half a question" and window.input.toPlainText() == ""


def test_chats_new_select_and_delete(qtbot, make_window, confirm_dialogs) -> None:
    engine = FakeEngine()
    window = make_window(engine)
    type_and_send(qtbot, window, "first chat")
    window.new_chat_button.click()
    assert window.conversation.message_widgets() == []
    assert window.chat_title.text() == "New chat"
    type_and_send(qtbot, window, "second chat")
    assert window.chat_title.text() == "second chat"  # named after its first message at once
    assert window.chat_list.count() == 2
    titles = [window.chat_list.item(i).text() for i in range(2)]
    assert titles == ["second chat", "first chat"]

    window.chat_list.setCurrentRow(1)
    assert [w.text() for w in window.conversation.message_widgets()][0] == "first chat"
    # The earlier chat's history does not leak into the other one.
    type_and_send(qtbot, window, "more in first")
    assert [m.content for m in engine.calls[-1] if m.role == "user"] == ["first chat", "more in first"]

    window.delete_chat_button.click()
    assert confirm_dialogs == ["Delete chat"]
    assert window.chat_list.count() == 1
    assert window.controller.current_chat.title == "second chat"
    assert [w.text() for w in window.conversation.message_widgets()][0] == "second chat"


def test_answers_render_markdown(qtbot, make_window) -> None:
    tokens = ["Here:\n\n", "- one\n", "- two\n\n", "```python\n", "print('hi')\n", "```\n"]
    window = make_window(FakeEngine(tokens=tokens))
    type_and_send(qtbot, window, "show me")
    body = window.conversation.message_widgets()[-1].body
    plain = body.toPlainText()
    assert "print('hi')" in plain and "```" not in plain
    lists = [body.document().findBlockByNumber(i).textList() for i in range(body.document().blockCount())]
    assert any(lst is not None for lst in lists)


def test_a_model_that_fails_to_load_is_explained_and_nothing_is_lost(qtbot, make_window) -> None:
    window = make_window(model=Path("broken.gguf"))
    assert "could not be loaded" in window.notice.text()
    assert "not a GGUF model file" in window.notice.text()
    qtbot.keyClicks(window.input, "my precious words")
    qtbot.keyClick(window.input, Qt.Key.Key_Return)
    assert window.input.toPlainText() == "my precious words"
    assert window.controller.store.list_chats() == []


def test_a_message_too_long_for_the_context_is_explained_and_kept(qtbot, make_window) -> None:
    window = make_window(FakeEngine(n_ctx=64))
    window.input.setPlainText("word " * 400)
    with qtbot.waitSignal(window.controller.answer_finished, timeout=WAIT_MS):
        window.send_button.click()
    messages = stored(window)
    assert messages[0].content == "word " * 400
    assert "too long" in window.conversation.message_widgets()[-1].info.text()
    # The app stays usable: a short message in a new chat works.
    window.new_chat_button.click()
    window.input.setPlainText("short")
    with qtbot.waitSignal(window.controller.answer_finished, timeout=WAIT_MS):
        window.send_button.click()
    assert stored(window)[-1].status == COMPLETE


def test_the_partial_answer_is_checkpointed_while_streaming(qtbot, make_window, monkeypatch) -> None:
    monkeypatch.setattr("core.turns.CHECKPOINT_SECONDS", 0.0)
    window = make_window(FakeEngine(tokens=["chunk "] * 2000, delay=0.005))
    window.input.setPlainText("stream")
    window.send_button.click()
    qtbot.waitUntil(lambda: len(stored(window)) == 2 and stored(window)[1].content.count("chunk") >= 3,
                    timeout=WAIT_MS)
    assert stored(window)[1].status == "streaming"
    with qtbot.waitSignal(window.controller.answer_finished, timeout=WAIT_MS):
        window.controller.stop()


def test_events_of_a_replaced_request_are_dropped(qtbot, make_window) -> None:
    from inference.protocol import Chunk

    window = make_window(FakeEngine(tokens=["slow "] * 10_000, delay=0.01))
    window.input.setPlainText("hello")
    window.send_button.click()
    qtbot.waitUntil(lambda: window.controller.turns.active is not None, timeout=WAIT_MS)
    live = window.controller.turns.active.request_id
    # The stale chunk, then one of the live request: once the live one shows, the stale
    # one went through the same path before it (no fixed wait for "nothing happened").
    window.controller.bridge.sink(Chunk(request_id=live + 999, text="stale text"))
    window.controller.bridge.sink(Chunk(request_id=live, text=" live marker"))
    qtbot.waitUntil(lambda: "live marker" in window.conversation.message_widgets()[-1].text(),
                    timeout=WAIT_MS)
    assert not any("stale text" in w.text() for w in window.conversation.message_widgets())
    with qtbot.waitSignal(window.controller.answer_finished, timeout=WAIT_MS):
        window.controller.stop()
    assert not any("stale text" in m.content for m in stored(window))


def test_closing_while_streaming_joins_the_worker_and_saves_the_partial_answer(qtbot, make_window) -> None:
    engine = FakeEngine(tokens=["slow "] * 10_000, delay=0.01)
    window = make_window(engine)
    window.input.setPlainText("long one")
    with qtbot.waitSignal(window.controller.answer_updated, timeout=WAIT_MS):
        window.send_button.click()
    path = window.controller.store.path
    chat_id = window.controller.current_chat.id
    window.close()
    assert not window.controller.worker.is_alive
    assert engine.closed
    reopened = ChatStore(Vault.open(path, PASSPHRASE))
    answer = reopened.messages(chat_id)[-1]
    assert answer.status == INTERRUPTED and answer.content.startswith("[1] slow")
    reopened.close()


def test_delete_while_reading_a_message_does_not_offer_to_delete_the_chat(qtbot, make_window, monkeypatch) -> None:
    """Messages are tab stops now; Delete is the chat list's key only."""
    window = make_window(FakeEngine())
    type_and_send(qtbot, window, "question")
    asked: list[str] = []
    monkeypatch.setattr("app.shell.dialogs.confirm", lambda _p, _t, text, _a: asked.append(text) or False)
    body = window.conversation.message_widgets()[0].body
    body.setFocus()
    qtbot.waitUntil(body.hasFocus, timeout=WAIT_MS)
    qtbot.keyClick(body, Qt.Key.Key_Delete)
    assert asked == []
    window.chat_list.setFocus()
    qtbot.waitUntil(window.chat_list.hasFocus, timeout=WAIT_MS)
    qtbot.keyClick(window.chat_list, Qt.Key.Key_Delete)
    assert len(asked) == 1


def test_regenerate_while_an_answer_streams_says_why_nothing_happens(qtbot, make_window) -> None:
    engine = FakeEngine(tokens=["slow "] * 5000, delay=0.02)
    window = make_window(engine)
    window.input.setPlainText("question")
    window.composer.send()
    qtbot.waitUntil(lambda: window.controller.busy, timeout=WAIT_MS)
    window.conversation_actions.regenerate()
    assert window.notice.isVisible() and "before regenerating" in window.notice.text()
    window.stop_button.click()
    qtbot.waitUntil(lambda: not window.controller.busy, timeout=WAIT_MS)


def test_a_chat_setting_cannot_turn_on_the_fixed_count() -> None:
    from app.chat.controller import ChatController
    from inference.protocol import SamplingParams
    from storage.chats import Chat

    chat = Chat(1, "t", 0.0, 0.0, False, False, {"sampling": {"ignore_eos": True, "temperature": 0.1}})
    params = ChatController._params_for(type("C", (), {"params": SamplingParams()})(), chat)
    assert params.ignore_eos is False and params.temperature == 0.1


def test_a_long_chat_title_does_not_move_the_chat_list(qtbot, make_window) -> None:
    window = make_window()
    window.resize(1000, 700)
    qtbot.wait(50)
    before = window.chat_page.sizes()[0]
    long = "A very long first message that becomes the title " * 6
    type_and_send(qtbot, window, long)
    qtbot.wait(50)
    assert window.chat_page.sizes()[0] == before  # the list keeps its width
    assert window.chat_title.text() == window.controller.current_chat.title  # whole, for readers
    assert window.chat_title.width() < window.chat_title.fontMetrics().horizontalAdvance(long)


def test_while_a_copied_model_loads_the_status_bar_names_it_not_its_hash(qtbot, make_window) -> None:
    from inference.settings import ModelSettings

    window = make_window()
    hashed = Path("0f" * 32 + ".gguf")  # how an imported copy is stored
    with qtbot.waitSignal(window.controller.model_state, timeout=WAIT_MS,
                          check_params_cb=lambda state, _text: state == "loading") as loading:
        window.controller.model.load(ModelSettings().spec(hashed, "Gemma 3 270m"))
    assert loading.args[1] == "Loading Gemma 3 270m…" and "0f0f" not in window.model_label.text()


def test_a_chat_left_and_opened_again_during_a_regenerate_shows_the_new_version(qtbot, make_window) -> None:
    engine = FakeEngine()
    window = make_window(engine)
    type_and_send(qtbot, window, "question")
    first = window.controller.current_chat.id
    window.new_chat_button.click()
    engine.tokens, engine.delay = ["slow "] * 40, 0.02
    window.controller.chats.select(first)
    with qtbot.waitSignal(window.controller.answer_updated, timeout=WAIT_MS):
        window.regenerate_button.click()
    window.controller.chats.select(None)  # away, and back while the new version is written
    window.controller.chats.select(first)
    shown = window.conversation.message_widgets()
    assert len(shown) == 2 and shown[1].status == "streaming" and shown[1].version_label.text() == "2/2"
    with qtbot.waitSignal(window.controller.answer_finished, timeout=WAIT_MS):
        pass
    qtbot.waitUntil(lambda: window.conversation.message_widgets()[1].status == "complete", timeout=WAIT_MS)
    assert window.conversation.message_widgets()[1].text().startswith("[2] slow")


def test_search_opens_the_version_that_holds_the_words(qtbot, make_window, monkeypatch) -> None:
    """Issue #36, item 4: a chat found by its other branch opened on the branch it shows,
    with nothing highlighted and no hint where the words were."""
    engine = FakeEngine()
    window = make_window(engine)
    for question in ("first", "second", "a third question about lanterns"):
        type_and_send(qtbot, window, question)
    second = next(w for w in window.conversation.message_widgets() if w.text() == "second")
    with qtbot.waitSignal(window.controller.answer_finished, timeout=WAIT_MS):
        edit_in_place(qtbot, second, "second, reworded")
    qtbot.waitUntil(lambda: len(window.conversation.message_widgets()) == 4, timeout=WAIT_MS)
    found_in = window.controller.current_chat.id
    window.new_chat_button.click()  # another chat open meanwhile
    window.search.setText("LANTERNS")
    assert window.chat_list.count() == 1
    window.chat_list.setCurrentRow(0)
    qtbot.waitUntil(lambda: len(window.conversation.message_widgets()) == 6, timeout=WAIT_MS)
    assert window.controller.current_chat.id == found_in
    widgets = window.conversation.message_widgets()
    assert widgets[4].text() == "a third question about lanterns"
    assert [m.cursor.selectedText() for m in widgets[4].body.extraSelections()] == ["lanterns"]
    assert widgets[2].version_label.text() == "1/2"  # the versions control says where it is


def test_a_question_is_edited_in_place_with_the_composers_keys(qtbot, make_window) -> None:
    """Issue #36, item 11: Edit opened a dialog where Enter made a new line, and the chat
    kept the old question as its title."""
    from PySide6.QtCore import Qt

    engine = FakeEngine()
    window = make_window(engine)
    type_and_send(qtbot, window, "how tall is the lighthouse")
    assert window.controller.current_chat.title == "how tall is the lighthouse"
    question = window.conversation.message_widgets()[0]
    question.edit_button.click()
    assert question.editing and not question.body.isVisibleTo(question)
    editor = question.editor.text
    assert editor.toPlainText() == "how tall is the lighthouse"
    qtbot.keyClick(editor, Qt.Key.Key_Escape)  # cancelled: as it was, nothing sent
    assert not question.editing and question.body.isVisibleTo(question) and len(engine.calls) == 1
    question.edit_button.click()
    editor.setPlainText("how old is the lighthouse")
    qtbot.keyClick(editor, Qt.Key.Key_Return, Qt.KeyboardModifier.ShiftModifier)  # a new line, not sent
    assert "\n" in editor.toPlainText() and len(engine.calls) == 1
    editor.setPlainText("how old is the lighthouse")
    with qtbot.waitSignal(window.controller.answer_finished, timeout=WAIT_MS):
        qtbot.keyClick(editor, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: window.conversation.message_widgets()[0].text() == "how old is the lighthouse",
                    timeout=WAIT_MS)
    assert window.controller.current_chat.title == "how old is the lighthouse"  # named after it now
    assert window.chat_list.item(0).text() == "how old is the lighthouse"
    assert window.conversation.message_widgets()[0].version_label.text() == "2/2"
