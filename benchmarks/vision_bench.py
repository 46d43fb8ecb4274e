"""Pictures (#39): a question about a picture asked of a model that sees it, cold, and a
follow-up question about the same picture in the same chat, whose picture is found in the
context (not encoded again): the follow-up's time to first token ÷ the same follow-up
asked cold, in the same run (target ≤ 0.2), and the time the picture took to encode and
put in the context.

No package carries a small vision model, so this runs the starter model with the tests'
generated projector (tests/vision_projector.py: a real LLaVA-style projector, random
weights) at 224 pixels, whose picture is 256 tokens, as Gemma 3's is. A real model's
vision encoder is far larger than this one's two small blocks, so its cold start costs
more and the follow-up saves more than measured here.
"""

from __future__ import annotations

import tempfile
import time
from pathlib import Path

from benchmarks.common import Figure, median, spread


def _first_token_seconds(engine, messages) -> float:
    from inference.protocol import SamplingParams

    params = SamplingParams(max_tokens=1, temperature=0.0, seed=1)
    started = time.perf_counter()
    for _ in engine.stream(messages, params, lambda: False):
        break
    return time.perf_counter() - started


def run(quick: bool = False) -> list[Figure]:
    import numpy as np

    from core.models import resolve_model
    from inference.llama_engine import LlamaEngine
    from inference.protocol import ChatMessage, ModelSpec, Picture, SamplingParams
    from tests.vision_projector import make_projector

    rounds = 1 if quick else 5
    warm, cold, encoding = [], [], []
    with tempfile.TemporaryDirectory() as tmp:
        engine = LlamaEngine()
        engine.load(ModelSpec(resolve_model(), n_ctx=4096, n_threads=2,
                              projector=make_projector(Path(tmp) / "mmproj.gguf", image_size=224)))
        try:
            for i in range(-1, rounds):  # round -1: the first picture sets up the encoder; not counted
                pixels = np.random.default_rng(i + 1).integers(0, 256, (480, 640, 3), dtype=np.uint8)
                first = [ChatMessage("system", "You are a helpful assistant."),
                         ChatMessage("user", "What does this photo show?", pictures=(Picture(640, 480, pixels.tobytes()),))]
                engine.forget()
                before = engine.projector.seconds
                said = "".join(engine.stream(first, SamplingParams(max_tokens=24, temperature=0.0, seed=1),
                                             lambda: False))
                encoding.append(engine.projector.seconds - before)
                follow_up = [*first, ChatMessage("assistant", said), ChatMessage("user", "And what colours are in it?")]
                warm_s = _first_token_seconds(engine, follow_up)
                engine.forget()
                cold_s = _first_token_seconds(engine, follow_up)
                if i >= 0:
                    warm.append(warm_s)
                    cold.append(cold_s)
                else:
                    encoding.pop()
        finally:
            engine.close()
    return [Figure("follow-up about a picture, first token: warm ÷ cold", median(warm) / median(cold), "ratio",
                   "≤ 0.2", spread(warm, cold, warm_s=median(warm), cold_s=median(cold))),
            Figure("  picture encoded and put in the context (256 tokens, tests' projector)", median(encoding), "s")]
