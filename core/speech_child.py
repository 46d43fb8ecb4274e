"""The speech child's limits and the child itself (#41), and a second of silence to load a
model with: what ``core.speech`` and ``core.speech_models`` both need, here so that
neither imports the other's other half."""

from __future__ import annotations

import contextlib
import threading
import wave
from collections.abc import Iterator
from pathlib import Path

from storage.documents.isolation import IsolatedParser

SPEECH_MEMORY_LIMIT = 3 << 30
SPEECH_TIMEOUT = 3600.0  # the half hour of sound a file may hold, at half of real time (a busy machine), and more


def silence_wav(path: Path, seconds: float = 1.0) -> None:
    """A WAV file of silence (16 kHz mono): what makes a model load without a recording."""
    with wave.open(str(path), "wb") as out:
        out.setnchannels(1)
        out.setsampwidth(2)
        out.setframerate(16_000)
        out.writeframes(b"\0\0" * int(16_000 * seconds))


@contextlib.contextmanager
def isolated_child(cancel: threading.Event | None, timeout: float = SPEECH_TIMEOUT) -> Iterator[IsolatedParser]:
    """A speech child of its own; ``cancel`` set from any thread kills it at once (its
    request then ends with ParseStopped), so a lock or a Stop never waits on Whisper."""
    child = IsolatedParser(timeout=timeout, memory_limit=SPEECH_MEMORY_LIMIT, background=False)
    done = threading.Event()

    def watch() -> None:
        while not done.is_set():
            if cancel is not None and cancel.wait(0.1):
                child.kill()
                return

    if cancel is not None:
        threading.Thread(target=watch, name="hearth-speech-stop", daemon=True).start()
    try:
        yield child
    finally:
        done.set()
        child.close()
