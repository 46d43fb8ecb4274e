"""A list of named things (engines, tool servers): each row shows a text and keeps the
thing's name, so that what is selected is read back by name, never by row."""

from __future__ import annotations

from collections.abc import Iterable

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QListView, QListWidget, QListWidgetItem


def fill(widget: QListWidget, rows: Iterable[tuple[str, str]], select: str | None = None) -> None:
    """(text, name) rows; ``select`` is selected if it is there, else the first row. A row
    longer than the list is wide wraps onto more lines (an engine's address and models),
    never cut at the edge, and each row has room above and below its text."""
    widget.setWordWrap(True)
    widget.setTextElideMode(Qt.TextElideMode.ElideNone)
    widget.setResizeMode(QListView.ResizeMode.Adjust)  # rows wrapped again when it is resized
    widget.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
    widget.setSpacing(2)
    widget.clear()
    for text, name in rows:
        item = QListWidgetItem(text)
        item.setData(Qt.ItemDataRole.UserRole, name)
        widget.addItem(item)
        if name == select:
            widget.setCurrentItem(item)
    if widget.currentRow() < 0 and widget.count():
        widget.setCurrentRow(0)


def selected_name(widget: QListWidget) -> str | None:
    item = widget.currentItem()
    return None if item is None else str(item.data(Qt.ItemDataRole.UserRole))
