from __future__ import annotations

from pathlib import Path

import pytest

from storage.chats import ChatStore
from storage.crypto import KdfParams
from storage.vault import Vault

# Argon2id at its cheapest, for tests that open many vaults. The app always uses at
# least the RFC 9106 parameters (tested in test_crypto.py and test_vault.py).
FAST_KDF = KdfParams(memory_kib=64, iterations=1, lanes=1)
PASSPHRASE = "correct horse battery staple"


@pytest.fixture
def vault_path(tmp_path: Path) -> Path:
    return tmp_path / "vault.db"


@pytest.fixture
def store(vault_path: Path):
    s = ChatStore(Vault.create(vault_path, PASSPHRASE, FAST_KDF))
    yield s
    s.close()


def reopen(path: Path, passphrase: str = PASSPHRASE) -> ChatStore:
    return ChatStore(Vault.open(path, passphrase))
