"""One unlock of the vault, ended in one fixed order.

Everything that uses the open vault registers how it stops, under a stage; ``close()``
runs the stages in order and closes the vault last, after which the vault refuses new
connections (``storage.db.VaultClosed``). Lock, quit and "delete everything" all end a
session this way, so no path can close the vault under a job that still writes:

1. ``requests``: the local API takes no more requests;
2. ``jobs``: model copies and probes are cancelled (their partial files go);
3. ``documents``: the document service stops its job, kills a parse, joins its thread;
4. ``answer``: the answer in progress is stopped and saved, waiting writes retried once;
5. the vault: WAL checkpointed, key dropped.

A step that fails is logged and the next one still runs: a bug in one must not leave the
vault open. ``close(timeout)`` shares one deadline among the steps: each is handed the
seconds left, so quitting takes about two seconds however many steps wait. A step that
runs out of time does not keep the vault open: what it still tries to write is refused.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable

from storage.chats import ChatStore

log = logging.getLogger(__name__)

STAGES = ("requests", "jobs", "documents", "answer")
CLOSE_TIMEOUT = 2.0  # seconds for all the steps together
Stop = Callable[[float], object]  # called with the seconds left


class Session:
    def __init__(self, store: ChatStore) -> None:
        self.store = store
        self._closers: dict[str, list[Stop]] = {stage: [] for stage in STAGES}
        self.closed = False

    def on_close(self, stage: str, stop: Stop) -> None:
        """Run ``stop(seconds_left)`` when the session ends, in ``stage``'s turn (see the
        module's list)."""
        self._closers[stage].append(stop)

    def close(self, timeout: float = CLOSE_TIMEOUT) -> None:
        """Stop everything in order within ``timeout`` seconds, then close the vault.
        Idempotent."""
        if self.closed:
            return
        self.closed = True
        deadline = time.monotonic() + timeout
        for stage in STAGES:
            for stop in self._closers[stage]:
                try:
                    stop(max(0.0, deadline - time.monotonic()))
                except Exception:
                    log.exception("ending the session: the %s step failed", stage)
        self.store.close()
