"""Importing a folder stays inside it and always ends (security review, issue #14).

The real document service with a real vault, the real bundled embedding model in a real
inference worker, and the real parser process (or one that reads for ever, to cancel).
"""

from __future__ import annotations

import os
import sys
import time
from concurrent.futures import Future
from pathlib import Path

import pytest

from core.document_progress import Progress
from core.folders import OUTSIDE
from inference.bundled import embedding_model
from storage.documents.isolation import IsolatedParser
from storage.documents.store import DocumentStore
from storage.vault import Vault
from tests.core.test_document_service import CLOSE_WAIT, Gate, Service
from tests.storage import parser_children
from tests.storage.conftest import FAST_KDF

pytestmark = pytest.mark.model
BUNDLED = embedding_model().sha256
PROMPT = 30.0  # an import of a few small files ends well within this
SECRET = "The vault password is hunter2"


@pytest.fixture
def vault(tmp_path: Path):
    v = Vault.create(tmp_path / "vault" / "vault.db", "import passphrase", FAST_KDF)
    yield v
    v.close()


def stored_text(vault: Vault) -> str:
    return "\n".join(chunk.text for chunk, _ in DocumentStore(vault).iter_chunks())


def wait_for(path: Path, timeout: float = PROMPT) -> None:
    deadline = time.monotonic() + timeout
    while not path.exists():
        assert time.monotonic() < deadline, f"{path.name} did not appear"
        time.sleep(0.02)


@pytest.mark.parametrize("walk", ["fwalk", "walk"])
def test_links_that_leave_the_folder_are_skipped_and_reported(
        vault: Vault, worker, tmp_path: Path, monkeypatch, walk: str) -> None:
    if walk == "walk":  # the walk used where os.fwalk is missing (Windows)
        monkeypatch.delattr(os, "fwalk")
    private = tmp_path / "private"
    (private / "deeper").mkdir(parents=True)
    (private / "passwords.txt").write_text(SECRET)
    (private / "deeper" / "diary.md").write_text("# Diary\nThe safe code is 4711.\n")
    docs = tmp_path / "docs"
    (docs / "sub").mkdir(parents=True)
    (docs / "own.md").write_text("# Owls\nBarn owls hunt at night.\n")
    (docs / "sub" / "fox.txt").write_text("Foxes dig dens.")
    os.symlink("../private/passwords.txt", docs / "notes.txt")  # a file link out
    os.symlink("../private", docs / "linked")  # a folder link out
    os.symlink("../../private/deeper", docs / "sub" / "more")
    os.symlink("own.md", docs / "again.md")  # a link that stays inside: that file, once
    os.symlink("../docs", docs / "sub" / "loop")  # inside too: not walked twice

    s = Service(vault, worker.submit, BUNDLED)
    work = s.create("work")
    report = s.add(work.id, [docs]).result(timeout=PROMPT)
    assert sorted(Path(p).name for p in report.indexed) == ["fox.txt", "own.md"]
    assert not report.failed
    assert sorted((Path(p).relative_to(docs).as_posix(), why) for p, why in report.skipped) == [
        ("linked", OUTSIDE), ("notes.txt", OUTSIDE), ("sub/more", OUTSIDE)]
    text = stored_text(vault)
    assert "hunter2" not in text and "4711" not in text and "Barn owls" in text
    assert {Path(d.path).parent for d in DocumentStore(vault).documents(work.id)} <= {docs, docs / "sub"}
    assert s.service.close(CLOSE_WAIT)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="/proc/self/pagemap is Linux's")
def test_fifos_devices_and_endless_files_are_refused_and_the_import_ends(
        vault: Vault, worker, tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    os.mkfifo(docs / "pipe.txt")
    os.symlink("/dev/zero", docs / "zeros.txt")
    # A regular file of size 0 that reads for hundreds of gigabytes.
    os.symlink("/proc/self/pagemap", docs / "memory.txt")
    (docs / "ok.md").write_text("# Owls\nBarn owls hunt at night.\n")

    s = Service(vault, worker.submit, BUNDLED)
    work = s.create("work")
    report = s.add(work.id, [docs]).result(timeout=PROMPT)
    assert [Path(p).name for p in report.indexed] == ["ok.md"]
    assert [(Path(p).name, why) for p, why in report.failed] == [("pipe.txt", "is not a regular file")]
    assert sorted((Path(p).name, why) for p, why in report.skipped) == [
        ("memory.txt", OUTSIDE), ("zeros.txt", OUTSIDE)]

    # Chosen directly (the user's own choice), the endless file is read within its limit only.
    chosen = tmp_path / "chosen.txt"
    os.symlink("/proc/self/pagemap", chosen)
    report = s.add(work.id, [chosen]).result(timeout=PROMPT)
    assert len(report.failed) == 1 and not report.indexed
    # Read up to its limit; or not at all where the app's process is made non-dumpable
    # (guard.hardening), which closes its /proc files to other processes.
    assert report.failed[0][1].startswith(("too large (more than the limit of 50 MB)", "cannot be read"))

    (tmp_path / "later.md").write_text("# Later\nFoxes dig dens.\n")
    assert s.add(work.id, [tmp_path / "later.md"]).result(timeout=PROMPT).indexed  # still working
    assert s.service.close(CLOSE_WAIT)


def test_cancel_during_a_long_read_ends_the_job_promptly(vault: Vault, worker, tmp_path: Path) -> None:
    """The hash is read in the parser process: a read that never ends (a stalled disk)
    is stopped by a cancel, and the next import gets a fresh child."""
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "a.md").write_text("# Owls\nBarn owls hunt at night.\n")
    (docs / "slow-read.txt").write_text("a file on a disk that stopped answering")
    parser = IsolatedParser(timeout=600, child=parser_children.slow_child)
    s = Service(vault, worker.submit, BUNDLED, parser=parser)
    work = s.create("work")
    done = s.add(work.id, [docs])
    # a.md is indexed (the slow read began beside its embedding, read ahead), then the
    # import waits for the read.
    s.until(lambda e: isinstance(e, Progress) and e.files_done == 1)
    wait_for(docs / "slow-read.txt.started")  # the child is in the read
    cancelled = time.monotonic()
    s.service.cancel()
    report = done.result(timeout=PROMPT)
    assert report.cancelled and time.monotonic() - cancelled < 10  # not the 600 s time-out
    assert [Path(p).name for p in report.indexed] == ["a.md"]
    (tmp_path / "later.md").write_text("# Later\nFoxes dig dens.\n")
    assert s.add(work.id, [tmp_path / "later.md"]).result(timeout=PROMPT).indexed
    assert s.service.close(CLOSE_WAIT)


def test_the_next_file_is_parsed_while_this_one_is_embedded(vault: Vault, worker, tmp_path: Path) -> None:
    """Parsing overlaps embedding: with the first file's embedding held at the worker's
    door, the parser process is already in the second file."""
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "a.md").write_text("# Owls\nBarn owls hunt at night.\n")
    (docs / "slow-parse.txt").write_text("a long scan")
    gate = Gate(worker, lambda _command: True)
    s = Service(vault, gate.submit, BUNDLED, parser=IsolatedParser(timeout=600, child=parser_children.slow_child))
    done = s.add(s.create("work").id, [docs])
    gate.wait_held()  # a.md's passages wait for the worker
    wait_for(docs / "slow-parse.txt.started")
    assert gate.held and not gate.passed  # still waiting: the parse ran beside it
    s.service.cancel()
    report = done.result(timeout=PROMPT)
    assert report.cancelled and not report.indexed
    gate.open()
    assert s.service.close(CLOSE_WAIT)


def test_a_document_read_by_an_older_reader_is_read_again_at_refresh(vault: Vault, worker,
                                                                     tmp_path: Path) -> None:
    """When the way files are read changes (storage.documents.parsers.READER_VERSION), a
    refresh reads the unchanged file again: its old passages answer until then, and
    are replaced in one step."""
    from dataclasses import replace

    import numpy as np

    from storage.documents.chunking import Chunk
    from storage.documents.parsers import READER_VERSION

    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "howto.rst").write_text("*****\nCurses\n*****\n\nThe curses library paints screens.\n")
    service = Service(vault, worker.submit, BUNDLED)
    try:
        collection = service.create("notes")
        assert service.add(collection.id, [folder]).result(timeout=PROMPT).indexed
        store = DocumentStore(vault)
        (document,) = store.documents(collection.id)
        assert document.reader == READER_VERSION
        # As an older Hearth left it: its own reading of the file, recorded as version 1.
        width = next(iter(store.iter_chunks()))[1].shape[0]
        store.replace_chunks(document, [Chunk("*****", 0, None, None, 0, 5)],
                             np.ones((1, width), np.float32), BUNDLED)
        store.save_document(replace(document, reader=1))
        done: Future = Future()
        service.service.refresh_all(done=done)
        done.result(timeout=PROMPT)
        assert "*****" not in stored_text(vault) and "paints screens" in stored_text(vault)
        assert DocumentStore(vault).documents(collection.id)[0].reader == READER_VERSION
        # And an unchanged file read by this version is not read again.
        done = Future()
        service.service.refresh_all(done=done)
        reports = done.result(timeout=PROMPT)
        assert any("unchanged" in reason for report in reports for _path, reason in report.skipped)
    finally:
        service.service.close(5.0)
