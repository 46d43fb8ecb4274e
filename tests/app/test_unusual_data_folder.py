"""A data folder that cannot be written to (its disk remounted read-only), and a vault path
that holds something other than the vault file (a folder). Each is said for what it is,
not as a failing disk, nor by offering to create a vault over it."""

from __future__ import annotations

import subprocess

import pytest

from tests.app.conftest import PASSPHRASE, WAIT_MS
from tests.app.test_vault_window import send
from tests.fakes import FakeEngine

pytestmark = pytest.mark.gui

READ_ONLY = "cannot be written to"


def _remount(path, how: str) -> None:
    done = subprocess.run(["mount", "-o", f"remount,{how}", str(path)], capture_output=True, text=True)
    if done.returncode != 0:
        pytest.skip(f"remounting the small disk failed here: {done.stderr.strip()}")


def test_a_read_only_data_folder_is_said_as_such_on_send_and_unlock(
        qtbot, make_window, make_small_disk, monkeypatch) -> None:
    disk = make_small_disk(8)
    monkeypatch.setenv("HEARTH_DATA_DIR", str(disk.path))
    window = make_window(FakeEngine())
    send(qtbot, window, "kept safe")
    _remount(disk.path, "ro")
    try:
        window.input.setPlainText("typed while the folder is read-only")
        window.send_button.click()
        assert READ_ONLY in window.notice.text(), window.notice.text()
        assert "failing" not in window.notice.text()
        assert window.input.toPlainText() == "typed while the folder is read-only"
        window.vault.lock()
        screen = window.lock_screen
        screen.passphrase.setText(PASSPHRASE)
        screen.submit.click()
        qtbot.waitUntil(lambda: bool(screen.error.text()), timeout=WAIT_MS)
        assert READ_ONLY in screen.error.text() and "failing" not in screen.error.text()
        assert window.controller.locked
    finally:
        _remount(disk.path, "rw")
    with qtbot.waitSignal(window.vault.unlocked, timeout=WAIT_MS):
        screen.submit.click()


def test_a_folder_where_the_vault_file_should_be_is_explained_not_offered_a_new_vault(
        qtbot, make_window, data_dir) -> None:
    window = make_window(FakeEngine())
    send(qtbot, window, "kept safe")
    path = window.controller.store.path
    window.close()
    path.rename(path.with_name("vault.db.moved"))
    path.mkdir()
    window = make_window(FakeEngine(), open_vault=False)
    screen = window.lock_screen
    assert screen.mode == "unlock"  # not "create": something is there
    screen.passphrase.setText(PASSPHRASE)
    screen.submit.click()
    qtbot.waitUntil(lambda: bool(screen.error.text()), timeout=WAIT_MS)
    said = screen.error.text()
    assert "a folder" in said and str(path) in said and "Hearth changed nothing" in said
    assert "VaultExists" not in said and "could not be opened" not in said
    assert window.controller.locked and path.is_dir()  # left as it was
