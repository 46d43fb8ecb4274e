"""inference/ and storage/ never import Qt: the arrows point one way."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
QT_MODULES = ("PySide6", "PyQt5", "PyQt6", "shiboken6", "app")


def _imports(path: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module.split(".")[0])
    return names


def test_lower_layers_do_not_import_qt_or_app_in_source() -> None:
    offenders = {
        str(path.relative_to(ROOT)): sorted(_imports(path) & set(QT_MODULES))
        for package in ("inference", "storage")
        for path in (ROOT / package).rglob("*.py")
    }
    assert {k: v for k, v in offenders.items() if v} == {}


def test_lower_layers_do_not_load_qt_at_run_time() -> None:
    code = (
        "import sys, inference.worker, inference.llama_engine, inference.bundled, storage.vault, "
        "inference.prompt, storage.chats, storage.paths\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('PySide6', 'shiboken6')))"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
