"""The sampler chain on the candidates only (inference/sampling.py) picks the token that
llama.cpp's own pass over the whole vocabulary picks, with the same seed, on real logits."""

from __future__ import annotations

from pathlib import Path

import pytest

from inference.llama_engine import LlamaEngine
from inference.llama_generate import decode
from inference.protocol import ModelSpec, SamplingParams
from inference.sampling import Sampler

pytestmark = pytest.mark.model

TEXT = ("The harbour master wrote that the ship left the port at dawn with forty crates of "
        "tea, and that the crew would return before the winter storms. The ship left the port")
CHAINS = [SamplingParams(temperature=0.0, repeat_penalty=1.0),  # the arg-max
          SamplingParams(temperature=0.0, repeat_penalty=1.3),  # greedy, penalised
          SamplingParams(temperature=0.7, seed=11),  # the app's defaults: top-k 40, penalty 1.1
          SamplingParams(temperature=1.5, top_k=100, top_p=1.0, min_p=0.0, repeat_penalty=1.5, seed=3)]


def _picks(llm, params: SamplingParams, full: bool, steps: int = 40) -> list[int]:
    """``steps`` tokens sampled one at a time after TEXT, each fed back."""
    llm.reset()
    llm._ctx.kv_cache_clear()
    llm.set_seed(params.seed or 0)  # the chain's random draws start from the seed
    sampler = Sampler(llm, params)
    if full:
        sampler.keep = 0  # llama_sampler_sample over the whole vocabulary
    tokens = llm.tokenize(TEXT.encode(), add_bos=False)
    decode(llm, tokens, False)
    picked = []
    for _ in range(steps):
        token = sampler.sample(llm._ctx, -1)
        picked.append(token)
        decode(llm, [token], False, trim=False)
    return picked


@pytest.mark.parametrize("which", ["starter", "gemma"])
def test_the_candidates_give_the_full_vocabularys_tokens(which: str, starter_model_path: Path,
                                                        request: pytest.FixtureRequest) -> None:
    path = starter_model_path if which == "starter" else request.getfixturevalue("gemma_model_path")
    engine = LlamaEngine()
    engine.load(ModelSpec(path, n_ctx=512, n_threads=2))
    try:
        llm = engine.llama
        for params in CHAINS:
            fast = Sampler(llm, params)
            assert fast.keep, params  # the candidates path is the one under test
            assert _picks(llm, params, full=False) == _picks(llm, params, full=True), params
    finally:
        engine.close()


def test_chains_the_bound_does_not_hold_for_take_llama_cpps_own_pass(starter_model_path: Path) -> None:
    engine = LlamaEngine()
    engine.load(ModelSpec(starter_model_path, n_ctx=256, n_threads=2))
    try:
        llm = engine.llama
        assert Sampler(llm, SamplingParams(temperature=0.7, top_k=0)).keep == 0  # no top-k
        assert Sampler(llm, SamplingParams(temperature=0.7, repeat_penalty=0.8)).keep == 0  # raises logits
        assert Sampler(llm, SamplingParams(temperature=0.7, top_k=20000)).keep == 0  # near the vocabulary
        assert Sampler(llm, SamplingParams(temperature=0.0, repeat_penalty=1.0)).argmax
        assert Sampler(llm, SamplingParams(temperature=0.7)).keep == 40 + llm.last_n_tokens_size
    finally:
        engine.close()
