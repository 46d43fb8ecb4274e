"""The embedding model (a GGUF run by llama.cpp with embeddings on), owned by the worker."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from inference import cpu_variant
from inference.errors import ModelLoadError
from inference.hardware import physical_cores
from inference.llama_engine import check_model_file, construct_llama

N_CTX = 512  # BERT-style models see at most 512 tokens; chunks are far shorter


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
        self.close()
        check_model_file(path)
        cpu_variant.ensure()
        threads = n_threads or physical_cores()
        try:
            self._llm = construct_llama(model_path=str(path), embedding=True, n_ctx=N_CTX,
                                        n_batch=N_CTX, n_ubatch=N_CTX, n_threads=threads,
                                        n_threads_batch=threads, n_gpu_layers=-1, verbose=False)
        except Exception as exc:
            raise ModelLoadError(f"The embedding model {path.name} could not be loaded ({exc}).") from exc
        self.path = path

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """One L2-normalized float32 row per text."""
        if self._llm is None:
            raise ModelLoadError("No embedding model is loaded.")
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
