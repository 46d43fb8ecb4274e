"""#38 item 1: one row put back from a real backup (same key, same place) is caught when it
is read, not only by "Check vault": preferences, a model, a collection, a document and a
message. The whole file put back stays consistent (the documented limit)."""

from __future__ import annotations

import json
import sqlite3
from dataclasses import replace
from pathlib import Path

from storage import checkup
from storage.chats import DAMAGED, ChatStore
from storage.documents.store import FAILED, INDEXED, Document, DocumentStore
from storage.library import COPY, ModelLibrary
from storage.vault import Vault
from storage.versions import ROOT_ROW, VERSION
from tests.storage.conftest import FAST_KDF, PASSPHRASE, reopen


def _sql(path: Path, statement: str, *args: object) -> list[tuple]:
    with sqlite3.connect(path) as conn:
        rows = conn.execute(statement, args).fetchall()
    conn.close()
    return rows


def _put_back(vault: Path, backup: Path, table: str, row_id: int) -> None:
    """Copy one row's payload from the backup over the vault's: what someone with the
    laptop can do with the automatic backups beside it."""
    (old,) = _sql(backup, f"SELECT payload FROM {table} WHERE id = ?", row_id)
    _sql(vault, f"UPDATE {table} SET payload = ? WHERE id = ?", old[0], row_id)


def _backup(store: ChatStore, tmp_path: Path) -> Path:
    (tmp_path / "backups").mkdir(exist_ok=True)
    return store.vault.backup_to(tmp_path / "backups" / "vault-1.db")


def _token_backed_up(vault_path: Path, tmp_path: Path, old: str, new: str) -> Path:
    """A vault whose API token was ``old`` when the backup was made, ``new`` now."""
    store = ChatStore(Vault.create(vault_path, PASSPHRASE, FAST_KDF))
    library = ModelLibrary(store)
    library.set_preference("api_token", old)
    backup = _backup(store, tmp_path)
    library.set_preference("api_token", new)
    store.close()
    return backup


def test_a_revoked_token_put_back_from_a_backup_is_not_read(vault_path: Path, tmp_path: Path) -> None:
    store = ChatStore(Vault.create(vault_path, PASSPHRASE, FAST_KDF))
    library = ModelLibrary(store)
    library.set_preference("api_token", "token-the-user-revoked")
    library.set_preference("engines", {"corp": {"url": "http://gpu.corp:8000/v1"}})
    backup = _backup(store, tmp_path)
    library.set_preference("api_token", "new-token")
    library.set_preference("engines", {"corp": {"url": "https://gpu.corp:8443/v1", "pin": "ab" * 32}})
    store.close()
    _put_back(vault_path, backup, "preferences", 1)

    store = reopen(vault_path)
    try:
        preferences = ModelLibrary(store).preferences()
        assert "token-the-user-revoked" not in json.dumps(preferences)
        assert "http://gpu.corp" not in json.dumps(preferences)
        said = "preferences row 1 is an older copy of itself (put back from an earlier copy of the vault)"
        assert said in store.damaged_places  # the window's damage notice reads these
        assert said in checkup.problems(store)
    finally:
        store.close()


def test_a_model_row_put_back_or_brought_back_is_reported(vault_path: Path, tmp_path: Path) -> None:
    store = ChatStore(Vault.create(vault_path, PASSPHRASE, FAST_KDF))
    library = ModelLibrary(store)
    kept = library.add("Case model", "/cases/acme/model.gguf", COPY, "a" * 64, {})
    gone = library.add("Removed model", "/cases/old/model.gguf", COPY, "b" * 64, {})
    backup = _backup(store, tmp_path)
    library.save(replace(kept, settings={"temperature": 0.1}))
    library.remove(gone.id)
    store.close()
    _put_back(vault_path, backup, "models", kept.id)
    (row,) = _sql(backup, "SELECT id, payload FROM models WHERE id = ?", gone.id)
    _sql(vault_path, "INSERT INTO models (id, payload) VALUES (?, ?)", *row)

    store = reopen(vault_path)
    try:
        assert ModelLibrary(store).entries() == []
        assert f"models row {kept.id} is an older copy of itself (put back from an earlier copy of the vault)" \
            in store.damaged_places
        problems = checkup.problems(store)
        assert f"models row {gone.id} was not written there by Hearth (added outside Hearth, or from " \
            "another copy of the vault)" in problems
    finally:
        store.close()


def test_a_message_put_back_reads_as_damaged_in_the_chat(vault_path: Path, tmp_path: Path) -> None:
    store = ChatStore(Vault.create(vault_path, PASSPHRASE, FAST_KDF))
    chat = store.create_chat("contract")
    message = store.add_message(chat.id, "assistant", "Sign the contract.")
    backup = _backup(store, tmp_path)
    store.update_message(message.id, content="Do not sign the contract.")
    store.close()
    _put_back(vault_path, backup, "messages", message.id)

    store = reopen(vault_path)
    try:
        (shown,) = store.messages(chat.id)  # read as the window reads it, no check asked for
        assert shown.status == DAMAGED and shown.content == ""
        assert store.damaged_places == [f"message {message.id} in chat {chat.id} is an older copy of itself "
                                        "(put back from an earlier copy of the vault)"]
    finally:
        store.close()


def test_a_collection_and_a_document_put_back_are_reported(vault_path: Path, tmp_path: Path) -> None:
    store = ChatStore(Vault.create(vault_path, PASSPHRASE, FAST_KDF))
    documents = DocumentStore(store.vault)
    collection = documents.create_collection("Case files")
    document = documents.save_document(Document(0, collection.id, "/cases/memo.pdf", INDEXED, chunks=3))
    backup = _backup(store, tmp_path)
    documents.update_collection(replace(collection, excluded=["/cases/leaked.pdf"]))
    documents.save_document(replace(document, path="/cases/memo-v2.pdf"))
    store.close()
    _put_back(vault_path, backup, "collections", collection.id)
    _put_back(vault_path, backup, "documents", document.id)

    store = reopen(vault_path)
    try:
        documents = DocumentStore(store.vault)
        (shown,) = documents.collections()
        assert shown.name.startswith("⚠") and shown.excluded == []
        (listed,) = documents.documents(collection.id)
        assert listed.status == FAILED and listed.path == ""
        problems = checkup.problems(store)
        assert f"collections row {collection.id} is an older copy of itself (put back from an earlier " \
            "copy of the vault)" in problems
        assert f"documents row {document.id} is an older copy of itself (put back from an earlier " \
            "copy of the vault)" in problems
    finally:
        store.close()


def test_the_whole_backup_reads_as_it_was(vault_path: Path, tmp_path: Path) -> None:
    """The limit SECURITY.md states: the whole file put back is consistent, and reads."""
    old = reopen(_token_backed_up(vault_path, tmp_path, "old", "new"))
    try:
        assert ModelLibrary(old).preferences() == {"api_token": "old"}
        assert checkup.problems(old) == [] and old.damaged_places == []
    finally:
        old.close()


def _strip_versions(store: ChatStore, path: Path) -> None:
    """Make the vault look as one written before the root record: no versions, no root."""
    cipher = store.vault.cipher
    for table, bind_column in (("models", None), ("preferences", None), ("collections", None),
                               ("documents", "collection_id")):
        columns = "id, payload" + (f", {bind_column}" if bind_column else "")
        for row in _sql(path, f"SELECT {columns} FROM {table}"):
            row_id, blob, bind = row[0], row[1], tuple(row[2:])
            if table == "preferences" and row_id == ROOT_ROW:
                continue
            data = json.loads(cipher.decrypt(blob, table, "payload", row_id, bind))
            data.pop(VERSION, None)
            sealed = cipher.encrypt(json.dumps(data).encode(), table, "payload", row_id, bind)
            _sql(path, f"UPDATE {table} SET payload = ? WHERE id = ?", sealed, row_id)
    _sql(path, "DELETE FROM preferences WHERE id = ?", ROOT_ROW)


def test_a_vault_from_before_the_root_record_is_adopted(vault_path: Path) -> None:
    store = ChatStore(Vault.create(vault_path, PASSPHRASE, FAST_KDF))
    library = ModelLibrary(store)
    entry = library.add("Old model", "/models/old.gguf", COPY, "c" * 64, {})
    library.set_preference("default_model", entry.id)
    collection = DocumentStore(store.vault).create_collection("Old collection")
    _strip_versions(store, vault_path)
    store.close()

    store = reopen(vault_path)
    try:
        library = ModelLibrary(store)
        assert [e.name for e in library.entries()] == ["Old model"]
        assert library.preferences() == {"default_model": entry.id}
        assert [c.name for c in DocumentStore(store.vault).collections()] == ["Old collection"]
        assert checkup.problems(store) == [] and store.damaged_places == []
        library.set_preference("theme", "dark")  # the first change writes the root
        assert _sql(vault_path, "SELECT COUNT(*) FROM preferences WHERE id = ?", ROOT_ROW) == [(1,)]
        assert library.preferences() == {"default_model": entry.id, "theme": "dark"}
        assert [c.name for c in DocumentStore(store.vault).collections()] == [collection.name]
        assert checkup.problems(store) == []
    finally:
        store.close()


def test_removing_the_root_record_does_not_make_rows_pass(vault_path: Path, tmp_path: Path) -> None:
    """Rows written under a root carry versions: without the root they are not adopted."""
    backup = _token_backed_up(vault_path, tmp_path, "revoked", "current")
    _put_back(vault_path, backup, "preferences", 1)
    _sql(vault_path, "DELETE FROM preferences WHERE id = ?", ROOT_ROW)

    store = reopen(vault_path)
    try:
        assert ModelLibrary(store).preferences() == {}
        # The window's notice says what the check says: the row was lost with the root.
        assert "preferences row 1 lost its version with preferences row 2, the record of versions (removed, " \
            "damaged or put back)" in store.damaged_places
    finally:
        store.close()


def test_a_row_from_before_the_root_put_back_with_the_root_removed_is_not_read(vault_path: Path) -> None:
    """A vault from before the root is adopted as it is: its rows carry no version and are
    listed at version 0. With the root removed from a vault that had one, a row without a
    version was adopted the same way: a preference row from a backup older than the root
    (a revoked token), put back with the root removed, was read as current."""
    store = ChatStore(Vault.create(vault_path, PASSPHRASE, FAST_KDF))
    library = ModelLibrary(store)
    library.set_preference("api_token", "current")
    collection = DocumentStore(store.vault).create_collection("Case")
    cipher = store.vault.cipher
    older = cipher.encrypt(json.dumps({"api_token": "revoked"}).encode(), "preferences", "payload", 1, ())
    store.close()
    _sql(vault_path, "UPDATE preferences SET payload = ? WHERE id = 1", older)  # as Hearth wrote it then
    _sql(vault_path, "UPDATE preferences SET payload = ? WHERE id = ?", b"\x00" * 64, ROOT_ROW)  # damaged

    store = reopen(vault_path)
    try:
        assert ModelLibrary(store).preferences() == {}
        problems = checkup.problems(store)
        assert "preferences row 2, the record of versions, is missing or damaged (removed, or put back from an " \
            "earlier copy of the vault)" in problems
        assert "preferences row 1 lost its version with preferences row 2, the record of versions (removed, " \
            "damaged or put back)" in problems
        assert f"collections row {collection.id} lost its version with preferences row 2, the record of " \
            "versions (removed, damaged or put back)" in problems
        ModelLibrary(store).set_preference("api_token", "new")  # the user sets a token again
        assert ModelLibrary(store).preferences() == {"api_token": "new"}
        assert "preferences row 2, the record of versions, was missing or damaged when Hearth wrote it again: " \
            "the rows it no longer lists read as damaged" in checkup.problems(store)
        DocumentStore(store.vault).delete_collection(collection.id)  # the last row it did not list
        assert checkup.problems(store) == []
    finally:
        store.close()


def test_re_embedding_keeps_the_files_the_user_removed(vault_path: Path) -> None:
    """switch_model wrote the collection without its list of removed files: after a
    re-embedding, the next refresh of the folder brought them back."""
    store = ChatStore(Vault.create(vault_path, PASSPHRASE, FAST_KDF))
    try:
        documents = DocumentStore(store.vault)
        collection = documents.create_collection("Case")
        documents.update_collection(replace(collection, sources=["/cases"], excluded=["/cases/drop.pdf"]))
        switched = documents.switch_model(documents.get_collection(collection.id), "d" * 64)
        assert switched.excluded == ["/cases/drop.pdf"]
        assert documents.get_collection(collection.id).excluded == ["/cases/drop.pdf"]
    finally:
        store.close()


def test_a_write_during_the_check_is_not_taken_for_a_row_put_back(vault_path: Path, monkeypatch) -> None:
    """The check reads the root record and the rows in one state of the file: a
    preference written between its two reads (the window saving while Check vault runs
    on its thread) is not "an older copy of itself"."""
    import storage.versions as versions

    store = ChatStore(Vault.create(vault_path, PASSPHRASE, FAST_KDF))
    library = ModelLibrary(store)
    library.set_preference("theme", "dark")
    real_rows = versions._rows
    written: list[bool] = []

    def rows_then_a_write(conn, table):
        found = real_rows(conn, table)
        if table == "models" and not written:
            written.append(True)
            library.set_preference("theme", "light")  # another connection, committed now
        return found

    monkeypatch.setattr(versions, "_rows", rows_then_a_write)
    try:
        assert written == [] and checkup.problems(store) == []
        assert written == [True]
        assert checkup.problems(store) == [] and library.preferences()["theme"] == "light"
    finally:
        store.close()


def test_saving_a_row_deleted_meanwhile_leaves_no_ghost_in_the_root(vault_path: Path) -> None:
    """A model removed while its entry was being saved elsewhere: the save changes no row,
    and the root does not list one that Check vault would then call deleted outside Hearth."""
    store = ChatStore(Vault.create(vault_path, PASSPHRASE, FAST_KDF))
    try:
        library = ModelLibrary(store)
        entry = library.add("Model", "/models/m.gguf", COPY, "e" * 64, {})
        library.remove(entry.id)
        library.save(replace(entry, settings={"temperature": 0.3}))
        assert library.entries() == [] and checkup.problems(store) == []
    finally:
        store.close()
