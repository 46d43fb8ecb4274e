"""Collections that follow their folders (#40): Qt's file system watcher on each folder a
collection was made from (and the folders inside it), so that a file added, changed,
renamed or deleted there is caught up with while Hearth runs.

A burst of changes (a ``git checkout``, an unzip of thousands of files) is one catch-up:
changes restart a short quiet period, and only after it does the document service catch
the collection up (``DocumentCalls.sync``; a catch-up already waiting covers later asks).
The catch-up itself compares each file by size and time, then by content, so what did
not change is not read again, and a renamed file keeps its passages.

The kernel bounds how many folders one program may watch (inotify's watches on Linux):
at most ``MAX_FOLDERS`` are watched, the largest trees' deepest folders left to the
periodic check (``controller.REFRESH_MS``), which also covers network drives, whose
changes no watcher sees, and what changed while Hearth was closed (checked at unlock).
Links are not followed, as an import does not follow them out of its folder.

The folders are listed on a thread of their own, never on the window's: a collection on a
network drive (a firm's file server) can take seconds or minutes to walk, and one whose
server is gone can hold a listing for good. One walk runs at a time, and a newer list
waits for it; a list walked after a newer one was asked for is not applied. A walk held
on one folder for longer than ``PATIENCE_S`` does not hold the rest: the next list is
walked by another thread, which leaves that folder out (its server does not answer; the
periodic check covers it) until the held walk ends.
"""

from __future__ import annotations

import logging
import os
import threading
import time
from collections.abc import Callable, Iterable
from pathlib import Path

from PySide6.QtCore import QFileSystemWatcher, QObject, QTimer, Signal, Slot

from core.documents import Collection

log = logging.getLogger(__name__)
MAX_FOLDERS = 2000
PATIENCE_S = 30.0  # a folder listed for longer than this is on a server that does not answer
QUIET_MS = 1500  # a burst's changes within this of each other are one catch-up


class _Relay(QObject):
    """Carries a walk's result to the window's thread. It has no parent, and the walking
    thread holds it: the window closing meanwhile never leaves a walk emitting on an
    object Qt has deleted (its connection to the watcher simply goes)."""

    walked = Signal(int, object)  # a list's number, and each folder's collections


class FolderWatcher(QObject):
    """Watches the collections' folders; ``sync(collection_id)`` when one changed."""

    def __init__(self, sync: Callable[[int], None], parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._sync = sync
        self._generation = 0  # of the newest list asked for
        self._lock = threading.Lock()  # guards the three below, shared with the walking threads
        self._next: tuple[int, list[tuple[int, list[str]]]] | None = None
        self._walkers = 0
        self._listing: dict[int, tuple[str, float]] = {}  # a walking thread: its folder, since when
        self._relay = _Relay()
        self._relay.walked.connect(self._apply)
        self._watcher = QFileSystemWatcher(self)
        self._watcher.directoryChanged.connect(self._changed)
        self._owners: dict[str, set[int]] = {}
        self._changed_collections: set[int] = set()
        self._quiet = QTimer(self)
        self._quiet.setSingleShot(True)
        self._quiet.setInterval(QUIET_MS)
        self._quiet.timeout.connect(self._catch_up)

    def follow(self, collections: Iterable[Collection]) -> None:
        """Watch these collections' folders (and only these): called with each new list.
        None at all is applied at once (a lock); folders once listed in the background."""
        self._generation += 1
        wanted = [(c.id, list(c.sources)) for c in collections if c.sources]
        with self._lock:
            self._next = (self._generation, wanted) if wanted else None
            # A walking thread takes this list up when its own ends, unless every one is
            # held by a server that does not answer: then one more.
            start = bool(wanted) and self._walkers == len(self._held())
            self._walkers += start
        if not wanted:
            self._apply(self._generation, {})
        elif start:
            threading.Thread(target=self._walk, args=(self._relay,), name="folder-walk", daemon=True).start()

    def _held(self) -> list[str]:
        """The folder each held walking thread has waited on for longer than ``PATIENCE_S``
        (under the lock)."""
        now = time.monotonic()
        return [source for source, since in self._listing.values() if now - since > PATIENCE_S]

    def _walk(self, relay: _Relay) -> None:
        """On its own thread: the newest list asked for, then again while one waits."""
        me = threading.get_ident()
        try:
            while True:
                with self._lock:
                    job, self._next = self._next, None
                if job is None:
                    return
                generation, wanted = job
                owners: dict[str, set[int]] = {}
                for collection_id, sources in wanted:
                    for source in sources:
                        with self._lock:
                            if source in self._held():
                                continue  # another thread waits on its server: left out
                            self._listing[me] = (source, time.monotonic())
                        try:
                            found = _folders(Path(source), MAX_FOLDERS - len(owners))
                        except OSError:  # gone meanwhile, or unreadable: the periodic check covers it
                            found = []
                        finally:
                            with self._lock:
                                self._listing.pop(me, None)
                        for folder in found:
                            owners.setdefault(folder, set()).add(collection_id)
                relay.walked.emit(generation, owners)
        finally:
            with self._lock:
                self._walkers -= 1
                self._listing.pop(me, None)

    @Slot(int, object)
    def _apply(self, generation: int, owners: dict[str, set[int]]) -> None:
        if generation != self._generation:
            return  # a newer list was asked for: its walk decides
        gone = [d for d in self._watcher.directories() if d not in owners]
        if gone:
            self._watcher.removePaths(gone)
        watched = set(self._watcher.directories())  # Qt forgets a folder that was deleted: one made again is new
        new = [d for d in owners if d not in watched]
        if new:
            self._watcher.addPaths(new)  # a folder the kernel will not watch is left to the periodic check
        self._owners = owners

    def watched(self) -> list[str]:
        return list(self._watcher.directories())

    def stop(self) -> None:
        self._quiet.stop()
        self._changed_collections.clear()
        self.follow(())

    @Slot(str)
    def _changed(self, folder: str) -> None:
        self._changed_collections |= self._owners.get(folder, set())
        self._quiet.start()  # again: the burst goes on

    @Slot()
    def _catch_up(self) -> None:
        changed, self._changed_collections = self._changed_collections, set()
        for collection_id in sorted(changed):
            self._sync(collection_id)


def _folders(source: Path, room: int) -> list[str]:
    """``source`` and the folders inside it, links not followed, at most ``room``."""
    if room <= 0 or source.is_symlink() or not source.is_dir():
        return []
    found = [str(source)]
    for top, folders, _files in os.walk(source, followlinks=False):
        for name in sorted(folders):
            if len(found) >= room:
                return found
            path = os.path.join(top, name)
            if not os.path.islink(path):
                found.append(path)
        folders[:] = [f for f in folders if not os.path.islink(os.path.join(top, f))]
    return found
