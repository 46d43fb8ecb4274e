"""Copying a model into the library and probing it: cancellable, and never a partial file."""

from __future__ import annotations

import errno
import sys
import threading
from pathlib import Path

import pytest

from core.models import Cancelled, copy_with_hash, hash_file


def _model(path: Path, size: int) -> Path:
    path.write_bytes(b"GGUF" + b"\x01" * (size - 4))
    return path


def test_a_copy_names_the_file_by_its_hash(tmp_path: Path) -> None:
    source = _model(tmp_path / "m.gguf", 3 << 20)
    target, sha = copy_with_hash(source, tmp_path / "library")
    assert target.name == f"{sha}.gguf" and sha == hash_file(source)
    assert target.read_bytes() == source.read_bytes()


def test_a_cancelled_copy_stops_and_leaves_nothing(tmp_path: Path) -> None:
    source = _model(tmp_path / "m.gguf", 3 << 20)
    cancel = threading.Event()
    cancel.set()
    with pytest.raises(Cancelled):
        copy_with_hash(source, tmp_path / "library", cancel)
    assert list((tmp_path / "library").iterdir()) == []
    with pytest.raises(Cancelled):
        hash_file(source, cancel)


def test_a_copy_onto_a_full_disk_raises_enospc_and_leaves_nothing(make_small_disk, tmp_path: Path) -> None:
    from storage.errors import FULL, trouble

    disk = make_small_disk(2)
    source = _model(tmp_path / "m.gguf", 4 << 20)
    with pytest.raises(OSError) as caught:
        copy_with_hash(source, disk.path / "library")
    assert caught.value.errno == errno.ENOSPC and trouble(caught.value).kind == FULL
    assert list((disk.path / "library").iterdir()) == []


def test_a_probe_is_cancelled_at_once_and_its_child_killed(tmp_path: Path, monkeypatch) -> None:
    from inference import probe as probe_module

    marker = tmp_path / "child.pid"
    code = f"import os, time; open({str(marker)!r}, 'w').write(str(os.getpid())); time.sleep(60)"
    monkeypatch.setattr(probe_module, "probe_command", lambda *_a: [sys.executable, "-c", code])
    cancel = threading.Event()
    threading.Timer(0.5, cancel.set).start()
    with pytest.raises(probe_module.ProbeCancelled):
        probe_module.probe(tmp_path / "m.gguf", cancel=cancel)
    import psutil

    assert not psutil.pid_exists(int(marker.read_text()))  # killed and reaped, not left running


def test_a_file_replaced_in_place_with_its_size_and_mtime_kept_has_another_signature(tmp_path) -> None:
    """touch -r restores the mtime; the inode's change time cannot be set back."""
    import os
    import time

    from core.models import file_signature

    model = tmp_path / "model.gguf"
    model.write_bytes(b"a" * 100)
    before = file_signature(model)
    stat = os.stat(model)
    time.sleep(0.01)
    model.write_bytes(b"b" * 100)  # the same size
    os.utime(model, ns=(stat.st_atime_ns, stat.st_mtime_ns))  # and the same mtime
    after = file_signature(model)
    assert (after["size"], after["mtime_ns"]) == (before["size"], before["mtime_ns"])
    assert after != before


def test_an_earlier_versions_embedding_model_is_found_where_it_left_it(monkeypatch) -> None:
    """After the update its file is still in the models folder (no longer in the bundle):
    it can answer for its collections until they are re-embedded."""
    from core import models as core_models
    from inference.bundled import retired_embedding_models
    from storage.paths import models_dir

    retired = retired_embedding_models()[0]
    monkeypatch.setattr(core_models, "source_path", lambda _m: None)  # as in the installed app
    assert core_models.previous_embedding_models() == []
    placed = models_dir() / retired.file
    placed.write_bytes(b"GGUF")  # the worker hashes it when it loads: a look-alike answers for nothing
    assert core_models.previous_embedding_models() == [(placed, retired.sha256)]
