"""Settings ▸ Models ▸ Make a smaller copy… in the real window (#42): an F16 model in the
library made into Q4_K_M by llama.cpp's real quantizer, counted as it goes, measured
against its original and kept in the library beside it; Cancel and Discard leave nothing;
an already-quantized model is not offered the button."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import Qt

from app.models.dialog import ModelsDialog
from core.vault import models_dir
from storage.library import REFERENCE
from tests.app.conftest import WAIT_MS
from tests.app.test_vision_models import imported

pytestmark = [pytest.mark.gui, pytest.mark.model, pytest.mark.slow]


def open_for(qtbot, window, entry) -> ModelsDialog:
    dialog = ModelsDialog(window.models, window)
    qtbot.addWidget(dialog)
    dialog.show()
    select(dialog, entry.id)
    return dialog


def select(dialog: ModelsDialog, entry_id: int) -> None:
    row = next(i for i in range(dialog.model_list.count())
               if dialog.model_list.item(i).data(Qt.ItemDataRole.UserRole) == entry_id)
    dialog.model_list.setCurrentRow(row)


@pytest.mark.timeout(600)
def test_a_smaller_copy_is_made_measured_and_kept_beside_its_original(qtbot, make_window, f16_model: Path,
                                                                       monkeypatch, tmp_path: Path) -> None:
    window = make_window()
    entry = imported(qtbot, window, f16_model, REFERENCE, monkeypatch)
    dialog = open_for(qtbot, window, entry)
    assert dialog.smaller_button.isVisible()
    dialog.smaller_button.click()
    quantizing = dialog.quantize_dialog
    assert quantizing is not None and quantizing.isVisible()
    assert [quantizing.kind.itemText(i) for i in range(quantizing.kind.count())] == ["Q8_0", "Q6_K", "Q5_K_M",
                                                                                      "Q4_K_M"]
    assert quantizing.kind.currentText() == "Q4_K_M"
    text = tmp_path / "letter.txt"
    text.write_text("Dear Ms Chen, the lease ends on 31 March; please return the keys by noon. " * 12)
    monkeypatch.setattr("app.shell.dialogs.open_path", lambda *_a: text)
    quantizing.text_button.click()
    assert quantizing.text_label.text() == "letter.txt"
    quantizing.weigh_button.click()  # the same letter weighs the copy (an importance matrix)
    assert quantizing.weigh_label.text() == "letter.txt"
    seen: list[int] = []
    read: list[tuple[int, int]] = []
    quantizing.bridge.tensors.connect(lambda done, _total: seen.append(done))
    quantizing.bridge.reading.connect(lambda done, steps: read.append((done, steps)))
    with qtbot.waitSignal(quantizing.finished_work, timeout=300_000):
        quantizing.start_button.click()
    report = quantizing.report.text()
    assert "Next-token agreement with the original" in report and "KL divergence" in report, quantizing.status.text()
    assert "On this computer: fits" in report and seen and seen[-1] > 100
    assert report.startswith("Weighed by letter.txt (an importance matrix).")
    assert read == [(1, 1)]  # the letter was read for the importance matrix before the tensors
    assert quantizing.keep_button.isVisible() and not quantizing.start_button.isVisible()
    made = quantizing.made
    assert made is not None and made.parent == models_dir() and made.exists()
    with qtbot.waitSignal(quantizing.kept, timeout=WAIT_MS) as kept:
        quantizing.keep_button.click()
    copy = window.models.library.get(kept.args[0].id)
    assert copy.name == f"{entry.name} (Q4_K_M)" and copy.info["quantization"] == "Q4_K_M"
    assert copy.stored == "copy" and copy.info["quantized_from"] == entry.name
    # Named by its sha256 once kept, as an imported copy is: no name of the user's file.
    assert Path(copy.path) == made.with_name(f"{copy.sha256}.gguf") and not made.exists()
    assert f16_model.exists()  # the original stays


def test_cancel_and_discard_leave_nothing_and_a_small_model_is_not_offered(qtbot, make_window, f16_model: Path,
                                                                           starter_model_path: Path,
                                                                           monkeypatch, tmp_path: Path) -> None:
    window = make_window()
    entry = imported(qtbot, window, f16_model, REFERENCE, monkeypatch)
    dialog = open_for(qtbot, window, entry)
    dialog.smaller_button.click()
    quantizing = dialog.quantize_dialog
    assert quantizing.weigh_button.isEnabled() and not quantizing.unweigh_button.isVisible()  # Q4_K_M first
    text = tmp_path / "notes.txt"
    text.write_text("The hearing is adjourned to the fourth of May at ten in the morning. " * 12)
    monkeypatch.setattr("app.shell.dialogs.open_path", lambda *_a: text)
    quantizing.weigh_button.click()
    assert quantizing.weigh_label.text() == "notes.txt" and quantizing.unweigh_button.isVisible()
    quantizing.kind.setCurrentIndex(quantizing.kind.findData("Q8_0"))
    assert not quantizing.weigh_button.isEnabled()  # llama.cpp's Q8_0 has no use for an importance matrix
    assert quantizing.weigh_label.text() == "notes.txt: not used for Q8_0"  # nobody thinks it is weighed
    quantizing.unweigh_button.click()
    assert quantizing.weigh_label.text() == "Nothing: a plain copy" and not quantizing.unweigh_button.isVisible()
    with qtbot.waitSignal(quantizing.finished_work, timeout=WAIT_MS * 6):
        quantizing.start_button.click()
        quantizing.cancel_button.click()  # at once: the child is killed
    assert not list(models_dir().glob("*.Q8_0.gguf*"))
    dialog.smaller_button.click()
    quantizing = dialog.quantize_dialog
    quantizing.weigh_button.click()  # chosen for Q4_K_M, then Q8_0 is made: not weighed, not said to be
    quantizing.kind.setCurrentIndex(quantizing.kind.findData("Q8_0"))
    with qtbot.waitSignal(quantizing.finished_work, timeout=300_000):
        quantizing.start_button.click()
    assert quantizing.made is not None and quantizing.made.exists()
    assert "Weighed by" not in quantizing.report.text() and "KL divergence" in quantizing.report.text()
    made = quantizing.made
    quantizing.discard_button.click()
    assert not made.exists() and not [e for e in window.models.entries() if "quantized_from" in e.info]
    small = imported(qtbot, window, starter_model_path, REFERENCE, monkeypatch)  # the starter: Q4_1
    dialog.refresh()
    select(dialog, small.id)
    assert not dialog.smaller_button.isVisible()  # already small: nothing to offer


def test_locking_while_a_copy_is_made_cancels_it(qtbot, make_window, f16_model: Path, monkeypatch) -> None:
    window = make_window()
    entry = imported(qtbot, window, f16_model, REFERENCE, monkeypatch)
    window.dialogs.models_dialog = dialog = open_for(qtbot, window, entry)
    dialog.smaller_button.click()
    quantizing = dialog.quantize_dialog
    with qtbot.waitSignal(quantizing.finished_work, timeout=WAIT_MS * 6):
        quantizing.start_button.click()
        window.vault.lock()
    assert "Cancelled" in quantizing.status.text()
    assert not [p for p in models_dir().iterdir() if "Q4_K_M" in p.name]
