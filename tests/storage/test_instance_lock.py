from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from storage.instance_lock import AlreadyRunning, InstanceLock

ROOT = Path(__file__).resolve().parents[2]


def test_a_second_holder_is_refused_until_the_first_lets_go(tmp_path: Path) -> None:
    first = InstanceLock(tmp_path)
    first.acquire()
    code = (
        "import sys; from storage.instance_lock import InstanceLock, AlreadyRunning\n"
        f"try:\n    InstanceLock({str(tmp_path)!r}).acquire()\nexcept AlreadyRunning as e:\n"
        "    print(e); sys.exit(3)\n"
    )
    other = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True)
    assert other.returncode == 3 and "already open" in other.stdout
    first.release()
    assert subprocess.run([sys.executable, "-c", code], cwd=ROOT).returncode == 0


def test_a_crashed_holder_leaves_no_stale_lock(tmp_path: Path) -> None:
    code = f"from storage.instance_lock import InstanceLock; InstanceLock({str(tmp_path)!r}).acquire(); import os; os._exit(0)"
    subprocess.run([sys.executable, "-c", code], cwd=ROOT, check=True)
    with InstanceLock(tmp_path):
        pass


@pytest.mark.skipif(sys.platform == "win32", reason="flock semantics")
def test_the_same_process_cannot_take_it_twice(tmp_path: Path) -> None:
    with InstanceLock(tmp_path), pytest.raises(AlreadyRunning):
        InstanceLock(tmp_path).acquire()
