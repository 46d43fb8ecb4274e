"""Tests that would hang without the time limits (run by tests/test_time_limits.py in a
pytest of their own; the name keeps them out of the normal collection)."""

from __future__ import annotations

import threading

import pytest

from tests import modal_guard


def test_an_unpatched_information_box(qtbot) -> None:
    from app.shell import dialogs

    dialogs.inform(None, "Vault check", "Everything is in order.")


def test_an_unpatched_static_question(qtbot) -> None:
    from PySide6.QtWidgets import QMessageBox

    QMessageBox.question(None, "Delete chat", "Delete it?")


def test_an_unpatched_input_dialog_in_a_slot(qtbot) -> None:
    from PySide6.QtCore import QTimer
    from PySide6.QtWidgets import QInputDialog

    asked: list[object] = []
    QTimer.singleShot(0, lambda: asked.append(QInputDialog.getText(None, "Rename", "New name:")))
    qtbot.waitUntil(lambda: bool(asked), timeout=5000)


@pytest.mark.timeout(2)
def test_a_wait_in_python_that_never_ends() -> None:
    threading.Event().wait()


def test_after_a_hang_the_run_goes_on() -> None:
    assert True


def test_a_dialog_the_test_meant_to_answer_but_did_not(qtbot, answers_dialogs, monkeypatch) -> None:
    from app.shell import dialogs

    monkeypatch.setattr(modal_guard, "SAFETY_S", 0.5)
    dialogs.inform(None, "Left open", "Nobody closes this one.")


@pytest.mark.timeout(2)
def test_a_hang_inside_a_qt_event_loop(qtbot) -> None:
    from PySide6.QtCore import QEventLoop

    QEventLoop().exec()  # no Python runs in here: only the backstop ends it


# The disk: a passed test's tmp_path goes at its end (tests/test_time_limits.py).
_LEFT: list = []


def test_a_test_that_writes_a_large_file(tmp_path) -> None:
    (tmp_path / "model.bin").write_bytes(b"\0" * (1 << 20))
    _LEFT.append(tmp_path)


def test_the_folder_of_the_test_before_is_gone() -> None:
    assert _LEFT and not _LEFT[0].exists(), _LEFT
