"""Untrusted text (chat titles, model metadata, file names, model output) in widgets.

A QLabel, a tooltip or a message box decides by itself whether its text is rich text
(``Qt.mightBeRichText``): a chat titled ``<img src=file:///...>`` would have Qt read a
local file, and a title with ``<a href>`` would put a link in front of the user. Labels
that show such text are PlainText; where rich text is wanted around it, it is escaped.
"""

from __future__ import annotations

import html

from PySide6.QtCore import Qt
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
