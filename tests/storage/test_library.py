from __future__ import annotations

import sqlite3
from pathlib import Path

from storage.chats import ChatStore
from storage.library import BUNDLED, COPY, REFERENCE, ModelLibrary
from tests.storage.conftest import reopen


def test_entries_round_trip_sorted_with_the_bundled_one_first(store: ChatStore, vault_path: Path) -> None:
    library = ModelLibrary(store)
    zeta = library.add("Zeta 7B", "/models/z.gguf", REFERENCE, "1" * 64, {"architecture": "llama"})
    library.add("alpha", "/models/a.gguf", COPY, "2" * 64, {})
    library.add("Starter", "/models/s.gguf", BUNDLED, "3" * 64, {})
    assert [e.name for e in library.entries()] == ["Starter", "alpha", "Zeta 7B"]
    library.save(type(zeta)(**{**zeta.__dict__, "probe": {"ok": True, "reason": ""}}))
    store.close()
    store = reopen(vault_path)
    library = ModelLibrary(store)
    assert library.get(zeta.id).usable and library.get(zeta.id).info == {"architecture": "llama"}
    assert library.find_sha256("2" * 64).name == "alpha"
    store.close()


def test_preferences_and_removal(store: ChatStore) -> None:
    library = ModelLibrary(store)
    entry = library.add("m", "/m.gguf", COPY, "4" * 64, {})
    assert library.preferences() == {}
    library.set_preference("default_model", entry.id)
    assert library.preferences() == {"default_model": entry.id}
    library.remove(entry.id)
    assert library.entries() == [] and library.preferences()["default_model"] is None


def test_model_names_and_paths_are_encrypted(store: ChatStore, vault_path: Path) -> None:
    library = ModelLibrary(store)
    library.add("SecretModelName", "/home/me/SecretFolder/m.gguf", REFERENCE, "5" * 64, {})
    library.set_preference("default_model", 1)
    store.close()
    with sqlite3.connect(vault_path) as conn:
        blobs = b"".join(r[0] for r in conn.execute("SELECT payload FROM models UNION ALL SELECT payload FROM preferences"))
    assert b"SecretModelName" not in blobs and b"SecretFolder" not in blobs


def test_chat_settings_are_kept(store: ChatStore) -> None:
    chat = store.create_chat("c")
    store.set_chat_settings(chat.id, {"system_prompt": "Be terse.", "sampling": {"temperature": 0.1}})
    assert store.get_chat(chat.id).settings["system_prompt"] == "Be terse."
