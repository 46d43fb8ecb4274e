"""Someone with the vault file but not the key edits only the plaintext columns (with
sqlite3, as the review did): every edit is reported, none passes as real data."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import numpy as np
import pytest

from storage import checkup
from storage.chats import DAMAGED, ChatStore
from storage.crypto import LEGACY_FORMAT, FieldCipher, new_envelope, open_envelope
from storage.documents.chunking import Chunk
from storage.documents.store import INDEXED, Document, DocumentStore
from storage.reseal import reseal
from storage.vault import Vault
from storage.vault_file import ENVELOPE_KEY, read_envelope
from tests.storage.conftest import FAST_KDF, PASSPHRASE, reopen


def _sql(path: Path, statement: str, *args: object) -> list[tuple]:
    with sqlite3.connect(path) as conn:
        rows = conn.execute(statement, args).fetchall()
    conn.close()
    return rows


@pytest.fixture
def two_chats(vault_path: Path):
    store = ChatStore(Vault.create(vault_path, PASSPHRASE, FAST_KDF))
    work, diary = store.create_chat("work"), store.create_chat("diary")
    ids = [store.add_message(work.id, "user", text).id for text in ("first", "second", "third")]
    secret = store.add_message(diary.id, "user", "a private diary entry").id
    store.close()
    return work.id, diary.id, ids, secret


def _checked(path: Path) -> tuple[ChatStore, list[str]]:
    store = reopen(path)
    return store, store.verify()


def test_a_message_moved_into_another_chat_does_not_read_and_is_reported(vault_path, two_chats) -> None:
    work, _diary, _ids, secret = two_chats
    _sql(vault_path, "UPDATE messages SET chat_id = ?, position = 4 WHERE id = ?", work, secret)
    store, problems = _checked(vault_path)
    try:
        moved = [m for m in store.messages(work) if m.id == secret]
        assert [m.status for m in moved] == [DAMAGED] and moved[0].content == ""
        assert any(f"row {secret}" in p for p in problems)
    finally:
        store.close()


def test_reordered_messages_are_reported(vault_path, two_chats) -> None:
    work, _diary, ids, _secret = two_chats
    _sql(vault_path, "UPDATE messages SET position = 99 WHERE id = ?", ids[0])
    _sql(vault_path, "UPDATE messages SET position = 1 WHERE id = ?", ids[2])
    _sql(vault_path, "UPDATE messages SET position = 3 WHERE id = ?", ids[0])
    store, problems = _checked(vault_path)
    try:
        assert [m.status for m in store.messages(work)][0] == DAMAGED
        assert any(f"row {ids[0]}" in p for p in problems) and any(f"row {ids[2]}" in p for p in problems)
    finally:
        store.close()


def test_a_message_deleted_outside_hearth_is_reported(vault_path, two_chats) -> None:
    work, _diary, ids, _secret = two_chats
    _sql(vault_path, "DELETE FROM messages WHERE id = ?", ids[1])
    store, problems = _checked(vault_path)
    store.close()
    assert problems == [f"message {ids[1]} of chat {work} was deleted outside Hearth"]


def test_an_older_copy_of_a_message_put_back_is_reported(vault_path, two_chats) -> None:
    work, _diary, ids, _secret = two_chats
    (old,) = _sql(vault_path, "SELECT payload FROM messages WHERE id = ?", ids[2])
    store = reopen(vault_path)
    store.update_message(ids[2], content="corrected: do not sign")
    store.close()
    _sql(vault_path, "UPDATE messages SET payload = ? WHERE id = ?", old[0], ids[2])
    store, problems = _checked(vault_path)
    store.close()
    assert problems == [f"message {ids[2]} in chat {work} is an older copy of itself "
                        "(put back from an earlier copy of the vault)"]


def test_a_message_row_from_another_copy_is_reported(vault_path, tmp_path, two_chats) -> None:
    """A row added in a backup (same key, same vault id) and copied into the vault."""
    work, _diary, _ids, _secret = two_chats
    copy = tmp_path / "copy.db"
    store = reopen(vault_path)
    store.vault.backup_to(copy)
    store.close()
    other = reopen(copy)
    added = other.add_message(work, "user", "only in the copy")
    other.close()
    (row,) = _sql(copy, "SELECT id, chat_id, position, payload FROM messages WHERE id = ?", added.id)
    _sql(vault_path, "INSERT INTO messages (id, chat_id, position, payload) VALUES (?, ?, ?, ?)", *row)
    store, problems = _checked(vault_path)
    store.close()
    assert problems == [f"message {added.id} in chat {work} was not written there by Hearth "
                        "(added outside Hearth, or from another copy of the vault)"]


def test_a_passage_moved_to_another_document_is_not_cited_as_that_document(vault_path) -> None:
    store = ChatStore(Vault.create(vault_path, PASSPHRASE, FAST_KDF))
    documents = DocumentStore(store.vault)
    collection = documents.create_collection("case")
    diary = documents.save_document(Document(0, collection.id, "/private/diary.txt", INDEXED))
    contract = documents.save_document(Document(0, collection.id, "/case/contract.pdf", INDEXED))
    (chunk_id,) = documents.replace_chunks(diary, [Chunk("I was scared that night", 0, 1, None, 0, 23)],
                                           np.ones((1, 4), np.float32), "model")
    other = documents.create_collection("elsewhere")
    store.close()
    _sql(vault_path, "UPDATE chunks SET document_id = ? WHERE id = ?", contract.id, chunk_id)
    _sql(vault_path, "UPDATE documents SET collection_id = ? WHERE id = ?", other.id, diary.id)
    store = reopen(vault_path)
    documents = DocumentStore(store.vault)
    try:
        assert list(documents.iter_chunks()) == []  # not quoted as contract.pdf, nor at all
        moved = [d for d in documents.documents(other.id) if d.id == diary.id]
        assert moved[0].reason == "damaged in the vault"
        problems = checkup.problems(store)
        assert any(f"row {chunk_id}" in p for p in problems)
        assert any(f"row {diary.id}" in p for p in problems)
    finally:
        store.close()


def test_a_format_1_vault_is_migrated_at_the_first_unlock(vault_path) -> None:
    """A vault written before the bindings opens, is rebound and listed in one go, and its
    old unbound rows can no longer be spliced in."""
    store = ChatStore(Vault.create(vault_path, PASSPHRASE, FAST_KDF))
    chat = store.create_chat("from last year")
    first = store.add_message(chat.id, "user", "an old question")
    store.add_message(chat.id, "assistant", "an old answer")
    documents = DocumentStore(store.vault)
    collection = documents.create_collection("old")
    document = documents.save_document(Document(0, collection.id, "/old/a.md", INDEXED))
    documents.replace_chunks(document, [Chunk("old passage", 0, None, None, 0, 11)],
                             np.ones((1, 4), np.float32), "model")
    _downgrade_to_format_1(store.vault)
    store.close()
    (legacy_row,) = _sql(vault_path, "SELECT payload FROM messages WHERE id = ?", first.id)

    store = reopen(vault_path)
    try:
        assert [m.content for m in store.messages(chat.id)] == ["an old question", "an old answer"]
        assert [c.text for c, _ in DocumentStore(store.vault).iter_chunks()] == ["old passage"]
        assert checkup.problems(store) == []
        assert store.vault.cipher.format == 2 and store.vault.cipher.vault_id
    finally:
        store.close()
    _sql(vault_path, "UPDATE messages SET payload = ? WHERE id = ?", legacy_row[0], first.id)
    store, problems = _checked(vault_path)
    store.close()
    assert any("not a Hearth ciphertext of this vault" in p for p in problems)


def _downgrade_to_format_1(vault: Vault) -> None:
    """Write the vault as Hearth did before format 2 (for the migration test)."""
    envelope = read_envelope(vault.engine, vault.path)
    key = open_envelope(PASSPHRASE, envelope)
    legacy = FieldCipher(key, format=LEGACY_FORMAT)
    with vault.engine.begin() as conn:
        reseal(conn, vault.cipher, legacy)
        for chat_id, blob in conn.exec_driver_sql("SELECT id, payload FROM chats").all():
            data = json.loads(legacy.decrypt(blob, "chats", "payload", chat_id))
            data.pop("messages")
            conn.exec_driver_sql("UPDATE chats SET payload = ? WHERE id = ?",
                                 (legacy.encrypt(json.dumps(data).encode(), "chats", "payload", chat_id), chat_id))
        old = new_envelope(PASSPHRASE, key, "", FAST_KDF, format=LEGACY_FORMAT)
        conn.exec_driver_sql("UPDATE vault_meta SET value = ? WHERE key = ?", (old.to_json(), ENVELOPE_KEY))


def test_check_vault_in_the_terminal_reports_a_moved_passage_and_a_deleted_message(tmp_path) -> None:
    """The review found that check-vault said nothing: now it names each place, exit 1."""
    import os
    import subprocess
    import sys

    data = tmp_path / "data"
    data.mkdir()
    path = data / "vault.db"
    store = ChatStore(Vault.create(path, PASSPHRASE, FAST_KDF))
    chat = store.create_chat("notes")
    kept, gone = (store.add_message(chat.id, "user", text).id for text in ("kept", "gone"))
    documents = DocumentStore(store.vault)
    collection = documents.create_collection("case")
    diary = documents.save_document(Document(0, collection.id, "/private/diary.txt", INDEXED))
    contract = documents.save_document(Document(0, collection.id, "/case/contract.pdf", INDEXED))
    (chunk_id,) = documents.replace_chunks(diary, [Chunk("I was scared", 0, 1, None, 0, 12)],
                                           np.ones((1, 4), np.float32), "model")
    store.close()
    root = Path(__file__).resolve().parents[2]
    env = dict(os.environ, HEARTH_DATA_DIR=str(data), HEARTH_PASSPHRASE=PASSPHRASE)
    sound = subprocess.run([sys.executable, "-m", "app", "check-vault"], cwd=root, env=env,
                           capture_output=True, text=True, timeout=120)
    assert sound.returncode == 0 and "vault ok" in sound.stdout, sound.stderr
    _sql(path, "UPDATE chunks SET document_id = ? WHERE id = ?", contract.id, chunk_id)
    _sql(path, "DELETE FROM messages WHERE id = ?", gone)
    result = subprocess.run([sys.executable, "-m", "app", "check-vault"], cwd=root, env=env,
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 1
    assert f"damaged: message {gone} of chat {chat.id} was deleted outside Hearth" in result.stdout
    assert f"chunks.payload of row {chunk_id}" in result.stdout
    assert f"message {kept} " not in result.stdout  # the sound message is not named


def test_restoring_a_format_1_backup_from_read_only_media_leaves_the_backup_untouched(
        vault_path, tmp_path) -> None:
    """The check of a backup used to open it in place, migrating an old one: it rewrote the
    user's own file, and failed outright on a read-only stick."""
    import hashlib
    import os
    import stat

    store = ChatStore(Vault.create(tmp_path / "old.db", PASSPHRASE, FAST_KDF))
    chat = store.create_chat("from an old backup")
    store.add_message(chat.id, "user", "kept in the backup")
    _downgrade_to_format_1(store.vault)
    store.close()
    backup = tmp_path / "stick" / "backup.db"
    backup.parent.mkdir()
    os.replace(tmp_path / "old.db", backup)
    os.chmod(backup, stat.S_IRUSR)
    os.chmod(backup.parent, stat.S_IRUSR | stat.S_IXUSR)  # a read-only folder, like a mounted stick
    before = hashlib.sha256(backup.read_bytes()).hexdigest()
    try:
        Vault.restore(backup, PASSPHRASE, vault_path)
    finally:
        os.chmod(backup.parent, stat.S_IRWXU)
    assert hashlib.sha256(backup.read_bytes()).hexdigest() == before
    restored = reopen(vault_path)
    assert [m.content for m in restored.messages(chat.id)] == ["kept in the backup"]
    assert restored.vault.cipher.format == 2
    restored.close()


def test_messages_reordered_while_the_vault_is_open_do_not_read(vault_path, two_chats) -> None:
    """The store keeps the plaintext of rows it has read (#37 item 3): the same bytes at
    another position while it is open are checked again, and do not read."""
    work, _diary, ids, _secret = two_chats
    store = reopen(vault_path)
    try:
        assert [m.content for m in store.messages(work)] == ["first", "second", "third"]  # now kept
        _sql(vault_path, "UPDATE messages SET position = 99 WHERE id = ?", ids[0])
        _sql(vault_path, "UPDATE messages SET position = 1 WHERE id = ?", ids[2])
        _sql(vault_path, "UPDATE messages SET position = 3 WHERE id = ?", ids[0])
        assert [m.status for m in store.messages(work)][0] == DAMAGED
    finally:
        store.close()
