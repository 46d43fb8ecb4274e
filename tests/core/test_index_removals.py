"""A document removed or a collection deleted through the document service leaves the
sealed search index file (vault.db.index) once the service has handled it: the file is
written again without it in the service's idle time, or, if a lock or a quit comes first,
deleted. Real vaults, a real service and session; the file is read with the project's own
reader and the vault's key. No embedding is needed (the passages are stored directly), so
the service's worker is never called."""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from concurrent.futures import Future
from pathlib import Path

import numpy as np
import pytest

from core.document_service import DocumentService
from core.documents import Ingestion
from core.session import Session
from storage.documents import index_file
from storage.documents.chunking import Chunk
from storage.documents.store import INDEXED, Document, DocumentStore
from storage.vault import Vault
from tests.storage.conftest import FAST_KDF, PASSPHRASE

WAIT = 60.0
MODEL = "e5"
SECRET = {"kowalczyk", "alimony", "nicosia"}
HEADING = "Privileged: Kowalczyk settlement"


def _until(condition: Callable[[], bool]) -> None:
    """Wait for what the service does in its own time (bounded; not a sleep)."""
    waited = threading.Event()
    for _ in range(int(WAIT * 10)):
        if condition():
            return
        waited.wait(0.1)
    raise AssertionError("it did not happen")


def _fill(vault: Vault) -> tuple[int, int, int]:
    """A collection of leases (300 passages), one secret document in it, and a second
    collection of its own with a secret; their ids (leases, the document, the second)."""
    store = DocumentStore(vault)
    ids = []
    for name in ("leases", "Kowalczyk"):
        created = store.create_collection(name)
        store.update_collection(type(created)(created.id, name, [], MODEL, 0.0))
        ids.append(created.id)

    def add(collection_id: int, path: str, texts: list[str], heading: str) -> Document:
        document = store.save_document(Document(0, collection_id, path, INDEXED, chunks=len(texts)))
        store.replace_chunks(document, [Chunk(t, 0, 1, heading, 0, len(t)) for t in texts],
                             np.random.default_rng(len(texts)).standard_normal((len(texts), 8)).astype(np.float32),
                             MODEL)
        return document

    add(ids[0], "/m/leases.md", [f"lease clause {n} about the monthly rent" for n in range(300)], "Lease")
    secret = [f"Mrs Kowalczyk moved the alimony to Nicosia, note {n}" for n in range(4)]
    document = add(ids[0], "/m/kowalczyk.md", secret, HEADING)
    add(ids[1], "/m/k2.md", secret, HEADING)
    return ids[0], document.id, ids[1]


def _held(vault: Vault) -> set[str]:
    """The secret words and heading the file holds (with any count); a missing file holds none."""
    if not index_file.path_for(vault.path).exists():
        return set()
    _header, arrays = index_file.read(vault.path, vault.cipher)
    found: set[str] = set()
    for name, array in arrays.items():
        if name.endswith(".words") and len(array):
            found |= SECRET & set(array.tobytes().decode().split("\n"))
        elif name.endswith(".headings") and HEADING in array.tobytes().decode():
            found.add(HEADING)
    return found


def _service(vault: Vault, **options: object) -> DocumentService:
    service = DocumentService(vault, lambda _command: None, MODEL, lambda _event: None, **options)  # type: ignore[arg-type]
    service.start()
    loaded: Future = Future()
    service.load_index(done=loaded)
    loaded.result(timeout=WAIT)
    return service


def _saved(vault: Vault) -> None:
    """The index saved once with everything in it (and the secret there, to begin with)."""
    service = _service(vault)
    _until(lambda: index_file.path_for(vault.path).exists())
    done: Future = Future()
    service.save_index(done)
    done.result(timeout=WAIT)
    assert service.close(WAIT)
    assert _held(vault) == {*SECRET, HEADING}


@pytest.fixture
def vault(tmp_path: Path):
    v = Vault.create(tmp_path / "vault.db", PASSPHRASE, FAST_KDF)
    yield v
    if not v.closed:
        v.close()


def test_a_removed_document_and_a_deleted_collection_leave_the_file_in_the_idle_save(vault: Vault) -> None:
    leases, document, kowalczyk = _fill(vault)
    _saved(vault)
    service = _service(vault)
    removed: Future = Future()
    service.remove_document(leases, document, done=removed)
    removed.result(timeout=WAIT)
    assert _held(vault) == {*SECRET, HEADING}  # still in the other collection
    deleted: Future = Future()
    service.delete(kowalczyk, done=deleted)
    deleted.result(timeout=WAIT)
    _until(lambda: not _held(vault))  # written again, by itself, once idle
    assert index_file.path_for(vault.path).exists()
    assert service.close(WAIT)


def _held_off(monkeypatch: pytest.MonkeyPatch) -> threading.Event:
    """Saves that take longer than the lock waits (a large index): each goes on until the
    service stops it. The event: one has begun."""
    begun = threading.Event()

    def long_save(self: Ingestion, check: Callable[[], None]) -> int:
        begun.set()
        while True:
            check()  # a lock, a quit or the next job stops it here
            threading.Event().wait(0.02)

    monkeypatch.setattr(Ingestion, "save_index", long_save)
    return begun


def test_a_lock_before_the_save_deletes_the_file_and_the_next_unlock_holds_nothing_of_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture) -> None:
    path = tmp_path / "vault.db"
    session = Session.create(path, PASSPHRASE, FAST_KDF)
    leases, document, kowalczyk = _fill(session.vault)
    _saved(session.vault)
    begun = _held_off(monkeypatch)
    service = session.documents(lambda _command: None, MODEL, lambda _event: None, stop_within=WAIT)
    loaded: Future = Future()
    service.load_index(done=loaded)
    loaded.result(timeout=WAIT)
    removed: Future = Future()
    service.remove_document(leases, document, done=removed)
    removed.result(timeout=WAIT)
    deleted: Future = Future()
    service.delete(kowalczyk, done=deleted)
    deleted.result(timeout=WAIT)
    begun.wait(WAIT)  # the save after them has begun, and is stopped by the lock
    session.close(timeout=WAIT)  # the lock
    assert not index_file.path_for(path).exists()
    monkeypatch.undo()
    again = Session.open(path, PASSPHRASE)
    try:
        with caplog.at_level(logging.INFO):
            service = again.documents(lambda _command: None, MODEL, lambda _event: None, stop_within=WAIT)
            loaded = Future()
            service.load_index(done=loaded)
            assert loaded.result(timeout=WAIT) == 300
            _until(lambda: index_file.path_for(path).exists())  # built from the rows, and saved
        assert not _held(again.vault)
        assert "does not read" not in caplog.text and "could not be read" not in caplog.text
    finally:
        again.close(timeout=WAIT)


def _passages(vault: Vault) -> int:
    """How many passages the file holds."""
    _header, arrays = index_file.read(vault.path, vault.cipher)
    return sum(len(a) for name, a in arrays.items() if name.endswith(".ids"))


def test_a_command_that_only_reads_leaves_the_file_for_the_app(vault: Vault) -> None:
    """A terminal command that only reads (docs search, ask) writes nothing, the index file
    included: one that loads a file holding a document removed elsewhere leaves it as it
    is, for the app's next unlock, which leaves the document out and saves at once."""
    _leases, document, _kowalczyk = _fill(vault)
    _saved(vault)
    DocumentStore(vault).delete_document(document)  # elsewhere, the file not written since
    service = _service(vault, save_when_idle=False)
    assert service.close(WAIT)
    assert _passages(vault) == 308
    service = _service(vault)
    _until(lambda: _passages(vault) == 304)
    assert service.close(WAIT)
