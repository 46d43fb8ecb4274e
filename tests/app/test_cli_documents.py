"""docs add / search / list and ask, as a script would run them (subprocesses, real models)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests import retrieval_set

ROOT = Path(__file__).resolve().parents[2]
pytestmark = [pytest.mark.model, pytest.mark.e2e]


def hearth(data_dir: Path, *args: str, passphrase: str = "lantern quarry velvet") -> subprocess.CompletedProcess:
    env = dict(os.environ, HEARTH_DATA_DIR=str(data_dir), HEARTH_PASSPHRASE=passphrase)
    return subprocess.run([sys.executable, "-m", "app", *args], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=600)


def test_add_search_list_and_ask(data_dir: Path, tmp_path: Path) -> None:
    folder = retrieval_set.write_corpus(tmp_path / "corpus")
    added = hearth(data_dir, "docs", "add", "work", str(folder), str(tmp_path / "nope.txt"))
    assert added.returncode == 1, added.stderr  # a file was not indexed: a script must see it
    assert "8 indexed, 0 skipped, 1 failed" in added.stdout
    assert "nope.txt: does not exist" in added.stdout

    again = hearth(data_dir, "docs", "add", "Work", str(folder))  # the same collection
    assert again.returncode == 0, again.stderr
    assert "0 indexed, 8 skipped" in again.stdout  # unchanged files are not indexed twice

    found = hearth(data_dir, "docs", "search", "WORK", "Which permit is needed for hazardous cargo?",
                   "--k", "3", "--json")
    assert found.returncode == 0, found.stderr
    hits = json.loads(found.stdout)
    assert len(hits) <= 3 and Path(hits[0]["file"]).name == "harbor.pdf" and hits[0]["page"] == 2
    assert set(hits[0]) == {"file", "page", "section", "score", "cosine", "text"}

    shown = hearth(data_dir, "docs", "search", "work", "Which permit is needed for hazardous cargo?")
    assert shown.returncode == 0, shown.stderr
    assert "[1] harbor.pdf, page 2\n    Dangerous goods. Hazardous cargo requires permit HRB-7731" in shown.stdout
    assert "\\n" not in shown.stdout and "\\xa0" not in shown.stdout and "score" not in shown.stdout

    listed = hearth(data_dir, "docs", "list")
    assert "work: 8 files" in listed.stdout and "Work" not in listed.stdout

    answer = hearth(data_dir, "ask", "work", "How much is the mooring fee per meter per day?",
                    "--max-tokens", "48")
    assert answer.returncode == 0, answer.stderr
    assert "Sources:" in answer.stdout and "harbor.pdf, page 3" in answer.stdout
    body = answer.stdout.split("\nSources:")[0].strip()
    assert body and not body.startswith("["), answer.stdout  # no lone "[1]" first (#36 item 9)

    missing = hearth(data_dir, "docs", "search", "nothing-like-this", "question")
    assert missing.returncode == 1 and "no collection named" in missing.stderr

    wrong = hearth(data_dir, "docs", "list", passphrase="not the passphrase")
    assert wrong.returncode == 1 and "Wrong passphrase" in wrong.stderr


def test_read_only_commands_work_beside_the_open_window(data_dir: Path, tmp_path: Path) -> None:
    """Issue #36, item 9: with the window open, even `docs list` said "Hearth is already
    open with this data folder". Commands that only read run beside it now; one that
    writes is refused and says which ones do work."""
    folder = retrieval_set.write_corpus(tmp_path / "corpus")
    assert hearth(data_dir, "docs", "add", "work", str(folder)).returncode == 0
    window = subprocess.Popen(  # holds the data folder's lock as the open window does
        [sys.executable, "-c", "import sys; from pathlib import Path; from storage.instance_lock import "
         "InstanceLock; lock = InstanceLock(Path(sys.argv[1])); lock.acquire(); print('open', flush=True); "
         "sys.stdin.readline()", str(data_dir)],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, cwd=ROOT)
    try:
        assert window.stdout.readline().strip() == "open"
        listed = hearth(data_dir, "docs", "list")
        assert listed.returncode == 0 and "work: 8 files" in listed.stdout, listed.stderr
        found = hearth(data_dir, "docs", "search", "work", "Which permit is needed for hazardous cargo?")
        assert found.returncode == 0 and "harbor.pdf, page 2" in found.stdout, found.stderr
        checked = hearth(data_dir, "check-vault")
        assert checked.returncode == 0 and "vault ok" in checked.stdout, checked.stderr
        added = hearth(data_dir, "docs", "add", "work", str(folder))
        assert added.returncode == 1 and "work beside it" in added.stderr
    finally:
        window.kill()
        window.wait()


def test_ask_and_chat_pick_a_local_model_by_name(data_dir: Path, tmp_path: Path) -> None:
    """Issue #36, item 9: `--model` named only an engine's model; a local one is named as
    `models list` shows it, and an unknown name says where the names are."""
    folder = retrieval_set.write_corpus(tmp_path / "corpus")
    assert hearth(data_dir, "docs", "add", "work", str(folder)).returncode == 0
    named = hearth(data_dir, "ask", "work", "How much is the mooring fee per meter per day?",
                   "--max-tokens", "16", "--model", "smollm2 135m instruct (q4_1)")
    assert named.returncode == 0, named.stderr
    unknown = hearth(data_dir, "ask", "work", "Mooring fee?", "--model", "no-such-model")
    assert unknown.returncode == 1 and "no-such-model" in unknown.stderr and "models list" in unknown.stderr


def test_docs_sync_catches_a_collection_up_with_its_folder(data_dir: Path, tmp_path: Path) -> None:
    """#40: `docs sync NAME` indexes the new and changed, keeps a renamed file's passages,
    drops the deleted; an unknown collection exits 1."""
    folder = tmp_path / "matter"
    folder.mkdir()
    (folder / "lease.md").write_text("The lease of unit 4 ends on 31 August.")
    (folder / "old.md").write_text("An old note about the boiler.")
    assert hearth(data_dir, "docs", "add", "matter", str(folder)).returncode == 0
    (folder / "lease.md").rename(folder / "lease-unit-4.md")
    (folder / "old.md").unlink()
    (folder / "new.md").write_text("Dr. Lin is on call on Sunday.")
    synced = hearth(data_dir, "docs", "sync", "matter")
    assert synced.returncode == 0, synced.stderr
    assert f"indexed  {folder / 'new.md'}" in synced.stdout
    assert "renamed or moved: its passages were kept" in synced.stdout
    assert "no longer there" in synced.stdout
    listed = hearth(data_dir, "docs", "list").stdout
    assert "lease-unit-4.md" in listed and "old.md" not in listed
    assert hearth(data_dir, "docs", "sync", "no-such").returncode == 1


@pytest.mark.skipif(sys.version_info < (3, 11), reason="Python's safe path (PYTHONSAFEPATH) is 3.11's")
def test_a_module_in_the_folder_hearth_is_started_from_does_not_run_in_its_children(
        data_dir: Path, tmp_path: Path) -> None:
    """A review: the isolated reader is started as ``python -c`` in Hearth's working folder,
    which ``-c`` puts first on its sys.path; a ``pickle.py`` planted there (~/Downloads) ran
    in the reader, before its guard and seccomp, with HEARTH_PASSPHRASE in its environment."""
    started_in = tmp_path / "Downloads"
    started_in.mkdir()
    ran = tmp_path / "planted-ran"
    (started_in / "pickle.py").write_text(
        f"open({str(ran)!r}, 'w').close()\n"
        "import os, sys, importlib\n"
        "sys.path = [p for p in sys.path if p not in ('', os.getcwd())]\n"
        "del sys.modules['pickle']\n"
        "globals().update(importlib.import_module('pickle').__dict__)\n")
    note = started_in / "note.txt"
    note.write_text("The harbour permit covers hazardous cargo.\n")
    script = Path(sys.executable).parent / ("hearth.exe" if os.name == "nt" else "hearth")  # as installed
    env = dict(os.environ, HEARTH_DATA_DIR=str(data_dir), HEARTH_PASSPHRASE="lantern quarry velvet")
    env.pop("PYTHONSAFEPATH", None)
    added = subprocess.run([str(script), "docs", "add", "notes", str(note)], cwd=started_in, env=env,
                           capture_output=True, text=True, timeout=600)
    assert added.returncode == 0, added.stderr
    assert "1 indexed" in added.stdout
    assert not ran.exists()
