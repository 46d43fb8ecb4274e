"""The vault for commands without a window: passphrase from HEARTH_PASSPHRASE or a prompt.

The variable is removed from the environment as soon as it is read, so that no child
process (the model probe, the document parser, anything they start) inherits it. A new
vault's passphrase must meet the same rule as in the window (core.passphrase)."""

from __future__ import annotations

import getpass
import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager

from core.passphrase import new_passphrase_problem
from core.session import Session
from core.vault import (
    AlreadyRunning,
    BadPassphrase,
    DamagedVault,
    InstanceLock,
    NewerVault,
    Vault,
    WrongPassphrase,
    data_dir,
    vault_path,
)
from i18n import translate

PASSPHRASE_ENV = "HEARTH_PASSPHRASE"


class HeadlessError(Exception):
    """A reason to stop, in the user's words."""


# A command's session: the document service's step (at most 5 s), then the worker's, which
# may be finishing a long answer (10 s).
CLOSE_TIMEOUT = 15.0


# Why open_session() did not open the vault, each said in the user's words by its message.
OPENING_FAILED = (WrongPassphrase, BadPassphrase, DamagedVault, NewerVault, AlreadyRunning, HeadlessError)


def take_environment_passphrase() -> str | None:
    """HEARTH_PASSPHRASE, removed from the environment (children must not inherit it)."""
    return os.environ.pop(PASSPHRASE_ENV, None)


def read_passphrase(creating: bool) -> str:
    value = take_environment_passphrase()
    if value is not None:
        if creating and (problem := new_passphrase_problem(value)):
            raise HeadlessError(translate("cli.headless", "{variable} is too weak for a new vault: "
                                          "{problem} No vault was created.").format(
                variable=PASSPHRASE_ENV, problem=problem))
        return value
    if creating:
        print(translate("cli.headless", "No vault yet: choose a passphrase. If you forget it, "
                        "your chats are gone."), file=sys.stderr)
        first = getpass.getpass(translate("cli.headless", "New passphrase: "))
        if problem := new_passphrase_problem(first):
            raise HeadlessError(translate("cli.headless", "{problem} No vault was created.").format(
                problem=problem))
        if first != getpass.getpass(translate("cli.headless", "Same passphrase again: ")):
            raise HeadlessError(translate("cli.headless", "The two passphrases are different."))
        return first
    return getpass.getpass(translate("cli.headless", "Passphrase: "))


def open_session(read_only: bool = False) -> tuple[Session, InstanceLock]:
    """Take the instance lock and open (or, the first time, create) the vault: its
    session, and the lock to release once the session is closed.

    ``read_only``: a command that writes nothing (docs list and search, ask, chat, models
    list, check-vault) runs beside an open window too: SQLite lets readers and the
    window's writes go on together, so the lock (which keeps two writers apart) is not
    needed; it is taken where it is free, so that no window opens meanwhile."""
    lock = InstanceLock(data_dir())
    try:
        lock.acquire()  # AlreadyRunning
    except AlreadyRunning:
        if not read_only:
            raise AlreadyRunning(translate(
                "cli.headless", "Hearth is open with this data folder, and this command would change "
                "it: do it in the window, or close the window first. Commands that only read (docs "
                "list, docs search, ask, chat, models list, check-vault) work beside it.")) from None
        if not Vault.exists(vault_path()):
            raise
    path = vault_path()
    try:
        if Vault.exists(path):
            return Session.open(path, read_passphrase(creating=False)), lock
        return Session.create(path, read_passphrase(creating=True)), lock
    except BaseException:
        lock.release()
        raise


@contextmanager
def unlocked(read_only: bool = False) -> Iterator[Session]:
    """The vault's session for one command: closed in its order at the end, then the lock
    released. A reason it did not open (a wrong passphrase, a damaged vault, the window
    holding the data folder) is a HeadlessError in the user's words."""
    try:
        session, lock = open_session(read_only)
    except OPENING_FAILED as exc:
        raise HeadlessError(str(exc)) from exc
    try:
        yield session
    finally:
        session.close(CLOSE_TIMEOUT)
        lock.release()
