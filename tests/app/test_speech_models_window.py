"""Models ▸ Speech models… in the real window (#41): a Whisper model's folder imported
(checked and loaded in the real isolated reader, in the background), chosen for speech,
and removed; a folder that is not a model gets its reason; Cancel and closing keep
nothing. The folder is the real bundled Whisper base copied, as in tests/core."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from app.models.dialog import ModelsDialog
from core import speech_models
from core.speech import speech_model
from tests.app.conftest import WAIT_MS

pytestmark = [pytest.mark.gui, pytest.mark.model]


def speech_dialog(qtbot, window) -> ModelsDialog:
    dialog = ModelsDialog(window.models, window)
    qtbot.addWidget(dialog)
    dialog.show()
    dialog.speech_button.click()
    assert dialog.speech_dialog is not None and dialog.speech_dialog.isVisible()
    return dialog


def rows(dialog) -> list[str]:
    return [dialog.models.item(i).text() for i in range(dialog.models.count())]


@pytest.mark.timeout(300)
def test_a_folder_is_imported_chosen_and_removed_from_the_window(qtbot, make_window, tmp_path: Path,
                                                                 monkeypatch) -> None:
    window = make_window()
    folder = tmp_path / "whisper-small-ct2"
    shutil.copytree(speech_model(), folder)
    models = speech_dialog(qtbot, window)
    dialog = models.speech_dialog
    assert rows(dialog) == ["Whisper base (bundled) — in use"]
    assert not dialog.remove_button.isEnabled()  # the bundled one stays

    monkeypatch.setattr("app.shell.dialogs.folder_path", lambda *_a: folder / "model.bin")
    dialog.import_button.click()
    qtbot.waitUntil(lambda: dialog.job is None, timeout=WAIT_MS)
    assert "not a folder" in dialog.message.text() and rows(dialog) == ["Whisper base (bundled) — in use"]

    monkeypatch.setattr("app.shell.dialogs.folder_path", lambda *_a: folder)
    dialog.import_button.click()
    assert dialog.cancel_button.isVisible() and not dialog.import_button.isEnabled()
    qtbot.waitUntil(lambda: dialog.job is None, timeout=120_000)
    assert "is imported" in dialog.message.text(), dialog.message.text()
    assert rows(dialog) == ["Whisper base (bundled) — in use", "whisper-small-ct2 (145 MB)"]
    dialog.models.setCurrentRow(1)
    dialog.use_button.click()
    assert rows(dialog)[1].endswith("— in use") and speech_model() == speech_models.imported()[0].path

    monkeypatch.setattr("app.shell.dialogs.confirm", lambda *_a: True)
    dialog.models.setCurrentRow(1)
    dialog.remove_button.click()
    assert rows(dialog) == ["Whisper base (bundled) — in use"] and speech_models.imported() == []
    assert speech_model().name == "whisper-base"


@pytest.mark.timeout(300)
def test_closing_the_models_window_cancels_an_import_and_keeps_nothing(qtbot, make_window, tmp_path: Path,
                                                                      monkeypatch) -> None:
    window = make_window()
    folder = tmp_path / "whisper-copy"
    shutil.copytree(speech_model(), folder)
    models = speech_dialog(qtbot, window)
    dialog = models.speech_dialog
    monkeypatch.setattr("app.shell.dialogs.folder_path", lambda *_a: folder)
    dialog.import_button.click()
    job = dialog.job
    assert job is not None
    models.reject()
    assert job.cancel.is_set()
    qtbot.waitUntil(job.done.is_set, timeout=120_000)
    root = speech_model().parent / speech_models.FOLDER
    qtbot.waitUntil(lambda: not root.exists() or not [p for p in root.iterdir() if p.name.startswith(".")],
                    timeout=120_000)
    assert speech_models.imported() == []
