"""One unlock of the vault: what it opens, hands out and ends, in one fixed order.

The session is the composition root of an unlock (#37). ``Session.open``, ``create`` and
``restore`` open the vault and its chat store; the session then hands out the one model
library, the one set of intranet engines, the tool host and the document service of that unlock to the
window, the terminal commands and the local API alike, so that no caller opens the vault
or builds these pieces itself (and no two copies of them disagree).

Everything that uses the open vault registers how it stops, under a stage; ``close()``
runs the stages in order and closes the vault last, after which the vault refuses new
connections (``storage.db.VaultClosed``). Lock, quit and "delete everything" all end a
session this way, so no path can close the vault under a job that still writes:

1. ``requests``: the local API takes no more requests;
2. ``tools``: every tool server is killed with everything it started;
3. ``jobs``: model copies and probes are cancelled (their partial files go);
4. ``documents``: the document service stops its job, kills a parse, joins its thread;
5. ``answer``: the answer in progress is stopped and saved, waiting writes retried once;
6. the attachments' vectors kept for the next turn are dropped (``core.attachments.forget``);
7. the vault: WAL checkpointed, key dropped.

A step that fails is logged and the next one still runs: a bug in one must not leave the
vault open. ``close(timeout)`` shares one deadline among the steps: each is handed the
seconds left, so quitting takes about two seconds however many steps wait. A step that
runs out of time does not keep the vault open: what it still tries to write is refused.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from storage.chats import ChatStore
from storage.crypto import DEFAULT_KDF, KdfParams
from storage.library import ModelLibrary
from storage.vault import Vault

if TYPE_CHECKING:
    from core.document_service import DocumentService
    from core.engines import Engines
    from core.tools.host import ToolHost
    from core.tools.servers import ToolServers

log = logging.getLogger(__name__)

STAGES = ("requests", "tools", "jobs", "documents", "answer")
CLOSE_TIMEOUT = 2.0  # seconds for all the steps together
DOCUMENTS_CLOSE = 1.5  # at most, of what is left, for the document service to stop
Stop = Callable[[float], object]  # called with the seconds left


class Session:
    def __init__(self, store: ChatStore) -> None:
        """The session of a vault already opened as ``store`` (``open``/``create`` open it)."""
        self.store = store
        self.library = ModelLibrary(store)  # models, preferences: one reader per unlock
        self._engines: Engines | None = None
        self._tools: ToolHost | None = None
        self._documents: DocumentService | None = None
        self._documents_close = DOCUMENTS_CLOSE
        self._closers: dict[str, list[Stop]] = {stage: [] for stage in STAGES}
        self.closed = False
        from core.attachments import sweep

        sweep()  # bytes a Hearth that crashed left waiting to be read

    # Opening ------------------------------------------------------------------------
    @classmethod
    def open(cls, path: Path, passphrase: str) -> Session:
        """Unlock the vault at ``path`` (WrongPassphrase, DamagedVault, VaultMissing…); the
        chats of an import that did not finish (Hearth was killed, or the disk refused even
        their removal) are removed first."""
        session = cls(ChatStore(Vault.open_live(path, passphrase)))
        session._undo_unfinished_imports()
        return session

    def _undo_unfinished_imports(self) -> None:
        """``storage.chat_bulk.undo_unfinished``; a failure leaves them hidden for next time."""
        from storage.chat_bulk import undo_unfinished
        from storage.errors import trouble

        try:
            undo_unfinished(self.store)
        except Exception as exc:
            found = trouble(exc)
            if found is None:
                log.error("the chats of an unfinished import could not be removed", exc_info=exc)
            else:
                log.warning("the chats of an unfinished import wait (%s)", found.kind)

    @classmethod
    def create(cls, path: Path, passphrase: str, kdf: KdfParams = DEFAULT_KDF) -> Session:
        """A new vault at ``path``, unlocked."""
        return cls(ChatStore(Vault.create(path, passphrase, kdf)))

    @classmethod
    def restore(cls, backup: Path, passphrase: str, path: Path) -> Session:
        """Put ``backup`` in the vault's place (the current one kept beside it), unlocked."""
        Vault.restore(backup, passphrase, path)
        return cls.open(path, passphrase)

    # What the unlock hands out ---------------------------------------------------------
    @property
    def vault(self) -> Vault:
        return self.store.vault

    def collections(self) -> list[Any]:
        """The document collections as the vault keeps them (their names and sources; for a
        command that needs no search, without starting the document service)."""
        from storage.documents.store import DocumentStore

        return DocumentStore(self.vault).collections()

    @property
    def engines(self) -> Engines:
        """The intranet engines the user added (read from the vault at first use)."""
        if self._engines is None:
            from core.engines import Engines

            self._engines = Engines(self.library)
        return self._engines

    @property
    def tool_servers(self) -> ToolServers:
        """The tool servers the user added (nothing started)."""
        return self.tools.servers

    @property
    def tools(self) -> ToolHost:
        """This unlock's tool host: servers start at first use, all stop when it ends."""
        if self._tools is None:
            from core.tools.host import ToolHost
            from core.tools.servers import ToolServers

            self._tools = ToolHost(ToolServers(self.library))
            self.on_close("tools", self._tools.close)
        return self._tools

    def documents(self, submit: Callable[[Any], None], embedding_model: str,
                  sink: Callable[[object], None], stop_within: float = DOCUMENTS_CLOSE,
                  **options: Any) -> DocumentService:
        """This unlock's document service, started: ``submit`` reaches the inference
        worker, ``embedding_model`` is the sha256 new vectors are made with, ``sink`` hears
        its events (``DocumentService``'s options pass through). One per session: a new
        one replaces the last, which is closed first (its decrypted index goes with it).
        It stops in the ``documents`` step, given at most ``stop_within`` seconds so that
        the steps after it keep their share of the deadline."""
        from core.document_service import DocumentService
        from core.remote_embedding import EmbeddingRoute

        self._documents_close = stop_within
        if self._documents is not None:
            self._documents.close(stop_within)
        else:
            self.on_close("documents", self._close_documents)
        # A collection the user chose to embed on an intranet engine is embedded there
        # (core.remote_embedding); everything else goes to ``submit`` as before.
        engines = self.engines  # made here, not on two of the route's threads at once
        route = EmbeddingRoute(submit, lambda: engines)
        self.on_close("requests", route.close)
        self._documents = DocumentService(self.vault, route, embedding_model, sink, **options)
        self._documents.start()
        return self._documents

    def _close_documents(self, left: float) -> None:
        if self._documents is not None:
            self._documents.close(min(left, self._documents_close))

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
        self._forget()
        self.store.close()

    @staticmethod
    def _forget() -> None:
        """What this process keeps of the session outside the vault's objects: the
        attachments' vectors kept for the next turn. After every step, so that no answer
        still being made keeps them again."""
        from core.attachments import forget

        try:
            forget()
        except Exception:
            log.exception("ending the session: the attachments' vectors were not dropped")
