"""No test waits on a modal dialog.

A dialog's ``exec()`` (and every static ``QMessageBox``/``QFileDialog``/``QInputDialog``
function, and a context menu's ``exec()``) runs a nested event loop until a person
answers. In a test nobody does: on a fresh machine the test command once stopped for good
on an ``inform()`` that a test had not patched. So in every test each of those entry points
answers at once as a person pressing Escape would (nothing is shown), remembers what was
asked and from where, and the test fails at its end naming the dialog.

A test that drives a real dialog on purpose (an auto-lock that must close it, a real file
dialog) asks for the ``answers_dialogs`` fixture: then the dialogs really open, and one
still open after ``SAFETY_S`` is rejected and fails the test, so even that cannot hang.
"""

from __future__ import annotations

import traceback
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from PySide6.QtCore import QTimer, QUrl
from PySide6.QtWidgets import (
    QApplication,
    QColorDialog,
    QDialog,
    QErrorMessage,
    QFileDialog,
    QFontDialog,
    QInputDialog,
    QMenu,
    QMessageBox,
    QProgressDialog,
    QWizard,
)

SAFETY_S = 20.0

# (class, static function, what it returns when the user cancels)
_CANCELLED: tuple[tuple[type, str, Callable[[], Any]], ...] = (
    (QMessageBox, "question", lambda: QMessageBox.StandardButton.NoButton),
    (QMessageBox, "information", lambda: QMessageBox.StandardButton.NoButton),
    (QMessageBox, "warning", lambda: QMessageBox.StandardButton.NoButton),
    (QMessageBox, "critical", lambda: QMessageBox.StandardButton.NoButton),
    (QMessageBox, "about", lambda: None),
    (QMessageBox, "aboutQt", lambda: None),
    (QFileDialog, "getOpenFileName", lambda: ("", "")),
    (QFileDialog, "getOpenFileNames", lambda: ([], "")),
    (QFileDialog, "getSaveFileName", lambda: ("", "")),
    (QFileDialog, "getExistingDirectory", lambda: ""),
    (QFileDialog, "getOpenFileUrl", lambda: (QUrl(), "")),
    (QFileDialog, "getOpenFileUrls", lambda: ([], "")),
    (QFileDialog, "getSaveFileUrl", lambda: (QUrl(), "")),
    (QFileDialog, "getExistingDirectoryUrl", lambda: QUrl()),
    (QInputDialog, "getText", lambda: ("", False)),
    (QInputDialog, "getMultiLineText", lambda: ("", False)),
    (QInputDialog, "getItem", lambda: ("", False)),
    (QInputDialog, "getInt", lambda: (0, False)),
    (QInputDialog, "getDouble", lambda: (0.0, False)),
)
# Classes whose own exec() runs a nested loop (each defines it, so each is patched).
_EXEC_CLASSES = (QDialog, QMessageBox, QFileDialog, QInputDialog, QProgressDialog, QErrorMessage,
                 QColorDialog, QFontDialog, QWizard)


@dataclass
class Opened:
    what: str
    where: str


@dataclass
class ModalGuard:
    """What the test's dialogs asked; ``answers_itself`` lets them really open."""

    opened: list[Opened] = field(default_factory=list)
    answers_itself: bool = False

    def install(self, patch: Callable[[Any, str, Any], None]) -> None:
        for cls, name, cancelled in _CANCELLED:
            patch(cls, name, self._static(cls, name, cancelled))
        for cls in _EXEC_CLASSES:
            if "exec" in vars(cls):
                patch(cls, "exec", self._exec(vars(cls)["exec"]))
        patch(QMenu, "exec", self._menu(vars(QMenu)["exec"]))

    def report(self) -> str:
        return "\n".join(
            f"a modal dialog opened in a test and nobody answered it: {item.what}\n"
            f"opened at:\n{item.where}" for item in self.opened)

    # The replacements ------------------------------------------------------------------
    def _record(self, what: str) -> None:
        self.opened.append(Opened(what, "".join(traceback.format_stack(limit=12)[:-2])))

    def _static(self, cls: type, name: str, cancelled: Callable[[], Any]) -> Any:
        original = getattr(cls, name)
        guard = self

        def static(*args: Any, **kwargs: Any) -> Any:
            if guard.answers_itself:
                guard._bound(None)
                return original(*args, **kwargs)
            texts = [a for a in args if isinstance(a, str)]
            guard._record(f"{cls.__name__}.{name}({', '.join(map(repr, texts[:2]))})")
            return cancelled()
        return staticmethod(static)

    def _exec(self, original: Any) -> Callable[..., Any]:
        guard = self

        def exec_(dialog: Any, *args: Any, **kwargs: Any) -> Any:
            if guard.answers_itself:
                guard._bound(dialog)
                return original(dialog, *args, **kwargs)
            guard._record(describe(dialog))
            return int(QDialog.DialogCode.Rejected.value)
        return exec_

    def _menu(self, original: Any) -> Callable[..., Any]:
        guard = self

        def exec_(menu: Any, *args: Any, **kwargs: Any) -> Any:
            if guard.answers_itself:
                QTimer.singleShot(int(SAFETY_S * 1000), menu.close)
                return original(menu, *args, **kwargs)
            guard._record(f"context menu {[a.text() for a in menu.actions()]}")
            return None
        return exec_

    def _bound(self, dialog: Any) -> None:
        """A dialog the test opens on purpose is rejected (and recorded) after SAFETY_S."""
        def safety() -> None:
            target = dialog if dialog is not None else QApplication.activeModalWidget()
            try:
                still_open = target is not None and target.isVisible()
            except RuntimeError:  # already deleted: it was answered
                return
            if still_open:
                self._record(f"{describe(target)}, still open after {SAFETY_S:.0f} s")
                target.reject() if hasattr(target, "reject") else target.close()
        QTimer.singleShot(int(SAFETY_S * 1000), safety)


def describe(dialog: Any) -> str:
    parts = [type(dialog).__name__]
    title = dialog.windowTitle() if hasattr(dialog, "windowTitle") else ""
    if title:
        parts.append(repr(title))
    if isinstance(dialog, QMessageBox) and dialog.text():
        parts.append(repr(dialog.text()[:200]))
    elif isinstance(dialog, QInputDialog) and dialog.labelText():
        parts.append(repr(dialog.labelText()[:200]))
    return " ".join(parts)
