"""A recording's cited moment, heard (#41): the source viewer of a passage cited "0:01"
plays the recording from there through a real sound server (tests/conftest.py), the file
decoded in the isolated child and only its samples given to the window; it stops at the
end, or when asked, or when the viewer closes; a passage that is not a recording's has no
such button."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from app.chat.source_viewer import SourceViewer

pytestmark = [pytest.mark.gui, pytest.mark.skipif(shutil.which("espeak-ng") is None, reason=(
    "espeak-ng makes the test speech: the test command installs it on Debian-like systems as root"))]


@pytest.fixture
def recording(tmp_path: Path) -> Path:
    wav = tmp_path / "interview.wav"
    subprocess.run(["espeak-ng", "-w", str(wav), "The spare heater fuse is kept in the blue tin on the top shelf."],
                   check=True, capture_output=True, timeout=60)
    return wav


def test_the_cited_moment_is_played_to_its_end(qtbot, sound_server, recording: Path) -> None:
    viewer = SourceViewer({"path": str(recording), "heading": "0:01", "text": "kept in the blue tin"}, "fuse")
    qtbot.addWidget(viewer)
    viewer.show()
    assert viewer.listen_button.isVisible() and viewer.listen_button.text() == "▶ Listen from 0:01"
    viewer.listen_button.click()
    qtbot.waitUntil(lambda: viewer.listen_button.text() == "■ Stop listening", timeout=60_000)
    qtbot.waitUntil(lambda: viewer.listen_button.text() == "▶ Listen from 0:01", timeout=60_000)
    import wave

    with wave.open(str(recording)) as made:
        length = made.getnframes() / made.getframerate()
    assert viewer.played == pytest.approx(length - 1.0, abs=0.3)  # from 0:01 to its end, all of it


def test_stop_while_the_recording_is_fetched_plays_nothing(qtbot, sound_server, recording: Path) -> None:
    viewer = SourceViewer({"path": str(recording), "heading": "0:00", "text": "fuse"}, "")
    qtbot.addWidget(viewer)
    viewer.show()
    viewer.listen_button.click()
    assert viewer.listen_button.text() == "Getting the recording…"
    job = viewer._job
    viewer.listen_button.click()  # Stop, before a sample came
    assert viewer.listen_button.text() == "▶ Listen from 0:00" and job.cancel.is_set()
    qtbot.waitUntil(lambda: viewer.dropped == 1, timeout=60_000)  # what came after the Stop
    assert viewer._sink is None and viewer.listen_button.text() == "▶ Listen from 0:00"


def test_stop_and_close_end_the_sound_and_other_passages_have_no_button(qtbot, sound_server, recording: Path,
                                                                        tmp_path: Path) -> None:
    viewer = SourceViewer({"path": str(recording), "heading": "0:00", "text": "fuse"}, "")
    qtbot.addWidget(viewer)
    viewer.show()
    viewer.listen_button.click()
    qtbot.waitUntil(lambda: viewer.listen_button.text() == "■ Stop listening", timeout=60_000)
    viewer.listen_button.click()
    assert viewer.listen_button.text() == "▶ Listen from 0:00" and viewer.played < 4
    viewer.listen_button.click()
    qtbot.waitUntil(lambda: viewer.listen_button.text() == "■ Stop listening", timeout=60_000)
    viewer.close()
    assert viewer._sink is None  # closing the source ends its sound
    pdf = SourceViewer({"path": str(tmp_path / "lease.pdf"), "heading": "1:00", "page": 2, "text": "x"}, "")
    qtbot.addWidget(pdf)
    attached = SourceViewer({"path": "interview.wav", "heading": "0:00", "text": "x"}, "")  # an attachment's
    qtbot.addWidget(attached)
    assert not pdf.listen_button.isVisibleTo(pdf) and not attached.listen_button.isVisibleTo(attached)


def test_what_is_not_a_recording_is_refused_and_a_reply_too_large_is_not_believed(tmp_path: Path,
                                                                                  recording: Path) -> None:
    import json

    from core import speech
    from storage.documents.parser_replies import Malformed, checked

    text = tmp_path / "notes.mp3"
    text.write_text("not sound at all")
    with pytest.raises(speech.ParseError):
        speech.listen(text, 0.0)
    assert len(speech.listen(recording, 0.0, 1.0)) == 2 * 16_000  # one second, 16-bit, 16 kHz
    huge = json.dumps({"status": "ok", "peak": 1, "rate": 16_000, "start": 0, "pcm": "A" * 3_000_000})
    with pytest.raises(Malformed):
        checked(huge.encode(), "listen")
