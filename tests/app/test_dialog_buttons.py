"""The buttons every dialog ends with (Close) and the buttons of a question whose yes cannot
be undone (the warning icon, the action named, Cancel the default)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QDialogButtonBox, QMessageBox

from tests.app.conftest import WAIT_MS

pytestmark = pytest.mark.gui

ROOT = Path(__file__).resolve().parents[2]


def close_button(dialog) -> object:
    boxes = [box for box in dialog.findChildren(QDialogButtonBox)
             if box.button(QDialogButtonBox.StandardButton.Close) is not None]
    assert len(boxes) == 1, f"{type(dialog).__name__} has {len(boxes)} Close buttons"
    return boxes[0].button(QDialogButtonBox.StandardButton.Close)


@pytest.mark.parametrize("which", ["projects", "models", "collections"])
def test_projects_models_and_documents_end_with_a_close_button(qtbot, make_window, which: str) -> None:
    window = make_window()
    getattr(window.dialogs, f"show_{which}")()
    dialog = getattr(window.dialogs, f"{which}_dialog")
    qtbot.waitExposed(dialog)
    button = close_button(dialog)
    assert button.isVisible() and button.accessibleName() == "Close"
    button.click()
    qtbot.waitUntil(lambda: not dialog.isVisible(), timeout=WAIT_MS)
    if which != "projects":  # kept, and opened again; Escape closes it as well
        getattr(window.dialogs, f"show_{which}")()
        qtbot.waitExposed(dialog)
        dialog.windowHandle().requestActivate()  # as a click on it does
        qtbot.waitUntil(lambda: QApplication.activeWindow() is dialog, timeout=WAIT_MS)
        qtbot.keyClick(dialog, Qt.Key.Key_Escape)
        qtbot.waitUntil(lambda: not dialog.isVisible(), timeout=WAIT_MS)


class Shown:
    """What each message box showed (QMessageBox.exec answered Cancel, as a person might)."""

    def __init__(self) -> None:
        self.boxes: list[dict] = []

    def exec_(self, box: QMessageBox) -> int:
        accept = next(b for b in box.buttons() if box.buttonRole(b) == QMessageBox.ButtonRole.AcceptRole)
        self.boxes.append({"icon": box.icon(), "default": box.defaultButton(),
                           "cancel": box.button(QMessageBox.StandardButton.Cancel),
                           "action": accept.text(), "escape": box.escapeButton()})
        return int(QMessageBox.StandardButton.Cancel.value)


@pytest.fixture
def shown(monkeypatch: pytest.MonkeyPatch) -> Shown:
    found = Shown()
    monkeypatch.setattr(QMessageBox, "exec", lambda box, *_a: found.exec_(box))
    return found


def test_deleting_a_chat_warns_names_the_deletion_and_defaults_to_cancel(qtbot, make_window, shown) -> None:
    window = make_window()
    window.input.setPlainText("Something to delete later")
    with qtbot.waitSignal(window.controller.answer_finished, timeout=WAIT_MS):
        window.send_button.click()
    window.chat_list_actions.delete_current_chat()
    assert len(shown.boxes) == 1
    box = shown.boxes[0]
    assert box["icon"] == QMessageBox.Icon.Warning
    assert box["action"] == "Delete"
    assert box["default"] is box["cancel"] is box["escape"] and box["cancel"] is not None
    assert window.chat_list.count() == 1  # Cancel: nothing deleted


def test_removing_a_model_and_a_collection_warn_too(qtbot, make_window, shown) -> None:
    from tests.app.conftest import create_collection

    window = make_window()
    collection = create_collection(qtbot, window, "Harbour papers")
    window.dialogs.show_collections()
    dialog = window.dialogs.collections_dialog
    dialog.refresh()
    row = next(i for i in range(dialog.collection_list.count())
               if dialog.collection_list.item(i).data(Qt.ItemDataRole.UserRole) == collection.id)
    dialog.collection_list.setCurrentRow(row)
    dialog.delete_button.click()
    from core.protocol import ModelInfo
    from core.records import COPY

    info = ModelInfo("old-notes", "llama", 135_000_000, "Q4_1", 1 << 20, 2048, True, "apache-2.0", "chat",
                     30, 576, 9, 3, 64, 64, 49152, 1 << 20).as_dict()
    window.models.library.add("Old notes model", "/nowhere/old-notes.gguf", COPY, "cd" * 32, info)
    window.dialogs.show_models()
    models = window.dialogs.models_dialog
    models.model_list.setCurrentRow(next(i for i in range(models.model_list.count())
                                         if models.model_list.item(i).text().startswith("Old notes model")))
    models.remove_button.click()
    assert [(b["icon"], b["action"]) for b in shown.boxes] == [
        (QMessageBox.Icon.Warning, "Delete"), (QMessageBox.Icon.Warning, "Remove")]
    assert all(b["default"] is b["cancel"] for b in shown.boxes)


def test_a_question_that_deletes_nothing_keeps_its_question_mark(make_window, shown) -> None:
    from PySide6.QtCore import QUrl

    window = make_window()
    window.conversation_actions.open_link(QUrl("https://example.org/harbour"))
    assert [(b["icon"], b["action"]) for b in shown.boxes] == [(QMessageBox.Icon.Question, "Open in browser")]
    assert shown.boxes[0]["default"] is shown.boxes[0]["cancel"]


def confirm_calls():
    """Every dialogs.confirm(...) in the window's code, with its action argument."""
    for path in sorted((ROOT / "app").rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                    and node.func.attr == "confirm" and isinstance(node.func.value, ast.Name)
                    and node.func.value.id == "dialogs"):
                yield f"{path.relative_to(ROOT)}:{node.lineno}", node.args[3]


def said(node: ast.AST) -> str:
    """The English text of an action argument: translate("ctx", "Delete") -> "Delete"."""
    texts = [n.value for n in ast.walk(node) if isinstance(n, ast.Constant) and isinstance(n.value, str)]
    return texts[1] if len(texts) > 1 else ""


def test_every_delete_or_remove_question_is_marked_destructive() -> None:
    """A new "Delete…"/"Remove…" question cannot come in with the question mark."""
    calls = list(confirm_calls())
    assert len(calls) > 15
    for where, action in calls:
        text = said(action)
        marked = (isinstance(action, ast.Call) and isinstance(action.func, ast.Attribute)
                  and action.func.attr == "destructive")
        if text.split(" ")[0] in ("Delete", "Remove", "Erase"):
            assert marked, f"{where}: the {text!r} question is not dialogs.destructive(...)"
