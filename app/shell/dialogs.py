"""Every dialog the window asks through, in one place (tests answer them here)."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtWidgets import QFileDialog, QInputDialog, QLineEdit, QMessageBox, QWidget


def confirm(parent: QWidget | None, title: str, text: str, action: str) -> bool:
    """Ask before doing something that cannot be undone or that leaves the app."""
    box = QMessageBox(QMessageBox.Icon.Question, title, text, QMessageBox.StandardButton.Cancel, parent)
    accept = box.addButton(action, QMessageBox.ButtonRole.AcceptRole)
    box.setDefaultButton(QMessageBox.StandardButton.Cancel)
    box.exec()
    return box.clickedButton() is accept


def inform(parent: QWidget | None, title: str, text: str) -> None:
    QMessageBox.information(parent, title, text)


def warn(parent: QWidget | None, title: str, text: str) -> None:
    QMessageBox.warning(parent, title, text)


def save_path(parent: QWidget | None, title: str, suggested: Path, filters: str) -> Path | None:
    chosen, _ = QFileDialog.getSaveFileName(parent, title, str(suggested), filters)
    return Path(chosen) if chosen else None


def open_path(parent: QWidget | None, title: str, folder: Path, filters: str) -> Path | None:
    chosen, _ = QFileDialog.getOpenFileName(parent, title, str(folder), filters)
    return Path(chosen) if chosen else None


def text(parent: QWidget | None, title: str, label: str, value: str = "") -> str | None:
    answer, ok = QInputDialog.getText(parent, title, label, text=value)
    return answer if ok else None


def passphrase(parent: QWidget | None, title: str, label: str) -> str | None:
    answer, ok = QInputDialog.getText(parent, title, label, QLineEdit.EchoMode.Password)
    return answer if ok else None


def integer(parent: QWidget | None, title: str, label: str, value: int, low: int, high: int) -> int | None:
    answer, ok = QInputDialog.getInt(parent, title, label, value, low, high)
    return answer if ok else None


def open_paths(parent: QWidget | None, title: str, folder: Path, filters: str) -> list[Path]:
    chosen, _ = QFileDialog.getOpenFileNames(parent, title, str(folder), filters)
    return [Path(p) for p in chosen]


def choice(parent: QWidget | None, title: str, text: str, options: list[str]) -> str | None:
    """One of ``options`` (button labels), or None when cancelled."""
    box = QMessageBox(QMessageBox.Icon.Question, title, text, QMessageBox.StandardButton.Cancel, parent)
    buttons = {box.addButton(option, QMessageBox.ButtonRole.AcceptRole): option for option in options}
    box.exec()
    clicked = box.clickedButton()
    return next((option for button, option in buttons.items() if button is clicked), None)
