"""Windows that keep their contents whole: a dialog's smallest size is the one at which
every control and every wrapped line of text still shows.

Qt makes a window's minimum size its layout's minimum, but a label that wraps its text is
not counted at its height for that width (Qt leaves height-for-width out of a window's
minimum), so a dialog shrunk to its smallest clipped its explanation and squeezed its lists
below one row. ``keep_whole`` counts it: the minimum height is the layout's height at the
minimum width, recounted whenever the layout changes (a status line that grew)."""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, QSize
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QHBoxLayout,
    QLayout,
    QLineEdit,
    QVBoxLayout,
    QWidget,
)

from app.shell.a11y import name_buttons

PLACEHOLDER_CHARS = 72  # the widest a field is made for its hint, in average characters


def least_size(widget: QWidget, width: int = 0, height: int = 0) -> QSize:
    """The smallest size at which ``widget``'s layout shows everything: at least ``width``
    by ``height``, and as tall as its wrapped text needs at that width."""
    layout = widget.layout()
    least = layout.totalMinimumSize() if layout is not None else widget.minimumSizeHint()
    width = max(width, least.width())
    height = max(height, least.height())
    if layout is not None and layout.hasHeightForWidth():
        height = max(height, layout.totalMinimumHeightForWidth(width))
    return QSize(width, height)


class _Whole(QObject):
    """Keeps its window's minimum size at ``least_size`` as the layout changes."""

    def __init__(self, window: QWidget, width: int, height: int) -> None:
        super().__init__(window)
        self.least = (width, height)
        window.installEventFilter(self)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 - Qt's name
        if isinstance(watched, QWidget) and event.type() in (QEvent.Type.LayoutRequest, QEvent.Type.Show):
            least = least_size(watched, *self.least)
            if watched.minimumSize() != least:
                watched.setMinimumSize(least)
        return False


def keep_whole(window: QWidget, width: int = 0, height: int = 0) -> None:
    """``window`` (a dialog) never smaller than its contents need, nor than ``width`` by
    ``height``."""
    _Whole(window, width, height)


def room_for_placeholders(form: QWidget, most_chars: int = PLACEHOLDER_CHARS) -> None:
    """Each line field of ``form`` at least as wide as the example or hint it shows when
    empty (up to ``most_chars`` average characters): a hint cut at the field's edge says
    half of what to type."""
    for field in form.findChildren(QLineEdit):
        hint = field.placeholderText()
        if not hint:
            continue
        metrics = field.fontMetrics()
        room = metrics.horizontalAdvance(hint) + 4 * metrics.averageCharWidth()  # frame and margins
        field.setMinimumWidth(min(room, most_chars * metrics.averageCharWidth()))


def panes_over_close(dialog: QDialog, left: QLayout, right: QLayout, stretch: tuple[int, int]) -> None:
    """A list-and-details dialog's layout: ``left`` and ``right`` side by side (widths in
    the proportion ``stretch``), the dialog's Close button under them."""
    panes = QHBoxLayout()
    panes.addLayout(left, stretch[0])
    panes.addLayout(right, stretch[1])
    close = name_buttons(QDialogButtonBox(QDialogButtonBox.StandardButton.Close))
    close.rejected.connect(dialog.reject)
    layout = QVBoxLayout(dialog)
    layout.addLayout(panes, 1)
    layout.addWidget(close)
