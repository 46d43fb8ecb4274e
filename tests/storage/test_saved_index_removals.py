"""What was taken out of the search index must go from its sealed file too (vault.db.index):
a removed document's or a deleted collection's words, headings and vectors. The file is
read back with the project's own reader and the vault's key, as a thief with the
passphrase would read it."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from core.documents import Ingestion
from storage.documents import index_file
from storage.documents.chunking import Chunk
from storage.documents.indexes import Indexes
from storage.documents.store import INDEXED, Document, DocumentStore
from storage.vault import Vault
from tests.storage.conftest import FAST_KDF, PASSPHRASE

MODEL = "e5"
SECRET = ["kowalczyk", "alimony", "nicosia"]
SECRET_HEADING = "Privileged: Kowalczyk settlement"
SECRET_VECTOR = np.array([5, -3, 2, 7, -1, 4, -6, 3], dtype=np.float32)  # unlike any other passage's


class _Steps:
    def check(self) -> None:
        pass


@pytest.fixture
def vault(tmp_path: Path):
    v = Vault.create(tmp_path / "vault.db", PASSPHRASE, FAST_KDF)
    yield v
    if not v.closed:
        v.close()


def _collection(store: DocumentStore, name: str) -> int:
    created = store.create_collection(name)
    store.update_collection(type(created)(created.id, name, [], MODEL, 0.0))
    return created.id


def _add(store: DocumentStore, collection_id: int, path: str, texts: list[str], heading: str,
         vectors: np.ndarray | None = None) -> Document:
    document = store.save_document(Document(0, collection_id, path, INDEXED, chunks=len(texts)))
    chunks = [Chunk(t, 0, 1, heading, 0, len(t)) for t in texts]
    if vectors is None:
        vectors = np.random.default_rng(len(texts)).standard_normal((len(texts), 8)).astype(np.float32)
    store.replace_chunks(document, chunks, vectors, MODEL)
    return document


def _secret(store: DocumentStore, collection_id: int) -> Document:
    texts = [f"Mrs Kowalczyk moved the alimony to an account in Nicosia, note {n}" for n in range(5)]
    return _add(store, collection_id, "/matters/kowalczyk.md", texts, SECRET_HEADING, np.tile(SECRET_VECTOR, (5, 1)))


def _ordinary(store: DocumentStore, collection_id: int, count: int = 300) -> Document:
    return _add(store, collection_id, f"/matters/lease-{collection_id}.md",
                [f"ordinary lease clause {n} about the monthly rent" for n in range(count)], "Lease")


def _unlock(vault: Vault) -> Ingestion:
    ingestion = Ingestion(DocumentStore(vault), Indexes(), _Steps())  # type: ignore[arg-type]
    ingestion.load()
    return ingestion


def _held(vault: Vault) -> dict[str, Any]:
    """What the sealed file holds of the secret document: its words (with any count, zero
    too), its heading, whether any vector (exact or coded) points its way, its passages."""
    _header, arrays = index_file.read(vault.path, vault.cipher)
    words: list[str] = []
    headings = ""
    vector_found = False
    passages = 0
    unit = SECRET_VECTOR / np.linalg.norm(SECRET_VECTOR)
    for name, array in arrays.items():
        if name.endswith(".words"):
            words += array.tobytes().decode().split("\n") if len(array) else []
        elif name.endswith(".headings"):
            headings += array.tobytes().decode()
        elif name.endswith(".vectors") and len(array):
            vector_found |= bool((np.asarray(array, np.float32) @ unit > 0.99).any())
        elif name.endswith(".codes") and len(array):
            codes = np.asarray(array, np.float32)
            norms = np.linalg.norm(codes, axis=1, keepdims=True)
            vector_found |= bool(((codes / np.maximum(norms, 1e-9)) @ unit > 0.99).any())
        elif name.endswith(".ids"):
            passages += len(array)
    return {"words": sorted(set(SECRET) & set(words)), "heading": SECRET_HEADING in headings,
            "vector": vector_found, "passages": passages}


GONE = {"words": [], "heading": False, "vector": False}


def _gone(vault: Vault) -> bool:
    held = _held(vault)
    return {k: held[k] for k in GONE} == GONE


def test_the_secret_is_in_the_file_at_first(vault: Vault) -> None:
    """The test's own reading finds what it looks for (so that its absence later means something)."""
    store = DocumentStore(vault)
    clients = _collection(store, "clients")
    _secret(store, clients)
    _ordinary(store, clients)
    _unlock(vault).save_index(lambda: None)
    assert _held(vault) == {"words": sorted(SECRET), "heading": True, "vector": True, "passages": 305}


def test_a_removed_document_is_not_in_the_file_once_its_removal_is_handled(vault: Vault) -> None:
    """One small document out of a larger collection (5 of 305 passages: far below what
    would make a save due by the amount changed): the removal alone makes a save due, and
    the file written then holds none of its words (not even with a count of 0), heading or
    vectors; nor after a lock and unlock and another save."""
    store = DocumentStore(vault)
    clients = _collection(store, "clients")
    secret = _secret(store, clients)
    _ordinary(store, clients)
    ingestion = _unlock(vault)
    ingestion.save_index(lambda: None)
    assert not ingestion.index_due()
    ingestion.remove_document(clients, secret.id)
    assert ingestion.index_due()  # whatever its size
    ingestion.save_index(lambda: None)  # what the service does once idle
    assert not ingestion.index_due()
    assert _gone(vault) and _held(vault)["passages"] == 300
    path = vault.path
    vault.close()
    again = Vault.open(path, PASSPHRASE)
    try:
        ingestion = _unlock(again)
        assert len(ingestion.indexes) == 300 and not ingestion.index_due()
        ingestion.indexes.index(MODEL).changes += 1_000  # a later save, for any reason
        ingestion.save_index(lambda: None)
        assert _gone(again)
    finally:
        again.close()


def test_a_deleted_collection_is_not_in_the_file_once_its_deletion_is_handled(vault: Vault) -> None:
    store = DocumentStore(vault)
    leases = _collection(store, "leases")
    _ordinary(store, leases, count=400)
    clients = _collection(store, "Kowalczyk")
    _secret(store, clients)
    ingestion = _unlock(vault)
    ingestion.save_index(lambda: None)
    ingestion.delete(clients)
    assert ingestion.index_due()
    ingestion.save_index(lambda: None)
    assert _gone(vault) and _held(vault)["passages"] == 400


def test_a_removal_the_file_did_not_see_makes_the_next_unlock_save(vault: Vault) -> None:
    """The document was removed while the file was not written again (another process, or
    a Hearth that stopped before it could): the unlock leaves its passages out, and that
    makes a save due at once; the words it left out are not kept for the next save."""
    store = DocumentStore(vault)
    clients = _collection(store, "clients")
    secret = _secret(store, clients)
    _ordinary(store, clients)
    _unlock(vault).save_index(lambda: None)
    store.delete_document(secret.id)  # behind the index's back
    ingestion = _unlock(vault)
    assert len(ingestion.indexes) == 300 and ingestion.index_due()
    assert not set(SECRET) & set(ingestion.indexes.index(MODEL)._base)  # not kept to be written again
    ingestion.save_index(lambda: None)
    assert _gone(vault)


def test_words_no_passage_holds_any_more_are_not_written(vault: Vault) -> None:
    """A save after a removal writes only the words of the passages it writes: a word list
    with the removed matter's names at a count of 0 names them all the same."""
    store = DocumentStore(vault)
    clients = _collection(store, "clients")
    secret = _secret(store, clients)
    _ordinary(store, clients)
    ingestion = _unlock(vault)
    ingestion.remove_document(clients, secret.id)
    index = ingestion.indexes.index(MODEL)
    header, items = ingestion.indexes.export(store.chunk_nonces(lambda: None))
    written = {name: b"".join(bytes(memoryview(np.ascontiguousarray(p)).cast("B")) if isinstance(p, np.ndarray)
                              else bytes(p) for p in pieces) for name, _dtype, _shape, pieces in items}
    words = written["0.words"].decode().split("\n")
    counts = np.frombuffer(written["0.counts"], dtype=np.int64)
    assert not set(SECRET) & set(words)
    assert len(words) == len(counts) and (counts > 0).all()
    assert "lease" in words and index.search("lease rent", None, k=3)  # the rest is all there


def test_an_index_of_nothing_is_saved_and_read_back_without_a_warning(
        vault: Vault, caplog: pytest.LogCaptureFixture) -> None:
    """Every collection deleted and the index saved: the next unlock reads the empty file
    as it is, not as damage to build again from the vault."""
    store = DocumentStore(vault)
    clients = _collection(store, "clients")
    _secret(store, clients)
    ingestion = _unlock(vault)
    ingestion.save_index(lambda: None)
    ingestion.delete(clients)
    ingestion.save_index(lambda: None)
    header, arrays = index_file.read(vault.path, vault.cipher)
    Indexes().restore(header, arrays, {}, store.chunk_nonces(lambda: None))  # no ValueError
    with caplog.at_level(logging.INFO, logger="core.documents"):
        again = _unlock(vault)
    assert len(again.indexes) == 0 and not again.index_due()
    assert "does not read" not in caplog.text and "not used" not in caplog.text
    assert "0 passages from the saved index, 0 rows read" in caplog.text


def test_a_passphrase_change_seals_the_index_again_without_what_was_taken_out(vault: Vault) -> None:
    """A passphrase change deletes the file and the index is sealed again at once under the
    new key, from memory: without the removed document's words, even those it still
    counts (at 0) in memory."""
    store = DocumentStore(vault)
    clients = _collection(store, "clients")
    secret = _secret(store, clients)
    _ordinary(store, clients)
    ingestion = _unlock(vault)
    ingestion.save_index(lambda: None)
    ingestion.remove_document(clients, secret.id)
    vault.change_passphrase(PASSPHRASE, "copper meadow falcon ridge 77")
    assert not index_file.path_for(vault.path).exists() and ingestion.index_due()
    ingestion.save_index(lambda: None)
    assert _gone(vault) and _held(vault)["passages"] == 300


def test_a_save_after_a_removal_that_the_disk_refuses_deletes_the_file(make_small_disk, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """A real full disk (tmpfs): the save that the removal made due fails with ENOSPC, and
    the service counts the index as saved (``saved_now``, so as not to try again at once):
    the file that still holds the removed document is deleted then, not kept."""
    import errno

    disk = make_small_disk(8)
    vault = Vault.create(disk.path / "vault.db", PASSPHRASE, FAST_KDF)
    try:
        store = DocumentStore(vault)
        clients = _collection(store, "clients")
        secret = _secret(store, clients)
        _ordinary(store, clients)
        ingestion = _unlock(vault)
        ingestion.save_index(lambda: None)
        ingestion.remove_document(clients, secret.id)
        rows_now = store.chunk_nonces()  # (SQLite's own reads need room too: read before the disk fills)
        monkeypatch.setattr(ingestion.store, "chunk_nonces", lambda _check=None: rows_now)
        disk.fill()
        with pytest.raises(OSError) as failed:
            ingestion.save_index(lambda: None)
        assert failed.value.errno == errno.ENOSPC and _held(vault)["words"]
        ingestion.saved_now()  # what the service does after a save that failed
        assert not index_file.path_for(vault.path).exists() and not ingestion.index_due()
        disk.free()
    finally:
        vault.close()
