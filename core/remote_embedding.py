"""Embedding on the organisation's engine, for the collections the user chose (#43).

The document service asks for embeddings and token counts with ``Embed`` and
``CountTokens`` naming a model. ``EmbeddingRoute`` stands where the service's ``submit``
was: a model named by ``inference.remote_embed.identity`` is the engine's, and the
request is answered on a thread of this route's own, by that engine (admitted by the
egress guard as the chat side admits it, and only while the user has it switched on);
everything else goes on to the inference worker as before. The passages, the index and
the vectors stay in the vault: only the text to embed leaves, and only to that engine.

A request the engine cannot answer ends its future with ``EngineEmbedderUnavailable``:
an import then stops with that message and keeps what it had; a question to the
collection is searched by its keywords alone (``core.retrieval``), as when a local model
is not loaded.
"""

from __future__ import annotations

import hashlib
import logging
import threading
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

from core.engines import EngineRecord, Engines
from guard import egress
from i18n import translate
from inference.embedding_ids import identity, is_remote, parts, shown
from inference.errors import InferenceError
from inference.intranet import Abort, Aborted, EngineError
from inference.protocol import CountTokens, Embed
from inference.remote_discovery import RemoteModel
from inference.remote_embed import EngineEmbedderUnavailable, RemoteEmbedder
from storage.documents.store import Collection

__all__ = ["Choice", "EmbeddingRoute", "EngineError", "choose", "disclosure", "identity", "is_remote", "keywords_alone", "sent_to", "shown"]
log = logging.getLogger(__name__)
THREADS = 2  # an import's batches and a question's embedding side by side


def where_digest(record: EngineRecord) -> str:
    """Where the engine is and whom Hearth trusts there, as a collection's choice keeps it:
    an engine edited to another address or trust since, or removed and added again as
    another, is not the one the user chose, and is not sent the collection's text."""
    return hashlib.sha256(record.consent_key(with_documents=True).encode()).hexdigest()[:16]


@dataclass(frozen=True)
class Choice:
    """An engine's model chosen to embed a collection: its identity, and where it is."""

    model: str
    engine: str
    where: str
    model_id: str


def choose(engines: Engines, engine: str, model_id: str = "") -> Choice:
    """The engine's model to embed with (its first listed, unless one is named); EngineError
    for an engine that is unknown, switched off, or does not list that model."""
    record = engines.require(engine)
    if not record.enabled:
        raise EngineError(translate("core.remote_embedding", "The engine {name} is switched off: switch "
                                    "it on in Settings ▸ Engines first.").format(name=record.name))
    model = record.model(model_id)
    return Choice(identity(record.name, model.id, where_digest(record)), record.name, record.where, model.id)


def disclosure(choice: Choice, collection: str) -> str:
    """What leaves this computer once a collection is embedded on an engine, said before."""
    return translate("core.remote_embedding", "The text of every passage of “{collection}” goes to the "
                     "engine {name} ({where}) to be embedded by {model}, and so does each question "
                     "asked about it. The documents, the index and the vectors stay on this computer, "
                     "encrypted.").format(collection=collection, name=choice.engine, where=choice.where,
                                          model=choice.model_id)


def keywords_alone(reason: str) -> str:
    """What a question to a collection its engine could not embed is told."""
    return translate("core.document_service", "{reason} The question was searched by its keywords "
                     "alone.").format(reason=reason)


def sent_to(collection: Collection) -> str:
    """The engine model a collection's questions go to now, "" for none: the one chosen for
    it, or while it comes back here, the one whose vectors still answer."""
    if collection.embedder:
        return collection.embedder
    return collection.embedding_model if is_remote(collection.embedding_model) else ""


class EmbeddingRoute:
    """``submit`` for the document service: an engine's model to the engine, the rest to
    ``local`` (the inference worker)."""

    def __init__(self, local: Callable[[Any], None], engines: Callable[[], Engines]) -> None:
        self._local = local
        self._engines = engines
        self._pool: ThreadPoolExecutor | None = None
        self._lock = threading.Lock()
        self._aborts: set[Abort] = set()  # the requests under way: a close stops them
        self._closed = False

    def __call__(self, command: Any) -> None:
        if not (isinstance(command, (Embed, CountTokens)) and is_remote(command.model)):
            self._local(command)
            return
        if isinstance(command, CountTokens):  # an estimate: nothing to ask the engine
            if command.future.set_running_or_notify_cancel():
                command.future.set_result([RemoteEmbedder.count_tokens(t) for t in command.texts])
            return
        with self._lock:
            if not self._closed:
                if self._pool is None:
                    self._pool = ThreadPoolExecutor(THREADS, thread_name_prefix="hearth-remote-embed")
                self._pool.submit(self._answer, command)
                return
        self._fail(command.future, self._closing(command.model))

    def close(self, _seconds: float = 0.0) -> None:
        """No more requests; those under way are stopped, those waiting end with a reason."""
        with self._lock:
            self._closed = True
            pool, self._pool = self._pool, None
            aborts = list(self._aborts)
        for abort in aborts:
            abort.set()
        if pool is not None:
            pool.shutdown(wait=False)  # each waiting request still runs _answer: it fails at once

    @staticmethod
    def _closing(model: str) -> EngineEmbedderUnavailable:
        return EngineEmbedderUnavailable(model, translate("core.remote_embedding",
                                                          "Hearth is closing: nothing was embedded."))

    @staticmethod
    def _fail(future: Future, exc: BaseException) -> None:
        if future.set_running_or_notify_cancel():
            future.set_exception(exc)

    def _answer(self, command: Embed) -> None:
        future = command.future
        if not future.set_running_or_notify_cancel():  # the import stopped meanwhile
            return
        abort = Abort()
        with self._lock:
            closed = self._closed
            if not closed:
                self._aborts.add(abort)
        if closed:
            future.set_exception(self._closing(command.model))
            return
        try:
            future.set_result(self._embedder(command.model).embed(command.texts, abort))
        except Aborted:
            future.set_exception(self._closing(command.model))
        except InferenceError as exc:
            log.warning("embedding on %s failed: %s", shown(command.model), type(exc).__name__)
            future.set_exception(exc if isinstance(exc, EngineEmbedderUnavailable)
                                 else EngineEmbedderUnavailable(command.model, str(exc)))
        except Exception as exc:  # a fault here must still end the future
            log.error("embedding on an engine failed", exc_info=exc)
            future.set_exception(EngineEmbedderUnavailable(command.model, translate(
                "core.remote_embedding", "Embedding on the engine failed; details are in the log.")))
        finally:
            with self._lock:
                self._aborts.discard(abort)

    def _embedder(self, model: str) -> RemoteEmbedder:
        """The engine's model, as the chat side reaches it: the record as it is now, its
        address admitted by the guard, and refused if it changed meanwhile."""
        engines = self._engines()
        found = parts(model)
        record = engines.get(found[0]) if found is not None else None
        if found is None or record is None or record.name != found[0]:
            raise EngineEmbedderUnavailable(model, translate(
                "core.remote_embedding", "The engine that embeds these documents ({model}) is no longer "
                "among your engines. Add it again, or embed the collection on this computer.")
                .format(model=shown(model)))
        if where_digest(record) != found[2]:
            raise EngineEmbedderUnavailable(model, translate(
                "core.remote_embedding", "The engine {name} was changed (its address or whom Hearth "
                "trusts there) since these documents were embedded there, so nothing more is sent to "
                "it. Choose it for the collection again, or embed the collection on this computer.")
                .format(name=record.name))
        if not record.enabled:
            raise EngineEmbedderUnavailable(model, translate(
                "core.remote_embedding", "The engine {name}, which embeds these documents, is switched "
                "off: switch it on in Settings ▸ Engines.").format(name=record.name))
        client = engines.client(record)
        if engines.get(record.name) != record:  # switched off, removed or edited meanwhile: undone
            egress.revoke_destination(record.name)
            raise EngineEmbedderUnavailable(model, translate(
                "core.remote_embedding", "The engine {name} was changed or switched off just now; "
                "nothing was sent.").format(name=record.name))
        listed = next((m for m in record.models if m.id == found[1]), None)
        return RemoteEmbedder(client, listed or RemoteModel(found[1], 0))
