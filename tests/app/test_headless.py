"""Commands without a window take the passphrase from HEARTH_PASSPHRASE or ask for it."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def run(data_dir: Path, *args: str, passphrase: str | None = None, stdin: str = "") -> subprocess.CompletedProcess:
    env = dict(os.environ, HEARTH_DATA_DIR=str(data_dir))
    env.pop("HEARTH_PASSPHRASE", None)
    if passphrase is not None:
        env["HEARTH_PASSPHRASE"] = passphrase
    return subprocess.run([sys.executable, "-m", "app", *args], cwd=ROOT, env=env, input=stdin,
                          capture_output=True, text=True, timeout=120)


def test_check_vault_creates_then_opens_with_the_environment_passphrase(data_dir: Path) -> None:
    first = run(data_dir, "check-vault", passphrase="basalt thimble crocus")
    assert first.returncode == 0, first.stderr
    assert "vault ok: 0 chats" in first.stdout
    assert (data_dir / "vault.db").exists()
    wrong = run(data_dir, "check-vault", passphrase="not it")
    assert wrong.returncode == 1 and "Wrong passphrase" in wrong.stderr


def test_the_passphrase_is_asked_for_when_the_variable_is_unset(data_dir: Path) -> None:
    created = run(data_dir, "check-vault", stdin="typed lantern quarry\ntyped lantern quarry\n")
    assert created.returncode == 0, created.stderr
    assert "forget it" in created.stderr
    again = run(data_dir, "check-vault", stdin="typed lantern quarry\n")
    assert again.returncode == 0, again.stderr
    mismatch = run(data_dir / "other", "check-vault", stdin="one ember orchid pylon\nanother basalt thimble\n")
    assert mismatch.returncode == 1 and "different" in mismatch.stderr


def test_the_self_test_needs_no_passphrase(data_dir: Path) -> None:
    result = run(data_dir, "--prepare-models")
    assert result.returncode == 0, result.stderr
    assert not (data_dir / "vault.db").exists()


def test_a_child_process_does_not_inherit_the_environment_passphrase(data_dir: Path) -> None:
    code = """
import os, subprocess, sys
from cli.headless import open_session
session, lock = open_session()
child = subprocess.run([sys.executable, "-c", "import os; print(os.environ.get('HEARTH_PASSPHRASE'))"],
                       capture_output=True, text=True, check=True)
session.close(); lock.release()
print("here:", os.environ.get("HEARTH_PASSPHRASE"), "child:", child.stdout.strip())
"""
    env = dict(os.environ, HEARTH_DATA_DIR=str(data_dir), HEARTH_PASSPHRASE="basalt thimble crocus")
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().splitlines()[-1] == "here: None child: None"
    assert (data_dir / "vault.db").exists()  # it was read, and used


def test_a_new_vault_needs_the_same_passphrase_rule_as_in_the_window(data_dir: Path) -> None:
    from core.passphrase import MIN_LENGTH

    short = "x" * (MIN_LENGTH - 1)
    from_environment = run(data_dir, "check-vault", passphrase="x")
    assert from_environment.returncode == 1
    assert f"at least {MIN_LENGTH} characters" in from_environment.stderr
    typed = run(data_dir, "check-vault", stdin=f"{short}\n{short}\n")
    assert typed.returncode == 1 and f"at least {MIN_LENGTH} characters" in typed.stderr
    assert not (data_dir / "vault.db").exists()  # nothing was created
    guessable = run(data_dir, "check-vault", passphrase="Summer2024!")  # long enough, but common
    assert guessable.returncode == 1 and "too easy to guess" in guessable.stderr
    enough = run(data_dir, "check-vault", passphrase="ember orchid pylon")
    assert enough.returncode == 0, enough.stderr
    # Opening an existing vault is not judged by the rule: only new passphrases are.
    assert "Wrong passphrase" in run(data_dir, "check-vault", passphrase="x").stderr


def test_the_window_and_the_terminal_share_one_rule() -> None:
    from app.vault import lock_screen
    from core.passphrase import MIN_LENGTH

    assert lock_screen.MIN_LENGTH == MIN_LENGTH
