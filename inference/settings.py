"""Per-model settings (load and sampling) and per-chat overrides, as plain data."""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields, replace
from pathlib import Path
from typing import Any

from inference.hardware import physical_cores
from inference.protocol import DEFAULT_CONTEXT, ModelSpec, SamplingParams

SAMPLING_FIELDS = ("temperature", "top_p", "top_k", "min_p", "repeat_penalty", "seed", "max_tokens")
_SAMPLING = SamplingParams()  # one place for the sampling defaults


@dataclass(frozen=True)
class ModelSettings:
    n_ctx: int = DEFAULT_CONTEXT
    n_gpu_layers: int = -1  # all on the GPU when the build has one
    n_threads: int = 0  # 0: one per physical core
    n_batch: int = 256
    chat_format: str = "auto"
    temperature: float = _SAMPLING.temperature
    top_p: float = _SAMPLING.top_p
    top_k: int = _SAMPLING.top_k
    min_p: float = _SAMPLING.min_p
    repeat_penalty: float = _SAMPLING.repeat_penalty
    seed: int | None = _SAMPLING.seed
    max_tokens: int = _SAMPLING.max_tokens

    @classmethod
    def for_model(cls, context_length: int | None) -> ModelSettings:
        """A new model's settings: the default context, or less where the model was
        trained for less (its GGUF says; the default where it does not)."""
        return cls(n_ctx=min(DEFAULT_CONTEXT, context_length or DEFAULT_CONTEXT))

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any] | None) -> ModelSettings:
        known = {f.name for f in fields(cls)}
        return cls(**{k: v for k, v in (data or {}).items() if k in known})

    def spec(self, path: Path, display_name: str = "", projector: Path | None = None) -> ModelSpec:
        return ModelSpec(path=path, n_ctx=self.n_ctx, n_threads=self.n_threads or physical_cores(),
                         n_batch=self.n_batch, n_gpu_layers=self.n_gpu_layers,
                         chat_format=self.chat_format, display_name=display_name, projector=projector)

    def sampling(self, overrides: dict[str, Any] | None = None) -> SamplingParams:
        values = {name: getattr(self, name) for name in SAMPLING_FIELDS}
        values.update({k: v for k, v in (overrides or {}).items() if k in SAMPLING_FIELDS})
        # Drafting never changes an answer (inference/lookup.py) and guesses only where
        # that is measured to pay on this model and machine.
        return SamplingParams(**values, prompt_lookup=True)

    def with_changes(self, **changes: Any) -> ModelSettings:
        return replace(self, **changes)
