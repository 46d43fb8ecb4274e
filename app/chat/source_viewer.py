"""A cited source, checked inside Hearth: the whole passage, the page (or section) it
comes from with the passage marked, and the question's words highlighted.

The text is the document's (untrusted): it is shown as plain text, never as rich text,
and its name and path as one line without control characters (a right-to-left override
would show "invoice[U+202E]fdp.js" as "invoicesj.pdf"). The page's text is the indexed text,
asked of the document service (it answers between the steps of an import, so it may come a
moment later); "Open file" hands the file to the program the system opens it with, and says
so when there is none. A script or program (a .js, .exe, .sh in an imported folder) is run,
not shown, by that program: "Open file" asks first, naming the file's real type.
"""

from __future__ import annotations

import base64
import re
from pathlib import Path
from typing import Any

from PySide6.QtCore import QRect, Qt, QTimer, QUrl, Slot
from PySide6.QtGui import (
    QColor,
    QDesktopServices,
    QImage,
    QPainter,
    QPixmap,
    QTextCursor,
    QTextDocument,
)
from PySide6.QtWidgets import (
    QDialog,
    QHBoxLayout,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QScrollArea,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from app.shell import dialogs, style
from app.shell.a11y import named
from app.shell.sizing import keep_whole
from app.shell.style import shade
from app.shell.text import plain, unmarked
from core.documents import terms
from guard.text import one_line
from i18n import meet_without_space, translate

AROUND = 20_000  # characters shown on each side of the passage (a file with no pages is one section)
# Endings of files that the system runs rather than shows (scripts, programs, installers,
# shortcuts): "Open file" asks before handing one over.
RUNNABLE = frozenset((
    ".app", ".appimage", ".bash", ".bat", ".cmd", ".com", ".command", ".cpl", ".desktop", ".exe",
    ".hta", ".jar", ".js", ".jse", ".lnk", ".msi", ".pl", ".ps1", ".psm1", ".py", ".pyw", ".rb",
    ".reg", ".run", ".scr", ".sh", ".url", ".vbe", ".vbs", ".wsf", ".wsh", ".zsh",
))


def listen_text(moment: float, playing: bool) -> str:
    from core.speech import clock

    if playing:
        return translate("chat.source_viewer", "■ Stop listening")
    return translate("chat.source_viewer", "▶ Listen from {time}").format(time=clock(moment))


def _converted(pcm: bytes, target: Any) -> tuple[Any, bytes]:
    """16 kHz mono 16-bit samples at ``target``'s rate and channels (16-bit, or float)."""
    import numpy as np
    from PySide6.QtMultimedia import QAudioFormat

    samples = np.frombuffer(pcm, dtype="<i2").astype(np.float32) / 32768.0
    rate, channels = target.sampleRate() or 48_000, max(1, target.channelCount())
    positions = np.arange(0, len(samples), 16_000 / rate)
    resampled = np.interp(positions, np.arange(len(samples)), samples).astype(np.float32)
    frames = np.repeat(resampled[:, None], channels, axis=1).reshape(-1)
    out = QAudioFormat()
    out.setSampleRate(rate)
    out.setChannelCount(channels)
    if target.sampleFormat() == QAudioFormat.SampleFormat.Float:
        out.setSampleFormat(QAudioFormat.SampleFormat.Float)
        return out, frames.astype("<f4").tobytes()
    out.setSampleFormat(QAudioFormat.SampleFormat.Int16)
    return out, (np.clip(frames, -1.0, 1.0) * 32767).astype("<i2").tobytes()


def _one_break(text: str) -> str:
    return text.replace("\r\n", "\n").replace("\r", "\n")


def _utf16(text: str, index: int) -> int:
    """Qt's position (UTF-16 units) of Python's ``text[index]``: they differ after an emoji."""
    return len(text[:index].encode("utf-16-le")) // 2


def word_spans(text: str, question: str) -> list[tuple[int, int]]:
    """Where the question's words (as search matches them: case and accents aside) occur."""
    wanted = set(terms(question))
    if not wanted:
        return []
    document = QTextDocument(text)
    spans = []
    for word in sorted(wanted, key=len, reverse=True):
        cursor = QTextCursor(document)
        while True:
            cursor = document.find(word, cursor)
            if cursor.isNull():
                break
            spans.append((cursor.selectionStart(), cursor.selectionEnd()))
    return spans


def _word_pattern(word: str) -> str:
    return "".join(re.escape(char) + (r"\s*" if at + 1 < len(word) and meet_without_space(char, word[at + 1]) else "")
                   for at, char in enumerate(word))


def _find_sentence(text: str, sentence: str) -> tuple[int, int] | None:
    """Where ``sentence`` (spaces collapsed, as core.answers splits it) stands in ``text``:
    a space there is any run of spaces or line breaks, and where core.answers joined a
    wrapped line's Chinese characters without one, the line break may stand between them."""
    words = sentence.rstrip("…").split()
    if not words:
        return None
    found = re.search(r"\s+".join(_word_pattern(w) for w in words), text)
    return found.span() if found else None


class SourceViewer(QDialog):
    def __init__(self, source: dict[str, Any], question: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        keep_whole(self)
        self.source = source
        self.question = question
        self.path = str(source.get("path") or "")
        label = one_line(str(source.get("label") or Path(self.path).name))
        self.setWindowTitle(translate("chat.source_viewer", "Source [{number}]: {label}").format(
            number=source.get("number", ""), label=label))
        self.resize(760, 600)
        self.heading = plain(QLabel(label))
        self.heading.setObjectName("sourceHeading")
        written = str(source.get("text") or "")
        shown, where = unmarked(written)  # the words, without Markdown's "## " and "> "
        self.passage = QPlainTextEdit(shown)
        self.passage.setReadOnly(True)
        self.passage.setMaximumHeight(160)
        self.page = QPlainTextEdit(translate("chat.source_viewer", "Finding the page in your documents…"))
        self.page.setReadOnly(True)
        self.page_label = plain(QLabel(translate("chat.source_viewer", "Around it, as indexed:")))
        self.problem = plain(QLabel())
        self.problem.setWordWrap(True)
        self.problem.hide()
        self.open_button = QPushButton(translate("chat.source_viewer", "Open file"))
        # Only a document's own place: an attached file's source names the file alone, and
        # a file of that name in the folder Hearth runs in is not it.
        on_disk = bool(self.path) and Path(self.path).is_absolute()
        self.open_button.setEnabled(on_disk and Path(self.path).is_file())
        if not on_disk:
            self._say(translate("chat.source_viewer", "An attached file: Hearth kept its text, not the file."))
        elif not self.open_button.isEnabled():
            self._say(translate("chat.source_viewer", "The file is no longer at {path}.").format(path=one_line(self.path)))
        self.open_button.clicked.connect(self.open_file)
        close = QPushButton(translate("chat.source_viewer", "Close"))
        close.setDefault(True)
        close.clicked.connect(self.accept)
        named(self.passage, translate("chat.source_viewer", "The cited passage"))
        named(self.page, translate("chat.source_viewer", "The page or section around the passage"),
              translate("chat.source_viewer", "The passage and the question's words are highlighted"))
        named(self.open_button, translate("chat.source_viewer", "Open the file"),
              translate("chat.source_viewer", "With the program this computer opens it with"))
        named(close, translate("chat.source_viewer", "Close the source"))
        self.moment = self._cited_moment()
        self.listen_button = QPushButton(listen_text(self.moment or 0.0, False))
        self.listen_button.setVisible(self.moment is not None)
        self.listen_button.clicked.connect(self.listen)
        named(self.listen_button, translate("chat.source_viewer", "Listen"),
              translate("chat.source_viewer", "Play the recording from the cited moment, a minute at a time"))
        self._sink: Any = None
        self._sound: Any = None
        self.played = 0.0  # seconds of sound the last listening gave the speaker
        self.dropped = 0  # recordings that came after their Stop, and were not played
        self._watch: QTimer | None = None
        self._job: Any = None
        buttons = QHBoxLayout()
        buttons.addWidget(self.open_button)
        buttons.addWidget(self.listen_button)
        buttons.addStretch(1)
        buttons.addWidget(close)
        layout = QVBoxLayout(self)
        layout.addWidget(self.heading)
        layout.addWidget(self.passage)
        layout.addWidget(self.page_label)
        # The page as indexed (text), and as printed (a picture, PDFs only, when it comes).
        self.pages = QTabWidget()
        self.pages.addTab(self.page, translate("chat.source_viewer", "Text"))
        self.picture = QLabel()
        self.picture.setAlignment(Qt.AlignmentFlag.AlignHCenter | Qt.AlignmentFlag.AlignTop)
        named(self.picture, translate("chat.source_viewer", "The page as printed"),
              translate("chat.source_viewer", "The cited passage is marked on the page"))
        self.picture_area = QScrollArea()
        self.picture_area.setWidget(self.picture)
        self.picture_area.setWidgetResizable(True)
        self.marks: list[QRect] = []
        layout.addWidget(self.pages, 1)
        layout.addWidget(self.problem)
        layout.addLayout(buttons)
        marks = []
        backing = str(source.get("support") or "")
        at = _find_sentence(written, backing) if backing else None
        if at is not None:  # the sentence that supports the answer (core.answers.support)
            begin, end = where[at[0]], where[at[1]]
            marks += shade(self.passage, [(_utf16(shown, begin), _utf16(shown, end))], style.current().mark)
        marks += shade(self.passage, word_spans(shown, question), style.current().word)
        self.passage.setExtraSelections(marks)

    def show_picture(self, found: dict | None) -> None:
        """The page as printed (from the documents' isolated child: grey pixels of a size
        checked there and again here), the passage's place marked; nothing where none came."""
        if not found:
            return
        width, height, pixels = found.get("width"), found.get("height"), found.get("pixels")
        try:
            data = base64.b64decode(str(pixels), validate=True)
        except ValueError:
            return
        if not (isinstance(width, int) and isinstance(height, int) and len(data) == width * height):
            return
        image = QImage(data, width, height, width, QImage.Format.Format_Grayscale8).convertToFormat(
            QImage.Format.Format_RGB32)  # a copy: the bytes are not kept
        self.marks = [QRect(m[0], m[1], max(1, m[2] - m[0]), max(1, m[3] - m[1]))
                      for m in found.get("marks") or [] if isinstance(m, list) and len(m) == 4]
        painter = QPainter(image)
        colour = QColor(style.current().mark)
        colour.setAlpha(110)
        for rect in self.marks:
            painter.fillRect(rect.adjusted(-2, -2, 2, 2), colour)
        painter.end()
        self.picture.setPixmap(QPixmap.fromImage(image))
        if self.pages.indexOf(self.picture_area) < 0:
            self.pages.insertTab(0, self.picture_area, translate("chat.source_viewer", "Page"))
        self.pages.setCurrentWidget(self.picture_area)
        if self.marks:
            self.picture_area.ensureVisible(self.marks[0].center().x(), self.marks[0].center().y(), 50, 150)

    def _say(self, text: str) -> None:
        self.problem.setText(text)
        self.problem.show()

    def show_page(self, text: str) -> None:
        """The page's indexed text, the passage marked and scrolled to, the words shaded."""
        # Qt holds a Windows or old Mac line break as one character: positions are counted
        # in the text as Qt will hold it.
        text = _one_break(text)
        passage = _one_break(str(self.source.get("text") or "")).strip()
        if not text:
            text = passage
            self.page_label.setText(translate("chat.source_viewer", "The rest of the page is no longer "
                                              "in your documents (removed or re-indexed since)."))
        at = text.find(passage) if passage else -1
        if at < 0 and passage:  # a merged passage: its first line at least
            at = text.find(passage.splitlines()[0])
            passage = passage.splitlines()[0] if at >= 0 else passage
        if len(text) > 2 * AROUND:  # a long section: what is around the passage
            start = max(0, at - AROUND) if at >= 0 else 0
            text, at = text[start:start + 2 * AROUND + len(passage)], (at - start if at >= 0 else -1)
        written = text
        text, where = unmarked(written)  # shown without Markdown's block marks, the passage still marked
        self.page.setPlainText(text)
        marks = []
        if at >= 0:
            begin, end = _utf16(text, where[at]), _utf16(text, where[at + len(passage)])
            marks += shade(self.page, [(begin, end)], style.current().mark)
            cursor = QTextCursor(self.page.document())
            cursor.setPosition(begin)
            self.page.setTextCursor(cursor)
            self.page.centerCursor()
        marks += shade(self.page, word_spans(text, self.question), style.current().word)
        self.page.setExtraSelections(marks)

    # A recording: the cited moment, heard -------------------------------------------------
    def _cited_moment(self) -> float | None:
        """Where a recording's passage starts (its heading, "12:34"), if this is a recording
        on disk this Hearth can decode; None otherwise."""
        import importlib.util

        from core.speech import AUDIO_SUFFIXES, seconds_of

        heading = self.source.get("heading")
        if not (isinstance(heading, str) and Path(self.path).is_absolute()
                and Path(self.path).suffix.lower() in AUDIO_SUFFIXES):
            return None
        if importlib.util.find_spec("av") is None:  # the decoder (with speech: not in the installers yet)
            return None
        return seconds_of(heading)

    @Slot()
    def listen(self) -> None:
        """Play a minute of the recording from the cited moment (again: stop). The file is
        decoded in the isolated child; the window gets samples, never the file."""
        if self._sink is not None or self._job is not None:
            self.stop_listening()
            return
        from app.shell.background import start_job
        from core import speech

        path, start = Path(self.path), self.moment or 0.0
        self.listen_button.setText(translate("chat.source_viewer", "Getting the recording…"))
        job: Any = None

        def played(pcm: bytes) -> None:
            if job is self._job:  # not stopped meanwhile
                self._play(pcm)
            else:
                self.dropped += 1

        def failed(exc: Exception) -> None:
            if job is self._job:
                self._not_played(exc)
            else:
                self.dropped += 1

        job = start_job("listen", lambda cancel: speech.listen(path, start, cancel=cancel), self, played, failed)
        self._job = job

    def _not_played(self, exc: Exception) -> None:
        self._job = None
        self.listen_button.setText(listen_text(self.moment or 0.0, False))
        self._say(translate("chat.source_viewer", "The recording could not be played: {reason}").format(reason=exc))

    def _play(self, pcm: bytes) -> None:
        self._job = None
        try:
            from PySide6.QtCore import QBuffer, QByteArray, QIODevice
            from PySide6.QtMultimedia import QAudioFormat, QAudioSink, QMediaDevices
        except ImportError:
            self._not_played(RuntimeError(translate("chat.source_viewer", "this build has no Qt Multimedia")))
            return
        device = QMediaDevices.defaultAudioOutput()
        if device.isNull():
            self._not_played(RuntimeError(translate("chat.source_viewer", "no speaker or headphones were found")))
            return
        wanted = QAudioFormat()
        wanted.setSampleRate(16_000)
        wanted.setChannelCount(1)
        wanted.setSampleFormat(QAudioFormat.SampleFormat.Int16)
        if not device.isFormatSupported(wanted):  # played at the device's own rate and channels
            wanted, pcm = _converted(pcm, device.preferredFormat())
        self._sound = QBuffer(self)
        self._sound.setData(QByteArray(pcm))
        self._sound.open(QIODevice.OpenModeFlag.ReadOnly)
        self._sink = QAudioSink(device, wanted, self)
        self._sink.start(self._sound)
        # Its end is watched, not signalled: PySide cannot hand QAudio.State to Python here.
        self._watch = QTimer(self)
        self._watch.setInterval(100)
        self._watch.timeout.connect(self._sink_state)
        self._watch.start()
        self.listen_button.setText(listen_text(self.moment or 0.0, True))

    @Slot()
    def _sink_state(self) -> None:
        # By name: the state is QtAudio.State in Qt 6.7 and later, QAudio.State before.
        if self._sink is not None and self._sink.state().name in ("IdleState", "StoppedState"):
            self.stop_listening()  # played to its end (or the device went away)

    def stop_listening(self) -> None:
        if self._job is not None:
            self._job.cancel.set()
            self._job = None
        if self._watch is not None:
            self._watch.stop()
        if self._sink is not None:
            self.played = self._sink.processedUSecs() / 1e6  # how much reached the speaker
            self._sink.stop()
            self._sink.deleteLater()
            self._sink = None
        if self._sound is not None:
            self._sound.close()
            self._sound = None
        self.listen_button.setText(listen_text(self.moment or 0.0, False))

    def done(self, result: int) -> None:
        self.stop_listening()  # closing the source ends its sound
        super().done(result)

    @Slot()
    def open_file(self) -> bool:
        """The file in the program the system opens it with; a word in the dialog if none."""
        if not Path(self.path).is_file():
            self._say(translate("chat.source_viewer", "The file is no longer at {path}.").format(path=one_line(self.path)))
            return False
        name, kind = one_line(Path(self.path).name), Path(self.path).suffix.lower()
        if kind in RUNNABLE and not dialogs.confirm(
                self, translate("chat.source_viewer", "Open a program?"),
                translate("chat.source_viewer", "{name} is a script or program (a {kind} file), not a "
                          "document: opening it may run it on this computer, with your rights. Open "
                          "it only if you know where it came from.").format(name=name, kind=one_line(kind)),
                translate("chat.source_viewer", "Open it")):
            return False
        if not QDesktopServices.openUrl(QUrl.fromLocalFile(self.path)):  # a local file: no network
            self._say(translate("chat.source_viewer", "No program on this computer opened {name}; the "
                                "passage and its page are shown here.").format(name=name))
            return False
        return True
