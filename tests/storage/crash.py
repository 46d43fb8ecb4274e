"""Kill a writing process with SIGKILL at random moments; check what it promised survived.

Used by test_crash.py (50+ kills in the suite) and by the soak run:

    .venv/bin/python -m tests.storage.crash --rounds 1000
"""

from __future__ import annotations

import argparse
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

from storage.chats import ChatStore, Message
from storage.crypto import KdfParams, WrongPassphrase
from storage.vault import Vault

ROOT = Path(__file__).resolve().parents[2]
FAST_KDF = KdfParams(memory_kib=64, iterations=1, lanes=1)


def _run_and_kill(args: list[str], max_delay: float, rng: random.Random) -> list[str]:
    proc = subprocess.Popen(
        [sys.executable, "-m", "tests.storage.crash_worker", *args],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        env=dict(os.environ, PYTHONDONTWRITEBYTECODE="1"),
    )
    # Half the kills land during start-up (opening, migrating), half while writing.
    if rng.random() < 0.5:
        time.sleep(rng.uniform(0.0, 0.4))
    else:
        assert proc.stdout is not None
        proc.stdout.readline()
        time.sleep(rng.uniform(0.0, max_delay))
    proc.send_signal(signal.SIGKILL)
    out, err = proc.communicate(timeout=30)
    if proc.returncode != -signal.SIGKILL:
        raise AssertionError(f"the writer ended by itself ({proc.returncode}): {err[-2000:]}")
    return out.splitlines()


def check_integrity(path: Path) -> None:
    vault = Vault.open(path, "crash")
    try:
        problem = vault.integrity_problem()
        assert problem is None, problem
    finally:
        vault.close()


def messages_round(path: Path, rng: random.Random, promised: dict[int, str]) -> int:
    """One writer killed at a random moment; every write it reported must read back.
    Returns how many writes it reported before the kill."""
    lines = _run_and_kill(["messages", str(path), "crash"], 0.3, rng)
    for line in lines:
        kind, message_id, *rest = line.split(" ", 2)
        if kind == "message":
            promised[int(message_id)] = f"message {rest[0]} " + "x" * (int(rest[0]) % 300)
        elif kind == "checkpoint":
            promised[int(message_id)] = rest[0]
    store = ChatStore(Vault.open(path, "crash"))
    try:
        assert store.vault.integrity_problem() is None
        found = {}
        for chat in store.list_chats():
            found.update({m.id: m.content for m in every_message(store, chat.id)})
        missing = {k: v for k, v in promised.items() if found.get(k) != v}
        assert not missing, f"committed messages lost or changed: {sorted(missing)[:10]}"
        assert store.verify() == []
    finally:
        store.close()
    return len(lines)


def every_message(store: ChatStore, chat_id: int) -> list[Message]:
    """Every message of a chat, on every branch, as the window reaches them: through the
    versions of each message shown."""
    found: dict[int, Message] = {}
    todo: list[int | None] = [None]
    seen: set[int] = set()
    while todo:
        for message in store.messages(chat_id, todo.pop()):
            found[message.id] = message
            for version in message.versions:
                if version not in seen:
                    seen.add(version)
                    todo.append(version)
    return list(found.values())


def passphrase_round(path: Path, rng: random.Random) -> None:
    _run_and_kill(["passphrase", str(path), "crash", "other"], 0.2, rng)
    opened = []
    for candidate in ("crash", "other"):
        try:
            Vault.open(path, candidate).close()
            opened.append(candidate)
        except WrongPassphrase:
            pass
    # Exactly one of the two opens: the change either happened or it did not.
    assert len(opened) == 1, f"opened with {opened}"
    store = ChatStore(Vault.open(path, opened[0]))
    try:
        assert store.verify() == [], "a field does not decrypt after a kill during a passphrase change"
    finally:
        store.close()
    if opened[0] != "crash":
        vault = Vault.open(path, opened[0])
        vault.change_passphrase(opened[0], "crash")
        vault.close()


def run(folder: Path, rounds: int, seed: int) -> None:
    rng = random.Random(seed)
    path = folder / "vault.db"
    Vault.create(path, "crash", FAST_KDF).close()
    promised: dict[int, str] = {}
    for _ in range(rounds):
        messages_round(path, rng, promised)
    for _ in range(max(5, rounds // 5)):
        passphrase_round(path, rng)
    check_integrity(path)


if __name__ == "__main__":
    import tempfile

    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=int(time.time()))
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        started = time.monotonic()
        run(Path(tmp), args.rounds, args.seed)
        print(f"{args.rounds} kills while writing and {max(5, args.rounds // 5)} during passphrase "
              f"changes: no loss, integrity ok (seed {args.seed}, {time.monotonic() - started:.0f} s)")
