"""Dictation (#41): speak a message instead of typing it. The microphone is recorded by Qt
Multimedia into memory while the user speaks (at most ``MAX_SECONDS``), then recognised by
the bundled Whisper model in the isolated child (``core.speech``), and the words are put
into the message box at the cursor, to be read and sent by the user. Nothing is sent on
its own.

The sound never reaches the vault or the disk as a recording: it goes to the child through
the pipe (``core.speech.recognise_recording``), and no file is written anywhere. Whether
the speech model can be had is asked before the user speaks (``core.speech.unavailable``),
not after five minutes of talking; and the last recording stays in memory until it is
recognised, so a model that could not be placed or a child that failed costs a "Try
again", not what was said. Locking or quitting throws it away, listening, recognising or
kept. Qt Multimedia comes with PySide6's add-ons; where it is missing (a build without
it) the button says so instead of listening.
"""

from __future__ import annotations

import io
import logging
import sys
import time
import wave
from typing import Any

from PySide6.QtCore import (
    QCoreApplication,
    QMicrophonePermission,
    QObject,
    QPermission,
    Qt,
    QTimer,
    Signal,
    Slot,
)

from app.shell.background import start_job
from core.jobs import Job
from i18n import translate

log = logging.getLogger(__name__)
MAX_SECONDS = 300
RATE = 16_000


def available() -> str | None:
    """Why dictation cannot listen here (None: it can)."""
    import importlib.util

    if importlib.util.find_spec("faster_whisper") is None:
        return translate("chat.dictation", "Dictation needs speech recognition, which this build of Hearth does not "
                         "have yet.")
    from core import speech

    model = speech.unavailable()  # a quick look: the model is placed when it is first needed
    if model is not None:
        return model
    try:
        from PySide6.QtMultimedia import QMediaDevices
    except ImportError:
        return translate("chat.dictation", "Dictation needs Qt Multimedia, which this build of Hearth does not have.")
    if QMediaDevices.defaultAudioInput().isNull():
        return translate("chat.dictation", "No microphone was found. Connect one, or allow Hearth to use it in your "
                         "system's privacy settings.")
    return None


def refused_message(platform: str = sys.platform) -> str:
    """What to do when the system refused Hearth the microphone, for this system."""
    if platform == "darwin":
        return translate("chat.dictation", "Hearth may not use the microphone. Allow it in System Settings ▸ "
                         "Privacy & Security ▸ Microphone, then dictate again.")
    if platform == "win32":
        return translate("chat.dictation", "Hearth may not use the microphone. Allow it in Settings ▸ Privacy & "
                         "security ▸ Microphone (\u201cLet desktop apps access your microphone\u201d), then "
                         "dictate again.")
    return translate("chat.dictation", "Hearth may not use the microphone. Allow it in your system's sound or "
                     "privacy settings (or the sandbox's permissions, for a Flatpak), then dictate again.")


def mono16(pcm: bytes, channels: int, sample_format: str) -> Any:
    """The samples as 16-bit mono (a NumPy array): float, 32-bit and 8-bit converted."""
    import numpy as np

    if sample_format == "float":
        samples = np.frombuffer(pcm[:len(pcm) - len(pcm) % 4], dtype=np.float32)
        samples = (np.clip(samples, -1.0, 1.0) * 32767).astype(np.int16)
    elif sample_format == "int32":
        samples = (np.frombuffer(pcm[:len(pcm) - len(pcm) % 4], dtype=np.int32) >> 16).astype(np.int16)
    elif sample_format == "uint8":
        samples = ((np.frombuffer(pcm, dtype=np.uint8).astype(np.int16) - 128) << 8).astype(np.int16)
    else:
        samples = np.frombuffer(pcm[:len(pcm) - len(pcm) % 2], dtype=np.int16)
    if channels > 1:
        samples = samples[:len(samples) - len(samples) % channels].reshape(-1, channels).mean(axis=1).astype(np.int16)
    return samples


def level(pcm: bytes, channels: int, sample_format: str) -> float:
    """How loud ``pcm`` is, 0 to 1: its RMS from -60 dBFS (0) to full scale (1)."""
    import numpy as np

    samples = mono16(pcm, channels, sample_format)
    if not len(samples):
        return 0.0
    rms = float(np.sqrt(np.mean(np.square(samples.astype(np.float64))))) / 32768.0
    return 0.0 if rms <= 1e-3 else min(1.0, (20.0 * np.log10(rms) + 60.0) / 60.0)


def wav_bytes(pcm: bytes, rate: int, channels: int, sample_format: str) -> bytes:
    """What was heard as a WAV file (16-bit; float samples converted), mono."""
    samples = mono16(pcm, channels, sample_format)
    out = io.BytesIO()
    with wave.open(out, "wb") as file:
        file.setnchannels(1)
        file.setsampwidth(2)
        file.setframerate(rate)
        file.writeframes(samples.tobytes())
    return out.getvalue()


def recognise(wav: bytes, language: str = "", cancel: Any = None) -> str:
    """The words in a WAV recording, recognised in the isolated child (which ``cancel``
    kills); the recording goes to it through the pipe: no file, on any system."""
    from core import speech

    transcript = speech.recognise_recording(wav, language, cancel)
    return " ".join(segment.text.strip() for segment in transcript.segments if segment.text.strip())


class Dictation(QObject):
    """One dictation at a time: ``toggle`` starts listening, and again stops and recognises;
    ``again`` recognises the kept recording once more after a failure."""

    state_changed = Signal(str)  # "idle", "listening", "recognising"
    kept_changed = Signal(bool)  # a recording is kept for another try (``again``)
    heard = Signal(str)  # the words, for the message box
    failed = Signal(str)  # why not, in the user's words
    elapsed = Signal(int)  # seconds listened so far
    loudness = Signal(float)  # the microphone's level now, 0 to 1 (``level``)

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.state = "idle"
        self._source: Any = None
        self._device: Any = None
        self._pcm = bytearray()
        self._format: tuple[int, int, str] = (RATE, 1, "int16")
        self._began = 0.0
        self._job: Job | None = None
        self._dropped = False  # locked while recognising: the words are nobody's
        self._kept: tuple[bytes, tuple[int, int, str]] | None = None  # the last recording, not yet recognised
        self._ticker = QTimer(self)
        self._ticker.setInterval(500)
        self._ticker.timeout.connect(self._tick)

    def _set(self, state: str) -> None:
        self.state = state
        self.state_changed.emit(state)

    @Slot()
    def toggle(self) -> None:
        if self.state == "idle":
            self.start()
        elif self.state == "listening":
            self.finish()

    def start(self) -> None:
        why = available()
        if why is not None:
            self.failed.emit(why)
            return
        # macOS (and Windows' packaged apps) ask the user once; elsewhere Qt says Granted.
        status = QCoreApplication.instance().checkPermission(QMicrophonePermission())  # type: ignore[union-attr]
        if status == Qt.PermissionStatus.Denied:
            self.failed.emit(refused_message())
            return
        if status == Qt.PermissionStatus.Undetermined:
            self._set("asking")
            QCoreApplication.instance().requestPermission(  # type: ignore[union-attr]
                QMicrophonePermission(), self, self._answered)
            return
        self._listen()

    def _answered(self, permission: QPermission) -> None:
        if self.state != "asking":
            return  # locked meanwhile
        self._set("idle")
        if permission.status() == Qt.PermissionStatus.Granted:
            self._listen()
        else:
            self.failed.emit(refused_message())

    def _listen(self) -> None:
        from PySide6.QtMultimedia import QAudioFormat, QAudioSource, QMediaDevices

        device = QMediaDevices.defaultAudioInput()
        wanted = QAudioFormat()
        wanted.setSampleRate(RATE)
        wanted.setChannelCount(1)
        wanted.setSampleFormat(QAudioFormat.SampleFormat.Int16)
        chosen = wanted if device.isFormatSupported(wanted) else device.preferredFormat()
        kinds = {QAudioFormat.SampleFormat.Int16: "int16", QAudioFormat.SampleFormat.Float: "float",
                 QAudioFormat.SampleFormat.Int32: "int32", QAudioFormat.SampleFormat.UInt8: "uint8"}
        self._format = (chosen.sampleRate(), chosen.channelCount(), kinds.get(chosen.sampleFormat(), "int16"))
        self._pcm = bytearray()
        self._source = QAudioSource(device, chosen, self)
        self._device = self._source.start()
        if self._device is None:
            self._source = None
            self.failed.emit(translate("chat.dictation", "The microphone could not be opened."))
            return
        self._device.readyRead.connect(self._read)
        self._began = time.monotonic()
        self._ticker.start()
        self._set("listening")

    @Slot()
    def _read(self) -> None:
        if self._device is None:
            return
        chunk = bytes(self._device.readAll().data())
        self._pcm += chunk
        _rate, channels, sample_format = self._format
        self.loudness.emit(level(chunk, channels, sample_format))

    @Slot()
    def _tick(self) -> None:
        seconds = int(time.monotonic() - self._began)
        self.elapsed.emit(seconds)
        if seconds >= MAX_SECONDS:
            self.finish()

    def _close_source(self) -> None:
        self._ticker.stop()
        if self._source is not None:
            self._read()
            self._source.stop()
            self._source.deleteLater()
        self._source = self._device = None

    @property
    def kept(self) -> bool:
        """Whether a recording that was not recognised waits for another try."""
        return self._kept is not None

    def _keep(self, kept: tuple[bytes, tuple[int, int, str]] | None) -> None:
        self._kept = kept
        self.kept_changed.emit(kept is not None)

    def finish(self) -> None:
        """Stop listening and recognise what was heard (kept until it is recognised)."""
        if self.state != "listening":
            return
        self._close_source()
        rate, channels, _kind = self._format
        pcm, self._pcm = bytes(self._pcm), bytearray()
        if len(pcm) < rate * channels // 4:  # under a quarter of a second: nothing was said
            self._set("idle")
            self.failed.emit(translate("chat.dictation", "Nothing was heard."))
            return
        self._keep((pcm, self._format))  # this one now, in place of any earlier one
        self._recognise()

    @Slot()
    def again(self) -> None:
        """Recognise the kept recording once more (the model installed or the disk freed
        meanwhile); the same quick look at the model first as before listening."""
        if self.state != "idle" or self._kept is None:
            return
        why = available()
        if why is not None:
            self.failed.emit(why)
            return
        self._recognise()

    def _recognise(self) -> None:
        assert self._kept is not None
        pcm, (rate, channels, kind) = self._kept
        self._set("recognising")
        self._dropped = False

        def work(cancel: Any) -> str:
            return recognise(wav_bytes(pcm, rate, channels, kind), cancel=cancel)

        self._job = start_job("dictation", work, self, self._recognised, self._not_recognised)

    def _recognised(self, text: str) -> None:
        self._job = None
        self._set("idle")
        if self._dropped:
            return
        self._keep(None)  # recognised: nothing is left to try again
        if text:
            self.heard.emit(text)
        else:
            self.failed.emit(translate("chat.dictation", "No words were recognised."))

    def _not_recognised(self, exc: Exception) -> None:
        self._job = None
        self._set("idle")
        if self._dropped:
            return
        log.warning("dictation not recognised: %s", type(exc).__name__)
        self.failed.emit(translate("chat.dictation", "What you said could not be recognised: {reason} The "
                                   "recording is kept (in memory, until Hearth is locked): choose “Try again” "
                                   "once that is put right.").format(reason=exc))

    def discard(self) -> None:
        """Locked or quitting: what was heard is thrown away, kept or not, and nothing is
        recognised."""
        if self._kept is not None:
            self._keep(None)
        if self.state == "asking":
            self._set("idle")  # the system's answer, when it comes, starts nothing
        elif self.state == "listening":
            self._close_source()
            self._pcm = bytearray()
            self._set("idle")
        elif self._job is not None:
            self._dropped = True
            self._job.cancel.set()

