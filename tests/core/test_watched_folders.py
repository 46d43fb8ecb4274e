"""Collections that follow their folders (#40): a catch-up indexes what is new or changed,
keeps a renamed file's passages, drops a deleted one, and leaves the index matching the
folder; a burst is one catch-up; a cancel leaves the index whole; a lock stops it at once.
The real document service, vault, parser children and bundled embedding model."""

from __future__ import annotations

import os
import time
from concurrent.futures import Future
from pathlib import Path

import pytest

from storage.documents.store import INDEXED, DocumentStore
from storage.vault import Vault
from tests.core.test_document_import import BUNDLED, PROMPT
from tests.core.test_document_service import Service
from tests.storage.conftest import FAST_KDF

pytestmark = pytest.mark.model


@pytest.fixture
def vault(tmp_path: Path):
    v = Vault.create(tmp_path / "vault" / "vault.db", "watched passphrase", FAST_KDF)
    yield v
    v.close()


def sync(service: Service, collection_id: int, timeout: float = PROMPT) -> list:
    done: Future = Future()
    service.service.sync(collection_id, done=done)
    return done.result(timeout=timeout)


def indexed(vault: Vault, collection_id: int) -> dict[str, int]:
    return {Path(d.path).name: d.id for d in DocumentStore(vault).documents(collection_id) if d.status == INDEXED}


def touch_later(path: Path, text: str) -> None:
    """A change a size-and-time comparison sees, however fast the test runs."""
    path.write_text(text)
    later = path.stat().st_mtime + 5
    os.utime(path, (later, later))


def test_a_catch_up_indexes_the_new_and_changed_keeps_the_renamed_and_drops_the_deleted(
        vault: Vault, worker, tmp_path: Path) -> None:  # noqa: F811
    folder = tmp_path / "matter"
    folder.mkdir()
    (folder / "lease.md").write_text("The lease of unit 4 ends on 31 August.")
    (folder / "memo.md").write_text("The budget asked for is 30,000.")
    (folder / "old.md").write_text("An old note about the boiler.")
    service = Service(vault, worker.submit, BUNDLED)
    try:
        collection = service.create("matter")
        assert len(service.add(collection.id, [folder]).result(timeout=PROMPT).indexed) == 3
        before = indexed(vault, collection.id)
        touch_later(folder / "memo.md", "The budget asked for is 45,000, revised in May.")
        (folder / "new.md").write_text("Dr. Lin is on call on Sunday.")
        (folder / "lease.md").rename(folder / "lease-unit-4.md")
        (folder / "old.md").unlink()
        (report,) = sync(service, collection.id)
        assert sorted(Path(p).name for p in report.indexed) == ["memo.md", "new.md"]
        said = {Path(p).name: why for p, why in report.skipped}
        assert "renamed or moved" in said["lease-unit-4.md"] and "no longer there" in said["old.md"]
        after = indexed(vault, collection.id)
        assert set(after) == {p.name for p in folder.iterdir()}  # the index matches the folder
        assert after["lease-unit-4.md"] == before["lease.md"]  # the same passages, not read again
        from tests.core.test_document_service import embed

        question = "When does the lease of unit 4 end?"
        hits = service.search(question, {BUNDLED: embed(worker, BUNDLED, question)}, [collection.id])
        assert any(Path(h.chunk.path).name == "lease-unit-4.md" for h in hits)  # cited where it is now
        store = DocumentStore(vault)
        assert store.get_collection(collection.id).caught_up > time.time() - 60
        text = "\n".join(chunk.text for chunk, _ in store.iter_chunks())
        assert "45,000" in text and "30,000" not in text and "boiler" not in text
    finally:
        assert service.service.close(5.0)


@pytest.mark.slow
@pytest.mark.timeout(900)
def test_a_burst_of_files_is_caught_up_cancelled_whole_and_stopped_by_a_lock(vault: Vault, worker,  # noqa: F811
                                                                            tmp_path: Path) -> None:
    folder = tmp_path / "unzipped"
    folder.mkdir()
    (folder / "first.md").write_text("The first file.")
    service = Service(vault, worker.submit, BUNDLED)
    try:
        collection = service.create("burst")
        service.add(collection.id, [folder]).result(timeout=PROMPT)
        for n in range(2000):
            (folder / f"part-{n:04d}.txt").write_text(f"Part {n} of the archive: clause {n * 7} applies.")
        # Cancel mid-burst: what was caught up stays whole, the rest is not there yet.
        done: Future = Future()
        service.service.sync(collection.id, done=done)
        service.until(lambda e: type(e).__name__ == "Progress" and getattr(e, "files_done", 0) >= 20)
        service.service.cancel()
        (report,) = done.result(timeout=PROMPT)
        assert report.cancelled
        store = DocumentStore(vault)
        partial = indexed(vault, collection.id)
        assert 20 <= len(partial) < 2001
        for document in store.documents(collection.id):  # every file's passages all there, or none
            assert (document.status == INDEXED) == (document.chunks > 0)
        (report,) = sync(service, collection.id, timeout=800)
        assert len(indexed(vault, collection.id)) == 2001 and not report.failed
    finally:
        assert service.service.close(5.0)
    # A lock (the service closed) during a catch-up stops it within 2 s.
    for n in range(300):
        touch_later(folder / f"part-{n:04d}.txt", f"Part {n}, revised.")
    service = Service(vault, worker.submit, BUNDLED)
    service.service.sync(collection.id)
    service.until(lambda e: type(e).__name__ == "Progress" and getattr(e, "files_done", 0) >= 5)
    began = time.monotonic()
    assert service.service.close(2.0)
    assert time.monotonic() - began < 2.5


def test_what_changed_while_hearth_was_closed_is_caught_up_at_the_next_start(vault: Vault, worker,  # noqa: F811
                                                                           tmp_path: Path) -> None:
    folder = tmp_path / "notes"
    folder.mkdir()
    (folder / "a.md").write_text("Alpha.")
    service = Service(vault, worker.submit, BUNDLED)
    collection = service.create("notes")
    service.add(collection.id, [folder]).result(timeout=PROMPT)
    assert service.service.close(5.0)
    (folder / "b.md").write_text("Beta, written while Hearth was closed.")
    (folder / "a.md").unlink()
    service = Service(vault, worker.submit, BUNDLED)  # the window refreshes all at unlock
    try:
        done: Future = Future()
        service.service.refresh_all(done=done)
        done.result(timeout=PROMPT)
        assert set(indexed(vault, collection.id)) == {"b.md"}
    finally:
        assert service.service.close(5.0)


def test_a_file_moved_over_another_leaves_no_stale_passages(vault: Vault, worker, tmp_path: Path) -> None:  # noqa: F811
    folder = tmp_path / "drafts"
    folder.mkdir()
    (folder / "a.md").write_text("Alpha: the boiler was serviced in March.")
    (folder / "b.md").write_text("Beta: the old fee was 30 euros.")
    service = Service(vault, worker.submit, BUNDLED)
    try:
        collection = service.create("drafts")
        service.add(collection.id, [folder]).result(timeout=PROMPT)
        before = indexed(vault, collection.id)
        os.replace(folder / "a.md", folder / "b.md")  # mv a.md b.md
        sync(service, collection.id)
        after = indexed(vault, collection.id)
        assert set(after) == {"b.md"} and after["b.md"] == before["a.md"]
        text = "\n".join(chunk.text for chunk, _ in DocumentStore(vault).iter_chunks())
        assert "boiler" in text and "30 euros" not in text
    finally:
        assert service.service.close(5.0)
