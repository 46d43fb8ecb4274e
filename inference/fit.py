"""Will a model fit? An estimate of the memory it needs against what the machine has.

needed = weights + KV cache + compute and output buffers, where
  - weights are the tensor bytes from the header (llama.cpp maps the file);
  - the KV cache holds, per token and per layer, K and V for each KV head in F16;
  - the buffers were calibrated against the measured resident memory of real models
    here (a fixed part plus about 192 bytes per vocabulary entry, for the logits).
The test suite checks the estimate against measured memory for two real models.
"""

from __future__ import annotations

from dataclasses import dataclass

from i18n import translate
from inference.modelinfo import ModelInfo

MIB = 1 << 20
FIXED_OVERHEAD = 16 * MIB
BYTES_PER_VOCAB_ENTRY = 192
KV_BYTES = 2  # F16 cache
FITS, TIGHT, WONT_FIT = "fits", "tight", "won't fit"
CONTEXT_STEPS = (512, 1024, 2048, 4096, 8192, 16384, 32768, 65536, 131072)


@dataclass(frozen=True)
class Estimate:
    weights: int
    kv_cache: int
    buffers: int

    @property
    def total(self) -> int:
        return self.weights + self.kv_cache + self.buffers


@dataclass(frozen=True)
class FitReport:
    estimate: Estimate
    available: int
    verdict: str
    suggested_context: int
    suggested_gpu_layers: int

    def describe(self) -> str:
        need = self.estimate.total / MIB
        have = self.available / MIB
        context = self.suggested_context  # a plain name: lupdate reads no more here
        return translate("inference.fit", "{verdict}: needs about {need:,.0f} MB, {have:,.0f} MB "
                         "free (a context of at most %n tokens fits)", None, context).format(
                             verdict=verdict_text(self.verdict), need=need, have=have)


def verdict_text(code: str) -> str:
    """A verdict (FITS, TIGHT, WONT_FIT: codes, compared) as the user reads it."""
    return {FITS: translate("inference.fit", "fits"), TIGHT: translate("inference.fit", "tight"),
            WONT_FIT: translate("inference.fit", "won't fit")}.get(code, code)


def kv_bytes_per_token(info: ModelInfo) -> int:
    return info.layers * info.head_count_kv * (info.key_length + info.value_length) * KV_BYTES


def estimate(info: ModelInfo, n_ctx: int) -> Estimate:
    return Estimate(
        weights=info.weights_bytes,
        kv_cache=kv_bytes_per_token(info) * n_ctx,
        buffers=FIXED_OVERHEAD + info.vocab_size * BYTES_PER_VOCAB_ENTRY,
    )


def verdict(needed: int, available: int) -> str:
    if needed <= 0.7 * available:
        return FITS
    if needed <= 0.95 * available:
        return TIGHT
    return WONT_FIT


def fit(info: ModelInfo, n_ctx: int, available: int, gpu_offload: bool = False,
        vram_available: int = 0) -> FitReport:
    """How ``info`` at ``n_ctx`` fits in ``available`` bytes of RAM (and VRAM if offloading)."""
    limit = info.context_length or CONTEXT_STEPS[-1]
    suggested = CONTEXT_STEPS[0]
    for step in CONTEXT_STEPS:
        if step <= limit and verdict(estimate(info, step).total, available) == FITS:
            suggested = step
    chosen = estimate(info, n_ctx)
    layers = 0
    if gpu_offload:
        if vram_available <= 0:
            layers = -1  # unknown VRAM (Metal shares RAM): offload everything
        else:
            per_layer = (chosen.weights + chosen.kv_cache) / max(1, info.layers)
            layers = -1 if chosen.total <= 0.9 * vram_available else int(0.9 * vram_available // per_layer)
    return FitReport(chosen, available, verdict(chosen.total, available), suggested, layers)


def available_memory() -> int:
    import psutil

    return int(psutil.virtual_memory().available)
