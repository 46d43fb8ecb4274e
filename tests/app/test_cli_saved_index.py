"""#43: a terminal command that changes documents seals the search index before it ends, as
the window does when idle, so that the next unlock loads it instead of reading every
passage again; a save that fails is logged and the command's work stands. The commands
run in this process (the real vault, worker, embedding model and parser)."""

from __future__ import annotations

import errno
import logging
import re
from collections.abc import Callable
from pathlib import Path

import pytest

from cli.docs import docs_add, docs_search, docs_sync
from core.documents import Ingestion
from core.vault import vault_path
from storage.documents import index_file
from storage.documents.indexes import Indexes
from storage.documents.store import DocumentStore
from storage.vault import Vault

pytestmark = pytest.mark.model
PASSPHRASE = "lantern quarry velvet"


class _Steps:
    def check(self) -> None:
        pass


def _notes(folder: Path, names: list[str]) -> Path:
    folder.mkdir(exist_ok=True)
    for name in names:
        (folder / f"{name}.md").write_text(f"# {name}\nThe {name} nests by the harbor wall in spring.\n")
    return folder


def _unlock(caplog: pytest.LogCaptureFixture) -> tuple[int, int, int]:
    """The vault's passages, and how many a fresh unlock took from the saved index and
    read from their rows."""
    vault = Vault.open(vault_path(), PASSPHRASE)
    try:
        store = DocumentStore(vault)
        caplog.clear()
        with caplog.at_level(logging.INFO, logger="core.documents"):
            Ingestion(store, Indexes(texts=store.chunk_texts, vectors=store.chunk_vectors), _Steps()).load()  # type: ignore[arg-type]
        found = re.search(r"(\d+) passages from the saved index, (\d+) rows read", caplog.text)
        assert found is not None, caplog.text
        return sum(1 for _ in store.iter_chunks()), int(found[1]), int(found[2])
    finally:
        vault.close()


def _command(monkeypatch: pytest.MonkeyPatch, run: Callable[[], int]) -> int:
    monkeypatch.setenv("HEARTH_PASSPHRASE", PASSPHRASE)  # each command takes it from the environment
    return run()


def test_docs_add_and_sync_save_the_index_that_the_next_unlock_loads(
        data_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        caplog: pytest.LogCaptureFixture) -> None:
    folder = _notes(tmp_path / "notes", ["heron", "otter", "plover"])
    assert _command(monkeypatch, lambda: docs_add("birds", [str(folder)])) == 0
    saved = index_file.path_for(vault_path())
    assert saved.exists()
    stored, restored, read = _unlock(caplog)
    assert stored >= 3 and (restored, read) == (stored, 0)

    # A small addition is not worth a save (the idle save's rule): the next unlock reads
    # the new file's rows beside the saved index.
    _notes(folder, ["curlew"])
    assert _command(monkeypatch, lambda: docs_sync("birds")) == 0
    stored, restored, read = _unlock(caplog)
    assert read > 0 and restored + read == stored
    # A file gone is, whatever its size: what the vault no longer holds leaves the index's file.
    (folder / "otter.md").unlink()
    assert _command(monkeypatch, lambda: docs_sync("birds")) == 0
    stored, restored, read = _unlock(caplog)
    assert (restored, read) == (stored, 0)
    vault = Vault.open(vault_path(), PASSPHRASE)
    try:
        _header, arrays = index_file.read(vault.path, vault.cipher)
    finally:
        vault.close()
    assert "otter" not in arrays["0.words"].tobytes().decode().split("\n")

    # Without a usable file the next command that writes saves one, whatever it changed.
    saved.unlink()
    # A command that only reads writes no file (it would be cut off at its end, and a
    # terminal command may be running still with a key the window has retired).
    assert _command(monkeypatch, lambda: docs_search("birds", "Where do herons nest?", 3, False, "hybrid")) == 0
    assert not saved.exists()
    assert _command(monkeypatch, lambda: docs_sync("birds")) == 0
    assert saved.exists()
    assert _unlock(caplog) == (stored, stored, 0)


def test_a_save_that_fails_is_logged_and_the_import_stands(
        data_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        caplog: pytest.LogCaptureFixture, capsys: pytest.CaptureFixture[str]) -> None:
    def full(*_args: object, **_kwargs: object) -> int:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(DocumentStore, "save_index", full)
    folder = _notes(tmp_path / "notes", ["heron", "otter"])
    with caplog.at_level(logging.WARNING):
        assert _command(monkeypatch, lambda: docs_add("birds", [str(folder)])) == 0
    assert "2 indexed, 0 skipped, 0 failed" in capsys.readouterr().out
    assert "the search index was not saved (OSError: No space left on device)" in caplog.text
    assert not index_file.path_for(vault_path()).exists()
    stored, restored, read = _unlock(caplog)  # built from the rows, as before the save existed
    assert stored >= 2 and (restored, read) == (0, stored)
