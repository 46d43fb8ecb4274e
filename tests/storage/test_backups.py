"""Automatic backups while the vault is damaged, and the copies a crash leaves behind."""

from __future__ import annotations

import sqlite3
from functools import partial
from pathlib import Path

from storage.chats import DAMAGED, ChatStore
from storage.vault import Vault
from tests.storage.conftest import FAST_KDF, PASSPHRASE, reopen


def _flip_a_bit_in_a_message(path: Path) -> None:
    """What bit rot or a bad sector does to one message's ciphertext."""
    conn = sqlite3.connect(path)
    try:
        row_id, blob = conn.execute("SELECT id, payload FROM messages ORDER BY id LIMIT 1").fetchone()
        changed = bytearray(blob)
        changed[40] ^= 1
        conn.execute("UPDATE messages SET payload = ? WHERE id = ?", (bytes(changed), row_id))
        conn.commit()
    finally:
        conn.close()


def test_backups_made_while_the_vault_is_damaged_do_not_push_out_the_clean_one(
        vault_path: Path, tmp_path: Path) -> None:
    """Each unlock copied the damaged vault and erased all but the newest three: after
    three unlocks the last clean backup, the one the user is told to restore, was gone."""
    folder = tmp_path / "backups"
    store = ChatStore(Vault.create(vault_path, PASSPHRASE, FAST_KDF))
    chat = store.create_chat("kept")
    store.add_message(chat.id, "user", "IMPORTANT")
    clean = store.vault.auto_backup(folder)
    store.close()
    assert clean is not None
    _flip_a_bit_in_a_message(vault_path)
    for _day in range(4):
        store = reopen(vault_path)
        assert [m.status for m in store.messages(chat.id)] == [DAMAGED]
        made = store.vault.auto_backup(folder, force=True, damaged=partial(bool, store.damaged_places))
        store.close()
        assert made is not None and made.exists()  # a copy is still made each time
    assert clean.exists() and len(list(folder.glob("vault-*.db"))) == 5
    kept = reopen(clean)
    assert [m.content for m in kept.messages(chat.id)] == ["IMPORTANT"] and not kept.damaged_places
    kept.close()


def test_without_known_damage_backups_are_rotated_as_before(vault_path: Path, tmp_path: Path) -> None:
    folder = tmp_path / "backups"
    vault = Vault.create(vault_path, PASSPHRASE, FAST_KDF)
    folder.mkdir()
    older = [vault.backup_to(folder / f"vault-2000010{day}-000000.db") for day in (1, 2, 3)]
    made = vault.auto_backup(folder, force=True, damaged=lambda: False)
    vault.close()
    assert sorted(folder.glob("vault-*.db")) == [*older[1:], made]
