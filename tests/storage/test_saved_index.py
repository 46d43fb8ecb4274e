"""The search index sealed beside the vault (#43): an unlock loads it instead of reading
every row, reads only the rows it does not hold, and trusts nothing in it that the rows
do not say now. Real vault files; the file is attacked as a thief or a bad disk would."""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from sqlalchemy import update

from core.documents import Ingestion
from storage import schema
from storage.crypto import FieldCipher
from storage.documents import index_file
from storage.documents.chunking import Chunk
from storage.documents.indexes import Indexes
from storage.documents.store import INDEXED, Document, DocumentStore, StoredChunk
from storage.vault import Vault
from tests.storage.conftest import FAST_KDF, PASSPHRASE

MODEL = "e5"
WORDS = ["owl", "heron", "falcon", "otter", "badger", "lynx", "marten", "kestrel", "curlew", "plover", "猫头鹰", "苍鹭", "游隼", "水獭", "獾", "猞猁", "貂", "红隼", "杓鹬", "鸻"]


class _Steps:
    def check(self) -> None:
        pass


def _text(rng: np.random.Generator, n: int) -> str:
    return f"passage {n}: " + " ".join(rng.choice(WORDS, size=12))


def _add(store: DocumentStore, collection_id: int, path: str, rng: np.random.Generator, count: int = 5,
         page: int | None = 1, heading: str | None = "Birds") -> Document:
    document = store.save_document(Document(0, collection_id, path, INDEXED, chunks=count))
    texts = [_text(rng, n) for n in range(count)]
    chunks = [Chunk(t, 0, page, heading if n % 2 else None, 0, len(t), "nav" if n == 3 else "")
              for n, t in enumerate(texts)]
    store.replace_chunks(document, chunks, rng.standard_normal((count, 8)).astype(np.float32), MODEL)
    return document


@pytest.fixture
def vault(tmp_path: Path):
    v = Vault.create(tmp_path / "vault.db", PASSPHRASE, FAST_KDF)
    yield v
    if not v.closed:
        v.close()


def _filled(vault: Vault, documents: int = 6) -> tuple[DocumentStore, int]:
    store = DocumentStore(vault)
    collection = store.create_collection("birds")
    store.update_collection(type(collection)(collection.id, "birds", [], MODEL, 0.0))
    rng = np.random.default_rng(3)
    for d in range(documents):
        _add(store, collection.id, f"/notes/{d}.md", rng, page=None if d == 2 else d + 1)
    return store, collection.id


class _Counting(DocumentStore):
    """The store, counting the rows an unlock reads and tokenises."""

    def __init__(self, vault: Vault) -> None:
        super().__init__(vault)
        self.read: list[int] = []

    def iter_chunks(self, collection_ids: list[int] | None = None, ids: list[int] | None = None,
                    paths: Any = None) -> Any:
        for chunk, vector in super().iter_chunks(collection_ids, ids, paths):
            self.read.append(chunk.id)
            yield chunk, vector


def _unlock(vault: Vault) -> tuple[_Counting, Ingestion]:
    store = _Counting(vault)
    ingestion = Ingestion(store, Indexes(), _Steps())  # type: ignore[arg-type]
    ingestion.load()
    return store, ingestion


def _everything(indexes: Indexes) -> list[tuple[Any, ...]]:
    """Every live passage as the index holds it, and the order of a few searches."""
    found = sorted((c.id, c.text, c.path, c.page, c.heading, c.start, c.end, c.role, c.collection_id,
                    c.document_id) for c in indexes.index(MODEL).live())
    vector = np.linspace(-1, 1, 8).astype(np.float32)
    # Every hit (k above the passages' number): passages of equal score come in the order
    # they were added, which a catch-up changes, so they are compared sorted.
    searches = [sorted((-round(h.score, 9), h.chunk.id, round(h.cosine, 5), round(h.bm25, 5))
                       for h in indexes.search(q, {MODEL: vector}, list(indexes.models), k=1000))
                for q in ("heron otter", "猫头鹰 水獭", "kestrel")]
    return [*found, *searches]


def _fresh(vault: Vault) -> list[tuple[Any, ...]]:
    """What an index built from every row holds."""
    index_file.remove(vault.path)
    return _everything(_unlock(vault)[1].indexes)


def test_an_unlock_loads_the_saved_index_and_reads_no_row_again(vault: Vault) -> None:
    store, _ = _filled(vault)
    first, ingestion = _unlock(vault)
    assert len(first.read) == 30 and ingestion.index_due()
    ingestion.save_index(lambda: None)
    assert not ingestion.index_due()
    again, restored = _unlock(vault)
    assert again.read == []  # nothing decrypted and tokenised row by row
    assert _everything(restored.indexes) == _everything(ingestion.indexes) == _fresh(vault)
    assert restored.indexes.index(MODEL).min_cosine == ingestion.indexes.index(MODEL).min_cosine


def test_rows_added_removed_and_moved_since_the_save_are_caught_up(vault: Vault) -> None:
    store, collection_id = _filled(vault)
    _, ingestion = _unlock(vault)
    ingestion.save_index(lambda: None)
    rng = np.random.default_rng(9)
    added = _add(store, collection_id, "/notes/new.md", rng, count=3)
    gone = next(d for d in store.documents(collection_id) if d.path == "/notes/1.md")
    store.replace_chunks(gone, [Chunk("rewritten otter text", 0, 2, None, 0, 20)],
                         np.ones((1, 8), np.float32), MODEL)  # the same document read again
    moved = next(d for d in store.documents(collection_id) if d.path == "/notes/4.md")
    store.save_document(Document(moved.id, collection_id, "/archive/4.md", INDEXED, chunks=5))
    store.delete_document(next(d for d in store.documents(collection_id) if d.path == "/notes/5.md").id)
    again, restored = _unlock(vault)
    new_rows = {c.id for c in restored.indexes.index(MODEL).live() if c.document_id in (added.id, gone.id)}
    assert set(again.read) == new_rows and len(new_rows) == 4
    assert _everything(restored.indexes) == _fresh(vault)
    assert any(row[2] == "/archive/4.md" for row in _everything(restored.indexes)[:-3])
    # Saved again, with postings it was loaded with and postings added since: the same.
    restored.save_index(lambda: None)
    third, last = _unlock(vault)
    assert third.read == [] and _everything(last.indexes) == _fresh(vault)


def test_a_row_written_again_under_its_own_id_is_read_from_the_row(vault: Vault) -> None:
    """A backup put back and written to again reuses ids: the file must not answer for them."""
    store, collection_id = _filled(vault)
    _, ingestion = _unlock(vault)
    ingestion.save_index(lambda: None)
    row_id, document_id = 7, next(iter(store.documents(collection_id))).id
    with vault.engine.begin() as conn:
        doc = conn.execute(schema.chunks.select().where(schema.chunks.c.id == row_id)).one()
        payload = {"text": "a different passage about lynx", "page": 1, "heading": None, "start": 0,
                   "end": 30, "section": 0, "model": MODEL, "role": ""}
        bind = (doc.collection_id, doc.document_id)
        conn.execute(update(schema.chunks).where(schema.chunks.c.id == row_id).values(
            payload=vault.cipher.encrypt(json.dumps(payload).encode(), "chunks", "payload", row_id, bind),
            vector=vault.cipher.encrypt(np.ones(8, np.float32).tobytes(), "chunks", "vector", row_id, bind)))
    again, restored = _unlock(vault)
    assert again.read == [row_id] and document_id
    texts = {c.id: c.text for c in restored.indexes.index(MODEL).live()}
    assert texts[row_id] == "a different passage about lynx"
    assert _everything(restored.indexes) == _fresh(vault)


@pytest.mark.parametrize("damage", ["flip", "cut", "append", "swap", "empty"])
def test_a_damaged_file_is_not_used_and_the_index_is_built_from_the_rows(
        vault: Vault, damage: str, caplog: pytest.LogCaptureFixture) -> None:
    _filled(vault, documents=40)
    _, ingestion = _unlock(vault)
    ingestion.save_index(lambda: None)
    path = index_file.path_for(vault.path)
    data = bytearray(path.read_bytes())
    assert len(data) > 50_000
    if damage == "flip":
        data[len(data) // 2] ^= 1
    elif damage == "cut":
        del data[-100:]
    elif damage == "append":
        data += data[-200:]
    elif damage == "swap":
        data[40:80], data[80:120] = data[80:120], data[40:80]
    else:
        data = bytearray()
    path.write_bytes(bytes(data))
    with caplog.at_level(logging.INFO):
        again, restored = _unlock(vault)
    assert len(again.read) == 200 and "is not used" in caplog.text
    assert _everything(restored.indexes) == _fresh(vault)


def test_another_vault_s_file_does_not_open_here(tmp_path: Path, vault: Vault) -> None:
    _filled(vault)
    _, ingestion = _unlock(vault)
    ingestion.save_index(lambda: None)
    other = Vault.create(tmp_path / "other.db", PASSPHRASE, FAST_KDF)
    try:
        _filled(other)
        index_file.path_for(vault.path).replace(index_file.path_for(other.path))
        again, _ = _unlock(other)
        assert len(again.read) == 30
    finally:
        other.close()


def test_the_file_holds_no_passage_in_plaintext_and_is_the_owner_s_alone(vault: Vault) -> None:
    store, collection_id = _filled(vault)
    document = store.save_document(Document(0, collection_id, "/notes/canary.md", INDEXED, chunks=1))
    canary = "CANARY-ZEBRA-7731 金丝雀七七三一"
    store.replace_chunks(document, [Chunk(canary, 0, 1, "CANARY-HEADING", 0, len(canary))],
                         np.ones((1, 8), np.float32), MODEL)
    _, ingestion = _unlock(vault)
    ingestion.save_index(lambda: None)
    path = index_file.path_for(vault.path)
    data = path.read_bytes()
    for secret in (canary, "CANARY", "金丝雀", "otter", "CANARY-HEADING"):
        assert secret.encode() not in data
    assert path.stat().st_mode & 0o077 == 0
    assert not list(path.parent.glob("*.partial"))


def test_a_passphrase_change_removes_the_file_under_the_old_key(vault: Vault) -> None:
    _filled(vault)
    _, ingestion = _unlock(vault)
    ingestion.save_index(lambda: None)
    vault.change_passphrase(PASSPHRASE, "another long passphrase 42", FAST_KDF)
    assert not index_file.path_for(vault.path).exists()
    again, _ = _unlock(vault)
    assert len(again.read) == 30


def test_after_a_passphrase_change_the_index_is_due_and_sealed_again_under_the_new_key(vault: Vault) -> None:
    """The change removed the file, and the running index counted as saved: nothing was
    due until a hundred passages changed, so the next unlock read every row again (about
    six minutes at a million passages). Now a save is due at once, under the new key, and
    the unlock after it reads no row."""
    _filled(vault)
    _, ingestion = _unlock(vault)
    ingestion.save_index(lambda: None)
    assert not ingestion.index_due()
    vault.change_passphrase(PASSPHRASE, "another long passphrase 42", FAST_KDF)
    assert ingestion.index_due()
    ingestion.save_index(lambda: None)
    assert not ingestion.index_due()
    vault.close()
    reopened = Vault.open(vault.path, "another long passphrase 42")
    try:
        again, _ = _unlock(reopened)
        assert again.read == []
    finally:
        reopened.close()


def test_a_save_overtaken_by_a_passphrase_change_leaves_no_file_under_the_old_key(
        vault: Vault, monkeypatch: pytest.MonkeyPatch) -> None:
    """A save that ran while the passphrase changed (the app saves in the background) was
    put in place after the change had removed the old file: a file sealed, in part, with
    the retired key, which the old passphrase (a copy of the vault made before) opens. It
    is not written now; the next save seals it under the new key."""
    from storage.crypto import open_envelope
    from storage.vault_file import read_envelope

    store, collection_id = _filled(vault, documents=40)
    _, ingestion = _unlock(vault)
    old_key = open_envelope(PASSPHRASE, read_envelope(vault.engine, vault.path))
    monkeypatch.setattr(index_file, "FRAME", 4096)  # a check between frames comes early
    checks: list[int] = []

    def change_midway() -> None:  # called between frames: some are sealed by then
        checks.append(1)
        if len(checks) == 6:
            vault.change_passphrase(PASSPHRASE, "another long passphrase 42", FAST_KDF)

    raised: Exception | None = None
    try:
        ingestion.save_index(change_midway)
    except Exception as exc:
        raised = exc
    assert len(checks) > 6 and not index_file.path_for(vault.path).exists()
    assert isinstance(raised, index_file.KeyChanged)
    assert not list(vault.path.parent.glob("*.partial"))
    with pytest.raises(index_file.UnusableIndexFile):  # nothing the old key opens, either
        index_file.read(vault.path, FieldCipher(old_key, vault.cipher.vault_id))
    assert ingestion.index_due()
    ingestion.save_index(lambda: None)
    assert index_file.read(vault.path, vault.cipher)[0]


def test_a_stopped_save_leaves_the_file_that_was_there(vault: Vault, monkeypatch: pytest.MonkeyPatch) -> None:
    store, collection_id = _filled(vault, documents=40)
    _, ingestion = _unlock(vault)
    ingestion.save_index(lambda: None)
    before = index_file.path_for(vault.path).read_bytes()
    _add(store, collection_id, "/notes/more.md", np.random.default_rng(1), count=2)
    _, ingestion = _unlock(vault)
    monkeypatch.setattr(index_file, "FRAME", 4096)  # a check between frames comes early

    def stop() -> None:
        raise KeyboardInterrupt  # a lock, a job, a quit: anything that ends it midway

    with pytest.raises(KeyboardInterrupt):
        ingestion.save_index(stop)
    assert index_file.path_for(vault.path).read_bytes() == before
    assert not list(vault.path.parent.glob("*.partial"))


def test_a_collection_on_another_model_now_answers_from_its_own_rows(vault: Vault) -> None:
    store, collection_id = _filled(vault)
    _, ingestion = _unlock(vault)
    ingestion.save_index(lambda: None)
    collection = store.get_collection(collection_id)
    assert collection is not None
    # The collection recorded another model without the rows of the old one being gone.
    store.update_collection(type(collection)(collection.id, "birds", [], "minilm", 0.0))
    again, restored = _unlock(vault)
    # Its rows are read and left out, as an unlock without the file leaves them.
    assert restored.indexes.count(collection_id) == 0 and len(again.read) == 30
    assert restored.indexes.index(MODEL).live() == []


def test_a_stored_chunk_without_a_page_or_heading_comes_back_so(vault: Vault) -> None:
    _filled(vault)
    _, ingestion = _unlock(vault)
    ingestion.save_index(lambda: None)
    _, restored = _unlock(vault)
    chunks = restored.indexes.index(MODEL).chunks
    assert any(c.page is None for c in chunks) and any(c.heading is None for c in chunks)
    assert any(c.role == "nav" for c in chunks)
    assert all(isinstance(c, StoredChunk) and c.model == MODEL for c in chunks)


def test_an_index_without_headings_and_one_emptied_come_back(vault: Vault) -> None:
    store = DocumentStore(vault)
    collection = store.create_collection("plain")
    store.update_collection(type(collection)(collection.id, "plain", [], MODEL, 0.0))
    _add(store, collection.id, "/plain.txt", np.random.default_rng(5), count=4, heading=None)
    _, ingestion = _unlock(vault)
    ingestion.save_index(lambda: None)
    again, restored = _unlock(vault)
    assert again.read == [] and len(restored.indexes) == 4
    assert _everything(restored.indexes) == _fresh(vault)
    store.delete_collection(collection.id)
    _, emptied = _unlock(vault)
    emptied.save_index(lambda: None)  # an index of nothing is a file too
    last, restored = _unlock(vault)
    assert last.read == [] and len(restored.indexes) == 0


def test_a_full_disk_stops_the_save_and_leaves_the_vault_and_the_last_file(
        make_small_disk, monkeypatch: pytest.MonkeyPatch) -> None:
    """A real full disk (tmpfs): the save fails with ENOSPC, no partial file stays, the file
    that was there still loads, and the index answers from the rows it did not hold."""
    import errno

    disk = make_small_disk(8)
    vault = Vault.create(disk.path / "vault.db", PASSPHRASE, FAST_KDF)
    try:
        store, collection_id = _filled(vault, documents=10)
        _, ingestion = _unlock(vault)
        ingestion.save_index(lambda: None)
        before = index_file.path_for(vault.path).read_bytes()
        _add(store, collection_id, "/notes/late.md", np.random.default_rng(2), count=150)
        _, ingestion = _unlock(vault)
        assert ingestion.index_due()
        # The rows' nonces read before the disk fills (SQLite's own reads need room in its
        # shared-memory file; the app meets that as a failed save too, logged alike).
        rows_now = ingestion.store.chunk_nonces()
        monkeypatch.setattr(ingestion.store, "chunk_nonces", lambda _check=None: rows_now)
        disk.fill()
        with pytest.raises(OSError) as failed:
            ingestion.save_index(lambda: None)
        assert failed.value.errno == errno.ENOSPC
        assert not list(disk.path.glob("*.partial"))
        assert index_file.path_for(vault.path).read_bytes() == before
        monkeypatch.undo()
        disk.free()
        again, restored = _unlock(vault)
        assert len(again.read) == 150 and len(restored.indexes) == 200
        restored.save_index(lambda: None)
        third, _ = _unlock(vault)
        assert third.read == []
    finally:
        vault.close()


def test_a_passage_read_again_leaves_nothing_of_its_old_text_in_the_loaded_index(vault: Vault) -> None:
    """A file edited and read again (fewer changes than a save waits for), then a lock and
    an unlock: the old passages' text is not held, and a page's surroundings show only the
    new (reviewer's finding: they were kept, dead, and ``section`` showed them)."""
    store, collection_id = _filled(vault)
    _, ingestion = _unlock(vault)
    ingestion.save_index(lambda: None)
    document = next(d for d in store.documents(collection_id) if d.path == "/notes/0.md")
    store.replace_chunks(document, [Chunk("the otter moved to the north bank", 0, 1, None, 0, 33)],
                         np.ones((1, 8), np.float32), MODEL)
    _, restored = _unlock(vault)
    held = [c for c in restored.indexes.index(MODEL).chunks if c.document_id == document.id]
    assert [c.text for c in held] == ["the otter moved to the north bank"]
    assert [c.text for c in restored.indexes.section("/notes/0.md", 1, None)] == ["the otter moved to the north bank"]
    assert restored.indexes.changes == 6  # five left out and one read: they count towards the next save
    assert _everything(restored.indexes) == _fresh(vault)


def test_two_saves_at_once_each_write_their_own_file_and_the_index_opens(
        vault: Vault, monkeypatch: pytest.MonkeyPatch) -> None:
    # The app's idle save and a terminal command's save of the same vault, interleaved:
    # the second runs whole while the first is between two frames of its file.
    monkeypatch.setattr(index_file, "FRAME", 4096)
    _filled(vault, documents=40)
    _, first = _unlock(vault)
    _, second = _unlock(vault)
    ran = []

    def between_frames() -> None:
        if not ran and list(vault.path.parent.glob("*.partial")):
            ran.append(True)
            second.save_index(lambda: None)

    first.save_index(between_frames)
    assert ran
    header, arrays = index_file.read(vault.path, vault.cipher)
    assert header and arrays
    _, again = _unlock(vault)
    assert _everything(again.indexes) == _everything(first.indexes)
    assert not list(vault.path.parent.glob("*.partial"))


def test_a_partial_file_left_by_a_crash_goes_at_the_next_save(vault: Vault) -> None:
    import os
    import time

    _filled(vault)
    _, ingestion = _unlock(vault)
    target = index_file.path_for(vault.path)
    dead = target.with_name(f"{target.name}.00000000000000aa.partial")
    dead.write_bytes(b"half a save")
    hours_ago = time.time() - 2 * index_file.STALE_PARTIAL
    os.utime(dead, (hours_ago, hours_ago))
    writing = target.with_name(f"{target.name}.00000000000000bb.partial")
    writing.write_bytes(b"a save under way")  # fresh: another process is writing it
    before = target.with_name(f"{target.name}.partial")  # the one name of earlier versions
    not_ours = target.with_name(f"{target.name}.notes.partial")  # another file's, beside it
    for old in (before, not_ours):
        old.write_bytes(b"old")
        os.utime(old, (hours_ago, hours_ago))
    ingestion.save_index(lambda: None)
    assert not dead.exists() and writing.exists()
    assert not before.exists() and not_ours.exists()


@pytest.mark.parametrize("dtype", [np.float32, np.float16], ids=["float32", "float16"])
def test_a_file_saved_before_the_int8_codes_loads_coded_and_answers_the_same(vault: Vault, dtype: Any) -> None:
    """Files saved before 2026-12-06 hold float32 vectors, before 2026-12-07 float16, and
    neither holds int8 codes: they load, coded here."""
    store, _ = _filled(vault)
    _, ingestion = _unlock(vault)
    ingestion.save_index(lambda: None)
    header, arrays = store.saved_index()
    header = {key: value for key, value in header.items() if key not in ("format", "items")}
    old = [(name, np.dtype(dtype) if name.endswith("vectors") else array.dtype, array.shape,
            [array.astype(dtype) if name.endswith("vectors") else array])
           for name, array in arrays.items() if not name.endswith(("codes", "scales"))]
    assert any(name.endswith("vectors") for name, *_ in old)
    store.save_index(header, old, lambda: None)
    again, restored = _unlock(vault)
    assert again.read == []  # loaded from the file, not rebuilt
    assert restored.indexes.index(MODEL)._codes.dtype == np.int8
    assert _everything(restored.indexes) == _fresh(vault)


def _reading(vault: Vault) -> tuple[DocumentStore, Ingestion]:
    """The store and an index loaded as the document service loads it: the passages'
    texts are read from the vault for the hits."""
    store = DocumentStore(vault)
    ingestion = Ingestion(store, Indexes(texts=store.chunk_texts, vectors=store.chunk_vectors),
                          _Steps())  # type: ignore[arg-type]
    ingestion.load()
    return store, ingestion



def test_a_passage_added_after_an_unlock_leaves_the_loaded_codes_where_they_were_read(vault: Vault) -> None:
    """The first passage added after an unlock copied every code into an array twice as
    large: at a million passages a second's pause and 0.4 GB more memory (#43)."""
    store, collection_id = _filled(vault)
    _, ingestion = _unlock(vault)
    ingestion.save_index(lambda: None)
    again, restored = _unlock(vault)
    assert again.read == []
    index = restored.indexes.index(MODEL)
    loaded = next(index._codes.parts())[1]
    assert len(loaded) == 30
    rng = np.random.default_rng(9)
    added = _add(store, collection_id, "/notes/new.md", rng, count=3)
    for chunk, vector in store.iter_chunks([collection_id]):
        if chunk.document_id == added.id:
            restored.indexes.add(chunk, vector)
    assert np.shares_memory(next(index._codes.parts())[1], loaded) and len(index) == 33
    assert _everything(restored.indexes) == _fresh(vault)


def test_a_file_with_neither_codes_nor_vectors_is_not_taken(vault: Vault) -> None:
    """An index that reads its exact vectors from the vault keeps only codes: a file
    without them would have ranked by memory never written. It is rebuilt instead."""
    store, _ = _filled(vault)
    _, ingestion = _reading(vault)
    ingestion.save_index(lambda: None)
    header, arrays = store.saved_index()
    header = {key: value for key, value in header.items() if key not in ("format", "items")}
    stripped = [(name, array.dtype, array.shape, [array]) for name, array in arrays.items()
                if not name.endswith(("codes", "scales", "vectors"))]
    store.save_index(header, stripped, lambda: None)
    counting = _Counting(vault)
    rebuilt = Ingestion(counting, Indexes(texts=counting.chunk_texts, vectors=counting.chunk_vectors),
                        _Steps())  # type: ignore[arg-type]
    rebuilt.load()
    assert len(counting.read) == 30  # every row read again
    vector = np.linspace(-1, 1, 8).astype(np.float32)
    assert [h.chunk.id for h in rebuilt.indexes.search("heron", {MODEL: vector}, list(rebuilt.indexes.models))] \
        == [h.chunk.id for h in ingestion.indexes.search("heron", {MODEL: vector}, list(ingestion.indexes.models))]

def test_the_index_holds_no_passage_s_text_and_each_hit_reads_its_own(vault: Vault) -> None:
    store, collection_id = _filled(vault)
    rows = {c.id: c.text for c, _v in store.iter_chunks()}
    _, ingestion = _reading(vault)
    index = ingestion.indexes.index(MODEL)
    assert len(index.live()) == len(rows) and all(c.text == "" for c in index.chunks)
    vector = np.linspace(-1, 1, 8).astype(np.float32)
    hits = ingestion.indexes.search("heron otter", {MODEL: vector}, [collection_id], k=10)
    assert len(hits) == 10 and all(h.chunk.text == rows[h.chunk.id] for h in hits)
    # What an index that keeps the texts finds, in the same order, with the same texts.
    kept = _unlock(vault)[1].indexes.search("heron otter", {MODEL: vector}, [collection_id], k=10)
    assert [(h.chunk, h.score) for h in kept] == [(h.chunk, h.score) for h in hits]
    # A page's passages (a citation opened) come with their texts too.
    page = ingestion.indexes.section("/notes/0.md", 1, "Birds")
    assert page and all(c.text == rows[c.id] for c in page)


def test_a_hit_whose_row_is_gone_meanwhile_is_left_out(vault: Vault) -> None:
    store, collection_id = _filled(vault)
    _, ingestion = _reading(vault)
    vector = np.linspace(-1, 1, 8).astype(np.float32)
    first = ingestion.indexes.search("kestrel", {MODEL: vector}, [collection_id], k=3)[0]
    store.delete_document(first.chunk.document_id)  # its rows gone, the index not told yet
    after = ingestion.indexes.search("kestrel", {MODEL: vector}, [collection_id], k=3)
    assert after and first.chunk.id not in {h.chunk.id for h in after}
    assert all(h.chunk.text for h in after)


def test_the_nearest_are_ranked_by_the_vault_s_exact_vectors_and_a_damaged_one_by_its_code(vault: Vault) -> None:
    store, collection_id = _filled(vault)
    exact = {c.id: v for c, v in store.iter_chunks()}
    assert {i: v.tolist() for i, v in store.chunk_vectors([*exact, 10_000]).items()} == \
        {i: v.tolist() for i, v in exact.items()}  # an id with no row is not in the answer
    row_id = 7
    with vault.engine.begin() as conn:  # another row's vector put in its place: does not decrypt
        other = conn.execute(schema.chunks.select().where(schema.chunks.c.id == 8)).one()
        conn.execute(update(schema.chunks).where(schema.chunks.c.id == row_id).values(vector=other.vector))
    assert row_id not in store.chunk_vectors([row_id, 8])
    _, ingestion = _reading(vault)
    index = ingestion.indexes.index(MODEL)
    assert index._exact is None  # the index keeps the codes alone
    question = exact[row_id] + 0.1 * exact[8]
    hits = {h.chunk.id: h.cosine for h in index.search("", question, k=40, collection_ids=[collection_id],
                                                      mode="vector")}
    unit = question / np.linalg.norm(question)
    for hit_id, cosine in hits.items():
        want = float(exact[hit_id] @ unit / np.linalg.norm(exact[hit_id]))
        assert cosine == pytest.approx(want, abs=4e-3 if hit_id == row_id else 1e-6)


def test_a_file_saved_without_texts_is_not_taken_by_an_index_that_keeps_them(
        vault: Vault, caplog: pytest.LogCaptureFixture) -> None:
    store, _ = _filled(vault)
    _, ingestion = _reading(vault)
    ingestion.save_index(lambda: None)
    header, arrays = store.saved_index()
    assert header["indexes"][0]["texts"] is False and arrays["0.texts"].size == 0
    again, reading = _reading(vault)
    assert reading.indexes.index(MODEL).chunks and all(c.text == "" for c in reading.indexes.index(MODEL).chunks)
    with caplog.at_level(logging.WARNING):
        keeping, restored = _unlock(vault)  # an index of its own, keeping texts: built from the rows
    assert len(keeping.read) == 30 and "does not read" in caplog.text
    assert _everything(restored.indexes) == _fresh(vault)


def test_whether_a_save_is_due_once_the_vault_is_closed_is_a_closed_vault_not_a_fault(vault: Vault) -> None:
    """The document service asks between jobs, and a lock may close the vault first: that
    is a closed vault (the service stops quietly), not an internal error."""
    from storage.db import VaultClosed

    _filled(vault)
    _, ingestion = _unlock(vault)
    ingestion.save_index(lambda: None)
    vault.close()
    with pytest.raises(VaultClosed):
        ingestion.index_due()


def test_a_passphrase_change_also_removes_partial_files_and_an_unlock_drops_a_file_it_cannot_open(
        vault: Vault) -> None:
    """A save that died midway (a crash) leaves a partial file under the key of its time,
    swept only once an hour old; and a file under a retired key (a terminal command still
    running with the old one may write it) stayed beside the vault until the next save.
    The change removes every partial file, and an unlock deletes a file it cannot open."""
    _filled(vault)
    _, ingestion = _unlock(vault)
    ingestion.save_index(lambda: None)
    saved = index_file.path_for(vault.path)
    under_old_key = saved.read_bytes()
    crashed = saved.with_name(saved.name + ".00000000000000aa.partial")
    crashed.write_bytes(under_old_key[:100])
    vault.change_passphrase(PASSPHRASE, "another long passphrase 42", FAST_KDF)
    assert not crashed.exists()
    saved.write_bytes(under_old_key)  # as a terminal command with the old key would
    vault.close()
    reopened = Vault.open(vault.path, "another long passphrase 42")
    try:
        _, reloaded = _unlock(reopened)
        assert not saved.exists() and reloaded.index_due()
    finally:
        reopened.close()


def test_a_passphrase_change_while_the_saved_index_is_read_makes_a_save_due(vault: Vault) -> None:
    """The key the index counts as sealed with is the one of the file it read: a change
    that commits while the rows are compared with it leaves a save due, or the next unlock
    reads every row again."""
    _filled(vault)
    _, ingestion = _unlock(vault)
    ingestion.save_index(lambda: None)

    class ChangingSteps(_Steps):
        changed = False

        def check(self) -> None:
            if not self.changed:
                self.changed = True
                vault.change_passphrase(PASSPHRASE, "another long passphrase 42", FAST_KDF)

    steps = ChangingSteps()
    reloaded = Ingestion(_Counting(vault), Indexes(), steps)  # type: ignore[arg-type]
    reloaded.load()
    assert steps.changed and reloaded.index_due()


def test_a_save_that_finds_the_vault_locked_at_its_end_is_a_closed_vault(vault: Vault,
                                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """Locked between the file's last frame and its being put in place: the key is gone,
    which is a closed vault (the service stops quietly), not an internal error."""
    from storage.db import VaultClosed

    _filled(vault)
    _, ingestion = _unlock(vault)
    real, asked = vault.cipher.sealing_key, []

    def then_locked() -> int:
        asked.append(1)
        if len(asked) > 1:  # the check before the file is put in place
            vault.cipher.forget()
        return real()

    monkeypatch.setattr(vault.cipher, "sealing_key", then_locked)
    with pytest.raises(VaultClosed):
        ingestion.save_index(lambda: None)
    assert not index_file.path_for(vault.path).exists()
    assert not list(vault.path.parent.glob("*.partial"))
