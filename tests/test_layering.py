"""The arrows point one way: app, cli -> core -> inference | storage -> guard | i18n.

import-linter (pyproject.toml) checks the layers in the test command; these tests hold
the same rules from pytest, with every import a module makes (lazy ones inside functions
included), and add what import-linter's contracts do not: no import cycles between any
two of our modules, and no Qt loaded at run time by any module below app/.
"""

from __future__ import annotations

import ast
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("app", "cli", "core", "inference", "storage", "guard", "i18n")
# Which of our packages each one may import (itself included).
ALLOWED = {
    # The window and the terminal reach storage and inference through core only (#37):
    # core assembles the house and re-exports the types they show (core.vault, core.records,
    # core.protocol, core.documents).
    "app": {"app", "cli", "core", "guard", "i18n"},
    "cli": {"cli", "core", "guard", "i18n"},
    "core": {"core", "inference", "storage", "guard", "i18n"},
    "inference": {"inference", "guard", "i18n"},
    "storage": {"storage", "guard", "i18n"},
    "guard": {"guard"},
    "i18n": {"i18n"},
}
QT = {"PySide6", "PyQt5", "PyQt6", "shiboken6"}


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _modules() -> dict[str, Path]:
    found = {}
    for package in PACKAGES:
        for path in (ROOT / package).rglob("*.py"):
            if "migrations" in path.parts and path.name != "__init__.py":
                continue  # alembic's scripts are loaded by alembic, not imported
            found[_module_name(path)] = path
    return found


def _imports(name: str, path: Path) -> set[str]:
    """Every module ``name`` imports, absolute, wherever the import statement stands."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, base] if base else anchor)
            names.add(base)
            names.update(f"{base}.{alias.name}" for alias in node.names)
    return names


def _graph() -> dict[str, set[str]]:
    modules = _modules()
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        targets = set()
        for imported in _imports(name, path):
            # "from storage import schema" names a module; "from storage.chats import Chat" a name in one
            while imported and imported not in modules:
                imported = imported.rpartition(".")[0]
            if imported and imported != name:
                targets.add(imported)
        graph[name] = targets
    return graph


def test_every_import_points_down() -> None:
    offenders = []
    for name, path in _modules().items():
        top = name.split(".")[0]
        for imported in _imports(name, path):
            root = imported.split(".")[0]
            if root in PACKAGES and root not in ALLOWED[top]:
                offenders.append(f"{name} imports {imported}")
            if root in QT and top != "app":
                offenders.append(f"{name} imports Qt ({imported})")
    assert offenders == []


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    counter = [0]

    def visit(node: str) -> None:
        index[node] = low[node] = counter[0]
        counter[0] += 1
        stack.append(node)
        on_stack.add(node)
        for target in graph.get(node, ()):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    sys.setrecursionlimit(max(sys.getrecursionlimit(), 10_000))
    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def test_no_import_cycles_between_modules() -> None:
    graph = _graph()
    # Packages importing their own children (an __init__ re-export) are not cycles of design.
    for name in graph:
        graph[name] = {t for t in graph[name] if not t.startswith(name + ".")}
    assert _cycles(graph) == []


def test_the_packaging_scripts_have_no_import_cycle() -> None:
    """packaging/ is scripts, not a package: each imports its siblings by name (lazily too).
    The shared part is packaging/common.py, which imports none of them (#37)."""
    scripts = {path.stem: path for path in (ROOT / "packaging").glob("*.py")}
    graph = {name: {imported for imported in _imports(name, path) if imported in scripts and imported != name}
             for name, path in scripts.items()}
    assert _cycles(graph) == []
    assert graph["common"] == set()


def test_the_cycle_finder_finds_a_cycle() -> None:
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_no_module_below_app_loads_qt_at_run_time() -> None:
    below = sorted(name for name in _modules() if name.split(".")[0] != "app")
    code = (
        "import importlib, sys\n"
        f"for name in {below!r}:\n"
        "    importlib.import_module(name)\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('PySide6', 'shiboken6')))"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.strip().splitlines()[-1] == "[]"


def test_the_window_does_not_load_the_http_stack_until_the_api_is_wanted() -> None:
    code = (
        "import sys, app.chat.controller, app.shell.main_window\n"
        "print(sorted({m.split('.')[0] for m in sys.modules} & {'starlette', 'uvicorn'}))"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True,
                         env={"QT_QPA_PLATFORM": "offscreen", "PATH": "/usr/bin:/bin"})
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.strip().splitlines()[-1] == "[]"


def test_import_linter_contracts_hold() -> None:
    lint = Path(sys.executable).with_name("lint-imports")
    if not lint.exists() and shutil.which("lint-imports") is None:
        pytest.skip("import-linter is not installed (the test command installs it)")
    done = subprocess.run([str(lint) if lint.exists() else "lint-imports"], cwd=ROOT,
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
