"""The embedding models (GGUFs run by llama.cpp with embeddings on), owned by the worker.

``EmbedderPool`` keeps up to two of them loaded, each under its identity (the model file's
sha256): while documents are re-embedded with a new model, the old one still embeds the
questions that the old index answers. Every request names the identity it wants and gets
exactly that model, or ``EmbedderNotLoaded``: vectors of two models must never meet.

An embedder embeds the text it is given, as it is (the local API's callers get plain
vectors). What a model wants around the text is its ``EmbeddingProfile``, known by its
sha256 from the bundled manifests: multilingual-e5 was trained on ``"query: "`` before a
question and ``"passage: "`` before a passage, and answers worse without them;
all-MiniLM-L6-v2 wants nothing. Whoever embeds a question or a passage asks the profile
of the model it names (``profile(model).query(text)``), so the prefix follows the model
and not the caller's guess.
"""

from __future__ import annotations

import logging
import re
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from i18n import translate
from inference.bundled import by_sha256, known_models, sha256_of
from inference.embedding_ids import parts
from inference.errors import InferenceError, ModelLoadError, NoModelLoaded

log = logging.getLogger(__name__)
N_CTX = 512  # BERT-style models see at most 512 tokens; chunks are far shorter
MAX_EMBEDDERS = 2  # the old and the new model during a switch; 45-75 MB each
E5_FAMILY = re.compile(r"(?<![a-z0-9])multilingual-e5-")
SPECIAL_TOKENS = 2  # [CLS]/<s> and [SEP]/</s> around every input: positions too


@dataclass(frozen=True)
class EmbeddingProfile:
    """What an embedding model expects around its input, and the chunk size it is cut for."""

    query_prefix: str = ""
    passage_prefix: str = ""
    chunk_tokens: int = 0  # 0: the chunker's default
    min_cosine: float = 0.0  # 0: the search's default floor for vector-only matches

    def query(self, text: str) -> str:
        return self.query_prefix + text.strip()

    def passage(self, text: str) -> str:
        return self.passage_prefix + text.strip()


def profile(model: str) -> EmbeddingProfile:
    """The profile of the embedding model with sha256 ``model``: from its manifest for the
    models Hearth ships or shipped; none (plain text) for the user's own. A model on an
    intranet engine (``inference.remote_embed``) is known by its name: one of the
    multilingual-e5 family wants e5's prefixes and floor whatever its size (not
    e5-mistral, which wants instructions)."""
    known = by_sha256(model)
    remote = parts(model)
    if remote is not None and E5_FAMILY.search(remote[1].casefold()):
        known = next((m for m in known_models() if m.role == "embedding" and E5_FAMILY.search(m.id)), None)
    if known is None or known.role != "embedding":
        return EmbeddingProfile()
    return EmbeddingProfile(known.query_prefix, known.passage_prefix, known.chunk_tokens,
                            known.min_cosine)


class EmbedderNotLoaded(InferenceError):
    """A request named an embedding model that is not loaded. Never answered by another:
    its vectors would land in an index of another size, or of the same size and meaningless."""

    def __init__(self, model: str) -> None:
        self.model = model
        short = model[:12]
        super().__init__(translate(
            "inference.embedder",
            "The embedding model {model}… is not loaded, so nothing was "
            "embedded. Choose it again under Models, or wait for it to load.").format(model=short))


class LlamaEmbedder:
    def __init__(self) -> None:
        self._llm: Any = None
        self.path: Path | None = None

    @property
    def loaded(self) -> bool:
        return self._llm is not None

    @property
    def dimensions(self) -> int:
        return int(self._llm.n_embd()) if self._llm is not None else 0

    def load(self, path: Path, n_threads: int | None = None) -> None:
        # Imported here: the worker imports this module, and tests with fake engines need
        # no llama.cpp machinery.
        from inference import cpu_variant
        from inference.hardware import physical_cores
        from inference.llama_load import check_model_file, construct_llama

        self.close()
        check_model_file(path)
        cpu_variant.ensure()
        threads = n_threads or physical_cores()
        try:
            self._llm = construct_llama(model_path=str(path), embedding=True, n_ctx=N_CTX,
                                        n_batch=N_CTX, n_ubatch=N_CTX, n_threads=threads,
                                        n_threads_batch=threads, n_gpu_layers=-1, verbose=False)
        except Exception as exc:
            raise ModelLoadError(translate(
                "inference.embedder", "The embedding model {name} could not be loaded ({reason})."
            ).format(name=path.name, reason=exc)) from exc
        self.path = path

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """One L2-normalized float32 row per text."""
        if self._llm is None:
            raise ModelLoadError(translate("inference.embedder", "No embedding model is loaded."))
        if not texts:
            return np.zeros((0, self.dimensions), dtype=np.float32)
        vectors = np.asarray(self._llm.embed(list(texts), truncate=True), dtype=np.float32)
        norms = np.linalg.norm(vectors, axis=1, keepdims=True)
        return vectors / np.where(norms == 0, 1.0, norms)

    def count_tokens(self, text: str) -> int:
        return len(self._llm.tokenize(text.encode("utf-8"), add_bos=False)) if self._llm else 0

    def close(self) -> None:
        if self._llm is not None:
            self._llm.close()
            self._llm = None


class EmbedderPool:
    """Loaded embedders by identity, least recently used first. The worker thread alone
    uses it. The factory is called once at once (a broken one shows when the worker
    starts), and again for each further instance, up to ``size``."""

    def __init__(self, factory: Callable[[], Any], size: int = MAX_EMBEDDERS) -> None:
        self._factory = factory
        self._size = size
        self._instances: list[Any] = [factory()]
        self._loaded: OrderedDict[str, Any] = OrderedDict()
        self._newest = ""  # the identity loaded last: what a request without one gets

    @staticmethod
    def identity(path: Path, model: str = "") -> str:
        """``model`` when given, else the file's sha256 (OSError if it cannot be read)."""
        return model or sha256_of(path)

    def load(self, identity: str, path: Path) -> int:
        """Load ``path`` as ``identity`` (a no-op if it is loaded); its dimensions."""
        current = self._loaded.get(identity)
        if current is not None and current.loaded:
            self._loaded.move_to_end(identity)
            self._newest = identity
            return int(current.dimensions)
        self._loaded.pop(identity, None)
        instance = self._free()
        instance.load(path)  # a failure leaves the instance free and the others as they were
        self._loaded[identity] = instance
        self._newest = identity
        return int(instance.dimensions)

    def _free(self) -> Any:
        busy = {id(e) for e in self._loaded.values()}
        for instance in self._instances:
            if id(instance) not in busy:
                return instance
        if len(self._instances) < self._size:
            instance = self._factory()
            self._instances.append(instance)
            return instance
        identity, oldest = self._loaded.popitem(last=False)
        log.info("unloading the embedding model %s… to make room for another", identity[:12])
        oldest.close()
        return oldest

    def get(self, model: str) -> Any | None:
        """The embedder holding ``model``, or None; counts as a use."""
        embedder = self._loaded.get(model)
        if embedder is None or not embedder.loaded:
            return None
        self._loaded.move_to_end(model)
        return embedder

    def named(self, model: str) -> Any:
        """The embedder holding ``model`` (empty: the one loaded last); never another."""
        embedder = self.get(model or self._newest) if (model or self._newest) else None
        if embedder is None:
            if model:
                raise EmbedderNotLoaded(model)
            raise NoModelLoaded()
        return embedder

    def loaded_models(self) -> list[str]:
        return list(self._loaded)

    def close(self) -> None:
        for instance in self._instances:
            try:
                instance.close()
            except Exception:  # pragma: no cover - freeing must not mask the real exit
                log.exception("closing an embedding model failed")
        self._loaded.clear()
