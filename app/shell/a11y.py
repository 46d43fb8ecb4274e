"""What screen readers are told: names and descriptions of controls, and announcements.

Screen readers read Qt's accessibility tree, not the pixels: a control without a name
is read as "button" or "edit", and text that appears somewhere on its own (a finished
answer, a notice) is not read at all unless it is announced. Announcements are polite:
they wait for what the screen reader is saying, and they never move the keyboard focus.
"""

from __future__ import annotations

import re
from typing import Any, TypeVar

from PySide6 import QtGui
from PySide6.QtGui import QAccessible, QAccessibleEvent
from PySide6.QtWidgets import (
    QAbstractItemView,
    QDialogButtonBox,
    QPlainTextEdit,
    QTextEdit,
    QWidget,
)

# Qt 6.8 and later; pyproject allows 6.7, where the name change is signalled instead.
_Announcement: Any = getattr(QtGui, "QAccessibleAnnouncementEvent", None)

W = TypeVar("W", bound=QWidget)

# An announcement longer than this is cut: the whole text stays readable in the widget.
ANNOUNCED_CHARS = 1500


def named(widget: W, name: str, description: str = "") -> W:
    """Give ``widget`` the name a screen reader says for it and, if given, a description."""
    widget.setAccessibleName(name)
    if description:
        widget.setAccessibleDescription(description)
    return widget


def tab_moves_on(widget: W) -> W:
    """Have Tab move the focus on from ``widget`` instead of staying inside it: a multi-line
    field would type a tab character into the text (the user's saved text changes unseen, and
    the controls after it cannot be reached), a table would walk its cells (the arrows do)."""
    if isinstance(widget, (QPlainTextEdit, QTextEdit)):
        widget.setTabChangesFocus(True)
    elif isinstance(widget, QAbstractItemView):
        widget.setTabKeyNavigation(False)
    return widget


def name_buttons(box: QDialogButtonBox, **names: str) -> QDialogButtonBox:
    """Name a button box's buttons: by their role's key in ``names`` (``accept``, ``reject``)
    or else by their own text, without the mnemonic's ampersand."""
    for button in box.buttons():
        role = box.buttonRole(button)
        name = {QDialogButtonBox.ButtonRole.AcceptRole: names.get("accept"),
                QDialogButtonBox.ButtonRole.RejectRole: names.get("reject")}.get(role)
        button.setAccessibleName(name or without_mnemonic(button.text()))
    return box


def without_mnemonic(text: str) -> str:
    """A button's text as said: "&Save" is "Save", "A && B" is "A & B"."""
    return re.sub(r"&(.)", r"\1", text)


def clipped(text: str, limit: int = ANNOUNCED_CHARS) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[:limit].rstrip() + "…"


def announce(widget: QWidget, text: str) -> None:
    """Have screen readers say ``text`` about ``widget`` when they are free; focus stays."""
    if not text.strip():
        return
    if _Announcement is None:
        send(QAccessibleEvent(widget, QAccessible.Event.NameChanged))
        return
    event = _Announcement(widget, clipped(text))
    event.setPoliteness(QAccessible.AnnouncementPoliteness.Polite)
    send(event)


def send(event: QAccessibleEvent) -> None:
    """The one place events reach the accessibility tree (a no-op with no screen reader)."""
    QAccessible.updateAccessibility(event)
