"""Show or hide a passphrase as it is typed: an eye that says so, in every passphrase field.

The eye is drawn here (an open eye while the passphrase is hidden, the same eye struck
through while it shows) in the button's own text colour: Linux without an icon theme has
no eye to take, and Qt's standard pixmaps have none at all. The control is a checkable
tool button with its words beside the eye, so it is reached with Tab, toggled with Space,
and named for screen readers; it sits under the field(s), after them in the Tab order, so
that Tab still goes from a passphrase to its confirmation.
"""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import QEvent, QPointF, QRectF, Qt, Slot
from PySide6.QtGui import QAction, QColor, QIcon, QPainter, QPainterPath, QPalette, QPen, QPixmap
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QLabel,
    QLineEdit,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from app.shell.a11y import name_buttons, named
from i18n import translate

SIZES = (16, 20, 24, 32, 48)


def eye_pixmap(size: int, color: QColor, struck: bool) -> QPixmap:
    """An eye of ``size`` pixels in ``color``; ``struck``: with a line through it."""
    pixmap = QPixmap(size, size)
    pixmap.fill(Qt.GlobalColor.transparent)
    painter = QPainter(pixmap)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    pen = QPen(color, max(1.0, size / 12))
    pen.setCapStyle(Qt.PenCapStyle.RoundCap)
    painter.setPen(pen)
    s, mid = float(size), size / 2
    outline = QPainterPath(QPointF(s * 0.06, mid))
    outline.quadTo(QPointF(mid, s * 0.02), QPointF(s * 0.94, mid))
    outline.quadTo(QPointF(mid, s * 0.98), QPointF(s * 0.06, mid))
    painter.drawPath(outline)
    painter.setBrush(color)
    radius = s * 0.15
    painter.drawEllipse(QRectF(mid - radius, mid - radius, 2 * radius, 2 * radius))
    if struck:
        painter.drawLine(QPointF(s * 0.14, s * 0.86), QPointF(s * 0.86, s * 0.14))
    painter.end()
    return pixmap


def eye_icon(color: QColor) -> QIcon:
    """The reveal button's icon: an eye when off (hidden: press to show), struck through
    when on (shown: press to hide); greyed when disabled."""
    icon = QIcon()
    faded = QColor(color)
    faded.setAlphaF(0.4)
    for size in SIZES:
        for state, struck in ((QIcon.State.Off, False), (QIcon.State.On, True)):
            icon.addPixmap(eye_pixmap(size, color, struck), QIcon.Mode.Normal, state)
            icon.addPixmap(eye_pixmap(size, faded, struck), QIcon.Mode.Disabled, state)
    return icon


def show_words() -> tuple[str, str]:
    """The button's words while the passphrase is hidden, and while it shows."""
    return (translate("vault.lock_screen", "Show passphrase"),
            translate("vault.lock_screen", "Hide passphrase"))


class RevealButton(QToolButton):
    """Shows (checked) or hides the passphrase in ``fields``; its action is ``self.action``
    (unchecking it hides them again)."""

    def __init__(self, fields: Sequence[QLineEdit], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.fields = list(fields)
        self.action = QAction(show_words()[0], self)
        self.action.setCheckable(True)
        self.action.setToolTip(translate("vault.lock_screen", "Show or hide the passphrase as you type it"))
        self.setDefaultAction(self.action)
        self.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
        self.setAutoRaise(True)
        self.setFocusPolicy(Qt.FocusPolicy.TabFocus)  # a click leaves the focus in the field
        self._paint_icon()
        self.action.toggled.connect(self._toggled)
        self._toggled(False)

    def _paint_icon(self) -> None:
        self.action.setIcon(eye_icon(self.palette().color(QPalette.ColorRole.ButtonText)))

    def changeEvent(self, event: QEvent) -> None:  # noqa: N802 - Qt's name
        if event.type() == QEvent.Type.PaletteChange:  # light or dark: the eye follows
            self._paint_icon()
        super().changeEvent(event)

    @Slot(bool)
    def _toggled(self, shown: bool) -> None:
        mode = QLineEdit.EchoMode.Normal if shown else QLineEdit.EchoMode.Password
        for field in self.fields:
            field.setEchoMode(mode)
        words = show_words()[1] if shown else show_words()[0]
        self.action.setText(words)
        named(self, words, self.action.toolTip())


class PassphraseDialog(QDialog):
    """A passphrase asked for in a dialog (a backup's, a new one): a field, the eye, OK."""

    def __init__(self, parent: QWidget | None, title: str, label: str) -> None:
        super().__init__(parent)
        self.setWindowTitle(title)
        text = QLabel(label)
        text.setTextFormat(Qt.TextFormat.PlainText)  # labels may quote a file's name
        text.setWordWrap(True)
        self.field = QLineEdit()
        self.field.setEchoMode(QLineEdit.EchoMode.Password)
        text.setBuddy(self.field)
        named(self.field, label.rstrip(":：").strip())
        self.reveal = RevealButton([self.field])
        buttons = name_buttons(QDialogButtonBox(QDialogButtonBox.StandardButton.Ok
                                                | QDialogButtonBox.StandardButton.Cancel))
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(text)
        layout.addWidget(self.field)
        layout.addWidget(self.reveal, 0, Qt.AlignmentFlag.AlignLeft)
        layout.addWidget(buttons)
        self.field.setFocus()
