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

import logging
import threading
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

from core.engines import EngineRecord, Engines
from i18n import translate
from inference.errors import InferenceError
from inference.intranet import EngineError
from inference.protocol import CountTokens, Embed
from inference.remote_discovery import RemoteModel
from inference.remote_embed import (
    EngineEmbedderUnavailable,
    RemoteEmbedder,
    engine_and_model,
    identity,
    is_remote,
    shown,
)

__all__ = ["Choice", "EmbeddingRoute", "choose", "disclosure", "identity", "is_remote", "shown"]
log = logging.getLogger(__name__)
THREADS = 2  # an import's batches and a question's embedding side by side


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
    return Choice(identity(record.name, model.id), record.name, record.where, model.id)


def disclosure(choice: Choice, collection: str) -> str:
    """What leaves this computer once a collection is embedded on an engine, said before."""
    return translate("core.remote_embedding", "The text of every passage of “{collection}” goes to the "
                     "engine {name} ({where}) to be embedded by {model}, and so does each question "
                     "asked about it. The documents, the index and the vectors stay on this computer, "
                     "encrypted.").format(collection=collection, name=choice.engine, where=choice.where,
                                          model=choice.model_id)


class EmbeddingRoute:
    """``submit`` for the document service: an engine's model to the engine, the rest to
    ``local`` (the inference worker)."""

    def __init__(self, local: Callable[[Any], None], engines: Callable[[], Engines]) -> None:
        self._local = local
        self._engines = engines  # read when first needed: most sessions embed nothing remotely
        self._pool: ThreadPoolExecutor | None = None
        self._lock = threading.Lock()
        self._embedders: dict[tuple[str, EngineRecord], RemoteEmbedder] = {}
        self._closed = False

    def __call__(self, command: Any) -> None:
        if not (isinstance(command, (Embed, CountTokens)) and is_remote(command.model)):
            self._local(command)
            return
        with self._lock:
            if self._closed:
                pool = None
            else:
                if self._pool is None:
                    self._pool = ThreadPoolExecutor(THREADS, thread_name_prefix="hearth-remote-embed")
                pool = self._pool
        if pool is None:
            self._fail(command.future, EngineEmbedderUnavailable(command.model, translate(
                "core.remote_embedding", "Hearth is closing: nothing was embedded.")))
            return
        pool.submit(self._answer, command)

    def close(self, _seconds: float = 0.0) -> None:
        """No more requests; those under way end with their engine's time limit."""
        with self._lock:
            self._closed = True
            pool, self._pool = self._pool, None
        if pool is not None:
            pool.shutdown(wait=False, cancel_futures=True)

    @staticmethod
    def _fail(future: Future, exc: BaseException) -> None:
        if future.set_running_or_notify_cancel():
            future.set_exception(exc)

    def _answer(self, command: Embed | CountTokens) -> None:
        future = command.future
        if not future.set_running_or_notify_cancel():  # the import stopped meanwhile
            return
        try:
            embedder = self._embedder(command.model)
            if isinstance(command, Embed):
                future.set_result(embedder.embed(command.texts))
            else:
                future.set_result([embedder.count_tokens(t) for t in command.texts])
        except InferenceError as exc:
            log.warning("embedding on %s failed: %s", shown(command.model), type(exc).__name__)
            future.set_exception(exc if isinstance(exc, EngineEmbedderUnavailable)
                                 else EngineEmbedderUnavailable(command.model, str(exc)))
        except Exception as exc:  # a fault here must still end the future
            log.error("embedding on an engine failed", exc_info=exc)
            future.set_exception(EngineEmbedderUnavailable(command.model, translate(
                "core.remote_embedding", "Embedding on the engine failed; details are in the log.")))

    def _embedder(self, model: str) -> RemoteEmbedder:
        engines = self._engines()
        records = {r.name: r for r in engines.records()}
        found = engine_and_model(model, list(records))
        if found is None:
            raise EngineEmbedderUnavailable(model, translate(
                "core.remote_embedding", "The engine that embeds these documents ({model}) is no longer "
                "among your engines. Add it again, or embed the collection on this computer.")
                .format(model=shown(model)))
        record = records[found[0]]
        if not record.enabled:
            raise EngineEmbedderUnavailable(model, translate(
                "core.remote_embedding", "The engine {name}, which embeds these documents, is switched "
                "off: switch it on in Settings ▸ Engines.").format(name=record.name))
        key = (found[1], record)
        with self._lock:
            embedder = self._embedders.get(key)
        if embedder is None:
            # The model as the engine listed it; one it no longer lists is still asked for by
            # name (the engine says so itself if it cannot embed with it).
            listed = next((m for m in record.models if m.id == found[1]), None)
            embedder = RemoteEmbedder(engines.client(record), record.kind, listed or RemoteModel(found[1], 0))
            with self._lock:
                self._embedders = {k: v for k, v in self._embedders.items() if k[1].name != record.name}
                self._embedders[key] = embedder
        return embedder
