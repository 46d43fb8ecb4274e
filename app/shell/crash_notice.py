"""The window's word after a crash (#43): a report the last run left (``core.crash``) is
offered once, in a small window that does not block: what it holds, that nothing was sent,
the report itself on request, and a button that copies it for the user to pass on."""

from __future__ import annotations

from PySide6.QtCore import Slot
from PySide6.QtWidgets import (
    QApplication,
    QDialog,
    QDialogButtonBox,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from app.shell.a11y import named
from app.shell.sizing import keep_whole
from core import crash
from i18n import translate


class CrashNotice(QDialog):
    def __init__(self, text: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        keep_whole(self)
        self.setWindowTitle(translate("shell.crash", "Hearth closed unexpectedly"))
        self.setModal(False)
        intro = QLabel(translate("shell.crash", "Hearth closed unexpectedly the last time it ran. A report was "
                                 "kept on this computer: where in Hearth's code it happened, and the versions. It "
                                 "holds nothing you wrote and no file names, and nothing was sent anywhere. If you "
                                 "want it looked at, copy it and pass it on yourself."))
        intro.setWordWrap(True)
        self.report = QPlainTextEdit(text)
        self.report.setReadOnly(True)
        self.report.setVisible(False)
        self.report.setMinimumHeight(220)
        named(self.report, translate("shell.crash", "Crash report"))
        self.show_button = QPushButton(translate("shell.crash", "Show report"))
        self.copy_button = QPushButton(translate("shell.crash", "Copy report"))
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.addButton(self.show_button, QDialogButtonBox.ButtonRole.ActionRole)
        buttons.addButton(self.copy_button, QDialogButtonBox.ButtonRole.ActionRole)
        layout = QVBoxLayout(self)
        layout.addWidget(intro)
        layout.addWidget(self.report, 1)
        layout.addWidget(buttons)
        buttons.rejected.connect(self.reject)
        self.show_button.clicked.connect(self._show_report)
        self.copy_button.clicked.connect(self._copy)

    @Slot()
    def _show_report(self) -> None:
        self.report.setVisible(True)
        self.show_button.setEnabled(False)
        self.resize(self.width(), max(self.height(), 420))

    @Slot()
    def _copy(self) -> None:
        QApplication.clipboard().setText(self.report.toPlainText())
        self.copy_button.setText(translate("shell.crash", "Copied"))


def offer(parent: QWidget) -> CrashNotice | None:
    """The newest report not offered yet, offered (older ones are marked offered too: one
    notice, not five); None when there is none."""
    reports = crash.pending()
    if not reports:
        return None
    try:
        text = crash.read(reports[0])
    except OSError:
        return None
    for report in reports:
        crash.seen(report)
    notice = CrashNotice(text, parent)
    notice.show()
    return notice
