"""Attachments (#39): from send to the first token for a question with a one-page scanned
attachment, split into reading (the isolated parser and text recognition), finding its
passages for the question (the embedding model) and the answer's prefill; and that whole
time ÷ the same question asked without the attachment, in the same run (the starter
model, the bundled embedding model, a freshly made scan each round, interleaved).
"""

from __future__ import annotations

import tempfile
import time
from pathlib import Path

from benchmarks.common import Figure, median, spread

TEXT = ("Greenhouse manual, page 2. The spare heater fuse is kept in the blue tin on the top shelf of the "
        "potting shed. Replace it only with the heater switched off at the wall. The thermostat is set to "
        "twelve degrees in winter and the vents open by themselves above twenty-six degrees.")
QUESTION = "Where is the spare heater fuse kept?"


def _scan(path: Path, seed: int) -> Path:
    """One A4 page of TEXT drawn, slightly rotated and blurred: a scan with no text layer."""
    import numpy as np
    from PIL import Image, ImageDraw, ImageFilter, ImageFont

    font = ImageFont.load_default(size=34)
    image = Image.new("L", (1240, 1754), 255)
    draw = ImageDraw.Draw(image)
    line, y = "", 160
    for word in TEXT.split():
        if draw.textlength(f"{line} {word}", font=font) > 1000:
            draw.text((120, y), line, font=font, fill=25)
            line, y = word, y + 52
        else:
            line = f"{line} {word}".strip()
    draw.text((120, y), line, font=font, fill=25)
    image = image.rotate(0.8, fillcolor=255)
    noisy = np.asarray(image).astype(np.int16) + np.random.default_rng(seed).normal(0, 12, image.size[::-1])
    page = Image.fromarray(np.clip(noisy, 0, 255).astype(np.uint8)).filter(ImageFilter.GaussianBlur(0.5))
    page.convert("RGB").save(path, "PDF", resolution=150)
    return path


def run(quick: bool = False) -> list[Figure]:
    from core.attachments import passages, read_all
    from core.client import WorkerClient
    from core.models import resolve_embedding_model, resolve_model
    from core.protocol import ChatMessage, ModelSpec, Passages, SamplingParams

    rounds = 1 if quick else 5
    reading, finding, prefill, whole, plain = [], [], [], [], []
    params = SamplingParams(max_tokens=8, temperature=0.0, seed=1)
    with tempfile.TemporaryDirectory() as tmp, WorkerClient() as client:
        client.load(ModelSpec(resolve_model(), n_ctx=4096, n_threads=2))
        model = client.load_embedder(resolve_embedding_model()).model
        for i in range(rounds):
            for attached in ((True, False) if i % 2 == 0 else (False, True)):
                messages = (ChatMessage("system", "You are a helpful assistant."), ChatMessage("user", QUESTION))
                client.generate((ChatMessage("user", f"Round {i}."),), params)  # another prompt in the cache
                if not attached:
                    answer = client.generate(messages, params)
                    plain.append(answer.stats.ttft_seconds)
                    continue
                started = time.perf_counter()
                files = read_all([_scan(Path(tmp) / f"scan-{i}.pdf", i)])
                read = time.perf_counter()
                found = passages(files, QUESTION, client.embed, model)
                searched = time.perf_counter()
                answer = client.generate(messages, params, Passages(tuple(found)))
                reading.append(read - started)
                finding.append(searched - read)
                prefill.append(answer.stats.ttft_seconds)
                whole.append(searched - started + answer.stats.ttft_seconds)
    detail = spread(whole, plain, reading_s=median(reading), finding_s=median(finding),
                    prefill_s=median(prefill), without_s=median(plain))
    return [Figure("send to first token, one-page scanned attachment ÷ none", median(whole) / median(plain),
                   "ratio", "", detail),
            Figure("  of which reading (parser and text recognition)", median(reading), "s"),
            Figure("  of which finding its passages (a page is given whole)", median(finding), "s"),
            Figure("  of which the answer's prefill", median(prefill), "s")]
