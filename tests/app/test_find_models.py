"""Find models on this computer (issue #18): asked first, found read-only, imported by
reference; nothing is looked at without consent, nothing is copied."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QDialog

from core import discovery
from storage.library import REFERENCE
from tests.app.conftest import WAIT_MS
from tests.core.test_discovery import gguf

pytestmark = pytest.mark.gui


@pytest.fixture
def other_apps(tmp_path: Path, monkeypatch) -> Path:
    """A home where LM Studio keeps one model."""
    home = tmp_path / "home"
    model = gguf(home / ".lmstudio" / "models" / "someone" / "tiny-chat-q4.gguf", name="Tiny chat")
    monkeypatch.setattr("app.models.found_dialog.places", lambda: discovery.places(home, env={}, platform="linux"))
    return model


def test_found_models_are_imported_by_reference_after_consent(qtbot, make_window, other_apps, monkeypatch) -> None:
    from app.models.found_dialog import FoundModelsDialog

    window = make_window()
    asked: list[str] = []
    monkeypatch.setattr("app.shell.dialogs.confirm", lambda _p, _t, text, _a: asked.append(text) or True)
    told: list[str] = []
    monkeypatch.setattr("app.shell.dialogs.inform", lambda _p, _t, text: told.append(text))
    offered: list[list[str]] = []

    def tick_first(dialog: FoundModelsDialog) -> int:
        offered.append([dialog.list.item(i).text() for i in range(dialog.list.count())])
        dialog.list.item(0).setCheckState(Qt.CheckState.Checked)
        return QDialog.DialogCode.Accepted

    monkeypatch.setattr(FoundModelsDialog, "exec", tick_first)
    window.dialogs.show_models()
    with qtbot.waitSignal(window.models.imported, timeout=WAIT_MS) as imported:
        window.dialogs.models_dialog.find_button.click()
    assert str(other_apps.parent.parent.parent) in asked[0] and "read-only" in asked[0]
    assert offered[0][0].startswith("tiny-chat-q4.gguf — LM Studio")
    entry = imported.args[0]
    assert entry.stored == REFERENCE and entry.path == str(other_apps) and entry.name == "Tiny chat"
    assert other_apps.exists() and not any(Path(entry.path).parent.glob("*.part"))  # nothing copied

    qtbot.waitUntil(lambda: any(e.path == str(other_apps) for e in window.models.entries()), timeout=WAIT_MS)
    window.dialogs.models_dialog.find_button.click()  # again: what is in the library is not offered twice
    assert len(offered) == 1 and "not in your library already" in told[-1]


def test_nothing_is_looked_at_without_consent(qtbot, make_window, other_apps, monkeypatch) -> None:
    window = make_window()
    looked: list[object] = []
    monkeypatch.setattr("app.shell.dialogs.confirm", lambda *a: False)
    monkeypatch.setattr("app.models.found_dialog.find", lambda *a: looked.append(a) or [])
    window.dialogs.show_models()
    window.dialogs.models_dialog.find_button.click()
    assert looked == []
