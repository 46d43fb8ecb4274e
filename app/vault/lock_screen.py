"""The screen before the chats: create a passphrase on first launch, unlock afterwards."""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, Qt, Signal, Slot
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import (
    QFormLayout,
    QFrame,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from app.shell.a11y import announce, named
from app.shell.reveal import RevealButton
from core.passphrase import MIN_LENGTH, MIN_SCORE, acceptable, label
from core.passphrase import strength as rate
from i18n import translate


def create_warning() -> str:
    """What the first launch says about the passphrase, in the interface language."""
    return translate("vault.lock_screen",
                     "Hearth encrypts your chats with this passphrase. Nobody can recover it for "
                     "you: if you forget it, your chats are gone for good. Write it down "
                     "somewhere safe.")


def strength(passphrase: str) -> tuple[str, str]:
    """The meter's word for the passphrase (zxcvbn's rating, ``core.passphrase``) and a hint."""
    if not passphrase:
        return "", ""
    score, advice = rate(passphrase)
    if score >= MIN_SCORE and len(passphrase) < MIN_LENGTH:
        # The meter's own word for zxcvbn's score 1 (core.passphrase.labels), translated there.
        return label(1), translate("vault.lock_screen", "Use at least %n characters.", None,
                                   MIN_LENGTH)
    return label(score), advice


def caps_lock_on(event: QKeyEvent) -> bool | None:
    """What a key press says of Caps Lock: a letter in capitals typed without Shift, or in
    small letters with it, means on; a letter as Shift says, off; anything else, nothing
    (None). Qt has no portable query of the lock itself."""
    text = event.text()
    if len(text) != 1 or not text.isalpha() or text.upper() == text.lower():
        return None
    shifted = bool(event.modifiers() & Qt.KeyboardModifier.ShiftModifier)
    return text.isupper() != shifted


class LockScreen(QWidget):
    create_requested = Signal(str)
    unlock_requested = Signal(str)
    restore_requested = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.mode = "unlock"
        panel = QFrame()
        panel.setObjectName("lockPanel")
        panel.setFixedWidth(480)
        self.heading = QLabel()
        self.heading.setObjectName("lockHeading")
        self.explanation = QLabel()
        self.explanation.setWordWrap(True)
        self.passphrase = QLineEdit()
        self.passphrase.setEchoMode(QLineEdit.EchoMode.Password)
        self.passphrase.setPlaceholderText(translate("vault.lock_screen", "Passphrase"))
        self.confirm = QLineEdit()
        self.confirm.setEchoMode(QLineEdit.EchoMode.Password)
        self.confirm.setPlaceholderText(translate("vault.lock_screen", "The same passphrase again"))
        # Show the passphrase (an eye under the fields); off again whenever the screen is shown.
        self.reveal_button = RevealButton([self.passphrase, self.confirm])
        self.reveal = self.reveal_button.action
        self.caps = QLabel(translate("vault.lock_screen", "Caps Lock is on."))
        self.caps.setObjectName("capsLock")
        self.caps.hide()
        for field in (self.passphrase, self.confirm):
            field.installEventFilter(self)
            field.textEdited.connect(self._edited)
        self.strength = QLabel()
        self.strength.setObjectName("strength")
        self.strength.setWordWrap(True)
        self.strength.setTextFormat(Qt.TextFormat.PlainText)
        self.error = QLabel()
        self.error.setObjectName("lockError")
        self.error.setWordWrap(True)
        self.error.setTextFormat(Qt.TextFormat.PlainText)  # messages quote paths and names
        self.error.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.submit = QPushButton()
        self.submit.setDefault(True)
        self.restore = QPushButton(translate("vault.lock_screen", "Restore from a backup…"))
        form = QFormLayout()
        form.addRow(translate("vault.lock_screen", "Passphrase"), self.passphrase)
        self._confirm_label = QLabel(translate("vault.lock_screen", "Confirm"))
        self._confirm_label.setBuddy(self.confirm)
        form.addRow(self._confirm_label, self.confirm)
        form.addRow("", self.reveal_button)
        layout = QVBoxLayout(panel)
        layout.addWidget(self.heading)
        layout.addWidget(self.explanation)
        layout.addLayout(form)
        layout.addWidget(self.caps)
        layout.addWidget(self.strength)
        layout.addWidget(self.error)
        layout.addWidget(self.submit)
        layout.addWidget(self.restore)
        row = QHBoxLayout()
        row.addStretch(1)
        row.addWidget(panel)
        row.addStretch(1)
        outer = QVBoxLayout(self)
        outer.addStretch(1)
        outer.addLayout(row)
        outer.addStretch(2)

        named(self.passphrase, translate("vault.lock_screen", "Passphrase"))
        named(self.confirm, translate("vault.lock_screen", "Confirm passphrase"),
              translate("vault.lock_screen", "The same passphrase again"))
        self.heading.setAccessibleDescription(translate("vault.lock_screen", "Lock screen"))
        self.strength.setAccessibleDescription(translate("vault.lock_screen",
                                                         "Passphrase strength"))
        self.error.setAccessibleDescription(translate("vault.lock_screen", "What went wrong"))
        named(self.restore, translate("vault.lock_screen", "Restore from a backup"),
              translate("vault.lock_screen", "Replace this vault with one from a backup file"))
        for first, second in ((self.passphrase, self.confirm), (self.confirm, self.reveal_button),
                              (self.reveal_button, self.submit), (self.submit, self.restore)):
            QWidget.setTabOrder(first, second)

        self.submit.clicked.connect(self._submit)
        self.passphrase.returnPressed.connect(self._submit)
        self.confirm.returnPressed.connect(self._submit)
        self.passphrase.textChanged.connect(self._update_strength)
        self.restore.clicked.connect(self.restore_requested)
        self.show_unlock()

    def show_create(self) -> None:
        self.mode = "create"
        self.heading.setText(translate("vault.lock_screen", "Create your passphrase"))
        self.explanation.setText(create_warning())
        self.submit.setText(translate("vault.lock_screen", "Create encrypted vault"))
        self.passphrase.setAccessibleDescription(translate(
            "vault.lock_screen", "Choose a passphrase: at least %n characters", None, MIN_LENGTH))
        for widget in (self.confirm, self._confirm_label, self.strength):
            widget.show()
        self.restore.show()
        self._reset()

    def show_unlock(self) -> None:
        self.mode = "unlock"
        self.heading.setText(translate("vault.lock_screen", "Hearth is locked"))
        self.explanation.setText(translate("vault.lock_screen",
                                           "Enter your passphrase to open your chats."))
        self.submit.setText(translate("vault.lock_screen", "Unlock"))
        self.passphrase.setAccessibleDescription(translate(
            "vault.lock_screen", "Your vault's passphrase; Enter unlocks"))
        for widget in (self.confirm, self._confirm_label, self.strength):
            widget.hide()
        self.restore.hide()
        self._reset()

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 - Qt's name
        if event.type() == QEvent.Type.KeyPress and isinstance(event, QKeyEvent):
            on = caps_lock_on(event)
            if on is not None and on != self.caps.isVisible():
                self.caps.setVisible(on)
                if on:
                    announce(self.caps, self.caps.text())
        return super().eventFilter(watched, event)

    @Slot()
    def _edited(self) -> None:
        """A message about what was typed before says nothing true once it is changed."""
        if self.error.isVisible():
            self.error.clear()
            self.error.hide()

    def _reset(self) -> None:
        self.reveal.setChecked(False)
        self.caps.hide()
        self.passphrase.clear()
        self.confirm.clear()
        self.error.clear()
        self.error.hide()
        self.set_busy(False)
        self.passphrase.setFocus()

    def show_error(self, text: str, offer_restore: bool = False) -> None:
        self.set_busy(False)
        self.error.setText(text)
        self.error.show()
        announce(self.error, text)
        if offer_restore:
            self.restore.show()
        self.passphrase.selectAll()
        self.passphrase.setFocus()

    def set_busy(self, busy: bool) -> None:
        self.submit.setEnabled(not busy)
        self.passphrase.setEnabled(not busy)
        self.confirm.setEnabled(not busy)
        creating = self.mode == "create"
        if busy:
            self.error.clear()  # an earlier try's message no longer says anything true
            self.error.hide()
            self.submit.setText(translate("vault.lock_screen", "Creating…") if creating
                                else translate("vault.lock_screen", "Unlocking…"))
        else:
            self.submit.setText(translate("vault.lock_screen", "Create encrypted vault") if creating
                                else translate("vault.lock_screen", "Unlock"))
        self.submit.setAccessibleName(self.submit.text())

    @Slot(str)
    def _update_strength(self, text: str) -> None:
        if self.mode != "create":
            return
        word, hint = strength(text)
        said = translate("vault.lock_screen", "Strength: {word}. {hint}").format(word=word,
                                                                                hint=hint)
        self.strength.setText(said.strip() if word else "")

    @Slot()
    def _submit(self) -> None:
        if not self.submit.isEnabled():
            return
        passphrase = self.passphrase.text()
        if self.mode == "unlock":
            if not passphrase:
                self.show_error(translate("vault.lock_screen", "Enter your passphrase."))
                return
            self.set_busy(True)
            self.unlock_requested.emit(passphrase)
            return
        problem = acceptable(passphrase)
        if problem is not None:
            self.show_error(problem)
            return
        if passphrase != self.confirm.text():
            self.show_error(translate("vault.lock_screen",
                                      "The two passphrases are different. Type them again."))
            self.confirm.clear()
            return
        self.set_busy(True)
        self.create_requested.emit(passphrase)
