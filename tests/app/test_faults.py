"""Faults in the window: a full disk while an answer streams or a message is sent, an
inference engine that cannot start, a regenerate cut short. Each ends in plain words and
a working app, with nothing the user wrote lost."""

from __future__ import annotations

from pathlib import Path

import pytest

from storage.chats import COMPLETE, INTERRUPTED, ChatStore
from storage.vault import Vault
from tests.app.conftest import PASSPHRASE as WINDOW_PASSPHRASE
from tests.app.conftest import WAIT_MS
from tests.fakes import FakeEngine

pytestmark = pytest.mark.gui


def test_a_full_disk_while_an_answer_streams_keeps_it_on_screen_and_saves_it_once_freed(
        qtbot, make_window, make_small_disk, monkeypatch) -> None:
    disk = make_small_disk(8)
    monkeypatch.setenv("HEARTH_DATA_DIR", str(disk.path))
    monkeypatch.setattr("core.turns.CHECKPOINT_SECONDS", 0.0)
    monkeypatch.setattr("app.chat.controller.RETRY_MS", 50)
    window = make_window(FakeEngine(tokens=["word "] * 3000, delay=0.002))
    window.input.setPlainText("the question I typed")
    window.send_button.click()
    qtbot.waitUntil(lambda: "word" in window.conversation.message_widgets()[-1].text(), timeout=WAIT_MS)
    disk.fill()
    qtbot.waitUntil(lambda: "The disk is full" in window.notice.text(), timeout=WAIT_MS)
    assert "not saved yet" in window.notice.text()
    with qtbot.waitSignal(window.controller.answer_finished, timeout=WAIT_MS):
        window.controller.stop()
    shown = window.conversation.message_widgets()[-1].text()
    assert shown.startswith("[1] word")  # the partial answer stays on screen
    assert window.controller.unsaved
    disk.free()
    qtbot.waitUntil(lambda: not window.controller.unsaved, timeout=WAIT_MS)
    assert "Saved" in window.notice.text()
    path, chat_id = window.controller.store.path, window.controller.current_chat.id
    window.close()
    store = ChatStore(Vault.open(path, WINDOW_PASSPHRASE))
    try:
        messages = store.messages(chat_id)
        assert [m.content for m in messages][0] == "the question I typed"
        assert messages[1].status == INTERRUPTED and messages[1].content == shown
        assert store.verify() == [] and store.vault.integrity_problem() is None
    finally:
        store.close()


def test_sending_on_a_full_disk_keeps_the_text_in_the_box_and_works_once_freed(
        qtbot, make_window, make_small_disk, monkeypatch) -> None:
    disk = make_small_disk(8)
    monkeypatch.setenv("HEARTH_DATA_DIR", str(disk.path))
    window = make_window()
    window.new_chat_button.click()
    disk.fill()
    window.input.setPlainText("words I must not lose")
    window.send_button.click()
    assert "The disk is full" in window.notice.text()
    assert "still in the box" in window.notice.text()
    assert window.input.toPlainText() == "words I must not lose"
    assert not window.controller.busy
    disk.free()
    with qtbot.waitSignal(window.controller.answer_finished, timeout=WAIT_MS):
        window.send_button.click()
    messages = window.controller.store.messages(window.controller.current_chat.id)
    assert [(m.content, m.status) for m in messages][0] == ("words I must not lose", COMPLETE)


def test_an_engine_that_cannot_start_is_said_in_plain_words_and_the_app_recovers(qtbot, make_window) -> None:
    engine = FakeEngine()
    starts = []

    def factory():
        starts.append(1)
        if len(starts) == 1:
            raise RuntimeError("llama.cpp could not be initialised")
        return engine

    window = make_window(factory)
    qtbot.waitUntil(lambda: "starting it again" in window.notice.text(), timeout=WAIT_MS)
    assert "RuntimeError" in window.notice.text() and "Traceback" not in window.notice.text()
    qtbot.waitUntil(lambda: window.controller.model.ready, timeout=WAIT_MS)
    window.input.setPlainText("are you back?")
    with qtbot.waitSignal(window.controller.answer_finished, timeout=WAIT_MS):
        window.send_button.click()
    assert window.conversation.message_widgets()[-1].text() == engine.expected_text(1)


def test_regenerate_then_stop_before_the_first_word_keeps_the_old_answer_across_a_restart(
        qtbot, make_window) -> None:
    engine = FakeEngine()
    window = make_window(engine)
    window.input.setPlainText("question")
    with qtbot.waitSignal(window.controller.answer_finished, timeout=WAIT_MS):
        window.send_button.click()
    old = engine.expected_text(1)
    engine.delay = 1.0  # the new answer's first word takes a second: stop comes first
    with qtbot.waitSignal(window.controller.busy_changed, timeout=WAIT_MS,
                          check_params_cb=lambda busy: not busy):
        window.regenerate_button.click()
        window.controller.stop()
    assert [w.text() for w in window.conversation.message_widgets()] == ["question", old]
    chat_id = window.controller.current_chat.id
    path = window.controller.store.path
    window.close()
    store = ChatStore(Vault.open(path, WINDOW_PASSPHRASE))
    try:
        assert [(m.content, m.status) for m in store.messages(chat_id)] == [
            ("question", COMPLETE), (old, COMPLETE)]
    finally:
        store.close()
    reopened = make_window(FakeEngine())
    assert [w.text() for w in reopened.conversation.message_widgets()] == ["question", old]


def test_quitting_during_a_model_copy_and_a_probe_ends_the_process_within_3_s(tmp_path) -> None:
    """Quitting must not leave a windowless process copying or probing for minutes: the
    real app process, a 4 GB copy and a minute-long probe under way, ends within 3 s of
    the close, and the copy's partial file is gone."""
    import os
    import subprocess
    import sys
    import time

    root = Path(__file__).resolve().parents[2]
    data = tmp_path / "data"
    env = dict(os.environ, HEARTH_DATA_DIR=str(data), QT_QPA_PLATFORM="offscreen")
    process = subprocess.Popen([sys.executable, "-m", "tests.app.quit_app", str(tmp_path)], cwd=root,
                               env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        assert process.stdout is not None
        lines = []
        for line in process.stdout:
            lines.append(line)
            if line.startswith("closing"):
                break
        else:
            raise AssertionError("the app never got to quitting:\n" + "".join(lines))
        closed_at = time.monotonic()
        process.wait(timeout=30)
        took = time.monotonic() - closed_at
    finally:
        process.kill()
    assert process.returncode == 0, "".join(lines) + process.stdout.read()
    assert took < 3.0, f"the process took {took:.1f} s to end after the close"
    assert list((data / "models").glob("*.partial")) == []


def test_unlocking_on_a_full_disk_says_the_disk_is_full_not_that_the_vault_is_damaged(
        qtbot, make_window, make_small_disk, monkeypatch) -> None:
    disk = make_small_disk(8)
    monkeypatch.setenv("HEARTH_DATA_DIR", str(disk.path))
    window = make_window()
    window.input.setPlainText("kept safe")
    with qtbot.waitSignal(window.controller.answer_finished, timeout=WAIT_MS):
        window.send_button.click()
    window.close()
    disk.fill()
    window = make_window(open_vault=False)
    screen = window.lock_screen
    screen.passphrase.setText(WINDOW_PASSPHRASE)
    screen.submit.click()
    qtbot.waitUntil(lambda: bool(screen.error.text()), timeout=WAIT_MS)
    text = screen.error.text()
    assert "The disk is full" in text and "damaged" not in text
    disk.free()
    with qtbot.waitSignal(window.vault.unlocked, timeout=WAIT_MS):
        screen.submit.click()
    messages = window.controller.store.messages(window.controller.current_chat.id)
    assert messages[0].content == "kept safe"


def test_a_lock_says_on_the_lock_screen_what_the_disk_refused_of_the_answer(
        qtbot, make_window, make_small_disk, monkeypatch) -> None:
    """A review: closing said that part of the answer was lost, and the lock hid the
    notice in the same instant."""
    disk = make_small_disk(8)
    monkeypatch.setenv("HEARTH_DATA_DIR", str(disk.path))
    monkeypatch.setattr("core.turns.CHECKPOINT_SECONDS", 0.0)
    window = make_window(FakeEngine(tokens=["word "] * 3000, delay=0.002))
    window.input.setPlainText("the question I typed")
    window.send_button.click()
    qtbot.waitUntil(lambda: "word" in window.conversation.message_widgets()[-1].text(), timeout=WAIT_MS)
    disk.fill()
    qtbot.waitUntil(lambda: "The disk is full" in window.notice.text(), timeout=WAIT_MS)
    window.vault.lock()
    assert "Some of the last answer could not be saved" in window.lock_screen.error.text()
    assert window.lock_screen.error.isVisibleTo(window.lock_screen)
    disk.free()


def test_a_lock_does_not_wait_for_an_engine_check_that_hangs(qtbot, make_window, caplog) -> None:
    """A review: a check held by a server that accepts and never answers (up to the read
    timeout) held every lock for the session's whole deadline on the window's thread, and
    left the document service no time to stop before the vault closed."""
    import logging
    import socket

    from app.engines.dialog import EngineForm
    from app.shell.background import jobs

    silent = socket.create_server(("127.0.0.1", 0))  # the kernel accepts; nobody answers
    try:
        window = make_window()
        form = EngineForm(window.controller.engines, None, window)
        qtbot.addWidget(form)
        form.name.setText("Silent")
        form.url.setText(f"http://127.0.0.1:{silent.getsockname()[1]}")
        form.check_and_save()
        qtbot.waitUntil(lambda: any(job.name == "engine check" for job in jobs().running()), timeout=WAIT_MS)
        with caplog.at_level(logging.WARNING):
            window.vault.lock()
        assert window.controller.locked
        assert "background jobs still running" not in caplog.text
        assert "did not stop in time" not in caplog.text
    finally:
        silent.close()
