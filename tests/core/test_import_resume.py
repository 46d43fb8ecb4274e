"""An import killed midway resumes with nothing indexed twice (#43): the real terminal
command indexes a folder of 500 files, is SIGKILLed a fifth of the way in, and the next
catch-up (what the window runs at every unlock; ``docs sync`` here) indexes the rest: every
file once, each with exactly its own passage."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.app.test_cli_engines import PASSPHRASE, ROOT, hearth

pytestmark = [pytest.mark.model, pytest.mark.slow]
FILES = 500


@pytest.mark.timeout(900)
def test_an_import_killed_midway_resumes_and_indexes_every_file_once(data_dir: Path, tmp_path: Path) -> None:
    folder = tmp_path / "case"
    folder.mkdir()
    for n in range(FILES):
        (folder / f"note-{n:03d}.txt").write_text(f"Note {n}: the witness number {n} saw the blue van at "
                                                 f"{n % 24:02d}:{n % 60:02d} near gate {n % 7}.\n")
    assert hearth(data_dir, "docs", "add", "Case", str(folder / "note-000.txt")).returncode == 0  # the vault, made
    env = dict(os.environ, HEARTH_DATA_DIR=str(data_dir), HEARTH_PASSPHRASE=PASSPHRASE, LANG="C.UTF-8")
    adding = subprocess.Popen([sys.executable, "-m", "app", "docs", "add", "Case", str(folder)], cwd=ROOT, env=env,
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    assert adding.stderr is not None
    seen = b""
    deadline = time.monotonic() + 600
    while time.monotonic() < deadline:
        piece = os.read(adding.stderr.fileno(), 4096)
        if not piece:
            break
        seen = (seen + piece)[-4096:]
        done = [int(d) for d in re.findall(rb"\[(\d+)/500\]", seen)]
        if done and max(done) >= FILES // 5:
            break
    adding.send_signal(signal.SIGKILL)  # a crash, a power cut: no cleanup of any kind
    assert adding.wait(30) == -signal.SIGKILL and max(done) < FILES, seen[-300:]

    synced = hearth(data_dir, "docs", "sync", "Case")
    assert synced.returncode == 0, synced.stderr[-2000:]
    check = ("import os; from pathlib import Path; from core.session import Session; from core.vault import vault_path; "
             "s = Session.open(vault_path(), os.environ['HEARTH_PASSPHRASE']); "
             "from storage.documents.store import DocumentStore; d = DocumentStore(s.store.vault); "
             "(c,) = d.collections(); docs = d.documents(c.id); "
             "chunks = [k.document_id for k, _v in d.iter_chunks([c.id])]; "
             "print(len(docs), len({x.path for x in docs}), sorted({x.status for x in docs}), len(chunks), "
             "len(set(chunks))); s.close()")
    counted = subprocess.run([sys.executable, "-c", check], cwd=ROOT, env=env, capture_output=True, text=True,
                             timeout=300)
    assert counted.returncode == 0, counted.stderr[-2000:]
    documents, paths, statuses, chunks, chunked = counted.stdout.split()
    assert documents == paths == str(FILES), counted.stdout  # every file, once
    assert statuses == "['indexed']" and chunks == chunked == str(FILES), counted.stdout  # one passage each
