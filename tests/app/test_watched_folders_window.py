"""Collections follow their folders in the window (#40): Qt's real file system watcher
sees a file added, renamed or deleted and the collection catches up by itself; a burst of
2,000 files is one catch-up; links are not followed; a collection gone is no longer
watched."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from app.documents.watcher import QUIET_MS, FolderWatcher
from core.documents import Collection
from tests.app.test_documents_window import WAIT, _import, window  # noqa: F401 - fixtures
from tests.fakes import FakeEngine


@pytest.fixture
def engine() -> FakeEngine:
    return FakeEngine(tokens=["Noted."])


def test_a_burst_of_changes_is_one_catch_up_and_links_are_not_followed(qtbot, tmp_path: Path) -> None:
    asked: list[int] = []
    watcher = FolderWatcher(asked.append)
    folder = tmp_path / "matter"
    (folder / "letters").mkdir(parents=True)
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    (folder / "link").symlink_to(outside, target_is_directory=True)
    watcher.follow([Collection(7, "matter", [str(folder)]), Collection(8, "other", [str(tmp_path / "gone")])])
    qtbot.waitUntil(lambda: sorted(watcher.watched()) == sorted([str(folder), str(folder / "letters")]),
                    timeout=QUIET_MS * 10)  # listed on a thread of its own
    for n in range(2000):
        (folder / "letters" / f"letter-{n:04d}.txt").write_text(f"Letter {n}.")
    qtbot.waitUntil(lambda: bool(asked), timeout=QUIET_MS * 10)
    qtbot.wait(QUIET_MS * 2)  # and nothing more comes of the same burst
    assert asked == [7]
    (outside / "x.txt").write_text("not followed")
    qtbot.wait(QUIET_MS * 2)
    assert asked == [7]
    watcher.follow([])
    assert watcher.watched() == []
    (folder / "after.txt").write_text("no longer watched")
    qtbot.wait(QUIET_MS * 2)
    assert asked == [7]


def test_the_window_catches_a_collection_up_when_its_folder_changes(qtbot, window, tmp_path: Path) -> None:  # noqa: F811
    qtbot.waitUntil(lambda: window.documents.ready, timeout=WAIT)
    folder = tmp_path / "clinic"
    folder.mkdir()
    (folder / "rota.md").write_text("Dr. Lin is on call on Sunday.")
    (folder / "old.md").write_text("The old boiler note.")
    collection, _report = _import(qtbot, window, folder, "Clinic")
    docs = window.documents

    def names() -> set[str]:
        return {Path(d.path).name for d in docs.documents_of(collection.id)}

    qtbot.waitUntil(lambda: str(folder) in docs.watcher.watched(), timeout=WAIT)
    (folder / "fees.md").write_text("The consultation fee is 80 euros.")
    os.rename(folder / "rota.md", folder / "rota-december.md")
    (folder / "old.md").unlink()
    qtbot.waitUntil(lambda: names() == {"fees.md", "rota-december.md"}, timeout=WAIT)
    caught = next(c for c in docs.collections() if c.id == collection.id)
    assert caught.caught_up > 0
    window.dialogs.show_collections()
    assert "Follows its folders: caught up at" in window.dialogs.collections_dialog.summary.text()


def test_an_unlock_walks_the_folders_once_the_index_has_loaded(qtbot, window, tmp_path: Path,  # noqa: F811
                                                                 monkeypatch) -> None:
    """#43's review: the collections are listed before the index loads, and each list was
    followed, which walks every watched folder on the window's thread: once more per
    unlock. The early list is shown, not followed; the one after the load is."""
    from tests.app.conftest import unlock

    qtbot.waitUntil(lambda: window.documents.ready, timeout=WAIT)
    folder = tmp_path / "clinic"
    folder.mkdir()
    (folder / "rota.md").write_text("Dr. Lin is on call on Sunday.")
    _import(qtbot, window, folder, "Clinic")
    docs = window.documents
    followed: list[bool] = []
    real = docs.watcher.follow

    def follow(collections) -> None:  # type: ignore[no-untyped-def]
        collections = list(collections)
        if collections:
            followed.append(docs.ready)
        real(collections)

    monkeypatch.setattr(docs.watcher, "follow", follow)
    window.vault.lock()
    unlock(qtbot, window)
    qtbot.waitUntil(lambda: str(folder) in docs.watcher.watched(), timeout=WAIT)
    assert followed and all(followed)  # never before the index had loaded


def test_a_folder_deleted_and_made_again_is_watched_again(qtbot, tmp_path: Path) -> None:
    import shutil

    asked: list[int] = []
    watcher = FolderWatcher(asked.append)
    folder = tmp_path / "checkout"
    folder.mkdir()
    matter = [Collection(3, "checkout", [str(folder)])]
    watcher.follow(matter)
    qtbot.waitUntil(lambda: str(folder) in watcher.watched(), timeout=QUIET_MS * 10)
    shutil.rmtree(folder)
    qtbot.waitUntil(lambda: bool(asked), timeout=QUIET_MS * 10)
    folder.mkdir()  # as a checkout does
    watcher.follow(matter)  # the collections' next snapshot
    qtbot.waitUntil(lambda: str(folder) in watcher.watched(), timeout=QUIET_MS * 10)


def _slow_server(monkeypatch, slow: Path):
    """``os.walk`` as the watcher calls it, held at ``slow`` until released; and where it ran."""
    import threading

    from app.documents import watcher as watcher_module

    entered, release = threading.Event(), threading.Event()
    walked_on: list[bool] = []
    real_walk = os.walk

    def walk(top, *args, **kwargs):  # type: ignore[no-untyped-def]
        walked_on.append(threading.current_thread() is threading.main_thread())
        if str(top) == str(slow):
            entered.set()
            assert release.wait(60)  # a server that answers late
        yield from real_walk(top, *args, **kwargs)

    monkeypatch.setattr(watcher_module.os, "walk", walk)
    return entered, release, walked_on


def _added(watcher: FolderWatcher, monkeypatch) -> list[str]:
    added: list[str] = []
    real = watcher._watcher.addPaths
    monkeypatch.setattr(watcher._watcher, "addPaths", lambda paths: (added.extend(paths), real(paths))[1])
    return added


def _held_walk(qtbot, tmp_path: Path, monkeypatch):  # type: ignore[no-untyped-def]
    """A watcher following a collection on a silent server (its walk held there, until
    ``release``) and a quick folder not followed yet; the folders each walk added."""
    slow, quick = tmp_path / "file-server", tmp_path / "laptop"
    slow.mkdir()
    quick.mkdir()
    entered, release, walked_on = _slow_server(monkeypatch, slow)
    watcher = FolderWatcher(lambda _id: None)
    added = _added(watcher, monkeypatch)
    watcher.follow([Collection(1, "archive", [str(slow)])])  # returns while the server is silent
    assert entered.wait(60)
    return slow, quick, release, walked_on, watcher, added


def test_folders_are_listed_off_the_window_s_thread_and_the_newest_list_wins(qtbot, tmp_path: Path,
                                                                             monkeypatch) -> None:
    """A collection on a network drive was walked on the window's thread at every list
    (each import, each five-minute check): seconds to minutes of a frozen window on a slow
    file server, for good on one that is gone. The walk now runs on a thread of its own;
    a list asked for while one is walked waits for it, and only the newest is applied."""
    slow, quick, release, walked_on, watcher, added = _held_walk(qtbot, tmp_path, monkeypatch)
    watcher.follow([Collection(2, "notes", [str(quick)])])  # asked meanwhile: waits its turn
    assert watcher.watched() == []
    release.set()
    qtbot.waitUntil(lambda: watcher.watched() == [str(quick)], timeout=QUIET_MS * 10)
    assert str(slow) not in added  # the older list, walked last but one, was not applied
    assert walked_on and not any(walked_on)
    watcher.follow([])
    assert watcher.watched() == []


def test_a_server_that_does_not_answer_holds_only_its_own_folder(qtbot, tmp_path: Path, monkeypatch) -> None:
    """A walk held for good on one folder (its server is gone) held every later list too:
    no collection made afterwards was watched until Hearth restarted. Past ``PATIENCE_S``
    (0 here) the next list is walked by another thread, without that folder."""
    from app.documents import watcher as watcher_module

    monkeypatch.setattr(watcher_module, "PATIENCE_S", 0.0)
    slow, quick, release, _walked_on, watcher, added = _held_walk(qtbot, tmp_path, monkeypatch)
    both = [Collection(1, "archive", [str(slow)]), Collection(2, "notes", [str(quick)])]
    watcher.follow(both)  # while the server is still silent
    qtbot.waitUntil(lambda: watcher.watched() == [str(quick)], timeout=QUIET_MS * 10)
    release.set()  # the server answers at last: the held walk's old list is not applied
    qtbot.waitUntil(lambda: watcher._walkers == 0, timeout=QUIET_MS * 10)  # and it has ended
    assert watcher.watched() == [str(quick)]
    watcher.follow(both)
    qtbot.waitUntil(lambda: sorted(watcher.watched()) == sorted([str(slow), str(quick)]), timeout=QUIET_MS * 10)
    assert added.count(str(slow)) == 1
