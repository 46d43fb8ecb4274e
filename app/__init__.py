"""Hearth's Qt user interface and entry point. Only this package imports Qt."""

import sys


def _uses_pyside(module: object) -> bool:
    """PySide's own test of a module (does its source name PySide6?), reading the file
    without keeping it. Where there is no source file (a frozen app) the answer is no,
    as PySide's own ``inspect.getsource`` gives there."""
    path = getattr(module, "__file__", None)
    if not isinstance(path, str) or not path.endswith(".py"):
        return False
    try:
        with open(path, "rb") as fh:
            return b"PySide6" in fh.read()
    except OSError:
        return False


def lean_pyside(load: bool = False) -> None:
    """PySide6 (6.11) hooks every later ``from __future__ import annotations`` and asks
    ``inspect.getsource`` whether that module uses PySide, which keeps the module's whole
    source in ``linecache`` for good: about 10 MB of source text, over 20 MB resident,
    for SQLAlchemy, NumPy and Hearth itself. The same test without keeping the source;
    a PySide without that function is left alone. ``load``: import shiboken (which
    installs the hook) now, so that everything imported after is lean."""
    if load:
        import shiboken6  # noqa: F401
    feature = sys.modules.get("shibokensupport.feature")
    if feature is not None and callable(getattr(feature, "_mod_uses_pyside", None)):
        setattr(feature, "_mod_uses_pyside", _uses_pyside)  # noqa: B010 (a module found at run time)


lean_pyside()  # when Qt came first (tests, benchmarks); the window's entry loads it itself
