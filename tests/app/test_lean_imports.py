"""PySide6 kept the source of every module imported after it in linecache (over 20 MB
resident in the app); ``app.lean_pyside`` makes the same test without keeping it (#17, goal 6)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PROBE = """
import linecache, sys
sys.path.insert(0, {folder!r})
import PySide6.QtCore
{patch}
import plain_module, qt_module
feature = sys.modules["shibokensupport.feature"]
kept = [name for name in ("plain_module.py", "qt_module.py") if any(f.endswith(name) for f in linecache.cache)]
print(kept, feature.pyside_feature_dict["plain_module"], feature.pyside_feature_dict["qt_module"])
"""


def run(tmp_path: Path, patch: str) -> str:
    (tmp_path / "plain_module.py").write_text("from __future__ import annotations\nX = 1\n" + "# text\n" * 5000)
    (tmp_path / "qt_module.py").write_text("from __future__ import annotations\nimport PySide6\n")
    done = subprocess.run([sys.executable, "-c", PROBE.format(folder=str(tmp_path), patch=patch)],
                          cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def test_modules_imported_after_qt_leave_no_source_behind_and_get_the_same_verdict(tmp_path: Path) -> None:
    before = run(tmp_path, "")
    assert before.startswith("['plain_module.py', 'qt_module.py']")  # what PySide does by itself
    after = run(tmp_path, "import app")
    assert after.startswith("[]")  # nothing kept
    assert after.split(" ", 1)[1] == before.split(" ", 2)[2]  # the same verdicts for both modules


def test_the_windows_entry_makes_imports_lean_before_qt_is_loaded(tmp_path: Path) -> None:
    """``python -m app`` calls ``lean_pyside(load=True)`` before anything imports Qt."""
    after = run(tmp_path, "")  # the probe imports PySide6.QtCore first: patch before it
    probe = PROBE.replace("import PySide6.QtCore\n{patch}", "from app import lean_pyside\nlean_pyside(load=True)\n"
                          "import PySide6.QtCore")
    done = subprocess.run([sys.executable, "-c", probe.format(folder=str(tmp_path))],
                          cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("[]") and after.startswith("['plain_module.py'")
