"""The model library in the window: drop to import, the probe's verdict, switching models."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from PySide6.QtCore import QMimeData, QPoint, Qt, QUrl
from PySide6.QtGui import QDropEvent

from app.chat.controller import default_model_spec
from app.models.dialog import ModelsDialog, copy_label, reference_label
from inference.llama_engine import LlamaEngine
from inference.modelinfo import ModelInfo
from inference.protocol import SamplingParams
from inference.settings import ModelSettings
from storage.library import BUNDLED, COPY
from storage.paths import models_dir
from tests.app.conftest import WAIT_MS, unlock
from tests.inference import gguf_builder

pytestmark = [pytest.mark.gui, pytest.mark.model]
WAIT = 12 * WAIT_MS
SHORT = SamplingParams(max_tokens=24, temperature=0.0, seed=1)


def drop(window, paths: list[Path]) -> None:
    mime = QMimeData()
    mime.setUrls([QUrl.fromLocalFile(str(p)) for p in paths])
    event = QDropEvent(QPoint(10, 10), Qt.DropAction.CopyAction, mime,
                       Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier)
    window.dropEvent(event)


@pytest.fixture
def real_window(make_window, starter_model_path: Path, monkeypatch):
    from core.models import resolve_model

    resolve_model()  # places the bundled starter model in this test's data folder
    window = make_window(LlamaEngine, model=models_dir() / starter_model_path.name)
    window.controller.params = SHORT
    return window


def ask(qtbot, window, text: str):
    window.input.setPlainText(text)
    with qtbot.waitSignal(window.controller.answer_finished, timeout=WAIT):
        window.send_button.click()
    return window.controller.store.messages(window.controller.current_chat.id)[-1]


def test_drop_to_import_then_switch_models_mid_conversation(qtbot, real_window, gemma_model_path, monkeypatch) -> None:
    window = real_window
    assert [e.stored for e in window.models.entries()] == [BUNDLED]
    first = ask(qtbot, window, "Say hello.")
    assert first.stats["model"] == "SmolLM2 135M Instruct (Q4_1)"

    monkeypatch.setattr("app.shell.dialogs.choice", lambda *a: copy_label())
    from app.models.dialog import status_text

    said: list[str] = []  # what an import is called the moment it is in the library
    window.models.imported.connect(lambda e: said.append(status_text(window.models, e)))
    with qtbot.waitSignal(window.models.probed, timeout=WAIT) as probed:
        drop(window, [gemma_model_path])
    assert said == ["checking…"]  # not "unusable: not checked yet"
    entry = probed.args[0]
    assert entry.usable, entry.probe
    assert entry.stored == COPY and Path(entry.path).parent == models_dir()
    assert Path(entry.path).name == f"{entry.sha256}.gguf"  # no model name on disk
    assert entry.probe["memory"] > 0
    names = [window.model_picker.itemText(i) for i in range(window.model_picker.count())]
    assert names == ["SmolLM2 135M Instruct (Q4_1)", "Gemma 3 270m"]
    # The Gemma 3 270M here is the pretrained one, with no chat template: flagged as such.
    window.dialogs.show_models()
    dialog = window.dialogs.models_dialog
    dialog.model_list.setCurrentRow(1)
    assert "looks like a base model" in dialog.facts.text()
    dialog.model_list.setCurrentRow(0)
    assert "base model" not in dialog.facts.text()
    dialog.close()

    with qtbot.waitSignal(window.controller.model_state, timeout=WAIT,
                          check_params_cb=lambda state, _t: state == "ready"):
        window.model_picker.setCurrentIndex(1)
        window.model_picker.activated.emit(1)
    assert window.controller.model.name == "Gemma 3 270m"
    window.controller.params = SHORT
    second = ask(qtbot, window, "And now say goodbye.")
    assert second.stats["model"] == "Gemma 3 270m" and second.content.strip()
    roles = [m.role for m in window.controller.store.messages(window.controller.current_chat.id)]
    assert roles == ["user", "assistant", "user", "assistant"]  # the conversation stayed
    # Each answer names the model that wrote it, also when the chat is drawn again with
    # the other model loaded (it used to take whichever was loaded).
    window.controller.chats.select(window.controller.current_chat.id)
    authors = {m_id: w.author.text() for m_id, w in window.conversation._widgets.items()}
    assert (authors[first.id], authors[second.id]) == ("SmolLM2 135M Instruct (Q4_1)", "Gemma 3 270m")
    assert window.conversation._widgets[first.id].accessibleName() == "Answer from SmolLM2 135M Instruct (Q4_1)"
    assert window.models.library.preferences()["default_model"] == entry.id

    # Removing the model in use is refused; after switching back it removes its copy.
    assert "in use" in window.models.remove(entry.id)
    bundled = window.models.entries()[0]
    with qtbot.waitSignal(window.controller.model_state, timeout=WAIT,
                          check_params_cb=lambda state, _t: state == "ready"):
        window.models.switch(bundled.id)
    assert window.models.remove(entry.id) is None
    assert not Path(entry.path).exists()


def test_a_model_that_fails_its_probe_is_marked_unusable_and_the_app_goes_on(
    qtbot, real_window, tmp_path, monkeypatch
) -> None:
    window = real_window
    broken = tmp_path / "looks-fine.gguf"
    broken.write_bytes(gguf_builder.build({"llama.block_count": 1, "llama.context_length": 64}))
    monkeypatch.setattr("app.shell.dialogs.choice", lambda *a: reference_label())
    with qtbot.waitSignal(window.models.probed, timeout=WAIT) as probed:
        drop(window, [broken])
    entry = probed.args[0]
    assert not entry.usable and "looks-fine.gguf" in entry.probe["reason"]
    assert "cannot be used" in window.notice.text()
    assert window.model_picker.count() == 1  # not offered
    assert "looks-fine.gguf" in window.models.switch(entry.id)
    assert ask(qtbot, window, "Still there?").content.strip()  # the loaded model still answers


def test_invalid_and_duplicate_imports_are_refused_with_reasons(qtbot, real_window, tmp_path, monkeypatch) -> None:
    window = real_window
    text = tmp_path / "notes.gguf"
    text.write_text("not a model")
    monkeypatch.setattr("app.shell.dialogs.choice", lambda *a: reference_label())
    drop(window, [text])
    assert "notes.gguf cannot be imported" in window.notice.text()
    starter = models_dir() / "SmolLM2-135M-Instruct.Q4_1.gguf"
    copy = tmp_path / "same-model.gguf"
    shutil.copyfile(starter, copy)
    with qtbot.waitSignal(window.models.import_failed, timeout=WAIT) as failed:
        drop(window, [copy])
    assert "already in your library" in failed.args[0]


def test_models_dialog_shows_facts_fit_and_saves_settings(qtbot, real_window) -> None:
    window = real_window
    # A bundled embedding model sorts first in the list; the dialog still opens on the
    # chat model in use, and shows no chat settings for the embedding model.
    window.models.library.add("All MiniLM (embedding)", "/nowhere/minilm.gguf", BUNDLED, "ab" * 32,
                              {**window.models.current().info, "role": "embedding"})
    window.dialogs.show_models()
    dialog: ModelsDialog = window.dialogs.models_dialog
    assert dialog.model_list.item(0).text().startswith("All MiniLM")
    assert dialog.selected().id == window.models.current().id and dialog.settings_box.isVisibleTo(dialog)
    dialog.model_list.setCurrentRow(0)
    assert not dialog.settings_box.isVisibleTo(dialog) and dialog.documents_button.isVisibleTo(dialog)
    # Nothing of chat for an embedding model (issue #36, item 10): no chat template line,
    # no "Save settings" with nothing to save, no empty memory bar.
    assert "chat template" not in dialog.facts.text() and "embedding (for documents)" in dialog.facts.text()
    assert not dialog.save_button.isVisibleTo(dialog) and not dialog.fit_label.isVisibleTo(dialog)
    dialog.model_list.setCurrentRow(1)
    assert dialog.save_button.isVisibleTo(dialog)
    # The most that fits, said as such, not as a "suggestion" beside a smaller setting.
    assert "suggested context" not in dialog.fit_label.text() and "at most" in dialog.fit_label.text()
    facts = dialog.facts.text()
    assert "llama" in facts and "134.5M" in facts and "Q4_1" in facts and "apache-2.0" in facts
    assert "8,192" in facts and "b179c9523d0e" in facts
    assert "needs about" in dialog.fit_label.text() and "fits" in dialog.fit_label.text()
    dialog.settings_box.n_ctx.setValue(1024)
    dialog.settings_box.temperature.setValue(0.2)
    with qtbot.waitSignal(window.controller.model_state, timeout=WAIT,
                          check_params_cb=lambda state, _t: state == "ready"):
        dialog.save_button.click()  # a new context length reloads the model
    saved = ModelSettings.from_dict(window.models.current().settings)
    assert (saved.n_ctx, saved.temperature) == (1024, 0.2)
    assert window.controller.params.temperature == 0.2
    assert "context 1024" in window.model_label.text()

    # The next start loads the model before the unlock, with the defaults (the library is
    # still locked); the unlock then loads it again with its own settings. It kept the
    # defaults until the model was chosen again.
    path = Path(window.models.current().path)
    window.vault.lock()
    with qtbot.waitSignal(window.controller.model_state, timeout=WAIT,
                          check_params_cb=lambda state, _t: state == "ready"):
        window.controller.model.load(default_model_spec(path))
    assert "context 4096" in window.model_label.text()
    unlock(qtbot, window)
    qtbot.waitUntil(lambda: "context 1024" in window.model_label.text(), timeout=WAIT)
    assert window.controller.model.ready and window.controller.params.temperature == 0.2


def test_a_broken_template_fails_clearly_and_a_builtin_format_fixes_it(
    qtbot, real_window, broken_template_model_path, monkeypatch
) -> None:
    window = real_window
    monkeypatch.setattr("app.shell.dialogs.choice", lambda *a: reference_label())
    with qtbot.waitSignal(window.models.probed, timeout=WAIT) as probed:
        drop(window, [broken_template_model_path])
    entry = probed.args[0]
    assert entry.usable  # llama.cpp loads it; only the template is broken
    with qtbot.waitSignal(window.controller.model_state, timeout=WAIT,
                          check_params_cb=lambda state, _t: state == "failed"):
        window.models.switch(entry.id)
    assert "built-in chat format" in window.notice.text()
    settings = ModelSettings.from_dict(entry.settings).with_changes(chat_format="chatml")
    with qtbot.waitSignal(window.controller.model_state, timeout=WAIT,
                          check_params_cb=lambda state, _t: state == "ready"):
        window.models.save_settings(entry.id, settings)
    window.controller.params = SHORT
    assert ask(qtbot, window, "Hello?").content.strip()


def test_the_window_says_plainly_that_a_larger_model_answers_much_better(make_window) -> None:
    """Issue #15: measured in benchmarks/starter_bench.py, the starter model is weak in
    Chinese; whatever is bundled, the window says so and how to import a larger one."""
    from inference.bundled import starter_model

    window = make_window(model=Path(starter_model().file))
    assert "much better answers" in window.model_label.toolTip()
    window.dialogs.show_models()
    dialog = window.dialogs.models_dialog
    assert dialog.larger_hint.isVisible() and "Import" in dialog.larger_hint.text()
    other = make_window(model=Path("another.gguf"))
    assert other.model_label.toolTip() == ""


def test_the_models_dialogs_notice_bar_shows_only_with_something_to_say(qtbot, make_window, monkeypatch) -> None:
    window = make_window()
    info = ModelInfo("old-notes", "llama", 135_000_000, "Q4_1", 1 << 20, 2048, True, "apache-2.0", "chat",
                     30, 576, 9, 3, 64, 64, 49152, 1 << 20).as_dict()
    window.models.library.add("Old notes model", "/nowhere/old-notes.gguf", COPY, "cd" * 32, info)
    window.dialogs.show_models()
    dialog: ModelsDialog = window.dialogs.models_dialog
    assert dialog.isVisible() and not dialog.message.isVisible()  # no empty coloured bar
    row = next(i for i in range(dialog.model_list.count())
               if dialog.model_list.item(i).text().startswith("Old notes model"))
    dialog.model_list.setCurrentRow(row)
    monkeypatch.setattr("app.shell.dialogs.confirm", lambda *_a: True)
    dialog.remove_button.click()
    qtbot.waitUntil(lambda: dialog.message.isVisible(), timeout=WAIT_MS)
    assert "Old notes model" in dialog.message.text()
