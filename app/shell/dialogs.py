"""Every dialog the window asks through, in one place (tests answer them here).

Message boxes show their text as plain text: titles of chats, model names and paths are
quoted in them, and a rich-text message box opens the links it shows by itself.

File dialogs remember nothing. Qt's own dialog saves the folders it visited (``history``,
``lastVisited``) and the sidebar's places in the user's Qt settings, outside the vault
(``QSettings(UserScope, "QtProject")``, group ``FileDialog``: ~/.config/QtProject.conf on
Linux, the registry on Windows, a plist on macOS), from its destructor; the native dialogs
keep their own recent lists (GTK's recently-used.xbel, the Windows shell's MRU lists, the
macOS open panel's recents). So every file dialog here is Qt's widget dialog, never the
native one, and before it is destroyed it is given back the history, sidebar and folder
it started with; after it, Qt's ``FileDialog`` settings are put back to what they were
before, key by key, so the dialog leaves no trace of where the user went.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import shiboken6
from PySide6.QtCore import QDir, QSettings, Qt
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QFileDialog,
    QInputDialog,
    QLabel,
    QMessageBox,
    QProgressDialog,
    QWidget,
)

from app.shell.reveal import PassphraseDialog

QT_SETTINGS_ORGANIZATION = "QtProject"
FILE_DIALOG_GROUP = "FileDialog"


def _box(parent: QWidget | None, icon: QMessageBox.Icon, title: str, text: str,
         buttons: QMessageBox.StandardButton) -> QMessageBox:
    box = QMessageBox(icon, title, text, buttons, parent)
    box.setTextFormat(Qt.TextFormat.PlainText)
    return box


class Destructive(str):
    """An action button's label for a question whose yes cannot be undone (``destructive``)."""


def destructive(action: str) -> str:
    """``action`` (the button's label: "Delete", "Remove") marked for a question that
    destroys something: ``confirm`` shows it with the warning icon instead of the question
    mark. A plain ``str`` to every other reader (tests answer ``confirm`` by patching it)."""
    return Destructive(action)


def confirm(parent: QWidget | None, title: str, text: str, action: str) -> bool:
    """Ask before doing something that cannot be undone or that leaves the app. The button
    that does it is named for what it does (``action``), and Cancel is the default, also
    for Escape: an Enter pressed twice, or held, must not consent before the text is read.
    A deletion (``destructive(action)``) is asked with the warning icon."""
    icon = QMessageBox.Icon.Warning if isinstance(action, Destructive) else QMessageBox.Icon.Question
    box = _box(parent, icon, title, text, QMessageBox.StandardButton.Cancel)
    accept = box.addButton(action, QMessageBox.ButtonRole.AcceptRole)
    box.setDefaultButton(QMessageBox.StandardButton.Cancel)
    box.setEscapeButton(QMessageBox.StandardButton.Cancel)
    box.exec()
    return box.clickedButton() is accept


def inform(parent: QWidget | None, title: str, text: str) -> None:
    _box(parent, QMessageBox.Icon.Information, title, text, QMessageBox.StandardButton.Ok).exec()


def warn(parent: QWidget | None, title: str, text: str) -> None:
    _box(parent, QMessageBox.Icon.Warning, title, text, QMessageBox.StandardButton.Ok).exec()


def busy(parent: QWidget | None, title: str, text: str) -> QProgressDialog:
    """A window-modal "working…" dialog without a cancel button, shown at once; the
    caller closes it when the work reports back."""
    dialog = QProgressDialog(text, "", 0, 0, parent)
    dialog.setWindowTitle(title)
    dialog.setCancelButton(None)
    dialog.setWindowModality(Qt.WindowModality.WindowModal)
    dialog.setMinimumDuration(0)
    dialog.setAutoClose(False)
    dialog.show()
    return dialog


# File dialogs -------------------------------------------------------------------------
def _qt_settings() -> QSettings:
    settings = QSettings(QSettings.Scope.UserScope, QT_SETTINGS_ORGANIZATION)
    settings.beginGroup(FILE_DIALOG_GROUP)
    return settings


def _saved_dialog_settings() -> dict[str, Any]:
    settings = _qt_settings()
    return {key: settings.value(key) for key in settings.childKeys()}


def _restore_dialog_settings(saved: dict[str, Any]) -> None:
    settings = _qt_settings()
    settings.remove("")  # the group's keys, whatever Qt wrote
    for key, value in saved.items():
        settings.setValue(key, value)
    settings.endGroup()
    settings.sync()


@contextmanager
def file_dialog(parent: QWidget | None, title: str, folder: Path, filters: str = "",
                mode: QFileDialog.FileMode = QFileDialog.FileMode.ExistingFile,
                save: bool = False) -> Iterator[QFileDialog]:
    """A file dialog that keeps no history anywhere (see the module's docstring).

    The one way to make a file dialog: ``with file_dialog(...) as dialog: dialog.exec()``.
    """
    saved = _saved_dialog_settings()
    dialog = QFileDialog(parent, title, str(folder), filters)
    dialog.setOption(QFileDialog.Option.DontUseNativeDialog, True)
    dialog.setFileMode(mode)
    if mode == QFileDialog.FileMode.Directory:
        dialog.setOption(QFileDialog.Option.ShowDirsOnly, True)
    if save:
        dialog.setAcceptMode(QFileDialog.AcceptMode.AcceptSave)
    history, sidebar = dialog.history(), dialog.sidebarUrls()
    try:
        yield dialog
    finally:
        # What Qt writes from the destructor: the folder it was left in (lastVisited; and
        # it joins the history), the history and the sidebar. Give it nothing of ours.
        if shiboken6.isValid(dialog):
            dialog.setDirectory(QDir.homePath())
            dialog.setHistory(history)
            dialog.setSidebarUrls(sidebar)
            shiboken6.delete(dialog)
        _restore_dialog_settings(saved)


def _chosen(dialog: QFileDialog) -> list[Path]:
    if dialog.exec() != QDialog.DialogCode.Accepted:
        return []
    return [Path(p) for p in dialog.selectedFiles() if p]


def save_path(parent: QWidget | None, title: str, suggested: Path, filters: str) -> Path | None:
    with file_dialog(parent, title, suggested.parent, filters,
                     QFileDialog.FileMode.AnyFile, save=True) as dialog:
        dialog.selectFile(suggested.name)
        chosen = _chosen(dialog)
    return chosen[0] if chosen else None


def open_path(parent: QWidget | None, title: str, folder: Path, filters: str) -> Path | None:
    with file_dialog(parent, title, folder, filters, QFileDialog.FileMode.ExistingFile) as dialog:
        chosen = _chosen(dialog)
    return chosen[0] if chosen else None


def open_paths(parent: QWidget | None, title: str, folder: Path, filters: str) -> list[Path]:
    with file_dialog(parent, title, folder, filters, QFileDialog.FileMode.ExistingFiles) as dialog:
        return _chosen(dialog)


def folder_path(parent: QWidget | None, title: str, folder: Path) -> Path | None:
    with file_dialog(parent, title, folder, "", QFileDialog.FileMode.Directory) as dialog:
        chosen = _chosen(dialog)
    return chosen[0] if chosen else None


# Questions ----------------------------------------------------------------------------
def text(parent: QWidget | None, title: str, label: str, value: str = "") -> str | None:
    answer, ok = QInputDialog.getText(parent, title, label, text=value)
    return answer if ok else None


def passphrase(parent: QWidget | None, title: str, label: str) -> str | None:
    """A passphrase, typed hidden, with the eye that shows it (``app.shell.reveal``)."""
    box = PassphraseDialog(parent, title, label)
    try:
        return box.field.text() if box.exec() == QDialog.DialogCode.Accepted else None
    finally:
        box.field.clear()
        box.deleteLater()  # the passphrase does not stay behind in a hidden widget


def integer(parent: QWidget | None, title: str, label: str, value: int, low: int, high: int) -> int | None:
    answer, ok = QInputDialog.getInt(parent, title, label, value, low, high)
    return answer if ok else None


def item(parent: QWidget | None, title: str, label: str, options: list[str]) -> int | None:
    """Which of ``options`` (by its place: two may read alike) was chosen from a list, or
    None when cancelled. The label and the options are shown as plain text."""
    box = QInputDialog(parent)
    box.setWindowTitle(title)
    box.setLabelText(label)
    box.setComboBoxItems(options)
    box.setComboBoxEditable(False)
    for text in box.findChildren(QLabel):
        text.setTextFormat(Qt.TextFormat.PlainText)
    if box.exec() != QInputDialog.DialogCode.Accepted:
        return None
    combo = box.findChild(QComboBox)
    at = combo.currentIndex() if combo is not None else options.index(box.textValue())
    return at if 0 <= at < len(options) else None


def choice(parent: QWidget | None, title: str, text: str, options: list[str]) -> str | None:
    """One of ``options`` (button labels), or None when cancelled."""
    box = _box(parent, QMessageBox.Icon.Question, title, text, QMessageBox.StandardButton.Cancel)
    buttons = {box.addButton(option, QMessageBox.ButtonRole.AcceptRole): option for option in options}
    box.exec()
    clicked = box.clickedButton()
    return next((option for button, option in buttons.items() if button is clicked), None)


def close_all(owner: QWidget) -> int:
    """Reject every dialog and message box ``owner`` opened (and any without a parent), and
    close open menus: at lock, nothing of the unlocked session may stay on screen over the
    lock screen. A dialog waiting in ``exec()`` returns Rejected, as if cancelled. Returns
    how many were closed."""
    from PySide6.QtWidgets import QApplication

    closed = 0
    while (popup := QApplication.activePopupWidget()) is not None and closed < 50:
        popup.close()
        closed += 1
    for widget in QApplication.topLevelWidgets():
        if not isinstance(widget, QDialog) or not widget.isVisible():
            continue
        ancestor = widget.parentWidget()
        while ancestor is not None and ancestor is not owner:
            ancestor = ancestor.parentWidget()
        if ancestor is owner or widget.parentWidget() is None:
            widget.reject()
            closed += 1
    return closed
