"""The empty chat's welcome: what Hearth is, a few example prompts, and (while only the
tiny starter model is there) a plain word that a larger one answers much better."""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QFrame, QLabel, QPushButton, QVBoxLayout, QWidget

from app.shell.a11y import named
from i18n import translate


def example_prompts() -> list[str]:
    """What a first question might be: each fills the input, nothing is sent by itself."""
    return [translate("chat.welcome", "Explain what a non-disclosure agreement is, in plain words."),
            translate("chat.welcome", "Draft a short, polite email asking to move a meeting to Friday."),
            translate("chat.welcome", "Summarise the text I paste below in three bullet points:")]


class WelcomePanel(QFrame):
    """An empty chat: what Hearth is, a few example prompts and, while only the tiny
    starter model is there, a plain word that a larger one answers much better."""

    prompt_chosen = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("welcome")
        layout = QVBoxLayout(self)
        self.heading = QLabel(translate("chat.welcome", "Ask anything. It stays on this computer."))
        self.heading.setObjectName("welcomeHeading")
        self.heading.setWordWrap(True)
        layout.addWidget(self.heading)
        intro = QLabel(translate("chat.welcome", "Your chats are encrypted with your passphrase and "
                                 "nothing is sent anywhere. To ask about your own files, choose "
                                 "Documents above. Try one of these:"))
        intro.setWordWrap(True)
        layout.addWidget(intro)
        self.buttons: list[QPushButton] = []
        for prompt in example_prompts():
            button = QPushButton(prompt)
            button.setFlat(True)
            button.setObjectName("examplePrompt")
            named(button, translate("chat.welcome", "Example: {prompt}").format(prompt=prompt),
                  translate("chat.welcome", "Puts this question in the box, to change or send"))
            button.clicked.connect(lambda _checked=False, p=prompt: self.prompt_chosen.emit(p))
            layout.addWidget(button, 0, Qt.AlignmentFlag.AlignLeft)
            self.buttons.append(button)
        self.starter_note = QLabel()
        self.starter_note.setWordWrap(True)
        self.starter_note.setObjectName("starterNote")
        self.starter_note.hide()
        layout.addWidget(self.starter_note)

    def set_starter_note(self, text: str) -> None:
        self.starter_note.setText(text)
        self.starter_note.setVisible(bool(text))
