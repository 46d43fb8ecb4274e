"""Untrusted text (chat titles, model metadata, file names, model output) in widgets.

A QLabel, a tooltip or a message box decides by itself whether its text is rich text
(``Qt.mightBeRichText``): a chat titled ``<img src=file:///...>`` would have Qt read a
local file, and a title with ``<a href>`` would put a link in front of the user. Labels
that show such text are PlainText; where rich text is wanted around it, it is escaped.
"""

from __future__ import annotations

import html
import re

from PySide6.QtCore import QSize, Qt
from PySide6.QtGui import QPainter, QPaintEvent
from PySide6.QtWidgets import QLabel


def escape(text: object) -> str:
    """Text for inside rich text: shown as written, never read as markup."""
    return html.escape(str(text), quote=True)


def tooltip(text: str) -> str:
    """A tooltip that shows ``text`` as written (tooltips are rich text when they look it)."""
    return f"<p style='white-space:pre-wrap'>{escape(text)}</p>" if text else ""


def plain(label: QLabel) -> QLabel:
    """Make ``label`` show its text as plain text, whatever it looks like."""
    label.setTextFormat(Qt.TextFormat.PlainText)
    return label


class ElidedLabel(QLabel):
    """A one-line plain-text label that takes the room it is given and ends its text with
    "…" when that is short: a long chat title no longer widens the pane it is in (and so
    narrows the chat list beside it). ``text()`` is still the whole text."""

    def __init__(self, text: str = "") -> None:
        super().__init__()
        plain(self)
        self.setText(text)

    def setText(self, text: str) -> None:  # noqa: N802 - Qt's name
        super().setText(text)
        self.setToolTip(tooltip(text))  # the whole of it, shown as written

    def minimumSizeHint(self) -> QSize:
        return QSize(0, super().minimumSizeHint().height())

    def sizeHint(self) -> QSize:
        return QSize(0, super().sizeHint().height())

    def paintEvent(self, _event: QPaintEvent) -> None:
        painter = QPainter(self)
        room = self.contentsRect()
        shown = self.fontMetrics().elidedText(self.text(), Qt.TextElideMode.ElideRight, room.width())
        painter.drawText(room, int(self.alignment() | Qt.AlignmentFlag.AlignVCenter), shown)


# A line's Markdown block marks: quote marks, then a heading's hashes or a list's bullet
# (each followed by a space, so "#hashtag", "-5 °C" and "*emphasis*" stay as written).
_BLOCK_MARKS = re.compile(r"[ \t]{0,3}(?:(?:>[ \t]?)+(?:#{1,6}(?:[ \t]+|$)|[-*+][ \t]+)?|#{1,6}(?:[ \t]+|$)|[-*+][ \t]+)")


def unmarked(text: str) -> tuple[str, list[int]]:
    """``text`` without the Markdown block marks that start its lines ("## Lamp room" reads
    "Lamp room"), the words kept; and where each of ``text``'s positions (and its end) falls
    in it, so that a passage found in the text is marked in what is shown."""
    kept: list[str] = []
    where: list[int] = []
    length = 0
    for line in text.splitlines(keepends=True):
        marks = _BLOCK_MARKS.match(line)
        cut = marks.end() if marks else 0
        where += [length] * cut
        where += range(length, length + len(line) - cut)
        kept.append(line[cut:])
        length += len(line) - cut
    where.append(length)
    return "".join(kept), where
