"""The documents' versions in shards (#43): a document's write seals its shard and the
root, which no longer grow with the vault; a shard put back, removed or damaged is caught
as a root put back would be; a root from before the shards reads, and moves into them."""

from __future__ import annotations

import json
import sqlite3
from dataclasses import replace
from pathlib import Path

from storage import checkup
from storage.chats import ChatStore
from storage.documents.store import FAILED, INDEXED, Document, DocumentStore
from storage.vault import Vault
from storage.versions import ROOT_ROW, SHARD_ROWS, SHARDS, VERSION
from tests.storage.conftest import FAST_KDF, PASSPHRASE, reopen


def _sql(path: Path, statement: str, *args: object) -> list[tuple]:
    with sqlite3.connect(path) as conn:
        rows = conn.execute(statement, args).fetchall()
    conn.close()
    return rows


def _filled(vault_path: Path, documents: int) -> tuple[ChatStore, DocumentStore, list[Document]]:
    store = ChatStore(Vault.create(vault_path, PASSPHRASE, FAST_KDF))
    docs = DocumentStore(store.vault)
    collection = docs.create_collection("Archive")
    made = [docs.save_document(Document(0, collection.id, f"/cases/{n}.pdf", INDEXED, chunks=1))
            for n in range(documents)]
    return store, docs, made


def _root(store: ChatStore, path: Path) -> dict:
    (blob,) = _sql(path, "SELECT payload FROM preferences WHERE id = ?", ROOT_ROW)[0]
    return json.loads(store.vault.cipher.decrypt(blob, "preferences", "payload", ROOT_ROW, ()))


def test_a_document_s_write_seals_its_shard_and_the_root_alone(vault_path: Path) -> None:
    store, docs, made = _filled(vault_path, 2 * SHARD_ROWS + 10)
    try:
        before = dict(_sql(vault_path, "SELECT id, payload FROM versions"))
        assert len(before) == 3  # three shards for 522 documents
        root = _root(store, vault_path)
        assert "documents" not in root and len(root[SHARDS]["documents"]) == 3
        assert len(json.dumps(root)) < 200  # the root does not grow with the documents
        changed = docs.save_document(replace(made[SHARD_ROWS + 5], path="/cases/renamed.pdf"))
        after = dict(_sql(vault_path, "SELECT id, payload FROM versions"))
        assert [i for i in before if before[i] != after[i]] == [changed.id // SHARD_ROWS + 1]
        listed = {d.id: d.path for d in docs.documents(changed.collection_id)}
        assert listed[changed.id] == "/cases/renamed.pdf" and len(listed) == len(made)
        assert checkup.problems(store) == []
    finally:
        store.close()


def test_a_shard_put_back_from_a_backup_makes_its_documents_read_as_damaged(vault_path: Path, tmp_path: Path) -> None:
    store, docs, made = _filled(vault_path, SHARD_ROWS + 10)
    (tmp_path / "backups").mkdir()
    backup = store.vault.backup_to(tmp_path / "backups" / "vault-1.db")
    late = made[SHARD_ROWS + 2]  # in the second shard
    docs.save_document(replace(late, path="/cases/late-v2.pdf"))
    store.close()
    shard = late.id // SHARD_ROWS + 1
    (old,) = _sql(backup, "SELECT payload FROM versions WHERE id = ?", shard)[0]
    _sql(vault_path, "UPDATE versions SET payload = ? WHERE id = ?", old, shard)

    store = reopen(vault_path)
    try:
        listed = {d.id: d for d in DocumentStore(store.vault).documents(late.collection_id)}
        in_shard = [d for d in made if d.id // SHARD_ROWS + 1 == shard]
        assert all(listed[d.id].status == FAILED and listed[d.id].path == "" for d in in_shard)
        assert all(listed[d.id].status == INDEXED for d in made if d not in in_shard)
        problems = checkup.problems(store)
        assert f"versions row {shard} is an older copy of itself (put back from an earlier copy of the " \
            "vault)" in problems
        assert any(p.startswith(f"documents row {late.id} was not written there by Hearth") for p in problems)
    finally:
        store.close()


def test_a_shard_removed_or_damaged_is_said_by_the_check(vault_path: Path) -> None:
    store, docs, made = _filled(vault_path, SHARD_ROWS + 10)
    store.close()
    _sql(vault_path, "DELETE FROM versions WHERE id = ?", 1)
    _sql(vault_path, "UPDATE versions SET payload = ? WHERE id = ?", b"\x00" * 64, 2)
    store = reopen(vault_path)
    try:
        problems = checkup.problems(store)
        assert "versions row 1 is missing or damaged" in problems
        assert "versions row 2 is missing or damaged" in problems
        listed = DocumentStore(store.vault).documents(made[0].collection_id)
        assert {d.status for d in listed} == {FAILED}
    finally:
        store.close()


def test_a_root_from_before_the_shards_reads_and_its_documents_move_into_shards(vault_path: Path) -> None:
    store, docs, made = _filled(vault_path, SHARD_ROWS + 3)
    cipher = store.vault.cipher
    # As a Hearth from before the shards wrote it: the documents' versions in the root.
    root = _root(store, vault_path)
    inline: dict[str, int] = {}
    for shard_id, blob in _sql(vault_path, "SELECT id, payload FROM versions"):
        inline.update(json.loads(cipher.decrypt(blob, "versions", "payload", shard_id, ()))["rows"])
    old = {key: value for key, value in root.items() if key != SHARDS}
    old["documents"] = inline
    sealed = cipher.encrypt(json.dumps(old).encode(), "preferences", "payload", ROOT_ROW)
    store.close()
    _sql(vault_path, "UPDATE preferences SET payload = ? WHERE id = ?", sealed, ROOT_ROW)
    _sql(vault_path, "DELETE FROM versions")

    store = reopen(vault_path)
    try:
        docs = DocumentStore(store.vault)
        assert sorted(d.path for d in docs.documents(made[0].collection_id)) == sorted(d.path for d in made)
        assert checkup.problems(store) == []
        docs.save_document(replace(made[0], path="/cases/first-v2.pdf"))  # the first change
        assert len(_sql(vault_path, "SELECT id FROM versions")) == 2
        root = _root(store, vault_path)
        assert "documents" not in root and set(root[SHARDS]["documents"]) == {"1", "2"}
        listed = docs.documents(made[0].collection_id)
        assert {d.id: d.path for d in listed}[made[0].id] == "/cases/first-v2.pdf" and len(listed) == len(made)
        assert {d.status for d in listed} == {INDEXED} and checkup.problems(store) == []
    finally:
        store.close()


def test_deleted_documents_leave_their_shard(vault_path: Path) -> None:
    store, docs, made = _filled(vault_path, 5)
    try:
        docs.delete_document(made[1].id)
        (blob,) = _sql(vault_path, "SELECT payload FROM versions WHERE id = 1")[0]
        rows = json.loads(store.vault.cipher.decrypt(blob, "versions", "payload", 1, ()))
        assert sorted(map(int, rows["rows"])) == sorted(d.id for d in made if d is not made[1])
        assert rows[VERSION] == 6  # five saves and the delete
        docs.delete_collection(made[0].collection_id)
        assert checkup.problems(store) == []
    finally:
        store.close()
