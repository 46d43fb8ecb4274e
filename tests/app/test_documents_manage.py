"""Managing documents as a user of a desktop app expects (issue #36, item 8): remove one
file (and it stays out through a check for changes), rename a collection, context menus
and their keys, a first-collection hint instead of a greyed button, an honest time left,
and the collections a new chat starts with.

A real window, the real embedding model and the real import pipeline; a fake chat model
(answers are not what is tested here)."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import Qt

from app.documents.dialog import CollectionsDialog
from app.shell import dialogs
from app.shell.text import tooltip
from core.document_progress import TimeLeft
from tests import retrieval_set
from tests.app.conftest import WAIT_MS, create_collection
from tests.fakes import FakeEngine

pytestmark = [pytest.mark.gui, pytest.mark.model]
WAIT = 6 * WAIT_MS


@pytest.fixture
def window(make_window, embedding_model_path):
    w = make_window(FakeEngine(tokens=["It is ", "12 euros [1]."]), embedder=embedding_model_path)
    w.dialogs.show_collections()
    return w


def _files(dialog: CollectionsDialog) -> set[str]:
    return {Path(dialog.table.item(r, 0).text()).name for r in range(dialog.table.rowCount())}


def test_a_first_collection_is_offered_not_a_greyed_button(qtbot, window) -> None:
    qtbot.waitUntil(lambda: window.documents.ready, timeout=WAIT)
    dialog: CollectionsDialog = window.dialogs.collections_dialog
    dialog.refresh()
    assert dialog.add_files_button.isEnabled() and dialog.add_folder_button.isEnabled()
    assert not dialog.rename_button.isEnabled() and not dialog.remove_button.isEnabled()
    assert "No collection yet" in dialog.summary.text() and "My documents" in dialog.summary.text()


def test_remove_a_file_rename_and_the_menus(qtbot, window, tmp_path: Path, monkeypatch) -> None:
    qtbot.waitUntil(lambda: window.documents.ready, timeout=WAIT)
    dialog: CollectionsDialog = window.dialogs.collections_dialog
    folder = retrieval_set.write_corpus(tmp_path / "corpus")
    collection = create_collection(qtbot, window, "Work")
    dialog.refresh()
    with qtbot.waitSignal(window.documents.finished, timeout=WAIT):
        dialog.add([folder])
    qtbot.waitUntil(lambda: not window.documents.busy and dialog.table.rowCount() == 8, timeout=WAIT)

    # The menus hold the actions, with the keys of a file manager.
    assert [a.text() for a in dialog.collection_menu().actions()] == ["Rename…", "Delete collection…"]
    assert [a.text() for a in dialog.file_menu().actions()] == ["Remove from collection"]
    assert dialog.rename_action.shortcut().toString() == "F2"
    assert dialog.remove_action.shortcut().toString() == "Del"

    # Remove one file: asked first, gone from the table, the index and a later check.
    row = next(r for r in range(8) if dialog.table.item(r, 0).text().endswith("harbor.pdf"))
    dialog.table.selectRow(row)
    assert dialog.remove_button.isEnabled()
    asked = []
    monkeypatch.setattr(dialogs, "confirm", lambda *args: asked.append(args[2]) or True)
    dialog.remove_action.trigger()
    assert len(asked) == 1 and "out of “Work” and its index" in asked[0]
    qtbot.waitUntil(lambda: dialog.table.rowCount() == 7, timeout=WAIT)
    assert "harbor.pdf" not in _files(dialog)
    with qtbot.waitSignal(window.documents.finished, timeout=WAIT):
        dialog.refresh_button.click()  # the folder still holds it: not added back
    qtbot.waitUntil(lambda: not window.documents.busy, timeout=WAIT)
    assert "harbor.pdf" not in _files(dialog)
    found = window.documents.service.search("mooring fee per meter", {}, [collection.id], 8,
                                            "keyword").result(timeout=WAIT / 1000)
    assert all(not h.chunk.path.endswith("harbor.pdf") for h in found)
    # Added again by itself: back.
    with qtbot.waitSignal(window.documents.finished, timeout=WAIT):
        dialog.add([folder / "harbor.pdf"])
    qtbot.waitUntil(lambda: "harbor.pdf" in _files(dialog), timeout=WAIT)

    # Rename: the list and the chat's Documents menu follow; a taken name is refused.
    create_collection(qtbot, window, "Home")
    dialog.refresh()
    dialog._select(collection)
    monkeypatch.setattr(dialogs, "text", lambda *args: "Harbour work")
    dialog.rename_action.trigger()
    qtbot.waitUntil(lambda: {c.name for c in window.documents.collections()} == {"Harbour work", "Home"},
                    timeout=WAIT)
    assert dialog.selected().name == "Harbour work"
    told = []
    monkeypatch.setattr(dialogs, "text", lambda *args: "home")
    monkeypatch.setattr(dialogs, "inform", lambda *args: told.append(args[2]))
    dialog.rename_button.click()
    assert told and "Another collection is called “home”" in told[0]
    assert {c.name for c in window.documents.collections()} == {"Harbour work", "Home"}


def test_a_new_chat_starts_with_the_collections_last_chosen(qtbot, window, tmp_path: Path) -> None:
    qtbot.waitUntil(lambda: window.documents.ready, timeout=WAIT)
    collection = create_collection(qtbot, window, "Work")
    window.new_chat_button.click()
    window.header.refresh_documents_menu()
    next(a for a in window.documents_menu.actions() if a.text() == "Work").setChecked(True)
    assert window.documents_button.text() == "Documents: Work"
    window.new_chat_button.click()
    window.header.refresh_documents_menu()
    assert window.controller.current_chat.settings.get("collections") == [collection.id]
    assert window.documents_button.text() == "Documents: Work"
    next(a for a in window.documents_menu.actions() if a.text() == "Work").setChecked(False)
    window.new_chat_button.click()
    window.header.refresh_documents_menu()
    assert window.documents_button.text() == "Documents: off"  # off is remembered too


def test_the_time_left_counts_down_and_does_not_leap() -> None:
    shown = TimeLeft()
    assert shown.update(None, 0.0) is None  # nothing done yet: no estimate
    assert shown.update(5.0, 1.0) == 5.0
    assert shown.update(5.0, 3.0) == pytest.approx(3.0 + 0.25 * 2.0)  # counting down, nudged
    # A large file makes the raw estimate leap to 35 s: the shown time moves a quarter of
    # the way per update instead of jumping, and keeps counting down.
    before = shown.update(35.0, 4.0)
    assert 5.0 < before < 15.0
    after = shown.update(35.0, 5.0)
    assert before < after < 35.0
    assert shown.update(None, 100.0) == 0.0  # the last file: no less than nothing


def test_a_collection_embedded_on_an_engine_says_so_where_it_is_shown(qtbot, window, monkeypatch) -> None:
    from dataclasses import replace

    from core.remote_embedding import identity

    qtbot.waitUntil(lambda: window.documents.ready, timeout=WAIT)
    collection = create_collection(qtbot, window, "Work")
    dialog: CollectionsDialog = window.dialogs.collections_dialog
    # The model's name is the engine's word: shown as written, never as markup.
    elsewhere = replace(collection, embedder=identity("Corp", "<img src='file:///etc/x.png'>bge-m3", "0123456789abcdef"))
    monkeypatch.setattr(window.documents, "collections", lambda: [elsewhere])
    dialog.refresh()
    said = ("Embedded by <img src='file:///etc/x.png'>bge-m3 on Corp: the text of its passages, and each "
            "question asked about it, go to that engine.")
    assert dialog.collection_list.item(0).toolTip() == tooltip(said) and "&lt;img" in tooltip(said)
    assert said in dialog.summary.text()
    monkeypatch.setattr(window.documents, "collections", lambda: [collection])
    dialog.refresh()
    assert dialog.collection_list.item(0).toolTip() == "" and "Embedded by" not in dialog.summary.text()


def test_a_collection_is_embedded_on_an_engine_from_its_menu_said_first_and_back(
        qtbot, window, embedding_engine, tmp_path: Path, monkeypatch) -> None:
    from core.protocol import embedding_model
    from core.remote_embedding import is_remote, sent_to
    from guard import egress
    from inference.intranet import Trust

    qtbot.waitUntil(lambda: window.documents.ready, timeout=WAIT)
    dialog: CollectionsDialog = window.dialogs.collections_dialog
    collection = create_collection(qtbot, window, "Work")
    dialog.refresh()
    with qtbot.waitSignal(window.documents.finished, timeout=WAIT):
        dialog.add([retrieval_set.write_corpus(tmp_path / "corpus")])
    qtbot.waitUntil(lambda: not window.documents.busy, timeout=WAIT)
    assert dialog.embed_action not in dialog.collection_menu().actions()  # no engine yet: not offered

    engines = window.controller.engines
    engines.add("Corp", embedding_engine.url, Trust(system=False, ca_pem=embedding_engine.pki.ca_pem))
    try:
        def now():
            return next(c for c in window.documents.collections() if c.id == collection.id)

        assert dialog.embed_action in dialog.collection_menu().actions()
        assert dialog.embed_here_action not in dialog.collection_menu().actions()
        offered, told = [], []
        monkeypatch.setattr(dialogs, "item", lambda _p, _t, _l, options: offered.append(options) or 0)
        monkeypatch.setattr(dialogs, "confirm", lambda _p, _t, text, _a: told.append(text) or False)
        dialog.embed_action.trigger()  # told what leaves, and refused: nothing happens
        where = f"{embedding_engine.host}:{embedding_engine.port}"
        assert offered == [[f"Corp ({where}): corp-multilingual-e5-small"]]
        assert "The text of every passage of “Work” goes to the engine Corp" in told[0]
        assert not window.documents.busy and not sent_to(now())

        monkeypatch.setattr(dialogs, "confirm", lambda *_args: True)
        dialog.embed_action.trigger()
        qtbot.waitUntil(lambda: is_remote(now().embedding_model) and not window.documents.busy, timeout=WAIT)
        dialog.refresh()
        assert "Embedded by corp-multilingual-e5-small on Corp" in dialog.collection_list.item(0).toolTip()
        assert dialog.embed_here_action in dialog.collection_menu().actions()

        dialog.embed_here_action.trigger()
        qtbot.waitUntil(lambda: now().embedding_model == embedding_model().sha256 and not window.documents.busy,
                        timeout=WAIT)
        assert now().embedder == "" and not sent_to(now())
    finally:
        egress.revoke_destination("Corp")


def test_a_list_to_choose_from_shows_its_words_as_written_and_answers_by_place(qtbot, monkeypatch) -> None:
    """Two options may read alike (an engine names its models): the one chosen is known by
    its place; and nothing in the list is taken for markup."""
    from PySide6.QtWidgets import QComboBox, QInputDialog, QLabel

    seen: list = []

    def answer(box: QInputDialog) -> int:
        seen.append(([label.textFormat() for label in box.findChildren(QLabel) if label.text()],
                     box.labelText()))
        box.findChild(QComboBox).setCurrentIndex(1)
        return QInputDialog.DialogCode.Accepted

    monkeypatch.setattr(QInputDialog, "exec", answer)
    at = dialogs.item(None, "Choose", "<b>Which</b> one?", ["same", "same", "other"])
    assert at == 1
    formats, label = seen[0]
    assert label == "<b>Which</b> one?" and formats and all(f == Qt.TextFormat.PlainText for f in formats)
