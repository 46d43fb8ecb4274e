"""Another Whisper model imported from a folder and chosen for speech (#41). The model
imported is the real bundled Whisper base copied to a folder of its own (no other size is
in the registries this machine reaches; any CTranslate2 Whisper folder goes the same way);
the bad folders are made as an attacker or a broken download would make them."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from core import speech_models
from core.speech import speech_model, transcribe
from core.speech_models import SpeechModelError, import_folder
from storage.paths import models_dir

pytestmark = pytest.mark.model
ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def folder(data_dir: Path, tmp_path: Path) -> Path:
    """A CTranslate2 Whisper model's folder as a user would have it (outside Hearth's)."""
    source = speech_model()  # the bundled one, placed
    copy = tmp_path / "whisper-base-ct2"
    shutil.copytree(source, copy)
    return copy


def _leftovers() -> list[str]:
    root = models_dir() / speech_models.FOLDER
    return sorted(p.name for p in root.iterdir() if p.name.startswith(".")) if root.is_dir() else []


def test_an_imported_model_is_checked_loaded_chosen_used_and_removed(folder: Path, tmp_path: Path) -> None:
    model = import_folder(folder, "Whisper base (my copy)")
    assert model.path.parent == models_dir() / speech_models.FOLDER and (model.path / "model.bin").is_file()
    assert [m.name for m in speech_models.imported()] == ["Whisper base (my copy)"]
    assert speech_models.chosen() is None  # imported is not chosen
    speech_models.choose("Whisper base (my copy)")
    assert speech_model() == model.path
    wav = tmp_path / "said.wav"
    subprocess.run(["espeak-ng", "-w", str(wav), "The boat leaves the harbour at noon."], check=True,
                   capture_output=True, timeout=60)
    heard = transcribe(wav, "en")
    assert "harbour" in heard.text.lower() or "harbor" in heard.text.lower(), heard.text
    with pytest.raises(SpeechModelError, match="there already"):
        import_folder(folder, "Whisper base (my copy)")
    speech_models.remove("Whisper base (my copy)")
    assert speech_models.imported() == [] and speech_models.chosen() is None
    assert speech_model().name == "whisper-base" and not model.path.exists()
    assert _leftovers() == []


@pytest.mark.parametrize("damage", ["not a folder", "no tokenizer", "not ctranslate2", "a link", "bad config",
                                    "too small", "huge config", "deep config", "a pipe", "too large to load"])
def test_a_folder_that_is_not_a_whisper_model_is_refused_and_nothing_is_kept(
        folder: Path, tmp_path: Path, damage: str, monkeypatch) -> None:
    target: Path = folder
    if damage == "not a folder":
        target = folder / "model.bin"
    elif damage == "no tokenizer":
        (folder / "tokenizer.json").unlink()
    elif damage == "not ctranslate2":
        (folder / "model.bin").write_bytes(os.urandom(2 << 20))
    elif damage == "a link":
        secret = tmp_path / "secret.json"
        secret.write_text('{"the": "user\'s private file"}')
        (folder / "config.json").unlink()
        (folder / "config.json").symlink_to(secret)
    elif damage == "bad config":
        (folder / "config.json").write_text("[1, 2")
    elif damage == "too small":
        (folder / "model.bin").write_bytes((folder / "model.bin").read_bytes()[:4096])
    elif damage == "deep config":  # Python's JSON reader recurses: this must be a refusal, not a traceback
        (folder / "config.json").write_text("[" * 200_000)
    elif damage == "a pipe":  # would block an open() for good
        (folder / "vocabulary.txt").unlink()
        os.mkfifo(folder / "vocabulary.txt")
    elif damage == "too large to load":
        monkeypatch.setattr(speech_models, "MAX_MODEL", 1 << 20)
    else:
        (folder / "config.json").write_bytes(b" " * (speech_models.MAX_SIDE_FILE + 1))
    with pytest.raises(SpeechModelError, match="not a speech model Hearth can use"):
        import_folder(target, "broken")
    assert speech_models.imported() == [] and _leftovers() == []


def test_a_file_swapped_after_the_check_is_not_copied(folder: Path, tmp_path: Path, monkeypatch) -> None:
    """Checked by lstat, then read: a link put in its place between the two (to a file of
    the user's) is refused, not followed."""
    secret = tmp_path / "diary.txt"
    secret.write_text("my private diary " * 1000)
    checked = speech_models.check_folder

    def check_then_swap(where: Path):
        files = checked(where)
        (where / "tokenizer.json").unlink()
        (where / "tokenizer.json").symlink_to(secret)
        return files

    monkeypatch.setattr(speech_models, "check_folder", check_then_swap)
    with pytest.raises(SpeechModelError, match="not a speech model Hearth can use"):
        import_folder(folder, "swapped")
    assert speech_models.imported() == [] and _leftovers() == []
    copied = [p for p in (models_dir() / speech_models.FOLDER).rglob("*") if p.is_file()]
    assert not [p for p in copied if b"diary" in p.read_bytes()]


def test_a_model_that_does_not_load_in_the_child_is_not_kept(folder: Path) -> None:
    """The right header, then garbage: CTranslate2 fails on it in the isolated child."""
    data = bytearray((folder / "model.bin").read_bytes())
    data[200:] = os.urandom(len(data) - 200)
    (folder / "model.bin").write_bytes(bytes(data))
    with pytest.raises(SpeechModelError, match="did not load"):
        import_folder(folder, "garbled")
    assert speech_models.imported() == [] and _leftovers() == []


def test_a_cancelled_import_keeps_nothing(folder: Path) -> None:
    cancel = threading.Event()
    cancel.set()
    with pytest.raises(SpeechModelError, match="cancelled"):
        import_folder(folder, "cancelled", cancel)
    assert speech_models.imported() == [] and _leftovers() == []


def test_a_full_disk_says_so_and_keeps_nothing(folder: Path, make_small_disk, monkeypatch) -> None:
    disk = make_small_disk(64)  # the model is 145 MB
    monkeypatch.setenv("HEARTH_DATA_DIR", str(disk.path))
    with pytest.raises(SpeechModelError, match="The disk is full"):
        import_folder(folder, "too big for the disk")
    assert speech_models.imported() == [] and _leftovers() == []


def test_the_terminal_imports_lists_chooses_and_removes(folder: Path, data_dir: Path) -> None:
    env = dict(os.environ, HEARTH_DATA_DIR=str(data_dir))

    def cli(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-m", "app", "models", *args], cwd=ROOT, env=env,
                              capture_output=True, text=True, timeout=600)

    done = cli("import-speech", str(folder), "--name", "Base copy")
    assert done.returncode == 0, done.stderr
    assert "“Base copy” imported" in done.stdout
    assert cli("use-speech", "Base copy").returncode == 0
    listed = cli("speech").stdout.splitlines()
    assert listed == ["  Whisper base (bundled)", "* Base copy  (145 MB)"]
    refused = cli("import-speech", str(folder / "config.json"))
    assert refused.returncode == 1 and "not a folder" in refused.stderr and "Traceback" not in refused.stderr
    assert cli("use-speech", "nothing like it").returncode == 1
    assert cli("remove-speech", "Base copy").returncode == 0
    assert cli("speech").stdout.splitlines() == ["* Whisper base (bundled)"]
