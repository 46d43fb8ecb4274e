"""The memory estimate against measured resident memory, and the verdicts it gives."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from inference.fit import FITS, MIB, TIGHT, WONT_FIT, estimate, fit
from inference.modelinfo import read_info
from inference.probe import probe


@pytest.mark.model
@pytest.mark.parametrize("which", ["starter", "gemma"])
@pytest.mark.parametrize("n_ctx", [512, 4096])
def test_estimate_is_within_25_percent_of_measured_memory(
    which: str, n_ctx: int, starter_model_path: Path, gemma_model_path: Path
) -> None:
    path = starter_model_path if which == "starter" else gemma_model_path
    measured = probe(path, n_ctx=n_ctx)
    assert measured.ok, measured.reason
    estimated = estimate(read_info(path), n_ctx).total
    assert abs(estimated - measured.model_bytes) <= 0.25 * measured.model_bytes, (
        f"estimated {estimated / MIB:.0f} MiB, measured {measured.model_bytes / MIB:.0f} MiB")


@pytest.mark.model
def test_verdicts_and_suggestions(starter_model_path: Path) -> None:
    info = read_info(starter_model_path)
    need = estimate(info, 2048).total
    assert fit(info, 2048, available=need * 4).verdict == FITS
    assert fit(info, 2048, available=int(need * 1.2)).verdict == TIGHT
    assert fit(info, 2048, available=need // 2).verdict == WONT_FIT
    roomy = fit(info, 2048, available=64 * 1024 * MIB)
    assert roomy.suggested_context == info.context_length  # capped at what it was trained for
    small = fit(info, 8192, available=int(estimate(info, 1024).total / 0.7) + 1)
    assert small.suggested_context == 1024
    assert fit(info, 2048, need * 4).suggested_gpu_layers == 0
    assert fit(info, 2048, need * 4, gpu_offload=True).suggested_gpu_layers == -1
    partial = fit(info, 2048, need * 4, gpu_offload=True, vram_available=need // 2)
    assert 0 < partial.suggested_gpu_layers < info.layers


@pytest.mark.model
def test_bigger_context_needs_more_memory(starter_model_path: Path) -> None:
    info = read_info(starter_model_path)
    assert estimate(info, 8192).kv_cache == 4 * estimate(info, 2048).kv_cache
    assert estimate(replace(info, vocab_size=0), 2048).buffers < estimate(info, 2048).buffers
