"""Embeddings made by an intranet engine (#43): for a collection too large for this
computer's embedder, when the user chose to send its passages there.

An embedding model on an engine goes by an identity of its own where a local model's
sha256 goes (``inference.embedding_ids``), so its vectors never meet a local model's in
one index, and a question to such a collection is embedded by the same engine and model.

What the engine sends back is not trusted: ``RemoteEmbedder.embed`` takes only a list of
``len(texts)`` vectors of one size, of finite numbers, in the order asked, and anything
else is an ``EngineError`` that says so (a vector of NaN or of another size would poison
the index's ranking as surely as a wrong model).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from i18n import translate
from inference.embedder import EmbedderNotLoaded
from inference.intranet import Abort, Client, EngineError
from inference.remote_discovery import RemoteModel
from inference.remote_tokens import estimate_tokens

MAX_DIMENSIONS = 4096  # the largest embedding models publish 4,096; 32 of them fit MAX_JSON


class EngineEmbedderUnavailable(EmbedderNotLoaded):
    """The engine that embeds a collection could not embed now (gone, switched off,
    unreachable, or answering wrongly). A question to that collection is then searched by
    keywords alone, as with a local model that is not loaded; an import fails with this
    message and keeps what it had."""

    def __init__(self, model: str, reason: str) -> None:
        self.model = model
        Exception.__init__(self, reason)


class RemoteEmbedder:
    """One embedding model on one engine. Safe to use from several threads at once."""

    def __init__(self, client: Client, model: RemoteModel) -> None:
        self.client = client
        self.model = model

    def embed(self, texts: list[str] | tuple[str, ...], abort: Abort | None = None) -> np.ndarray:
        """One L2-normalised float32 row per text, as the local embedder gives them."""
        if not texts:
            return np.zeros((0, 0), dtype=np.float32)
        body: dict[str, Any] = {"model": self.model.id, "input": list(texts), "encoding_format": "float"}
        data = self.client.post_json(self.client.endpoint.path + "/embeddings", body, abort)
        return self._vectors(data, len(texts))

    @staticmethod
    def count_tokens(text: str) -> int:
        """An estimate that errs long (a passage is then cut shorter, never longer than the
        model sees), as for an engine without /tokenize: no request per sentence of an
        import, and no count from the engine to trust."""
        return estimate_tokens(text)

    def _vectors(self, data: Any, count: int) -> np.ndarray:
        def wrong(what: str) -> EngineError:
            return EngineError(translate(
                "inference.remote_embed", "The engine {name} answered the request for embeddings "
                "with something else ({what}); nothing was stored.").format(name=self.client.name, what=what))

        items = data.get("data") if isinstance(data, dict) else None
        if not isinstance(items, list) or len(items) != count:
            raise wrong(translate("inference.remote_embed", "not one vector for each passage"))
        rows: list[list[float] | None] = [None] * count
        for n, item in enumerate(items):
            if not isinstance(item, dict) or not isinstance(item.get("embedding"), list):
                raise wrong(translate("inference.remote_embed", "a vector that is not a list of numbers"))
            at = item.get("index", n)
            if type(at) is not int or not 0 <= at < count or rows[at] is not None:
                raise wrong(translate("inference.remote_embed", "vectors out of order"))
            rows[at] = item["embedding"]
        sizes = {len(row) for row in rows if row is not None}
        if len(sizes) != 1 or not 0 < next(iter(sizes)) <= MAX_DIMENSIONS:
            raise wrong(translate("inference.remote_embed", "vectors of several sizes, or of none"))
        if not all(type(x) in (int, float) for row in rows if row is not None for x in row):
            raise wrong(translate("inference.remote_embed", "a vector that is not a list of numbers"))
        try:
            vectors = np.asarray(rows, dtype=np.float64)
        except OverflowError:  # an integer of a thousand digits
            raise wrong(translate("inference.remote_embed", "a vector that is not finite, or all zero")) from None
        norms = np.linalg.norm(vectors, axis=1, keepdims=True) if np.isfinite(vectors).all() else None
        if norms is None or not (np.isfinite(norms).all() and (norms > 0).all()):
            raise wrong(translate("inference.remote_embed", "a vector that is not finite, or all zero"))
        return (vectors / norms).astype(np.float32)
