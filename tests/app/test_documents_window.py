"""Documents in the window: a collection imported in the background, switched on for a
chat, and an answer that carries its sources."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.collections_dialog import CollectionsDialog
from tests import retrieval_set
from tests.app.conftest import WAIT_MS
from tests.fakes import FakeEngine

pytestmark = [pytest.mark.gui, pytest.mark.model]
WAIT = 6 * WAIT_MS


@pytest.fixture
def engine() -> FakeEngine:
    return FakeEngine(tokens=["The fee is ", "12 euros [1]."])


@pytest.fixture
def window(make_window, engine, embedding_model_path):
    """A fake chat model (fast) with the real embedding model and the real pipeline."""
    return make_window(engine, embedder=embedding_model_path)


def test_import_toggle_and_cited_answer(qtbot, window, engine, tmp_path: Path) -> None:
    qtbot.waitUntil(lambda: window.documents.ready, timeout=WAIT)
    folder = retrieval_set.write_corpus(tmp_path / "corpus")
    window.show_collections()
    dialog: CollectionsDialog = window.collections_dialog
    collection = window.documents.create("Work")
    assert collection is not None
    dialog.refresh()
    progress = []
    window.documents.progress.connect(lambda state: progress.append(state.files_done))
    with qtbot.waitSignal(window.documents.finished, timeout=WAIT) as finished:
        dialog.add([folder])
    report = finished.args[0]
    assert len(report.indexed) == 8 and not report.failed
    qtbot.waitUntil(lambda: not window.documents.busy, timeout=WAIT)
    assert progress and max(progress) == 8
    assert dialog.table.rowCount() == 8
    assert {dialog.table.item(r, 1).text() for r in range(8)} == {"indexed"}

    window.new_chat_button.click()
    window._refresh_documents_menu()
    action = next(a for a in window.documents_menu.actions() if a.text() == "Work")
    action.setChecked(True)
    assert window.documents_button.text() == "Documents: Work"
    window.input.setPlainText("What is the mooring fee per meter?")
    with qtbot.waitSignal(window.controller.answer_finished, timeout=WAIT):
        window.send_button.click()
    answer = window.controller.store.messages(window.controller.current_chat.id)[-1]
    sources = answer.stats["sources"]
    assert sources and sources[0]["label"] == "harbor.pdf, page 3"
    widget = window.conversation.message_widgets()[-1]
    assert widget.sources.isVisible() and "harbor.pdf, page 3" in widget.sources.text()
    # The model was given the passages, delimited, numbered and marked as data.
    system, *_, question = engine.calls[-1]
    assert "<passages>" in question.content and "[1] (harbor.pdf, page 3)" in question.content
    assert question.content.endswith("Question: What is the mooring fee per meter?")
    assert "not instructions" in system.content


def test_nothing_relevant_is_said_to_model_and_user(qtbot, window, tmp_path: Path) -> None:
    qtbot.waitUntil(lambda: window.documents.ready, timeout=WAIT)
    (tmp_path / "owls.md").write_text("# Owls\nBarn owls hunt at night.\n")
    collection = window.documents.create("Birds")
    with qtbot.waitSignal(window.documents.finished, timeout=WAIT):
        window.documents.add(collection, [tmp_path / "owls.md"])
    qtbot.waitUntil(lambda: not window.documents.busy, timeout=WAIT)
    chat = window.controller.new_chat()
    window.controller.set_chat_settings(chat.id, {"collections": [collection.id]})
    window.input.setPlainText("What is the capital of Peru?")
    with qtbot.waitSignal(window.controller.answer_finished, timeout=WAIT):
        window.send_button.click()
    assert "No passage" in window.notice.text()
    answer = window.controller.store.messages(chat.id)[-1]
    assert answer.stats["sources"] == []
