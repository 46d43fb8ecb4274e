"""Dictation in the real window (#41): the microphone (a real PulseAudio device that hears
what plays into the test's output) records speech made by espeak-ng, Whisper recognises it
in the isolated child, and the words land in the message box at the cursor, nothing sent;
no recording is left anywhere; a lock while listening throws the sound away."""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
import wave
from pathlib import Path

import pytest

from app.chat import dictation
from tests.core.test_speech import wer

pytestmark = [pytest.mark.gui, pytest.mark.model, pytest.mark.skipif(shutil.which("espeak-ng") is None, reason=(
    "espeak-ng makes the test speech: the test command installs it on Debian-like systems as root"))]
SAID = "The spare heater fuse is kept in the blue tin on the top shelf of the potting shed."
# Whisper base on espeak-ng's robotic English is fragile: the same file read directly has 3
# errors in 17 words (0.18), and 0.5 with silence before it ("heat of use" for "heater
# fuse"), as a microphone records it; the bound leaves room for that, not for a broken path
# (a cut-off, garbled or silent recording misses nearly every word).
MAX_WER = 0.6


def play(qtbot, sound_server: dict[str, str], wav: Path) -> None:
    """Into the test output: the test microphone hears it, as a person speaking (the
    window's event loop runs meanwhile, as it does while someone speaks)."""
    speaker = subprocess.Popen(["paplay", "--device=hearth_test", str(wav)], env=sound_server)
    qtbot.waitUntil(lambda: speaker.poll() is not None, timeout=60_000)
    assert speaker.returncode == 0


@pytest.mark.timeout(300)
def test_spoken_words_land_in_the_message_box_and_nothing_is_sent(qtbot, make_window, sound_server, data_dir: Path,
                                                                  tmp_path: Path) -> None:
    wav = tmp_path / "said.wav"
    subprocess.run(["espeak-ng", "-w", str(wav), SAID], check=True, capture_output=True, timeout=60)
    with wave.open(str(wav), "rb") as made:  # a person draws breath before speaking: half a second
        params, frames = made.getparams(), made.readframes(made.getnframes())
    with wave.open(str(wav), "wb") as spoken:
        spoken.setparams(params)
        spoken.writeframes(b"\0" * (params.framerate // 2 * params.sampwidth * params.nchannels) + frames)
    assert dictation.available() is None  # the test microphone is there
    window = make_window()
    window.controller.chats.new()
    window.input.setPlainText("Hello.")
    window.input.moveCursor(window.input.textCursor().MoveOperation.End)
    window.dictate_button.click()
    assert window.dictation.state == "listening" and window.dictate_button.text().startswith("■ Stop")
    assert window.dictate_level.isVisible() and window.dictate_level.value() == 0
    heard_levels: list[int] = []
    window.dictate_level.valueChanged.connect(heard_levels.append)
    play(qtbot, sound_server, wav)
    assert max(heard_levels) > 30, heard_levels[-20:]  # the speech was seen as it was heard
    window.dictate_button.click()
    assert not window.dictate_level.isVisible()
    assert window.dictation.state == "recognising" and not window.dictate_button.isEnabled()
    qtbot.waitUntil(lambda: window.dictation.state == "idle", timeout=120_000)
    text = window.input.toPlainText()
    assert text.startswith("Hello. ") and wer(SAID, text.removeprefix("Hello. ")) <= MAX_WER, text
    assert "potting" in text.lower() and "kept" in text.lower(), text
    assert window.dictate_button.text() == "Dictate" and window.dictate_button.isEnabled()
    assert window.controller.store.messages(window.controller.current_chat.id) == []  # nothing was sent
    from core.attachments import _memory_places

    places = [*_memory_places(), tempfile.gettempdir()]
    assert not [p for place in places for p in Path(place).glob(f"hearth-paste-{os.getpid()}-*")]  # read, gone


def test_silence_says_so_and_a_lock_throws_the_sound_away(qtbot, make_window, sound_server) -> None:
    window = make_window()
    notices: list[str] = []
    window.dictation.failed.connect(notices.append)
    window.dictate_button.click()
    assert window.dictation.state == "listening"
    window.dictate_button.click()  # at once: nothing said
    assert window.dictation.state == "idle" and notices == ["Nothing was heard."]
    window.dictate_button.click()
    window.vault.lock()
    assert window.dictation.state == "idle" and window.input.toPlainText() == ""


def test_the_level_is_silence_at_0_and_full_scale_at_1_whatever_the_format() -> None:
    import numpy as np

    quiet = np.zeros(1600, dtype=np.int16).tobytes()
    loud = (np.sin(np.linspace(0, 200, 1600)) * 32767).astype(np.int16).tobytes()
    assert dictation.level(quiet, 1, "int16") == 0.0 and dictation.level(b"", 1, "int16") == 0.0
    assert dictation.level(loud, 1, "int16") > 0.9  # a full-scale sine: -3 dBFS
    half = (np.sin(np.linspace(0, 200, 3200)) * 0.03).astype(np.float32).tobytes()  # about -33 dBFS
    assert 0.3 < dictation.level(half, 2, "float") < 0.6


def test_without_a_microphone_it_says_why() -> None:
    assert dictation.wav_bytes(b"\x00\x00" * 1600, 16_000, 1, "int16")[:4] == b"RIFF"
    stereo_float = (b"\x00\x00\x80\x3f" * 2) * 100  # 1.0 on both channels
    pcm = dictation.wav_bytes(stereo_float, 8_000, 2, "float")
    assert pcm[-2:] == (32767).to_bytes(2, "little", signed=True)


@pytest.mark.timeout(300)
def test_a_lock_while_recognising_kills_it_and_keeps_no_words(qtbot, make_window, sound_server,
                                                              tmp_path: Path) -> None:
    wav = tmp_path / "said.wav"
    subprocess.run(["espeak-ng", "-w", str(wav), SAID], check=True, capture_output=True, timeout=60)
    window = make_window()
    notices: list[str] = []
    window.dictation.failed.connect(notices.append)
    heard: list[str] = []
    window.dictation.heard.connect(heard.append)
    window.dictate_button.click()
    play(qtbot, sound_server, wav)
    window.dictate_button.click()
    assert window.dictation.state == "recognising"
    window.vault.lock()  # at once: Whisper's child is killed, what it heard goes
    qtbot.waitUntil(lambda: window.dictation.state == "idle", timeout=30_000)
    assert heard == [] and notices == []


def test_a_refused_microphone_says_how_to_allow_it_on_each_system(qtbot, monkeypatch) -> None:
    """macOS and Windows ask the user; Linux's Qt answers Granted. The system's answer is
    made here (no macOS in CI): refused, it says where to allow it; not yet asked, Hearth
    asks and listens once it is allowed, and a lock meanwhile starts nothing."""
    from PySide6.QtCore import QCoreApplication, Qt

    assert "System Settings ▸ Privacy & Security ▸ Microphone" in dictation.refused_message("darwin")
    assert "Privacy & security ▸ Microphone" in dictation.refused_message("win32")
    assert "sound or privacy settings" in dictation.refused_message("linux")
    app = QCoreApplication.instance()
    monkeypatch.setattr(dictation, "available", lambda: None)
    said: list[str] = []
    recorder = dictation.Dictation()
    recorder.failed.connect(said.append)
    monkeypatch.setattr(type(app), "checkPermission", lambda _self, _p: Qt.PermissionStatus.Denied)
    recorder.start()
    assert said == [dictation.refused_message()] and recorder.state == "idle"

    asked: list[object] = []
    monkeypatch.setattr(type(app), "checkPermission", lambda _self, _p: Qt.PermissionStatus.Undetermined)
    monkeypatch.setattr(type(app), "requestPermission", lambda _self, p, _ctx, answer: asked.append((p, answer)))
    listened: list[bool] = []
    monkeypatch.setattr(recorder, "_listen", lambda: listened.append(True))
    recorder.start()
    assert recorder.state == "asking" and len(asked) == 1

    class Answer:
        def __init__(self, status) -> None:
            self._status = status

        def status(self):
            return self._status

    asked[0][1](Answer(Qt.PermissionStatus.Granted))
    assert listened == [True] and recorder.state == "idle"
    recorder.start()
    asked[1][1](Answer(Qt.PermissionStatus.Denied))
    assert said[-1] == dictation.refused_message() and listened == [True]
    recorder.start()
    recorder.discard()  # locked before the system answered
    asked[2][1](Answer(Qt.PermissionStatus.Granted))
    assert listened == [True] and recorder.state == "idle"


def test_without_the_speech_model_it_says_so_before_listening(qtbot, make_window, sound_server,
                                                              monkeypatch) -> None:
    """A source install without the model's packages: said when Dictate is pressed, not
    after the user has spoken for minutes."""
    from core import speech

    monkeypatch.setattr(speech, "package_file", lambda _name: None)  # the two packages not installed
    window = make_window()
    window.dictate_button.click()
    assert window.dictation.state == "idle" and not window.dictate_level.isVisible()
    assert "speech model is not installed" in window.notice.text() and window.notice.isVisible()


@pytest.mark.timeout(300)
def test_a_recording_that_could_not_be_recognised_is_kept_to_try_again(qtbot, make_window, sound_server,
                                                                       data_dir: Path, make_small_disk,
                                                                       tmp_path: Path) -> None:
    """The models folder full when the model is placed on first use: the recording stays in
    memory, "Try again" recognises it once the disk has room; a lock throws a kept one away."""
    disk = make_small_disk(200)  # the model is 145 MB
    data_dir.mkdir(parents=True, exist_ok=True)
    (data_dir / "models").symlink_to(disk.path, target_is_directory=True)
    disk.fill()
    wav = tmp_path / "said.wav"
    subprocess.run(["espeak-ng", "-w", str(wav), SAID], check=True, capture_output=True, timeout=60)
    window = make_window()
    window.controller.chats.new()
    window.dictate_button.click()
    assert window.dictation.state == "listening"
    play(qtbot, sound_server, wav)
    window.dictate_button.click()
    qtbot.waitUntil(lambda: window.dictation.state == "idle", timeout=120_000)
    assert "could not be placed" in window.notice.text() and "recording is kept" in window.notice.text()
    assert window.dictation.kept and window.dictate_again_button.isVisible() and window.input.toPlainText() == ""
    disk.free()
    window.dictate_again_button.click()
    assert window.dictation.state == "recognising" and not window.dictate_again_button.isVisible()
    qtbot.waitUntil(lambda: window.dictation.state == "idle", timeout=120_000)
    text = window.input.toPlainText()
    assert wer(SAID, text) <= MAX_WER and "potting" in text.lower(), text
    assert not window.dictation.kept and not window.dictate_again_button.isVisible()

    shutil.rmtree(disk.path / "whisper-base")  # gone again (another disk, say): a second failure
    disk.fill()
    window.dictate_button.click()
    play(qtbot, sound_server, wav)
    window.dictate_button.click()
    qtbot.waitUntil(lambda: window.dictation.state == "idle", timeout=120_000)
    assert window.dictation.kept and window.dictate_again_button.isVisible()
    window.vault.lock()
    assert not window.dictation.kept and window.dictate_again_button.isHidden()
