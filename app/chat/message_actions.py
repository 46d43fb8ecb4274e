"""A message's header buttons: Copy (with its moment of "Copied"), Edit for a question,
Delete, Continue for an answer cut off, and the versions control ("‹ 2/3 ›").

The message widget keeps them and wires their clicks; this holds how they look and are
named, and what they say."""

from __future__ import annotations

from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QHBoxLayout, QLabel, QPushButton, QWidget

from app.shell.a11y import named
from i18n import translate

COPIED_MS = 1500  # how long Copy says "Copied"


class MessageActions:
    """The buttons in a message's header, added to ``header`` in the order they show."""

    def __init__(self, owner: QWidget, header: QHBoxLayout, question: bool) -> None:
        self.copy_button = QPushButton(translate("chat.conversation", "Copy"))
        self.copy_button.setFlat(True)
        self.copy_button.setToolTip(translate("chat.conversation", "Copy this message's text"))
        # "Copied" for a moment after a click: the clipboard itself shows nothing.
        self._copied = QTimer(owner)
        self._copied.setSingleShot(True)
        self._copied.setInterval(COPIED_MS)
        self._copied.timeout.connect(self._copy_shown)
        named(self.copy_button, translate("chat.conversation", "Copy this message"),
              self.copy_button.toolTip())
        header.addWidget(self.copy_button)
        self.edit_button: QPushButton | None = None
        if question:
            self.edit_button = QPushButton(translate("chat.conversation", "Edit"))
            self.edit_button.setFlat(True)
            self.edit_button.setToolTip(translate(
                "chat.conversation", "Change this question and ask again; the question as it "
                "was and what follows it are kept, as the other version"))
            named(self.edit_button, translate("chat.conversation", "Edit this question"),
                  self.edit_button.toolTip())
            header.addWidget(self.edit_button)
        self.delete_button = _header_button(
            header, translate("chat.conversation", "Delete"),
            translate("chat.conversation", "Delete this message; the rest of the chat stays"),
            translate("chat.conversation", "Delete this message"))
        self.read_button = _header_button(
            header, translate("chat.conversation", "Read aloud"),
            translate("chat.conversation", "Read this answer aloud with your system's voice (again to stop)"),
            translate("chat.conversation", "Read this answer aloud"))
        self.read_button.setVisible(False)  # an answer's, once written (MessageWidget.set_state)
        self.continue_button = _header_button(
            header, translate("chat.conversation", "Continue"),
            translate("chat.conversation", "Go on writing this answer from where it stopped"),
            translate("chat.conversation", "Continue this answer"))
        # The versions control: "‹ 2/3 ›", for the versions of an answer or the branches
        # of an edited question.
        self.previous_button = _header_button(
            header, "‹", translate("chat.conversation", "Show the previous version"),
            translate("chat.conversation", "Previous version"))
        self.version_label = QLabel()
        self.version_label.setObjectName("versionLabel")
        header.addWidget(self.version_label)
        self.next_button = _header_button(
            header, "›", translate("chat.conversation", "Show the next version"),
            translate("chat.conversation", "Next version"))

    def copied(self) -> None:
        """Copy says "Copied" for a moment."""
        self.copy_button.setText(translate("chat.conversation", "Copied"))
        self._copied.start()

    def _copy_shown(self) -> None:
        self.copy_button.setText(translate("chat.conversation", "Copy"))

    def show_versions(self, current: int, versions: tuple[int, ...]) -> None:
        """Which of its versions ``current`` is: "‹ 2/3 ›" when there is more than one."""
        several = len(versions) > 1 and current in versions
        for part in (self.previous_button, self.version_label, self.next_button):
            part.setVisible(several)
        if several:
            which = versions.index(current) + 1
            self.version_label.setText(f"{which}/{len(versions)}")
            self.version_label.setAccessibleName(translate(
                "chat.conversation", "Version {which} of {count}").format(which=which, count=len(versions)))
            self.previous_button.setEnabled(which > 1)
            self.next_button.setEnabled(which < len(versions))

    def buttons(self) -> list[QWidget]:
        """Its stops in the tab order, as they are laid out."""
        first: list[QWidget] = [self.copy_button]
        if self.edit_button is not None:
            first.append(self.edit_button)
        return [*first, self.delete_button, self.read_button, self.continue_button, self.previous_button,
                self.next_button]


def _header_button(header: QHBoxLayout, text: str, tip: str, name: str) -> QPushButton:
    button = QPushButton(text)
    button.setFlat(True)
    button.setToolTip(tip)
    named(button, name, tip)
    header.addWidget(button)
    return button
