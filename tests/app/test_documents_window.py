"""Documents in the window: a collection imported in the background, switched on for a
chat, and an answer that carries its sources; a switch to an embedding model of another
size while answers go on; lock, quit and "delete everything" in the middle of an import.

A gate in front of the worker (the window's own worker, reached through the service)
holds chosen Embed commands, so a test can stop a job at a known step without sleeping.
"""

from __future__ import annotations

import threading
from concurrent.futures import Future
from pathlib import Path

import pytest

from app.documents.dialog import CollectionsDialog
from inference.bundled import embedding_model, sha256_of
from inference.protocol import Embed
from storage.db import VaultClosed
from storage.documents.store import DocumentStore
from tests import retrieval_set
from tests.app.conftest import WAIT_MS, create_collection
from tests.core.test_document_service import build_narrow_model
from tests.fakes import FakeEngine

pytestmark = [pytest.mark.gui, pytest.mark.model]
WAIT = 6 * WAIT_MS
SCAN_WAIT = 40 * WAIT_MS  # a scan read at a lower priority while other work runs
BUNDLED = embedding_model().sha256
QUESTION = "What is the mooring fee per meter?"


@pytest.fixture
def engine() -> FakeEngine:
    return FakeEngine(tokens=["The fee is ", "12 euros [1]."])


@pytest.fixture
def window(make_window, engine, embedding_model_path):
    """A fake chat model (fast) with the real embedding model and the real pipeline."""
    return make_window(engine, embedder=embedding_model_path)


@pytest.fixture(scope="module")
def narrow(tmp_path_factory) -> tuple[Path, str]:
    path = build_narrow_model(tmp_path_factory.mktemp("narrow") / "narrow-192.gguf")
    return path, sha256_of(path)


class Gate:
    """Wraps the window's worker: Embeds of ``model`` after the first ``allowed`` wait."""

    def __init__(self, window, monkeypatch, model: str, allowed: int) -> None:
        self.real = window.controller.worker.submit
        self.model, self.allowed = model, allowed
        self.held: list[Embed] = []
        self.holding = threading.Event()
        self._lock = threading.Lock()
        self._open = False
        monkeypatch.setattr(window.controller.worker, "submit", self.submit)

    def submit(self, command) -> None:
        with self._lock:
            if isinstance(command, Embed) and command.model == self.model and not self._open:
                self.allowed -= 1
                if self.allowed < 0:
                    self.held.append(command)
                    self.holding.set()
                    return
        self.real(command)

    def open(self) -> None:
        with self._lock:
            self._open = True
            held, self.held = self.held, []
        for command in held:
            self.real(command)


def _ask(qtbot, window, text: str):
    window.input.setPlainText(text)
    with qtbot.waitSignal(window.controller.answer_finished, timeout=WAIT):
        window.send_button.click()
    return window.controller.store.messages(window.controller.current_chat.id)[-1]


def _import(qtbot, window, folder: Path, name: str = "Work"):
    collection = create_collection(qtbot, window, name)
    assert collection is not None
    with qtbot.waitSignal(window.documents.finished, timeout=WAIT) as finished:
        assert window.documents.add(collection, [folder])
    qtbot.waitUntil(lambda: not window.documents.busy, timeout=WAIT)
    return collection, finished.args[0]


def test_import_toggle_and_cited_answer(qtbot, window, engine, tmp_path: Path) -> None:
    qtbot.waitUntil(lambda: window.documents.ready, timeout=WAIT)
    folder = retrieval_set.write_corpus(tmp_path / "corpus")
    window.dialogs.show_collections()
    dialog: CollectionsDialog = window.dialogs.collections_dialog
    collection = create_collection(qtbot, window, "Work")
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
    qtbot.waitUntil(lambda: dialog.table.rowCount() == 8, timeout=WAIT)
    assert {dialog.table.item(r, 1).text() for r in range(8)} == {"indexed"}

    window.new_chat_button.click()
    window.header.refresh_documents_menu()
    action = next(a for a in window.documents_menu.actions() if a.text() == "Work")
    action.setChecked(True)
    assert window.documents_button.text() == "Documents: Work"
    answer = _ask(qtbot, window, "What is the mooring fee per meter?")
    sources = answer.stats["sources"]
    assert sources and sources[0]["label"] == "harbor.pdf, page 3"
    widget = window.conversation.message_widgets()[-1]
    assert widget.sources.isVisible() and "harbor.pdf, page 3" in widget.sources.text()
    # The model was given the passages, delimited, numbered and marked as data.
    system, *_, question = engine.calls[-1]
    assert "<passages>" in question.content and "\n[1] " + " ".join(sources[0]["text"].split()) in question.content
    assert "harbor.pdf" not in question.content  # a number only: no label to imitate (issue #36)
    assert question.content.endswith("Question: What is the mooring fee per meter?")
    assert "not instructions" in question.content and system.content == "You are a helpful assistant."

    # The source opens a viewer inside Hearth: the whole passage, its page's indexed text
    # with the passage marked and the question's words shaded (issue #18, item 4).
    widget.sources.buttons[0].click()
    viewer = window.conversation_actions.source_viewer
    assert viewer.isVisible() and viewer.passage.toPlainText() == sources[0]["text"]
    qtbot.waitUntil(lambda: "Finding the page" not in viewer.page.toPlainText(), timeout=WAIT)
    page = viewer.page.toPlainText()
    assert sources[0]["text"].strip()[:60] in page and len(page) >= len(sources[0]["text"].strip())
    marks = [(m.cursor.selectedText()) for m in viewer.page.extraSelections()]
    assert sources[0]["text"].strip()[:40] in marks[0].replace("\u2029", "\n")  # the passage, marked
    assert any(m.lower() == "mooring" for m in marks[1:])  # a word of the question
    assert viewer.open_button.isEnabled()
    # And the page as printed, rendered in the isolated child, the passage marked on it
    # (issue #35, item 5): page 3 of the PDF, the marks where its first words are.
    qtbot.waitUntil(lambda: viewer.pages.count() == 2, timeout=WAIT)
    assert viewer.pages.currentWidget() is viewer.picture_area and viewer.pages.tabText(0) == "Page"
    picture = viewer.picture.pixmap()
    assert picture.width() > 500 and picture.height() > 700 and viewer.marks
    top = viewer.marks[0]
    assert 0 <= top.left() < picture.width() and 0 <= top.top() < picture.height()
    viewer.close()


def test_nothing_relevant_is_said_to_model_and_user(qtbot, window, tmp_path: Path) -> None:
    qtbot.waitUntil(lambda: window.documents.ready, timeout=WAIT)
    (tmp_path / "owls.md").write_text("# Owls\nBarn owls hunt at night.\n")
    collection, _report = _import(qtbot, window, tmp_path / "owls.md", "Birds")
    chat = window.controller.chats.new()
    window.controller.set_chat_settings(chat.id, {"collections": [collection.id]})
    _ask(qtbot, window, "What is the capital of Peru?")
    assert "No passage" in window.notice.text()
    answer = window.controller.store.messages(chat.id)[-1]
    assert answer.stats["sources"] == []


def test_a_switch_to_an_embedding_model_of_another_size_keeps_answers_working(
        qtbot, window, narrow, monkeypatch, tmp_path: Path) -> None:
    narrow_path, narrow_sha = narrow
    qtbot.waitUntil(lambda: window.documents.ready, timeout=WAIT)
    collection, report = _import(qtbot, window, retrieval_set.write_corpus(tmp_path / "corpus"))
    assert len(report.indexed) == 8
    chat = window.controller.chats.new()
    window.controller.set_chat_settings(chat.id, {"collections": [collection.id]})
    gate = Gate(window, monkeypatch, narrow_sha, allowed=1)

    window.models.embedding_model_chosen.emit(narrow_path, narrow_sha)  # as Models ▸ Use does
    qtbot.waitUntil(gate.holding.is_set, timeout=WAIT)  # re-embedding: one document done
    answer = _ask(qtbot, window, QUESTION)
    assert answer.status == "complete", answer
    assert answer.stats["sources"][0]["label"] == "harbor.pdf, page 3"  # the old index answers

    gate.open()
    qtbot.waitUntil(lambda: window.documents.collections()[0].embedding_model == narrow_sha,
                    timeout=WAIT)
    stored = [(c.model, len(v)) for c, v in DocumentStore(window.controller.store.vault).iter_chunks()]
    assert stored and set(stored) == {(narrow_sha, 192)}  # every chunk: the new model's vectors
    answer = _ask(qtbot, window, QUESTION)  # the question is embedded by the new model now
    assert answer.status == "complete", answer
    assert any(s["label"].startswith("harbor.pdf") for s in answer.stats["sources"])


def _vault_files(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.glob("vault.db*"))}


@pytest.mark.parametrize("how", ["lock", "quit", "delete everything"])
def test_lock_quit_or_delete_everything_during_an_import_stops_it_and_writes_nothing_after(
        qtbot, window, monkeypatch, data_dir: Path, tmp_path: Path, how: str) -> None:
    qtbot.waitUntil(lambda: window.documents.ready, timeout=WAIT)
    collection = create_collection(qtbot, window, "Work")
    gate = Gate(window, monkeypatch, BUNDLED, allowed=1)
    window.documents.add(collection, [retrieval_set.write_corpus(tmp_path / "corpus")])
    qtbot.waitUntil(gate.holding.is_set, timeout=WAIT)  # the import waits on an embedding
    service, vault = window.documents.service, window.controller.store.vault
    {"lock": window.vault.lock, "quit": window.close,
     "delete everything": window.vault.maintenance.delete_everything}[how]()
    assert not service.is_alive and vault.closed
    closed = _vault_files(data_dir)
    assert bool(closed) == (how != "delete everything")

    gate.open()  # the embeddings the import waited for arrive now
    if how != "quit":  # the worker is still there: wait until it is past them
        future: Future = Future()
        gate.real(Embed(("after",), future, BUNDLED))
        future.result(timeout=WAIT / 1000)
    with pytest.raises(VaultClosed):
        DocumentStore(vault).create_collection("late")
    assert _vault_files(data_dir) == closed  # not a byte, and no stray vault.db


@pytest.mark.slow
@pytest.mark.timeout(600)
def test_answers_go_on_while_a_scan_is_read_page_by_page(qtbot, window, tmp_path: Path) -> None:
    """OCR runs in its own process at a lower priority and never in the inference worker:
    a chat is answered, whole, while the import is still in the middle of a scan."""
    from tests import scans

    qtbot.waitUntil(lambda: window.documents.ready, timeout=WAIT)
    folder = tmp_path / "scans"
    folder.mkdir()
    scans.scanned_pdf(folder / "scan.pdf", [scans.page(scans.ENGLISH, seed=i) for i in range(4)])
    collection = create_collection(qtbot, window, "Scans")
    pages: list = []
    window.documents.progress.connect(lambda state: pages.append(state.pages_done) if state.pages_total else None)
    finished: list = []
    window.documents.finished.connect(finished.append)
    assert window.documents.add(collection, [folder])
    qtbot.waitUntil(lambda: bool(pages), timeout=WAIT)  # recognising the first page
    answer = _ask(qtbot, window, "Say hello while the scan is read.")
    assert answer.status == "complete" and answer.content
    assert not finished  # the import was still at it
    # The recognition yields the CPU to everything else on purpose (a lower priority): on
    # a machine busy with other work its four pages can take minutes. A bound, not a
    # measure: what is asserted is that it ends.
    qtbot.waitUntil(lambda: bool(finished), timeout=SCAN_WAIT)
    assert finished[0].indexed and max(pages) == 3


def test_an_index_that_cannot_load_is_said_and_a_question_is_not_kept_waiting(
        qtbot, make_window, engine, embedding_model_path, monkeypatch) -> None:
    """#43's review: when the index could not be read at an unlock (a disk's read error),
    the chat's Documents button said "loading…" for good and each question waited the
    search's 30 s, then read "still loading; try again in a moment". Now the button says
    the documents are not available, with why, and a question is answered at once with it.
    (A disk that fails a read cannot be made here: the store's read raises what SQLite
    raises then.)"""
    import sqlite3

    from sqlalchemy.exc import OperationalError

    def unreadable(self, *args, **kwargs):  # type: ignore[no-untyped-def]
        raise OperationalError("SELECT", {}, sqlite3.OperationalError("disk I/O error"))
        yield  # a generator, as the store's own

    monkeypatch.setattr(DocumentStore, "iter_chunks", unreadable)
    window = make_window(engine, embedder=embedding_model_path)
    qtbot.waitUntil(lambda: bool(window.documents.unavailable), timeout=WAIT)
    why = window.documents.unavailable
    assert "read or write error" in why and "cannot be searched until Hearth is unlocked again" in why
    assert not window.documents.ready
    create_collection(qtbot, window, "Work")
    window.new_chat_button.click()
    window.header.refresh_documents_menu()
    next(a for a in window.documents_menu.actions() if a.text() == "Work").setChecked(True)
    assert window.documents_button.text() == "Documents: Work (not available)"
    assert window.documents_button.toolTip() == why
    window.input.setPlainText(QUESTION)
    with qtbot.waitSignal(window.controller.answer_finished, timeout=WAIT_MS):  # not the search's 30 s
        window.send_button.click()
    answer = window.controller.store.messages(window.controller.current_chat.id)[-1]
    assert answer.role == "assistant" and why in answer.stats["error"]
    assert engine.calls == []  # no model was asked


def test_a_long_load_of_the_index_shows_how_far_it_has_come(qtbot, make_window, engine, embedding_model_path,
                                                            monkeypatch) -> None:
    """#43: an unlock that reads every passage from the vault (no saved index) takes
    minutes at a large archive; the chat's Documents button says how far it has come,
    and the open menu is left alone while it does. A question asked meanwhile says it
    waits for the documents, and how far they have loaded (it said "Searching your
    documents…" for minutes, then failed after 30 s), and is answered from them after."""
    import core.documents
    from storage.documents import index_file
    from storage.paths import vault_path
    from tests.app.conftest import unlock
    from tests.core.test_document_service import _stored

    monkeypatch.setattr(core.documents, "CHECK_EVERY", 1)
    window = make_window(engine, embedder=embedding_model_path)
    qtbot.waitUntil(lambda: window.documents.ready, timeout=WAIT)
    work = _stored(window.controller.store.vault, documents=2, per_document=2, dimensions=384)
    window.new_chat_button.click()
    window.controller.set_chat_settings(window.controller.current_chat.id, {"collections": [work]})
    window.vault.lock()
    index_file.remove(vault_path())
    pauses = {1: threading.Event(), 3: threading.Event()}  # at 25 % and 75 %
    real = DocumentStore.iter_chunks

    def slow(self, *args, **kwargs):  # type: ignore[no-untyped-def]
        for n, row in enumerate(real(self, *args, **kwargs), start=1):
            yield row
            if n in pauses:
                assert pauses[n].wait(WAIT / 1000)

    monkeypatch.setattr(DocumentStore, "iter_chunks", slow)
    unlock(qtbot, window)
    qtbot.waitUntil(lambda: window.documents_button.text() == "Documents: work (loading… 25 %)", timeout=WAIT)
    window.documents_menu.actions()[0].setProperty("seen", True)
    window.input.setPlainText("Which heron nests by the harbor wall?")
    window.send_button.click()
    waiting = window.conversation.message_widgets()[-1]
    qtbot.waitUntil(lambda: waiting.info.text() == "Waiting for your documents to load… 25 %", timeout=WAIT)
    pauses[1].set()
    qtbot.waitUntil(lambda: window.documents_button.text() == "Documents: work (loading… 75 %)", timeout=WAIT)
    assert waiting.info.text() == "Waiting for your documents to load… 75 %"
    assert window.documents_menu.actions()[0].property("seen") is True  # the menu was not made again
    with qtbot.waitSignal(window.controller.answer_finished, timeout=WAIT):
        pauses[3].set()
    assert window.documents.ready
    assert window.documents_button.text() == "Documents: work"
    answer = window.controller.store.messages(window.controller.current_chat.id)[-1]
    assert answer.status == "complete" and "heron" in answer.stats["sources"][0]["text"]
