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
    first = run(data_dir, "check-vault", passphrase="env passphrase")
    assert first.returncode == 0, first.stderr
    assert "vault ok: 0 chats" in first.stdout
    assert (data_dir / "vault.db").exists()
    wrong = run(data_dir, "check-vault", passphrase="not it")
    assert wrong.returncode == 1 and "Wrong passphrase" in wrong.stderr


def test_the_passphrase_is_asked_for_when_the_variable_is_unset(data_dir: Path) -> None:
    created = run(data_dir, "check-vault", stdin="typed passphrase\ntyped passphrase\n")
    assert created.returncode == 0, created.stderr
    assert "forget it" in created.stderr
    again = run(data_dir, "check-vault", stdin="typed passphrase\n")
    assert again.returncode == 0, again.stderr
    mismatch = run(data_dir / "other", "check-vault", stdin="one passphrase\nanother one\n")
    assert mismatch.returncode == 1 and "different" in mismatch.stderr


def test_the_self_test_needs_no_passphrase(data_dir: Path) -> None:
    result = run(data_dir, "--prepare-models")
    assert result.returncode == 0, result.stderr
    assert not (data_dir / "vault.db").exists()
