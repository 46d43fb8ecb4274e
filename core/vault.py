"""The vault and the files beside it, as the window and the terminal use them (#37: app/ and
cli/ import core, never storage or inference). Re-exports only; the code is in storage/."""

from __future__ import annotations

from storage import checkup, export
from storage.crypto import (
           DEFAULT_KDF,
           BadPassphrase,
           DamagedVault,
           KdfParams,
           NewerVault,
           WrongPassphrase,
)
from storage.db import VaultClosed
from storage.erase import erase_everything
from storage.errors import causes, trouble, why_not
from storage.instance_lock import SOCKET_FILE, AlreadyRunning, InstanceLock
from storage.paths import backups_dir, data_dir, index_path, logs_dir, models_dir, vault_path
from storage.vault import PassphraseChanged, Vault, VaultMissing

__all__ = ["AlreadyRunning", "BadPassphrase", "DEFAULT_KDF", "DamagedVault", "InstanceLock",
           "KdfParams", "NewerVault", "PassphraseChanged", "SOCKET_FILE", "Vault", "VaultClosed", "VaultMissing",
           "WrongPassphrase", "backups_dir", "causes", "checkup", "data_dir", "erase_everything",
           "export", "index_path", "logs_dir", "models_dir", "trouble", "vault_path", "why_not"]
