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
vault open.
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from storage.chats import ChatStore

log = logging.getLogger(__name__)

STAGES = ("requests", "jobs", "documents", "answer")


class Session:
    def __init__(self, store: ChatStore) -> None:
        self.store = store
        self._closers: dict[str, list[Callable[[], object]]] = {stage: [] for stage in STAGES}
        self.closed = False

    def on_close(self, stage: str, stop: Callable[[], object]) -> None:
        """Run ``stop`` when the session ends, in ``stage``'s turn (see the module's list)."""
        self._closers[stage].append(stop)

    def close(self) -> None:
        """Stop everything in order, then close the vault. Idempotent."""
        if self.closed:
            return
        self.closed = True
        for stage in STAGES:
            for stop in self._closers[stage]:
                try:
                    stop()
                except Exception:
                    log.exception("ending the session: the %s step failed", stage)
        self.store.close()
