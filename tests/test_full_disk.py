"""A real full disk (a small tmpfs as the data folder): while a model is placed, while a
document import runs, while an answer streams, and when a message is sent. Each time:
a message that names the full disk, no traceback, nothing acknowledged lost, no partial
file left; after space is freed the vault checks sound and the work can be finished."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from inference.bundled import embedding_model, provision, source_path
from inference.errors import ModelLoadError

ROOT = Path(__file__).resolve().parent.parent
PASSPHRASE = "full disk passphrase"


def _leftovers(folder: Path) -> list[str]:
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*")
                  if p.name.endswith((".partial", ".creating", ".restoring")) or ".importing-" in p.name)


def _cli(data: Path, *args: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, HEARTH_DATA_DIR=str(data), HEARTH_PASSPHRASE=PASSPHRASE)
    return subprocess.run([sys.executable, "-m", "app", *args], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=600)


def test_placing_a_model_on_a_full_disk_says_so_and_leaves_nothing(make_small_disk) -> None:
    model = embedding_model()
    size = source_path(model).stat().st_size
    disk = make_small_disk(max(1, size // (1 << 20) // 2))  # half the model fits
    with pytest.raises(ModelLoadError, match="The disk is full") as caught:
        provision(model, disk.path / "models")
    assert "Nothing was left behind" in str(caught.value)
    assert _leftovers(disk.path) == []
    assert list((disk.path / "models").iterdir()) == []


@pytest.mark.slow
def test_docs_add_on_a_disk_too_small_for_the_embedding_model_says_so_without_a_traceback(
        make_small_disk, tmp_path: Path) -> None:
    """The case found by hand: a 40 MB data folder, a larger embedding model (70 MB)."""
    disk = make_small_disk(40)
    note = tmp_path / "note.txt"
    note.write_text("The lighthouse keeper wrote in the log every night.")
    done = _cli(disk.path, "docs", "add", "notes", str(note))
    assert done.returncode == 1
    assert "The disk is full" in done.stderr
    assert "Traceback" not in done.stderr + done.stdout
    assert _leftovers(disk.path) == []


@pytest.mark.slow
def test_docs_add_on_a_full_disk_says_so_and_the_same_command_finishes_after_space_is_freed(
        make_small_disk, tmp_path: Path) -> None:
    model_mb = source_path(embedding_model()).stat().st_size >> 20
    disk = make_small_disk(model_mb + 24)  # the model and about 20 MB besides
    provision(embedding_model(), disk.path / "models")  # the model fits; then the disk fills
    created = _cli(disk.path, "check-vault")  # creates the vault with the passphrase
    assert created.returncode == 0, created.stderr
    folder = tmp_path / "docs"
    folder.mkdir()
    for n in range(3):
        (folder / f"note{n}.txt").write_text(f"Note {n}: the keeper counted {n} ships passing at dawn. " * 40)
    disk.fill()
    done = _cli(disk.path, "docs", "add", "notes", str(folder))
    assert done.returncode == 1
    assert "The disk is full" in done.stderr, done.stderr
    assert "Traceback" not in done.stderr + done.stdout
    disk.free()
    assert _cli(disk.path, "check-vault").returncode == 0
    again = _cli(disk.path, "docs", "add", "notes", str(folder))
    assert again.returncode == 0, again.stderr
    assert "3 indexed, 0 skipped, 0 failed" in again.stdout
    assert _leftovers(disk.path) == []
