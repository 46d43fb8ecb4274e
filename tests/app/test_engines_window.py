"""Intranet engines in the real window (offscreen): Settings ▸ Engines adds one with the
organisation's CA, the picker offers its model per chat, the first send says what leaves
the computer, the answer streams from a real llama-server, and the status bar and the
Privacy panel say where text went."""

from __future__ import annotations

import pytest
from PySide6.QtWidgets import QDialog

from app.engines.dialog import EngineForm
from app.shell.privacy_dialog import PrivacyDialog
from core.protocol import Trust
from guard import egress
from tests.app.conftest import WAIT_MS

pytestmark = [pytest.mark.gui, pytest.mark.model, pytest.mark.slow]


@pytest.fixture
def engine(intranet_engine):
    return intranet_engine


@pytest.fixture(autouse=True)
def _forget_engines():
    yield
    for found in egress.destinations():
        egress.revoke_destination(found.name)


def add_engine(qtbot, window, engine, monkeypatch, name: str = "Corp") -> None:
    """Settings ▸ Engines ▸ Add…, filled in and checked, as the user does it."""
    window.engines_action.trigger()
    dialog = window.engine_actions.engines_dialog
    assert dialog is not None and dialog.isVisible()

    def fill(form: EngineForm) -> int:
        form.name.setText(name)
        form.url.setText(engine.url)
        form.api_key.setText("k-secret-4711")
        form.system.setChecked(False)
        form.use_ca_file(str(engine.pki.ca_path))
        form.check_and_save()
        qtbot.waitUntil(lambda: form.result() == QDialog.DialogCode.Accepted or form.save_button.isEnabled(),
                        timeout=WAIT_MS)
        return form.result()

    monkeypatch.setattr(EngineForm, "exec", fill)
    with qtbot.waitSignal(dialog.changed, timeout=WAIT_MS):
        dialog.add()
    assert f"{name} checked and saved" in dialog.status.text()


def test_add_pick_disclose_stream_and_see_where_text_went(qtbot, make_window, engine, monkeypatch) -> None:
    monkeypatch.setattr(egress, "GUARD", egress.Guard(installed=True))
    window = make_window()
    add_engine(qtbot, window, engine, monkeypatch)
    picker = window.model_picker
    labels = [picker.itemText(i) for i in range(picker.count())]
    assert "Corp ▸ corp-smollm2" in labels
    window.engine_actions.update_guard_label()
    assert window.guard_label.text().startswith("Offline")

    window.controller.chats.new()
    picker.setCurrentIndex(labels.index("Corp ▸ corp-smollm2"))
    picker.activated.emit(labels.index("Corp ▸ corp-smollm2"))
    assert window.guard_label.text().startswith("Intranet: Corp")

    asked: list[str] = []

    def refuse(record, documents, pictures=False):
        asked.append(record.name)
        return False

    window.controller.disclose = refuse
    window.input.setPlainText("Say hello in three words.")
    window.send_button.click()
    assert asked == ["Corp"] and window.input.toPlainText()  # refused: nothing sent, text kept
    assert not window.controller.store.messages(window.controller.current_chat.id)

    texts: list[str] = []

    def agree(record, documents, pictures=False):
        from app.engines.window import disclosure_text

        texts.append(disclosure_text(record, documents))
        return True

    window.controller.disclose = agree
    with qtbot.waitSignal(window.controller.answer_finished, timeout=60_000) as finished:
        window.send_button.click()
    assert texts and "127.0.0.2" in texts[0] and "never leave" not in texts[0]  # no documents in this chat
    answer = finished.args[0]
    assert answer.content.strip() and answer.stats["engine"] == "Corp"
    assert answer.stats["model"] == "corp-smollm2"
    # The header says who wrote it: the engine's model on that engine, not the local model.
    assert window.conversation._widgets[answer.id].author.text() == "corp-smollm2 on Corp"

    # Asked once per chat: the next message goes without a question.
    window.controller.disclose = refuse
    with qtbot.waitSignal(window.controller.answer_finished, timeout=60_000):
        window.input.setPlainText("And once more.")
        window.send_button.click()
    assert asked == ["Corp"]
    # Consent covers what the user was told (#38 item 6): with documents switched on, the
    # passages would go too; asked again (refused: nothing sent).
    chat_id = window.controller.current_chat.id
    window.controller.set_chat_settings(chat_id, {**window.controller.current_chat.settings,
                                                  "collections": [4711]})
    window.input.setPlainText("With my documents now.")
    window.send_button.click()
    assert asked == ["Corp", "Corp"] and window.input.toPlainText() == "With my documents now."
    window.controller.set_chat_settings(chat_id, {**window.controller.current_chat.settings,
                                                  "collections": []})
    # The engine moved to another address (or another trust): asked again.
    from dataclasses import replace as changed

    engines = window.controller.engines
    moved = changed(engines.require("Corp"), url=engine.url.replace("127.0.0.2", "localhost"))
    engines.keep(moved, replacing="Corp")
    window.send_button.click()
    assert asked == ["Corp", "Corp", "Corp"]
    engines.keep(changed(moved, url=engine.url), replacing="Corp")  # back where it was: no question
    with qtbot.waitSignal(window.controller.answer_finished, timeout=60_000):
        window.send_button.click()
    assert asked == ["Corp", "Corp", "Corp"]

    dialog = PrivacyDialog(window, window.controller.engines)
    qtbot.addWidget(dialog)
    report = dialog.report.text()
    assert "<b>Corp</b> at <tt>127.0.0.2:" in report and "sent" in report
    sent = next(d for d in egress.destinations() if d.name == "Corp").bytes_sent
    assert sent > 100
    assert "k-secret-4711" not in report


def test_a_switched_off_engine_does_not_answer_and_says_so(qtbot, make_window, engine, monkeypatch) -> None:
    window = make_window()
    add_engine(qtbot, window, engine, monkeypatch)
    chat = window.controller.chats.new()
    window.controller.set_route(chat.id, "Corp", "corp-smollm2")
    window.controller.engines.set_enabled("Corp", False)
    window.input.setPlainText("Hello?")
    window.send_button.click()
    assert "switched off" in window.notice.text()
    assert window.input.toPlainText() == "Hello?"
    assert not any(d.name == "Corp" for d in egress.destinations())  # no longer admitted


def test_a_bad_check_keeps_the_form_filled_and_says_why(qtbot, make_window, engine) -> None:
    window = make_window()
    form = EngineForm(window.controller.engines, None, window)
    qtbot.addWidget(form)
    form.name.setText("Corp")
    form.url.setText(engine.url)  # the test CA is not one of this computer's
    form.check_and_save()
    qtbot.waitUntil(lambda: form.save_button.isEnabled(), timeout=WAIT_MS)
    assert "not trusted" in form.status.text()
    assert form.url.text() == engine.url and window.controller.engines.records() == []


def test_an_engine_can_be_renamed_and_removed(qtbot, make_window, engine, monkeypatch, questions) -> None:
    window = make_window()
    add_engine(qtbot, window, engine, monkeypatch)
    engines = window.controller.engines
    form = EngineForm(engines, engines.require("Corp"), window)
    qtbot.addWidget(form)
    assert form.api_key.text() == ""  # a stored key is never shown
    form.name.setText("Corp GPU")
    form.check_and_save()
    qtbot.waitUntil(lambda: form.result() == QDialog.DialogCode.Accepted, timeout=WAIT_MS)
    assert [r.name for r in engines.records()] == ["Corp GPU"]
    assert engines.require("Corp GPU").api_key == "k-secret-4711"  # kept: the field was left empty
    assert egress.destinations() == []  # the old admission gone; the next use admits it anew
    dialog = window.engine_actions.engines_dialog
    dialog.refresh("Corp GPU")
    dialog.remove()
    assert questions.asked == [("Remove “Corp GPU”? Chats that answered with it keep their messages.", "Remove")]
    assert [r.name for r in engines.records()] == ["Corp GPU"]  # Cancel keeps it
    questions.answer = True
    dialog.remove()
    assert engines.records() == [] and egress.destinations() == []
    labels = [window.model_picker.itemText(i) for i in range(window.model_picker.count())]
    assert not any("▸" in label for label in labels)


def test_cancel_during_the_check_keeps_nothing(qtbot, make_window, engine) -> None:
    window = make_window()
    engines = window.controller.engines
    form = EngineForm(engines, None, window)
    qtbot.addWidget(form)
    form.name.setText("Corp")
    form.url.setText(engine.url)
    form.system.setChecked(False)
    form.use_ca_file(str(engine.pki.ca_path))
    form.check_and_save()
    form.reject()  # the user gave up while Hearth was checking
    qtbot.waitUntil(lambda: form.save_button.isEnabled(), timeout=WAIT_MS)  # the check came back
    assert engines.records() == [] and form.saved is None
    assert egress.destinations() == []


def test_a_document_question_searches_here_and_sends_only_the_passages(
        qtbot, make_window, engine, monkeypatch, embedding_model_path, tmp_path) -> None:
    from tests import retrieval_set
    from tests.app.test_documents_window import WAIT, _import

    window = make_window(embedder=embedding_model_path)
    qtbot.waitUntil(lambda: window.documents.ready, timeout=WAIT)
    add_engine(qtbot, window, engine, monkeypatch)
    _import(qtbot, window, retrieval_set.write_corpus(tmp_path / "corpus"))
    chat = window.controller.chats.new()
    window.header.refresh_documents_menu()
    next(a for a in window.documents_menu.actions() if a.text() == "Work").setChecked(True)
    window.controller.set_route(chat.id, "Corp", "corp-smollm2")
    told: list[bool] = []
    window.controller.disclose = lambda record, documents, pictures=False: told.append(documents) or True
    local: list = []  # what reaches the local worker through the dispatch (no answer should)
    real_submit = window.controller.worker.submit
    monkeypatch.setattr(window.controller.worker, "submit",
                        lambda command: (local.append(command), real_submit(command))[1])
    window.input.setPlainText("What is the mooring fee per meter?")
    with qtbot.waitSignal(window.controller.answer_finished, timeout=WAIT) as finished:
        window.send_button.click()
    assert told == [True]  # the disclosure spoke of passages
    answer = finished.args[0]
    assert answer.stats["engine"] == "Corp"
    assert answer.stats["sources"][0]["label"] == "harbor.pdf, page 3"
    # The question was embedded by the local worker; no generation went to it.
    vectors = [c.texts[0] for c in local if type(c).__name__ == "Embed"]
    assert vectors and vectors[0].endswith("What is the mooring fee per meter?")
    assert not any(type(c).__name__ == "Generate" for c in local)


def test_an_attached_files_passages_go_to_an_engine_only_after_the_disclosure_names_them(
        qtbot, make_window, engine, monkeypatch, embedding_model_path) -> None:
    """#39: a chat that answers with an intranet engine asks again, naming the passages,
    before a question with an attached file is sent; refused, nothing is sent."""
    from core.attachments import Attachment
    from storage.documents.reading import Section

    window = make_window(embedder=embedding_model_path)
    add_engine(qtbot, window, engine, monkeypatch)
    chat = window.controller.chats.new()
    window.controller.set_route(chat.id, "Corp", "corp-smollm2")
    told: list[bool] = []
    window.controller.disclose = lambda record, documents, pictures=False: told.append(documents) or True
    with qtbot.waitSignal(window.controller.answer_finished, timeout=6 * WAIT_MS):
        assert window.controller.send("Hello")
    assert told == [False]  # a plain chat: the conversation only
    manual = Attachment("greenhouse.pdf", (Section("The spare fuse is in the blue tin.", 2),))
    window.controller.disclose = lambda record, documents, pictures=False: told.append(documents) and False
    assert not window.controller.send("Where is the fuse?", [manual])  # refused: not sent
    assert told == [False, True] and len(window.controller.store.messages(chat.id)) == 2
    window.controller.disclose = lambda record, documents, pictures=False: told.append(documents) or True
    with qtbot.waitSignal(window.controller.answer_finished, timeout=6 * WAIT_MS) as finished:
        assert window.controller.send("Where is the fuse?", [manual])
    assert told == [False, True, True]
    assert finished.args[0].stats["sources"][0]["label"] == "greenhouse.pdf (attached), page 2"


def test_pictures_go_to_an_engine_that_sees_only_after_the_disclosure_names_them(
        qtbot, make_window, engine, monkeypatch, embedding_model_path) -> None:
    """#39: where the engine says its model sees pictures, a question with a picture asks
    again, naming the pictures; a consent given without them does not cover them."""
    from app.engines.window import disclosure_text
    from core.attachments import Attachment
    from core.engines import EngineRecord
    from inference.protocol import Picture
    from storage.documents.reading import Section

    window = make_window(embedder=embedding_model_path)
    add_engine(qtbot, window, engine, monkeypatch)
    monkeypatch.setattr(EngineRecord, "sees_pictures", lambda self, model_id="": True)
    chat = window.controller.chats.new()
    window.controller.set_route(chat.id, "Corp", "corp-smollm2")
    told: list[tuple[bool, bool]] = []
    window.controller.disclose = lambda record, documents, pictures=False: told.append((documents, pictures)) or True
    with qtbot.waitSignal(window.controller.answer_finished, timeout=6 * WAIT_MS):
        assert window.controller.send("Hello")
    assert told == [(False, False)]  # no picture in the chat yet: none named
    photo = Attachment("shed.png", (Section("a shed", None),), (), Picture(4, 4, bytes(48)))
    window.controller.disclose = lambda record, documents, pictures=False: told.append((documents, pictures)) and False
    assert not window.controller.send("What is in it?", [photo])
    assert told[-1] == (True, True) and len(window.controller.store.messages(chat.id)) == 2
    window.controller.disclose = lambda record, documents, pictures=False: told.append((documents, pictures)) or True
    with qtbot.waitSignal(window.controller.answer_finished, timeout=6 * WAIT_MS):
        assert window.controller.send("What is in it?", [photo])
    asked = len(told)
    with qtbot.waitSignal(window.controller.answer_finished, timeout=6 * WAIT_MS):
        assert window.controller.send("And its colour?")  # covered now: not asked again
    assert len(told) == asked
    record = window.controller.engines.get("Corp")
    assert "sees pictures" in disclosure_text(record, True, True)
    assert "pictures" not in disclosure_text(record, True, False)


def test_removing_an_engine_asks_with_the_app_question(qtbot, make_window, questions) -> None:
    window = make_window()
    engines = window.controller.engines
    engines.keep(engines.prepare("Corp", "https://gpu.corp.example:8443", Trust(system=True)))
    window.engine_actions.show_engines()
    dialog = window.engine_actions.engines_dialog
    dialog.refresh("Corp")
    dialog.remove_button.click()
    assert questions.asked == [("Remove “Corp”? Chats that answered with it keep their messages.", "Remove")]
    assert [r.name for r in engines.records()] == ["Corp"]  # Cancel keeps it
    questions.answer = True
    dialog.remove_button.click()
    assert engines.records() == [] and dialog.list.count() == 0
