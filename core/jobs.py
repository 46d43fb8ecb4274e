"""Background jobs: slow work off the UI thread, its outcome delivered back on it.

In the style of Anki's ``QueryOp``: a job is a callable that receives its own cancel
event; its result or exception is handed to ``post``, which the window implements as a
queued Qt signal (so the callbacks run on the UI thread) and the terminal as a direct
call. The registry knows every job under way, so a session can cancel them all at lock
and quit and wait for them with a deadline.

Jobs run on daemon threads: one stuck in a system call past the deadline (a copy from
a hung network drive, a key derivation) never keeps a closed app alive as a windowless
process. Work that must not be cut short by the process ending (a vault write) is
crash-safe by itself; nothing here relies on a job finishing.
"""

from __future__ import annotations

import functools
import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

log = logging.getLogger(__name__)

Post = Callable[[Callable[[], None]], None]


def direct(callback: Callable[[], None]) -> None:
    """``post`` for code without an event loop: run the callback on the job's thread."""
    callback()


class Cancel(threading.Event):
    """A job's cancel event, which can also act at once: work blocked where it cannot look
    at the event (a request waiting on a server that never answers) registers what stops
    it (``when_set``: its connection closed), run by whoever cancels, on their thread."""

    def __init__(self) -> None:
        super().__init__()
        self._guard = threading.Lock()
        self._callbacks: list[Callable[[], None]] = []

    def set(self) -> None:
        with self._guard:
            super().set()
            callbacks, self._callbacks = self._callbacks, []
        for callback in callbacks:
            try:
                callback()
            except Exception:  # the other callbacks, and the other jobs cancelled with it, still run
                log.exception("a cancel callback failed")

    def when_set(self, callback: Callable[[], None]) -> None:
        """Run ``callback`` when the job is cancelled (now if it was already)."""
        with self._guard:
            if not self.is_set():
                self._callbacks.append(callback)
                return
        callback()


@dataclass(eq=False)
class Job:
    name: str
    # Whether it reads or writes the vault: a lock waits for those only. One that does not
    # (an engine check held by a server that never answers) must not hold the lock up.
    vault: bool = True
    cancel: Cancel = field(default_factory=Cancel)
    done: threading.Event = field(default_factory=threading.Event)

    @property
    def cancelled(self) -> bool:
        return self.cancel.is_set()


class JobRegistry:
    def __init__(self, post: Post = direct) -> None:
        self._post = post
        self._lock = threading.Lock()
        self._jobs: set[Job] = set()

    def start(
        self,
        name: str,
        work: Callable[[Cancel], Any],
        on_success: Callable[[Any], None],
        on_failure: Callable[[Exception], None],
        vault: bool = True,
    ) -> Job:
        """Run ``work(cancel)`` on its own thread; one of the callbacks gets its outcome.

        A cancelled job's outcome is still delivered (a copy cancelled half-way raises
        its own ``Cancelled``): the callback decides what a late answer means. ``vault``:
        whether the work touches the vault (``Job.vault``).
        """
        job = Job(name, vault)
        with self._lock:
            self._jobs.add(job)

        def run() -> None:
            outcome: Callable[[], None]
            try:
                result = work(job.cancel)
                outcome = functools.partial(on_success, result)
            except Exception as exc:  # the callback decides what to say
                outcome = functools.partial(on_failure, exc)
            finally:
                with self._lock:
                    self._jobs.discard(job)
                job.done.set()
            try:
                self._post(outcome)
            except Exception:
                log.exception("the outcome of the %s job could not be delivered", name)

        threading.Thread(target=run, name=f"hearth-job-{name}", daemon=True).start()
        return job

    def running(self, vault_only: bool = False) -> list[Job]:
        with self._lock:
            return sorted((job for job in self._jobs if job.vault or not vault_only),
                          key=lambda job: job.name)

    def cancel_all(self) -> None:
        for job in self.running():
            job.cancel.set()

    def wait(self, timeout: float, vault_only: bool = False) -> bool:
        """Wait until every job under way has ended (``vault_only``: every one that touches
        the vault), at most ``timeout`` seconds in all; True if none is left. Jobs started
        meanwhile are waited for too."""
        deadline = time.monotonic() + timeout
        while jobs := self.running(vault_only):
            left = deadline - time.monotonic()
            if left <= 0:
                log.warning("background jobs still running: %s", ", ".join(j.name for j in jobs))
                return False
            jobs[0].done.wait(left)
        return True
