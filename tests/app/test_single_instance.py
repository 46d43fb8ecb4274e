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
