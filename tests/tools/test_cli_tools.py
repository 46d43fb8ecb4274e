"""``tools add|list|check|remove`` as a script runs them, with their exit codes (#44)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.tools.conftest import needs_sandbox, server_args

ROOT = Path(__file__).resolve().parents[2]
PASSPHRASE = "lantern quarry velvet"
pytestmark = pytest.mark.e2e


def hearth(data_dir: Path, *args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    full = dict(os.environ, HEARTH_DATA_DIR=str(data_dir), HEARTH_PASSPHRASE=PASSPHRASE, LANG="C.UTF-8",
                **(env or {}))
    return subprocess.run([sys.executable, "-m", "app", *args], cwd=ROOT, env=full, capture_output=True,
                          text=True, timeout=120)


@needs_sandbox
def test_a_server_is_added_checked_listed_and_removed(data_dir: Path, tmp_path: Path) -> None:
    command, args = server_args("calm")
    notes = tmp_path / "notes"
    notes.mkdir()
    added = hearth(data_dir, "tools", "add", "calm", "--read", str(notes), "--env", "CALM_TOKEN",
                   "--", command, *args, env={"CALM_TOKEN": "t-0123456789"})
    assert added.returncode == 0, added.stderr
    assert "added (not started)" in added.stdout and "t-0123456789" not in added.stdout + added.stderr
    assert not any(b"t-0123456789" in p.read_bytes() for p in data_dir.rglob("*") if p.is_file())

    listed = hearth(data_dir, "tools", "list")
    assert listed.returncode == 0 and "calm: " in listed.stdout and str(notes) in listed.stdout
    assert "CALM_TOKEN" in listed.stdout and "t-0123456789" not in listed.stdout

    checked = hearth(data_dir, "tools", "check", "calm")
    assert checked.returncode == 0, checked.stderr
    assert "3 tool(s)" in checked.stdout and "add: Add two numbers." in checked.stdout

    again = hearth(data_dir, "tools", "add", "calm", "--", command, *args)
    assert again.returncode == 1 and "exists already" in again.stderr
    assert hearth(data_dir, "tools", "remove", "calm").returncode == 0
    gone = hearth(data_dir, "tools", "check", "calm")
    assert gone.returncode == 1 and "no tool server named calm" in gone.stderr


def test_a_server_that_fails_to_start_is_a_failed_check(data_dir: Path, tmp_path: Path) -> None:
    (tmp_path / "server").mkdir()  # not beside the data folder: that is never readable
    broken = tmp_path / "server" / "broken_server.py"
    broken.write_text("import sys\nprint('no such module: mcp_magic', file=sys.stderr)\nsys.exit(3)\n")
    assert hearth(data_dir, "tools", "add", "broken", "--", sys.executable, str(broken)).returncode == 0
    checked = hearth(data_dir, "tools", "check", "broken")
    assert checked.returncode == 1
    assert "broken stopped (exit code 3)" in checked.stderr and "mcp_magic" in checked.stderr


def test_the_data_folder_cannot_be_granted_from_the_terminal(data_dir: Path) -> None:
    data_dir.mkdir(parents=True, exist_ok=True)
    command, args = server_args("calm")
    refused = hearth(data_dir, "tools", "add", "calm", "--read", str(data_dir.parent), "--", command, *args)
    assert refused.returncode == 1 and "Hearth's own data" in refused.stderr
