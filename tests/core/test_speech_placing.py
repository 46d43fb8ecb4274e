"""Placing the bundled speech model the first time speech is used, when two placers meet:
two recordings attached at once (two threads of the window), or the window and
``python -m app transcribe`` (two processes). The real packages, the real join of the
model's halves, real threads and a real second process; the second placer is started
at the moment the first is joining ``model.bin``, where the race hurt."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from core import speech
from storage.paths import models_dir

pytestmark = [pytest.mark.model, pytest.mark.slow]
ROOT = Path(__file__).resolve().parents[2]
SIZE = 145_217_532


def _folder() -> Path:
    return models_dir() / "whisper-base"


def _meet_while_joining(monkeypatch: pytest.MonkeyPatch, start_second: Callable[[], None]) -> None:
    """Start the second placer when the first opens the model's first half, and let it
    run until it writes something aside (or 3 s, when it waits as it should)."""
    real_open = open
    fired = threading.Event()

    def opened(path, *args, **kwargs):
        if not fired.is_set() and str(path).endswith("model.bin.part1"):
            fired.set()
            before = set(_folder().glob(".joining-*"))
            start_second()
            deadline = time.monotonic() + 3.0
            while time.monotonic() < deadline and set(_folder().glob(".joining-*")) == before:
                time.sleep(0.02)
        return real_open(path, *args, **kwargs)

    monkeypatch.setattr(speech, "open", opened, raising=False)


def _placed_whole() -> None:
    folder = _folder()
    assert (folder / "model.bin").stat().st_size == SIZE and (folder / "tokenizer.json").is_file()
    assert list(folder.glob(".joining-*")) == []


def test_two_threads_placing_at_once_both_get_the_model(monkeypatch: pytest.MonkeyPatch) -> None:
    results: dict[int, str] = {}

    def place(n: int) -> None:
        try:
            results[n] = str(speech.speech_model())
        except Exception as exc:  # noqa: BLE001 - what the user would have been told
            results[n] = f"{type(exc).__name__}: {exc}"

    second = threading.Thread(target=place, args=(2,))
    _meet_while_joining(monkeypatch, second.start)
    place(1)
    second.join(120)
    assert results == {1: str(_folder()), 2: str(_folder())}
    _placed_whole()


def test_a_second_process_placing_at_once_waits_for_the_first(monkeypatch: pytest.MonkeyPatch) -> None:
    code = "from core import speech; print('ready', flush=True); print(speech.speech_model())"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    other: list[subprocess.Popen] = []

    def start() -> None:
        child = subprocess.Popen([sys.executable, "-c", code], cwd=ROOT, env=env, stdout=subprocess.PIPE,
                                 stderr=subprocess.PIPE, text=True)
        other.append(child)
        assert child.stdout is not None and child.stdout.readline().strip() == "ready"

    _meet_while_joining(monkeypatch, start)
    first = speech.speech_model()
    out, err = other[0].communicate(timeout=120)
    assert other[0].returncode == 0, err
    assert first == _folder() and out.strip() == str(_folder())
    _placed_whole()


def test_only_what_a_gone_placer_left_aside_is_removed() -> None:
    folder = _folder()
    folder.mkdir(parents=True)
    ended = subprocess.Popen([sys.executable, "-c", "pass"])
    ended.wait()
    alive = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)"])
    try:
        left = folder / f".joining-{ended.pid}-abc.partial"
        writing = folder / f".joining-{alive.pid}-def.partial"
        old_unnamed, new_unnamed = folder / ".joining-olduvw.partial", folder / ".joining-newxyz.partial"
        for path in (left, writing, old_unnamed, new_unnamed):
            path.write_bytes(b"half a model")
        os.utime(old_unnamed, (time.time() - 86_400,) * 2)  # a day: past speech.STALE_UNNAMED
        assert speech.speech_model() == folder
        assert not left.exists() and not old_unnamed.exists()
        assert writing.exists() and new_unnamed.exists()  # their writers may be at work
        assert (folder / "model.bin").stat().st_size == SIZE
    finally:
        alive.kill()
        alive.wait()
