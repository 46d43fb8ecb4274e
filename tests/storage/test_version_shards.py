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
from storage.library import ModelLibrary
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
        assert f"documents row {late.id} lost its version with versions row {shard} (put back, removed or " \
            "damaged)" in problems
        assert not any("not written there by Hearth" in p for p in problems)
    finally:
        store.close()


def test_a_shard_written_again_after_it_was_put_back_or_damaged_is_still_named_by_the_check(
        vault_path: Path, tmp_path: Path) -> None:
    """Saving one document of a shard that read as put back (or damaged) wrote the shard
    again listing that document alone: the check then no longer named the shard, and said
    of each of its other documents that Hearth had not written it. The shard now keeps
    why its rows were lost until each of them is listed again (saved or deleted)."""
    store, docs, made = _filled(vault_path, 2 * SHARD_ROWS + 10)
    (tmp_path / "backups").mkdir()
    backup = store.vault.backup_to(tmp_path / "backups" / "vault-1.db")
    for n in (SHARD_ROWS + 2, 2 * SHARD_ROWS + 2):  # in the second shard and in the third
        docs.save_document(replace(made[n], path=f"/cases/{n}-v2.pdf"))
    store.close()
    _put_back_rows(vault_path, backup, "versions", [2])
    _sql(vault_path, "UPDATE versions SET payload = ? WHERE id = ?", b"\x00" * 64, 3)

    store = reopen(vault_path)
    docs = DocumentStore(store.vault)
    second = [d for d in made if d.id // SHARD_ROWS + 1 == 2]
    third = [d for d in made if d.id // SHARD_ROWS + 1 == 3]
    saved = [docs.save_document(replace(shard[0], path="/cases/saved-again.pdf")) for shard in (second, third)]
    store.close()

    store = reopen(vault_path)
    docs = DocumentStore(store.vault)
    try:
        problems = checkup.problems(store)
        assert "versions row 2 was an older copy of itself (put back from an earlier copy of the vault) when " \
            "Hearth wrote it again: the documents it no longer lists read as damaged" in problems
        assert "versions row 3 was missing or damaged when Hearth wrote it again: the documents it no longer " \
            "lists read as damaged" in problems
        for shard, rows in ((2, second), (3, third)):
            assert all(f"documents row {d.id} lost its version with versions row {shard} (put back, removed "
                       "or damaged)" in problems for d in rows[1:])
        assert not any("not written there by Hearth" in p for p in problems)
        listed = {d.id: d for d in docs.documents(made[0].collection_id)}
        assert [listed[d.id].path for d in saved] == ["/cases/saved-again.pdf"] * 2
        assert all(listed[d.id].status == FAILED for d in second[1:] + third[1:])

        # The user removes the damaged documents of the second shard and imports those of
        # the third again: each shard lists every row it holds, and the check is clean.
        for d in second[1:]:
            docs.delete_document(d.id)
        for d in third[1:]:
            docs.save_document(d)
        assert checkup.problems(store) == []
        assert all(listed[d.id].status == INDEXED for d in made[:SHARD_ROWS])
    finally:
        store.close()


def test_a_root_removed_and_written_again_is_still_named_by_the_check(vault_path: Path) -> None:
    """With the root record removed, "Check vault" said of every row that Hearth had not
    written it, and never named the root; after the next write it went on saying so of
    every row the new root did not list. The check now names the root, and each row as
    lost with it, until every row is listed again."""
    store, docs, made = _filled(vault_path, SHARD_ROWS + 10)
    library = ModelLibrary(store)
    library.set_preference("theme", "dark")
    collection = docs.get_collection(made[0].collection_id)
    store.close()
    _sql(vault_path, "DELETE FROM preferences WHERE id = ?", ROOT_ROW)

    store = reopen(vault_path)
    try:
        problems = checkup.problems(store)
        assert "preferences row 2, the record of versions, is missing or damaged (removed, or put back from " \
            "an earlier copy of the vault)" in problems
        assert all(f"documents row {d.id} lost its version with preferences row 2, the record of versions " \
                   "(removed, damaged or put back)" in problems for d in made)
        assert "preferences row 1 lost its version with preferences row 2, the record of versions (removed, " \
            "damaged or put back)" in problems
        assert not any("not written there by Hearth" in p for p in problems)
        saved = DocumentStore(store.vault).save_document(replace(made[0], path="/cases/saved-again.pdf"))
    finally:
        store.close()

    store = reopen(vault_path)
    docs, library = DocumentStore(store.vault), ModelLibrary(store)
    try:
        problems = checkup.problems(store)
        assert "preferences row 2, the record of versions, was missing or damaged when Hearth wrote it again: " \
            "the rows it no longer lists read as damaged" in problems
        for shard in (1, 2):
            assert f"versions row {shard} was written again after preferences row 2, the record of versions, " \
                "was lost: the documents it does not list read as damaged" in problems
        assert all(f"documents row {d.id} lost its version with preferences row 2, the record of versions " \
                   "(removed, damaged or put back)" in problems for d in made[1:])
        assert "preferences row 1 lost its version with preferences row 2, the record of versions (removed, " \
            "damaged or put back)" in problems
        assert not any("not written there by Hearth" in p for p in problems)
        assert {d.id: d.path for d in docs.documents(collection.id)}[saved.id] == "/cases/saved-again.pdf"

        # Everything saved again (the preference set, the collection and the documents
        # imported anew): the root and the shards list every row, and the check is clean.
        library.set_preference("theme", "dark")
        docs.update_collection(collection)
        for d in made[1:]:
            docs.save_document(d)
        assert checkup.problems(store) == []
        assert {d.status for d in docs.documents(collection.id)} == {INDEXED}
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
        root = _root(store, vault_path)
        assert rows[VERSION] == root[SHARDS]["documents"]["1"] == root["clock"]  # the last version given
        docs.delete_collection(made[0].collection_id)
        assert checkup.problems(store) == []
    finally:
        store.close()


def _put_back_rows(vault: Path, backup: Path, table: str, row_ids: list[int]) -> None:
    for row_id in row_ids:
        (old,) = _sql(backup, f"SELECT payload FROM {table} WHERE id = ?", row_id)[0]
        _sql(vault, f"UPDATE {table} SET payload = ? WHERE id = ?", old, row_id)


def test_a_document_saved_again_after_its_shard_was_put_back_does_not_make_an_older_copy_pass(
        vault_path: Path, tmp_path: Path) -> None:
    """Versions restarted where the listed one was lost: a shard put back with its document
    from a backup, the document saved again (its folder refreshed) at version 1, then the
    backup's document (version 1) put back again read as current. Every version now comes from the root's
    count, above any a copy holds."""
    store, docs, made = _filled(vault_path, 3)
    (tmp_path / "backups").mkdir()
    first = store.vault.backup_to(tmp_path / "backups" / "vault-1.db")
    target = made[1]
    docs.save_document(replace(target, path="/cases/v2.pdf"))
    docs.save_document(replace(target, path="/cases/v3.pdf"))
    docs.save_document(replace(target, path="/cases/v4.pdf"))
    store.close()
    _put_back_rows(vault_path, first, "versions", [1])
    _put_back_rows(vault_path, first, "documents", [target.id])
    store = reopen(vault_path)
    docs = DocumentStore(store.vault)
    docs.save_document(replace(target, path="/cases/v5.pdf"))  # the user's (or a refresh's) save
    store.close()
    _put_back_rows(vault_path, first, "documents", [target.id])  # its first version, again
    store = reopen(vault_path)
    try:
        listed = {d.id: d for d in DocumentStore(store.vault).documents(target.collection_id)}
        assert listed[target.id].status == FAILED and listed[target.id].path == ""
        assert f"documents row {target.id} is an older copy of itself (put back from an earlier copy of " \
            "the vault)" in checkup.problems(store)
    finally:
        store.close()


def test_a_document_saved_again_after_the_root_was_removed_does_not_make_an_older_copy_pass(
        vault_path: Path, tmp_path: Path) -> None:
    store, docs, made = _filled(vault_path, 1)  # the backup's shard and document at version 1
    (tmp_path / "backups").mkdir()
    backup = store.vault.backup_to(tmp_path / "backups" / "vault-1.db")
    target = made[0]
    for n in range(3):
        docs.save_document(replace(target, path=f"/cases/later-{n}.pdf"))
    store.close()
    _sql(vault_path, "DELETE FROM preferences WHERE id = ?", ROOT_ROW)
    store = reopen(vault_path)
    DocumentStore(store.vault).save_document(replace(target, path="/cases/now.pdf"))
    store.close()
    _put_back_rows(vault_path, backup, "versions", [1])
    _put_back_rows(vault_path, backup, "documents", [target.id])
    store = reopen(vault_path)
    try:
        listed = {d.id: d for d in DocumentStore(store.vault).documents(target.collection_id)}
        assert listed[target.id].path == "" and listed[target.id].status == FAILED
        assert any(p.startswith("versions row 1 is an older copy") for p in checkup.problems(store))
    finally:
        store.close()


def test_a_payload_that_is_not_bytes_reads_as_damage_not_as_a_crash(vault_path: Path) -> None:
    """SQLite keeps any type in any column: a number where a shard's ciphertext was made
    every read of the documents, and the check, raise TypeError."""
    store, docs, made = _filled(vault_path, 2)
    store.close()
    _sql(vault_path, "UPDATE versions SET payload = 5 WHERE id = 1")
    _sql(vault_path, "UPDATE documents SET payload = 'text' WHERE id = ?", made[1].id)
    store = reopen(vault_path)
    try:
        assert {d.status for d in DocumentStore(store.vault).documents(made[0].collection_id)} == {FAILED}
        problems = checkup.problems(store)
        assert "versions row 1 is missing or damaged" in problems
        assert any(p.startswith("documents.payload of row") for p in problems)
    finally:
        store.close()


def test_a_root_from_before_the_shards_put_back_over_a_vault_that_has_them_is_not_taken(
        vault_path: Path, tmp_path: Path) -> None:
    """The copy kept before the upgrade to schema 0004 holds a root without shards: put
    back over the upgraded vault, it is an older copy, not a root to convert."""
    store, docs, made = _filled(vault_path, 2)
    cipher = store.vault.cipher
    root = _root(store, vault_path)
    old = {key: value for key, value in root.items() if key not in (SHARDS, "clock")}
    old["documents"] = {str(d.id): 1 for d in made}
    sealed = cipher.encrypt(json.dumps(old).encode(), "preferences", "payload", ROOT_ROW)
    store.close()
    _sql(vault_path, "UPDATE preferences SET payload = ? WHERE id = ?", sealed, ROOT_ROW)
    store = reopen(vault_path)
    try:
        assert {d.status for d in DocumentStore(store.vault).documents(made[0].collection_id)} == {FAILED}
        assert "preferences row 2 is an older copy of itself (put back from an earlier copy of the vault)" \
            in checkup.problems(store)
        docs = DocumentStore(store.vault)
        docs.save_document(replace(made[0], path="/cases/again.pdf"))  # the root, written again
        problems = checkup.problems(store)
        assert "preferences row 2, the record of versions, was an older copy of itself when Hearth wrote it " \
            "again: the rows it no longer lists read as damaged" in problems
        assert f"documents row {made[1].id} lost its version with preferences row 2, the record of versions " \
            "(removed, damaged or put back)" in problems
        assert {d.id: d.status for d in docs.documents(made[0].collection_id)} == {made[0].id: INDEXED,
                                                                                    made[1].id: FAILED}
    finally:
        store.close()


def test_a_damaged_shard_leaves_the_collections_models_and_preferences_reading(vault_path: Path) -> None:
    """Reads that need no document's version do not read the shards at all."""
    from storage.library import COPY, ModelLibrary

    store, docs, made = _filled(vault_path, 3)
    library = ModelLibrary(store)
    library.add("Case model", "/models/case.gguf", COPY, "e" * 64, {})
    library.set_preference("theme", "dark")
    store.close()
    _sql(vault_path, "UPDATE versions SET payload = ? WHERE id = 1", b"\x00" * 64)
    store = reopen(vault_path)
    try:
        library = ModelLibrary(store)
        assert [c.name for c in DocumentStore(store.vault).collections()] == ["Archive"]
        assert [e.name for e in library.entries()] == ["Case model"]
        assert library.preferences() == {"theme": "dark"}
        library.set_preference("theme", "light")  # a write that touches no shard
        assert library.preferences() == {"theme": "light"}
        assert {d.status for d in DocumentStore(store.vault).documents(made[0].collection_id)} == {FAILED}
    finally:
        store.close()
