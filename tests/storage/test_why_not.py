"""``storage.errors.why_not``: a failure on a file the user chose, said in their words (the
one place the window and the terminal take it from), the system's own text only in the
log. Real failures: a file no longer there, a folder that cannot be written to, a folder
where a file was expected, a full disk."""

from __future__ import annotations

import logging
import os
import stat
from pathlib import Path

import pytest

import i18n
from storage.errors import why_not


@pytest.fixture(autouse=True)
def english():
    i18n.install(i18n.Catalog.load("en"))
    yield
    i18n.install(None)


def _failure(action) -> OSError:
    with pytest.raises(OSError) as caught:
        action()
    return caught.value


def test_a_file_no_longer_there(tmp_path: Path, caplog) -> None:
    exc = _failure(lambda: (tmp_path / "gone.txt").read_bytes())
    with caplog.at_level(logging.INFO, "storage.errors"):
        said = why_not(exc)
    assert said == "it is no longer there (it was moved, renamed or deleted)"
    assert "No such file" in caplog.text and "No such file" not in said  # the system's words: the log's


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() == 0,
                    reason="root writes in a read-only folder; the full-disk test below runs as root")
def test_a_folder_that_cannot_be_written_to(tmp_path: Path) -> None:
    folder = tmp_path / "locked"
    folder.mkdir()
    folder.chmod(stat.S_IRUSR | stat.S_IXUSR)
    try:
        exc = _failure(lambda: (folder / "x.md").write_text("x"))
    finally:
        folder.chmod(stat.S_IRWXU)
    assert why_not(exc, folder, writing=True) == ("that folder cannot be written to (it is read-only or not "
                                                  "yours); choose another")


def test_anything_else_is_a_general_sentence(tmp_path: Path) -> None:
    exc = _failure(lambda: tmp_path.read_bytes())  # a folder where a file was expected: EISDIR
    assert why_not(exc) == "the system refused it (the details are in the log)"


def test_a_full_disk(make_small_disk) -> None:
    disk = make_small_disk(1)
    disk.fill()
    exc = _failure(lambda: (disk.path / "more").write_bytes(b"x" * 65536))
    assert why_not(exc, disk.path, writing=True) == ("the disk is full; free some space or choose another drive, "
                                                     "then try again")
