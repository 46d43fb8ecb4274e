"""A second launch on the same data folder brings the first window forward and exits."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from app.shell.single_instance import ActivationServer
from storage.instance_lock import InstanceLock

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.gui


def test_second_instance_asks_the_first_to_show_itself(qtbot, data_dir: Path) -> None:
    data_dir.mkdir(parents=True, exist_ok=True)
    with InstanceLock(data_dir):
        server = ActivationServer(data_dir)
        assert server.listening
        env = dict(os.environ, HEARTH_DATA_DIR=str(data_dir), QT_QPA_PLATFORM="offscreen")
        with qtbot.waitSignal(server.activate_requested, timeout=20_000):
            second = subprocess.Popen([sys.executable, "-m", "app"], cwd=ROOT, env=env,
                                      stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        out, err = second.communicate(timeout=30)
        assert second.returncode == 0, err
        assert "already open" in out


@pytest.mark.skipif(os.name == "nt", reason="Windows' named pipes have no file path (UserAccessOption closes them)")
def test_the_socket_is_inside_the_private_data_folder_not_in_a_shared_one(qtbot, data_dir: Path,
                                                                          tmp_path: Path, monkeypatch) -> None:
    """Issue #38, item 8: in /tmp another user could take the name first, and the name
    showed that Hearth is installed."""
    import stat

    from app.shell.single_instance import SOCKET_FILE, server_name

    data_dir.mkdir(parents=True, exist_ok=True, mode=0o700)
    with InstanceLock(data_dir):
        server = ActivationServer(data_dir)
        assert server.listening
        socket = data_dir / SOCKET_FILE
        assert server_name(data_dir) == str(socket.resolve()) and stat.S_ISSOCK(socket.lstat().st_mode)
        assert not any(p.name.startswith("hearth-") for p in Path("/tmp").iterdir() if p.is_socket())
    # A folder too long for a socket path: the user's private runtime folder, never /tmp.
    deep = tmp_path / ("d" * 90)
    runtime = tmp_path / "run"
    runtime.mkdir(mode=0o700)
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(runtime))
    assert server_name(deep).startswith(str(runtime) + "/hearth-")
    runtime.chmod(0o755)  # shared with others: not used
    assert server_name(deep) == str((deep / SOCKET_FILE).resolve())


@pytest.mark.skipif(os.name == "nt", reason="a Unix socket stands in for a hung first instance")
def test_a_first_instance_that_does_not_answer_is_not_said_to_have_come_forward(data_dir: Path) -> None:
    """A review: a hung first instance's socket still takes connections (the kernel does),
    and a second launch said that its window had been brought forward."""
    import socket

    from app.shell.single_instance import (
        SILENT,
        UNREACHABLE,
        ask_first_instance_to_show,
        server_name,
    )

    data_dir.mkdir(parents=True, exist_ok=True, mode=0o700)
    assert ask_first_instance_to_show(data_dir, timeout_ms=300) == UNREACHABLE
    hung = socket.socket(socket.AF_UNIX)
    hung.bind(server_name(data_dir))
    hung.listen(1)  # never accepted, never answered: a first instance whose loop is stuck
    try:
        assert ask_first_instance_to_show(data_dir, timeout_ms=300) == SILENT
    finally:
        hung.close()
        Path(server_name(data_dir)).unlink()
