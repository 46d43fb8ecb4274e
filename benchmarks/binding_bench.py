"""The binding's own overhead: decode and prefill of the app's engine, and of raw
llama-cpp-python, ÷ llama.cpp's C++ ``llama-bench`` built from the same vendored source
with the same flags (``packaging/llama_tools.py``).

Each side runs in its own process, one after another, in alternating order, several
rounds; per-round ratios and their spread are reported beside the ratio of medians. All
three use the starter model, the same threads and the context llama-bench gives each
test, ``n_prompt + n_gen`` padded by llama.cpp to 256 cells: ``PROMPT`` for prefill (the
app's ``PROMPT + GEN``, since its worker keeps room for the answer), ``DECODE_CTX`` for
decode (a larger context measured about 1 % slower decodes). llama-bench's ``tg`` decodes one token at a time without
sampling from an empty context; the Python sides decode ``GEN`` tokens past any
end-of-sequence from a short prompt: the raw binding through ``Llama.generate`` (its
sampler and the per-token Python of its loop), the app through ``LlamaEngine.stream``
(detokenising, stop-string and end checks too). Prefill is ``PROMPT`` tokens from an empty
context: llama-bench's ``pp``, the raw binding's ``Llama.eval`` and the app's
``stream`` up to its first token.

llama-bench runs in three configurations each round, so that each ratio compares the same
work: the app's (no flash attention, as ``LlamaEngine.load``, and the prompt in decodes of
``PREFILL_STEP`` tokens), the raw binding's (no flash attention, llama-cpp-python's
default; one batch of 512) and llama-bench's own defaults (``-fa auto``, which is flash
attention on for the CPU, batch 2048, micro-batch 512). The binding's overhead is the
first two; the third says what the app's configuration costs.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

from benchmarks.common import Figure, median, spread

ROOT = Path(__file__).resolve().parent.parent
THREADS = 2
PROMPT = 512
GEN = 128
MEASURED = 3  # measured repetitions inside each process, after one warm-up (llama-bench's -r)
DECODE_CTX = 256  # llama-bench's tg context: n_gen (128) padded to 256 cells


def _tool() -> Path | None:
    sys.path.insert(0, str(ROOT / "packaging"))
    from llama_tools import tools_folder

    found = tools_folder() / "llama-bench"
    return found if found.exists() else None


def _configurations() -> dict[str, list[str]]:
    from inference.llama_generate import PREFILL_STEP

    step = str(PREFILL_STEP)
    return {"cpp-app": ["-fa", "0", "-b", step, "-ub", step],
            "cpp-raw": ["-fa", "0", "-b", str(PROMPT), "-ub", str(PROMPT)],
            "cpp": []}


def _cpp(tool: Path, model: Path, configuration: list[str]) -> dict[str, float]:
    done = subprocess.run([str(tool), "-m", str(model), "-t", str(THREADS), "-p", str(PROMPT), "-n", str(GEN),
                           "-r", str(MEASURED), "-o", "json", *configuration],
                          capture_output=True, text=True, timeout=600, check=True)
    rows = json.loads(done.stdout)
    prefill = next(r for r in rows if r["n_prompt"] == PROMPT and r["n_gen"] == 0)
    decode = next(r for r in rows if r["n_gen"] == GEN and r["n_prompt"] == 0)
    return {"prefill": float(prefill["avg_ts"]), "decode": float(decode["avg_ts"])}


def _python(side: str, model: Path) -> dict[str, float]:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    done = subprocess.run([sys.executable, "-m", "benchmarks.binding_bench", side, str(model)], cwd=ROOT,
                          env=env, capture_output=True, text=True, timeout=600)
    lines = [line for line in done.stdout.splitlines() if line.startswith("RESULT ")]
    if done.returncode or not lines:
        raise RuntimeError(f"the {side} side failed: {done.stderr[-2000:]}")
    return json.loads(lines[-1][len("RESULT "):])


def _prompt_tokens(llm, count: int) -> list[int]:
    text = " ".join(f"Note {i}: the ship left the port at dawn with {i} crates." for i in range(count))
    tokens = llm.tokenize(text.encode(), add_bos=False)
    assert len(tokens) >= count
    return tokens[:count]


def child_raw(model: Path) -> dict[str, float]:
    import llama_cpp

    def load(n_ctx: int):
        return llama_cpp.Llama(model_path=str(model), n_ctx=n_ctx, n_batch=PROMPT, n_threads=THREADS,
                               n_threads_batch=THREADS, verbose=False)

    llm = load(PROMPT)
    tokens = _prompt_tokens(llm, PROMPT)
    rates: dict[str, list[float]] = {"prefill": [], "decode": []}
    for _round in range(1 + MEASURED):  # the first is the warm-up, as llama-bench's
        llm.reset()
        llm._ctx.kv_cache_clear()
        started = time.perf_counter()
        llm.eval(tokens)
        rates["prefill"].append(PROMPT / (time.perf_counter() - started))
    llm.close()
    llm = load(DECODE_CTX)
    for _round in range(1 + MEASURED):
        llm.reset()
        llm._ctx.kv_cache_clear()
        first = None
        for i, _token in enumerate(llm.generate(tokens[:8], temp=0.0, repeat_penalty=1.0)):
            if i == 0:
                first = time.perf_counter()
            if i >= GEN:
                break
        assert first is not None
        rates["decode"].append(GEN / (time.perf_counter() - first))
    llm.close()
    return {k: statistics.median(v[1:]) for k, v in rates.items()}


def child_app(model: Path) -> dict[str, float]:
    """Through the app's inference worker: the command queue, the engine, the coalesced
    chunk events and the stats the window shows."""
    import queue

    import inference.llama_generate as generate_module
    from inference.llama_engine import LlamaEngine
    from inference.protocol import (
        ChatMessage,
        Done,
        Failed,
        Forget,
        Generate,
        LoadModel,
        ModelLoaded,
        ModelSpec,
        SamplingParams,
    )
    from inference.worker import InferenceWorker

    # Each llama.cpp evaluation's seconds, so the decode time can be split into llama.cpp's
    # and everything else the app does per token (a perf_counter pair per call: < 1 µs).
    calls: list[float] = []
    evaluate = generate_module.decode

    def timed(*args, **kwargs):
        began = time.perf_counter()
        try:
            return evaluate(*args, **kwargs)
        finally:
            calls.append(time.perf_counter() - began)

    generate_module.decode = timed
    events: queue.Queue = queue.Queue()
    engines: list[LlamaEngine] = []

    def make() -> LlamaEngine:
        engines.append(LlamaEngine())
        return engines[-1]

    worker = InferenceWorker(make, events.put)
    worker.start()
    # Prefill: the worker keeps room for the answer past the prompt, so not llama-bench's 512.
    worker.submit(LoadModel(ModelSpec(model, n_ctx=PROMPT + GEN, n_threads=THREADS, n_batch=256)))

    def wait(kind):
        while True:
            event = events.get(timeout=600)
            if isinstance(event, Failed):
                raise RuntimeError(event.reason)
            if isinstance(event, kind):
                return event

    wait(ModelLoaded)
    engine = engines[-1]
    filler = engine.llama.detokenize(_prompt_tokens(engine.llama, PROMPT)).decode("utf-8", "replace")
    words = filler.split()
    long_prompt = (ChatMessage("user", " ".join(words)),)
    while engine.count_tokens(long_prompt) > PROMPT:
        words = words[:-1]
        long_prompt = (ChatMessage("user", " ".join(words)),)
    one = SamplingParams(max_tokens=1, temperature=0.0, repeat_penalty=1.0, ignore_eos=True)
    fixed = SamplingParams(max_tokens=GEN + 1, temperature=0.0, repeat_penalty=1.0, ignore_eos=True)
    rates: dict[str, list[float]] = {"prefill": [], "decode": [], "in_llama": []}
    for request in range(1 + MEASURED):  # the first is the warm-up, as llama-bench's
        worker.submit(Forget())
        worker.submit(Generate(2 * request + 1, 1, long_prompt, one))
        stats = wait(Done).stats
        rates["prefill"].append(stats.prompt_tokens / stats.ttft_seconds)
    worker.submit(LoadModel(ModelSpec(model, n_ctx=DECODE_CTX, n_threads=THREADS, n_batch=256)))
    wait(ModelLoaded)
    for request in range(1 + MEASURED):
        worker.submit(Forget())
        calls.clear()
        worker.submit(Generate(2 * request + 2, 1, (ChatMessage("user", "Tell me about ships."),), fixed))
        stats = wait(Done).stats
        assert stats.tokens == GEN + 1, stats
        rates["decode"].append(stats.tokens_per_second)
        # The decode phase (after the first token) evaluates one token per call.
        rates["in_llama"].append(sum(calls[-(stats.tokens - 1):]) / (stats.total_seconds - stats.ttft_seconds))
    worker.shutdown(5)
    return {k: statistics.median(v[1:]) for k, v in rates.items()}


def run(quick: bool = False) -> list[Figure]:
    from core.models import resolve_model

    tool = _tool()
    if tool is None:
        return [Figure("binding ÷ llama-bench: skipped, llama-bench is not built "
                       "(python packaging/llama_tools.py)", 0.0, "", "")]
    model = resolve_model()
    configurations = _configurations()
    sides: dict[str, list[dict[str, float]]] = {name: [] for name in ("app", "raw", *configurations)}
    rounds = 1 if quick else 6  # --quick: a smoke run
    for i in range(rounds):
        order = ["cpp-app", "cpp-raw", "cpp", "raw", "app"]
        for side in order if i % 2 == 0 else reversed(order):
            sides[side].append(_cpp(tool, model, configurations[side]) if side in configurations
                               else _python(side, model))
    figures = []
    for what in ("decode", "prefill"):
        size = PROMPT if what == "prefill" else GEN
        for side, baseline, label, target in (
                ("app", "cpp-app", "app engine ÷ llama-bench, the app's configuration (no flash attention, "
                 f"prefill in {configurations['cpp-app'][3]}-token steps)", "target ≥ 0.95"),
                ("raw", "cpp-raw", "raw llama-cpp-python ÷ llama-bench, its configuration (no flash attention, "
                 f"one batch of {PROMPT})", ""),
                ("app", "cpp", "app engine ÷ llama-bench, its defaults (flash attention on)", ""),
                ("cpp-app", "cpp", "llama-bench, the app's configuration ÷ its defaults", "")):
            mine, theirs = [r[what] for r in sides[side]], [r[what] for r in sides[baseline]]
            figures.append(Figure(f"{what} tokens/s ({size} tokens), {label}", median(mine) / median(theirs),
                                  "ratio", target, spread(mine, theirs)))
        app, raw = [r[what] for r in sides["app"]], [r[what] for r in sides["raw"]]
        figures.append(Figure(f"{what} tokens/s, app engine ÷ raw llama-cpp-python, separate processes",
                              median(app) / median(raw), "ratio", "target ≥ 0.97", spread(app, raw)))
    inside = [r["in_llama"] for r in sides["app"]]
    figures.append(Figure("decode, the app's time per token in llama.cpp's evaluation ÷ all of it (in process: "
                          "what the app's own per-token work leaves)", median(inside), "share", "",
                          {"rounds": [round(x, 4) for x in inside]}))
    return figures

if __name__ == "__main__":
    result = {"raw": child_raw, "app": child_app}[sys.argv[1]](Path(sys.argv[2]))
    print("RESULT " + json.dumps(result), flush=True)
