"""Read aloud (#41): an answer spoken by the system's own speech service, through Qt Text
to Speech (speech-dispatcher on Linux, the system voices on Windows and macOS). The text
goes to the service on this computer and nowhere else; the voice follows the answer's
language (a Chinese voice for an answer written mostly in Chinese, where the system has
one). One answer at a time: another one, or the same one again, stops it."""

from __future__ import annotations

import re
from typing import Any

from PySide6.QtCore import QObject, Signal

from i18n import translate

_CODE = re.compile(r"```.*?(```|$)", re.S)
_MARKS = re.compile(r"[#*_`>|~]+|\[(\d+)\]")
_HAN = re.compile(r"[\u3400-\u9fff]")


def speakable(text: str) -> str:
    """An answer as it is said: code blocks left out, Markdown's marks and citation numbers
    gone, links' text kept."""
    text = _CODE.sub(" ", text)
    text = re.sub(r"\[([^\]]+)\]\([^)]*\)", r"\1", text)
    return " ".join(_MARKS.sub(" ", text).split())


def chinese(text: str) -> bool:
    letters = [c for c in text if c.isalpha()]
    return bool(letters) and sum(1 for c in letters if _HAN.match(c)) * 2 > len(letters)


class ReadAloud(QObject):
    speaking = Signal(int)  # the message being read (0: none)
    failed = Signal(str)

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._speech: Any = None
        self.current = 0

    def _engine(self) -> Any:
        """The system's speech service, made once (None where there is none)."""
        if self._speech is not None:
            return self._speech
        try:
            from PySide6.QtTextToSpeech import QTextToSpeech
        except ImportError:
            return None
        engines = [e for e in QTextToSpeech.availableEngines() if e != "mock"]  # "mock" is Qt's test double
        if not engines:
            return None
        speech = QTextToSpeech(engines[0], self)
        if speech.state().name == "Error":
            return None
        speech.stateChanged.connect(lambda _state: self._state_changed())
        self._speech = speech
        return speech

    def _state_changed(self) -> None:
        if self._speech is not None and self._speech.state().name in ("Ready", "Error") and self.current:
            if self._speech.state().name == "Error":
                self.failed.emit(translate("chat.read_aloud", "The speech service stopped: {reason}").format(
                    reason=self._speech.errorString() or "?"))
            self.current = 0
            self.speaking.emit(0)

    def toggle(self, message_id: int, text: str) -> None:
        """Read the answer ``message_id`` aloud; if it is being read, stop."""
        was = self.current
        self.stop()
        if was == message_id:
            return
        speech = self._engine()
        if speech is None:
            self.failed.emit(translate("chat.read_aloud", "Reading aloud needs the system's speech service "
                                       "(speech-dispatcher on Linux), which was not found."))
            return
        said = speakable(text)
        if not said:
            return
        from PySide6.QtCore import QLocale

        wanted = QLocale(QLocale.Language.Chinese, QLocale.Country.China) if chinese(said) else QLocale(
            QLocale.Language.English)
        match = next((locale for locale in speech.availableLocales() if locale.language() == wanted.language()), None)
        if match is not None:
            speech.setLocale(match)
        self.current = message_id
        self.speaking.emit(message_id)
        speech.say(said)

    def stop(self) -> None:
        if self._speech is not None and self.current:
            self.current = 0
            self._speech.stop()
            self.speaking.emit(0)
