"""A process that writes to a vault until it is killed; the crash tests run it.

    python -m tests.storage.crash_worker messages VAULT PASSPHRASE
    python -m tests.storage.crash_worker passphrase VAULT PASS_A PASS_B

It prints a line only after the write it reports has returned (is committed), so
every printed line is a promise the vault must keep after a SIGKILL. Some answers are
regenerated (a version beside the old one) and some questions edited (a branch beside
the old one): every version and branch printed must still be there.
"""

from __future__ import annotations

import sys
from pathlib import Path

from storage.chats import STREAMING, ChatStore
from storage.vault import Vault


def write_messages(path: Path, passphrase: str) -> None:
    store = ChatStore(Vault.open(path, passphrase))
    chat = store.create_chat("crash test")
    print(f"chat {chat.id}", flush=True)
    i = 0
    while True:
        i += 1
        message = store.add_message(chat.id, "user", f"message {i} " + "x" * (i % 300))
        print(f"message {message.id} {i}", flush=True)
        answer = store.add_message(chat.id, "assistant", "", STREAMING)
        for step in range(3):
            store.update_message(answer.id, content=f"answer {i} part {step}")
        print(f"checkpoint {answer.id} answer {i} part 2", flush=True)
        if i % 3 == 0:  # regenerate: a new version, chosen once it is complete
            version = store.add_message(chat.id, "assistant", "", STREAMING, parent=message.id, show=False)
            store.update_message(version.id, content=f"answer {i} version 2")
            store.update_message(version.id, content=f"answer {i} version 2 done", status="complete", show=True)
            print(f"checkpoint {version.id} answer {i} version 2 done", flush=True)
        if i % 4 == 0:  # edit the question: a branch beside it, with its own answer
            edited = store.add_message(chat.id, "user", f"message {i} edited", parent=message.parent, show=False)
            print(f"checkpoint {edited.id} message {i} edited", flush=True)
            branch = store.add_message(chat.id, "assistant", "", STREAMING, parent=edited.id, show=False)
            store.update_message(branch.id, content=f"answer {i} branch", status="complete", show=True)
            print(f"checkpoint {branch.id} answer {i} branch", flush=True)


def change_passphrases(path: Path, first: str, second: str) -> None:
    vault = Vault.open(path, first)
    current, other = first, second
    print(f"now {current}", flush=True)
    while True:
        vault.change_passphrase(current, other)
        current, other = other, current
        print(f"now {current}", flush=True)


if __name__ == "__main__":
    mode, vault_file, *passphrases = sys.argv[1:]
    if mode == "messages":
        write_messages(Path(vault_file), passphrases[0])
    else:
        change_passphrases(Path(vault_file), passphrases[0], passphrases[1])
