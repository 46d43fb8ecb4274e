"""The vault for commands without a window: passphrase from HEARTH_PASSPHRASE or a prompt."""

from __future__ import annotations

import getpass
import os
import sys

from storage.chats import ChatStore
from storage.instance_lock import InstanceLock
from storage.paths import data_dir, vault_path
from storage.vault import Vault

PASSPHRASE_ENV = "HEARTH_PASSPHRASE"


class HeadlessError(Exception):
    """A reason to stop, in the user's words."""


def read_passphrase(creating: bool) -> str:
    value = os.environ.get(PASSPHRASE_ENV)
    if value is not None:
        return value
    if creating:
        print("No vault yet: choose a passphrase. If you forget it, your chats are gone.",
              file=sys.stderr)
        first = getpass.getpass("New passphrase: ")
        if first != getpass.getpass("Same passphrase again: "):
            raise HeadlessError("The two passphrases are different.")
        return first
    return getpass.getpass("Passphrase: ")


def open_store() -> tuple[ChatStore, InstanceLock]:
    """Take the instance lock and open (or, the first time, create) the vault."""
    lock = InstanceLock(data_dir())
    lock.acquire()  # AlreadyRunning
    path = vault_path()
    try:
        if Vault.exists(path):
            return ChatStore(Vault.open(path, read_passphrase(creating=False))), lock
        return ChatStore(Vault.create(path, read_passphrase(creating=True))), lock
    except BaseException:
        lock.release()
        raise
