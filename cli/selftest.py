"""``python -m app --self-test``: load the model, generate 16 tokens, print the figures.

No window and no Qt: it drives the same worker and engine the app uses, so a frozen
build or a new machine can be checked from a terminal. Exit 0 on success; otherwise the
reason is printed and the exit status is 1.
"""

from __future__ import annotations

import sys
from typing import TextIO

from core.client import ClientError, WorkerClient
from core.documents import ParseError
from core.models import resolve_embedding_model, resolve_model
from core.protocol import ChatMessage, InferenceError, ModelLoaded, ModelSpec, SamplingParams, Stats
from i18n import translate

TOKENS = 16
LOAD_TIMEOUT = 300.0
GENERATE_TIMEOUT = 300.0
PROMPT = (ChatMessage("user", "Tell me a short story about a lighthouse keeper."),)


def _embed_a_sentence(client: WorkerClient) -> int:
    """Load the bundled embedding model in the same worker and embed one sentence."""
    client.load_embedder(resolve_embedding_model(), LOAD_TIMEOUT)
    vectors = client.embed(["The lighthouse keeper climbed the stairs."], GENERATE_TIMEOUT)
    if vectors.shape[0] != 1 or not vectors.any():
        raise RuntimeError(translate("cli.selftest", "the embedding model returned no vector"))
    return int(vectors.shape[1])


OCR_SAMPLE = "Lighthouse 143 steps"


def _read_a_scan() -> tuple[str, float]:
    """Draw a line of text, save it as a PNG and read it back by text recognition in the
    isolated parser, as a scanned page is read (the models are files of the install)."""
    import tempfile
    import time
    from pathlib import Path

    from PIL import Image, ImageDraw, ImageFont

    from core.documents import OCR_MEMORY_LIMIT, IsolatedParser

    image = Image.new("L", (900, 140), 255)
    ImageDraw.Draw(image).text((40, 40), OCR_SAMPLE, font=ImageFont.load_default(size=48), fill=20)
    with tempfile.TemporaryDirectory() as folder, IsolatedParser(memory_limit=OCR_MEMORY_LIMIT, background=False) as parser:
        path = Path(folder) / "sample.png"
        image.save(path)
        began = time.monotonic()
        text = parser.recognise(path, 1)
        return text, time.monotonic() - began


def load_and_generate(client: WorkerClient, spec: ModelSpec, tokens: int = TOKENS) -> tuple[ModelLoaded, str, Stats]:
    """Load ``spec`` and decode ``tokens`` greedy tokens of a fixed prompt.

    Raises ClientError with llama.cpp's reason if loading or generating fails, and
    TimeoutError if either takes too long."""
    loaded = client.load(spec, LOAD_TIMEOUT)
    answer = client.generate(PROMPT, SamplingParams(max_tokens=tokens, temperature=0.0, seed=1),
                             timeout=GENERATE_TIMEOUT)
    return loaded, answer.text, answer.stats


def run_self_test(out: TextIO = sys.stdout) -> int:
    try:
        path = resolve_model()
    except InferenceError as exc:
        print(_failed(exc), file=out)
        return 1
    client = WorkerClient(flush_interval=0.0)
    try:
        loaded, text, stats = load_and_generate(client, ModelSpec(path=path))
        embedded = _embed_a_sentence(client)
        recognised, seconds = _read_a_scan()
        from core.speech import check_loads

        heard_in = check_loads()
        from core.documents import dictionary

        words = dictionary()
    except TimeoutError:
        print(_failed(translate("cli.selftest", "the model did not answer in time")), file=out)
        return 1
    except (InferenceError, ClientError, RuntimeError, ParseError) as exc:
        print(_failed(exc), file=out)
        return 1
    finally:
        client.close(timeout=5.0)
    if "143" not in recognised:
        print(_failed(translate("cli.selftest", "text recognition read {text!r}, not the sample").format(
            text=recognised[:80])), file=out)
        return 1
    if words is None or not len(words):
        print(_failed(translate("cli.selftest", "the Chinese-English dictionary is missing")), file=out)
        return 1
    if stats.tokens == 0 or not text.strip():
        print(_failed(translate("cli.selftest", "the model produced no text")), file=out)
        return 1
    from core.protocol import cpu_variant

    print(translate("cli.selftest", "model: {name} ({path})").format(name=loaded.name, path=path),
          file=out)
    print(translate("cli.selftest", "llama.cpp build: {build}; backend {backend}").format(
        build=cpu_variant.describe(), backend=loaded.backend), file=out)
    print(translate("cli.selftest", "load time: {seconds:.2f} s").format(seconds=loaded.load_seconds),
          file=out)
    print(translate("cli.selftest", "tokens: {tokens}").format(tokens=stats.tokens), file=out)
    print(translate("cli.selftest", "time to first token: {seconds:.3f} s").format(
        seconds=stats.ttft_seconds), file=out)
    print(translate("cli.selftest", "tokens/s: {rate:.1f}").format(rate=stats.tokens_per_second),
          file=out)
    sample = repr(text.strip()[:80])
    print(translate("cli.selftest", "sample: {sample}").format(sample=sample), file=out)
    print(translate("cli.selftest", "embedding: %n dimensions ({model})", None, embedded).format(
        model=resolve_embedding_model().name), file=out)
    print(translate("cli.selftest", "text recognition: {text!r} in {seconds:.1f} s").format(
        text=recognised.strip()[:80], seconds=seconds), file=out)
    print(translate("cli.selftest", "speech recognition: {model} loads in {seconds:.1f} s").format(
        model=speech_model_name(), seconds=heard_in), file=out)
    size = len(words)
    print(translate("cli.selftest", "Chinese-English dictionary: %n words", None, size), file=out)
    print(translate("cli.selftest", "self-test OK"), file=out)
    return 0


def speech_model_name() -> str:
    from core.speech_models import bundled_name, chosen

    other = chosen()
    return other.name if other is not None else bundled_name()


def _failed(reason: object) -> str:
    """The line that says the self-test failed, and why (``reason``: the error's own words)."""
    return translate("cli.selftest", "self-test FAILED: {reason}").format(reason=reason)
