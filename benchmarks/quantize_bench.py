"""A smaller copy weighed by the user's text (#42): the starter model's own weights as F16
(``tests/precise_model.py``), quantized plain and weighed by an importance matrix
(``inference/importance.py``), each measured against the original on text that was not
read for the matrix, in English and in Chinese. Figures: the weighed copy's mean KL
divergence ÷ the plain copy's (below 1: the text helped), and the time a weighed copy
takes ÷ a plain one (the original's reading of the text is the difference).

The texts are Hearth's own documentation: the matrix reads ``docs/documents.md`` and
``docs/zh/documents.md``; the measure reads ``docs/architecture.md`` and
``docs/zh/models.md``."""

from __future__ import annotations

import tempfile
import time
from pathlib import Path

from benchmarks.common import Figure

ROOT = Path(__file__).resolve().parent.parent
WEIGH_BY = ("docs/documents.md", "docs/zh/documents.md")
MEASURED_ON = {"English": "docs/architecture.md", "Chinese": "docs/zh/models.md"}


def _text(relative: str, characters: int) -> str:
    return (ROOT / relative).read_text(encoding="utf-8")[:characters]


def run(quick: bool = False) -> list[Figure]:
    from core import quantize
    from inference.bundled import source_path, starter_model
    from tests.precise_model import f16_copy

    starter = source_path(starter_model())
    if starter is None:
        return [Figure("quantize: the starter model is not installed", 0.0, "-")]
    kinds = ("Q4_K_M",) if quick else ("Q4_K_M", "Q5_K_M")
    weigh_by = "\n\n".join(_text(name, 2_000 if quick else 40_000) for name in WEIGH_BY)
    measured_on = {language: _text(name, 2_000 if quick else 8_000) for language, name in MEASURED_ON.items()}
    figures: list[Figure] = []
    with tempfile.TemporaryDirectory(prefix="hearth-quantize-bench-") as folder:
        original = f16_copy(starter, Path(folder) / "starter-F16.gguf")
        for kind in kinds:
            began = time.perf_counter()
            plain = quantize.quantize(original, "F16", kind, Path(folder) / f"plain.{kind}.gguf")
            plain_s = time.perf_counter() - began
            steps: list[int] = []
            began = time.perf_counter()
            weighed = quantize.quantize(original, "F16", kind, Path(folder) / f"weighed.{kind}.gguf",
                                        importance=weigh_by, reading=lambda done, _all, seen=steps: seen.append(done))
            weighed_s = time.perf_counter() - began
            for language, text in measured_on.items():
                before = quantize.measure(original, plain, text, n_ctx=1024)
                after = quantize.measure(original, weighed, text, n_ctx=1024)
                figures.append(Figure(
                    f"quantize {kind}: KL weighed ÷ plain, {language} not read for it", after.kl_mean / before.kl_mean,
                    "ratio", "< 1", {"kl_plain": before.kl_mean, "kl_weighed": after.kl_mean,
                                     "top1_plain": before.top1_agreement, "top1_weighed": after.top1_agreement,
                                     "perplexity_original": before.perplexity_original,
                                     "perplexity_plain": before.perplexity_quantized,
                                     "perplexity_weighed": after.perplexity_quantized, "tokens": before.tokens}))
            figures.append(Figure(f"quantize {kind}: time weighed ÷ plain ({len(steps)} parts of 512 tokens read)",
                                  weighed_s / plain_s, "ratio", "measured",
                                  {"plain_s": plain_s, "weighed_s": weighed_s}))
            plain.unlink()
            weighed.unlink()
    return figures
