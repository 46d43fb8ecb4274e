"""Every earlier vault opens (#43): vaults written by the code of their time
(tests/fixtures/vaults/make.py checked the old commits out and ran their own storage
package), opened by today's code: upgraded in place after a copy of each is kept, and every
chat (title, pin, settings, the messages that Hearth showed), every collection (its
embedding model and passages with their pages) and the model library read back whole.
A MiniLM-era collection keeps its vectors and is due to be embedded again."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from storage import db
from storage.chats import ChatStore
from storage.documents.store import DocumentStore
from storage.library import ModelLibrary
from storage.vault import Vault

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "vaults"
PASSPHRASE = "fixture vault of an older Hearth"
ERAS = sorted(p.stem for p in FIXTURES.glob("*.db"))


def test_the_fixtures_are_there() -> None:
    assert ERAS == ["format1-8562a25", "minilm-replaces-2c6a869"]


@pytest.mark.parametrize("era", ERAS)
def test_an_earlier_vault_opens_upgraded_with_everything_it_held(tmp_path: Path, era: str) -> None:
    path = tmp_path / "vault.db"
    shutil.copyfile(FIXTURES / f"{era}.db", path)
    expected = json.loads((FIXTURES / f"{era}.json").read_text(encoding="utf-8"))
    store = ChatStore(Vault.open_live(path, PASSPHRASE))
    try:
        assert db.current_revision(store.vault.engine) == db.HEAD
        chats = store.list_chats()
        assert sorted((c.title, c.pinned) for c in chats) == sorted((c["title"], c["pinned"])
                                                                    for c in expected["chats"])
        for chat in expected["chats"]:
            found = next(c for c in chats if c.title == chat["title"])
            assert {k: found.settings.get(k) for k in chat["settings"]} == chat["settings"]
            assert [[m.role, m.content] for m in store.messages(found.id)] == chat["messages"], chat["title"]
        docs = DocumentStore(store.vault)
        collections = docs.collections()
        assert [c.name for c in collections] == [c["name"] for c in expected["collections"]]
        for collection, wanted in zip(collections, expected["collections"], strict=True):
            assert collection.embedding_model == wanted["embedding_model"]
            assert [d.path for d in docs.documents(collection.id)] == wanted["documents"]
            passages = [[chunk.text, chunk.page] for chunk, _vector in docs.iter_chunks([collection.id])]
            assert passages == wanted["passages"]
        assert [e.name for e in ModelLibrary(store).entries()] == expected["library"]
    finally:
        store.close()
    if era.startswith("format1"):  # the format-1 upgrade kept the vault as it was, first
        import sqlite3

        from storage.crypto import LEGACY_FORMAT, Envelope

        (copy,) = (tmp_path / "backups").glob("vault-*-before-upgrade-0003_documents-format-1.db")
        conn = sqlite3.connect(copy)
        record = conn.execute("SELECT value FROM vault_meta WHERE key = 'envelope'").fetchone()[0]
        conn.close()
        assert Envelope.from_json(record).format == LEGACY_FORMAT
    again = ChatStore(Vault.open_live(path, PASSPHRASE))  # upgraded now: opens as it is, no new copy
    again.close()
    # Each is from before schema 0004 (the documents' versions in shards): kept as it was, once.
    assert len(list((tmp_path / "backups").glob("*before-upgrade*"))) == 1


def test_a_minilm_collection_is_due_to_be_embedded_again_and_answers_meanwhile(tmp_path: Path) -> None:
    from inference.bundled import embedding_model

    path = tmp_path / "vault.db"
    shutil.copyfile(FIXTURES / "minilm-replaces-2c6a869.db", path)
    store = ChatStore(Vault.open_live(path, PASSPHRASE))
    try:
        docs = DocumentStore(store.vault)
        (collection,) = docs.collections()
        assert collection.embedding_model != embedding_model().sha256  # the service embeds it again
        vectors = [vector for _chunk, vector in docs.iter_chunks([collection.id])]
        assert len(vectors) == 2 and all(v.shape == (384,) for v in vectors)  # kept until then
    finally:
        store.close()
