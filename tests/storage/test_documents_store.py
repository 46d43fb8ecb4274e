"""The document store's model tags, the index's one size, a vault that refuses after close,
and a parser that another thread can stop. Real vault files, real parser processes."""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path

import numpy as np
import pytest
from sqlalchemy import insert, update

from storage import schema
from storage.db import VaultClosed, inserted_id
from storage.documents.chunking import Chunk
from storage.documents.isolation import IsolatedParser, ParseStopped
from storage.documents.search import SearchIndex
from storage.documents.store import INDEXED, Document, DocumentStore, StoredChunk
from storage.vault import Vault
from tests.storage.conftest import FAST_KDF, PASSPHRASE


@pytest.fixture
def vault(tmp_path: Path):
    v = Vault.create(tmp_path / "vault.db", PASSPHRASE, FAST_KDF)
    yield v
    v.close()


def _chunk(text: str, n: int = 0) -> Chunk:
    return Chunk(text, 0, None, None, n, n + len(text))


def test_an_index_refuses_a_vector_of_another_size() -> None:
    index = SearchIndex()
    index.add(StoredChunk(1, 1, 1, "owls hunt at night", "/a.md", None, None, 0, 18), np.ones(4))
    with pytest.raises(ValueError, match="4 dimensions"):
        index.add(StoredChunk(2, 1, 1, "foxes", "/a.md", None, None, 0, 5), np.ones(3))
    with pytest.raises(ValueError, match="4 dimensions"):
        index.search("owls", np.ones(3))
    assert [h.chunk.id for h in index.search("owls", np.ones(4))] == [1]


def test_chunks_carry_their_model_and_old_rows_count_as_the_collection_s(vault: Vault) -> None:
    store = DocumentStore(vault)
    collection = store.create_collection("notes")
    store.update_collection(type(collection)(collection.id, "notes", [], "model-old", 0.0))
    document = store.save_document(Document(0, collection.id, "/notes/a.md", INDEXED))
    # A row as Hearth wrote them before chunks named their model.
    with vault.engine.begin() as conn:
        row_id = inserted_id(conn.execute(insert(schema.chunks).values(
            collection_id=collection.id, document_id=document.id, payload=b"", vector=b"")))
        payload = {"text": "an old passage", "page": None, "heading": None, "start": 0, "end": 14,
                   "section": 0}
        conn.execute(update(schema.chunks).where(schema.chunks.c.id == row_id).values(
            payload=vault.cipher.encrypt(json.dumps(payload).encode(), "chunks", "payload", row_id,
                                         (collection.id, document.id)),
            vector=vault.cipher.encrypt(np.ones(4, np.float32).tobytes(), "chunks", "vector", row_id,
                                        (collection.id, document.id))))
    assert [c.model for c, _ in store.iter_chunks()] == ["model-old"]

    # A re-embedding writes the new model's rows beside them ...
    store.replace_chunks(document, [_chunk("an old passage")], np.ones((1, 2)), "model-new",
                         only_model=True)
    assert store.chunk_models(collection.id) == {document.id: {"model-old", "model-new"}}
    assert [c.text for c in store.document_chunks(document.id, "model-old")] == ["an old passage"]
    assert {c.model: len(v) for c, v in store.iter_chunks()} == {"model-old": 4, "model-new": 2}
    # ... and the switch keeps only them, with the collection's record, in one step.
    switched = store.switch_model(store.get_collection(collection.id), "model-new")
    assert switched.embedding_model == "model-new"
    assert store.get_collection(collection.id).embedding_model == "model-new"
    assert [(c.model, len(v)) for c, v in store.iter_chunks()] == [("model-new", 2)]


def test_a_closed_vault_refuses_connections_and_never_creates_a_file(tmp_path: Path) -> None:
    vault = Vault.create(tmp_path / "vault.db", PASSPHRASE, FAST_KDF)
    store = DocumentStore(vault)
    store.create_collection("before")
    vault.close()
    files = {p.name: p.read_bytes() for p in tmp_path.iterdir()}
    with pytest.raises(VaultClosed):
        store.create_collection("after")
    assert {p.name: p.read_bytes() for p in tmp_path.iterdir()} == files
    (tmp_path / "vault.db").unlink()
    with pytest.raises(VaultClosed):
        store.collections()
    assert not (tmp_path / "vault.db").exists()


def test_another_thread_can_stop_a_parse_that_blocks(tmp_path: Path) -> None:
    from tests.storage import parser_children

    fifo = tmp_path / "slow-parse.txt"  # a parse that never ends (a disk that does not answer)
    fifo.write_text("stuck")
    (tmp_path / "fine.txt").write_text("hello")
    parser = IsolatedParser(timeout=600, child=parser_children.slow_child)
    outcome: list[BaseException] = []

    def parse() -> None:
        try:
            parser.parse(fifo)
        except BaseException as exc:
            outcome.append(exc)

    thread = threading.Thread(target=parse)
    thread.start()
    for _ in range(600):  # the child is in the parse (or it would not be this test)
        if (tmp_path / "slow-parse.txt.started").exists():
            break
        time.sleep(0.05)
    parser.kill()
    thread.join(60)  # far below the 600 s time-out
    assert not thread.is_alive() and len(outcome) == 1 and isinstance(outcome[0], ParseStopped)
    assert parser.parse(tmp_path / "fine.txt")[0][0].text == "hello"  # a fresh child
    parser.close()


def test_a_model_switch_keeps_damaged_and_moved_passages_for_the_check(vault: Vault) -> None:
    """Re-embedding (at unlock, after the bundled embedder changed) must not delete a passage
    it cannot read: it is evidence of damage or tampering, reported by the check, and the
    user's to decide on."""
    import sqlite3

    from storage.chats import ChatStore
    from storage.checkup import problems

    store = DocumentStore(vault)
    collection = store.create_collection("case")
    diary = store.save_document(Document(0, collection.id, "/private/diary.txt", INDEXED))
    contract = store.save_document(Document(0, collection.id, "/case/contract.pdf", INDEXED))
    moved, damaged, kept = store.replace_chunks(
        diary, [_chunk("I was scared"), _chunk("the night of the fire", 20), _chunk("a plain one", 50)],
        np.ones((3, 4), np.float32), "model-old")
    path = vault.path
    with sqlite3.connect(path) as conn:
        conn.execute("UPDATE chunks SET document_id = ? WHERE id = ?", (contract.id, moved))
        blob = conn.execute("SELECT payload FROM chunks WHERE id = ?", (damaged,)).fetchone()[0]
        conn.execute("UPDATE chunks SET payload = ? WHERE id = ?",
                     (blob[:-1] + bytes([blob[-1] ^ 1]), damaged))
    conn.close()
    store.replace_chunks(diary, [_chunk("a plain one", 50)], np.ones((1, 2)), "model-new", only_model=True)
    store.switch_model(store.get_collection(collection.id), "model-new")
    with sqlite3.connect(path) as conn:
        left = {row[0] for row in conn.execute("SELECT id FROM chunks")}
    conn.close()
    assert {moved, damaged} <= left and kept not in left  # the old model's readable row went
    found = "\n".join(problems(ChatStore(vault)))
    assert f"chunks.payload of row {moved}" in found and f"chunks.payload of row {damaged}" in found


def test_a_passage_s_row_id_is_never_given_again_after_its_rows_are_deleted(vault: Vault) -> None:
    """The rows of a file are written in one statement with the ids AUTOINCREMENT would give:
    past every id ever given, so no new passage takes a deleted one's (its ciphertext, and a
    saved index's entry, are bound to the id)."""
    store = DocumentStore(vault)
    collection = store.create_collection("notes")
    first = store.save_document(Document(0, collection.id, "/notes/a.md", INDEXED))
    given = store.replace_chunks(first, [_chunk("owls"), _chunk("herons", 5)], np.ones((2, 4)), "m")
    assert given == sorted(given) and len(set(given)) == 2
    store.delete_document(first.id)  # the highest ids are gone
    second = store.save_document(Document(0, collection.id, "/notes/b.md", INDEXED))
    again = store.replace_chunks(second, [_chunk("otters")], np.ones((1, 4)), "m")
    assert again[0] > max(given)
    more = store.replace_chunks(second, [_chunk("otters"), _chunk("badgers", 7)], np.ones((2, 4)), "m")
    assert min(more) > again[0]  # read again: the old rows go, the new take new ids
    assert [c.text for c, _v in store.iter_chunks([collection.id])] == ["otters", "badgers"]
    assert store.replace_chunks(second, [], np.ones((0, 4)), "m") == []
    assert list(store.iter_chunks([collection.id])) == []
