"""llama.cpp run from a second thread of the process, with libgomp's defaults and with
Hearth's setting (``inference.openmp``).

Each side is a process of its own that decodes ``GEN`` tokens one at a time from an empty
context (the starter model, no sampling, as llama-bench's ``tg``), first on its main
thread and then on a second thread while the main one's OpenMP team still lives. The
sides alternate, several rounds; the ratios are of medians, with their per-round spread.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path

from benchmarks.common import Figure, median, spread

ROOT = Path(__file__).resolve().parent.parent
THREADS = 2
GEN = 128
MEASURED = 3  # after one warm-up


def child(model: Path) -> dict[str, float]:
    import llama_cpp

    llm = llama_cpp.Llama(model_path=str(model), n_ctx=256, n_batch=256, n_threads=THREADS,
                          n_threads_batch=THREADS, verbose=False)

    def decode() -> float:
        rates = []
        for _round in range(1 + MEASURED):
            llm._ctx.kv_cache_clear()
            started = 0.0
            for i in range(GEN + 1):
                llm._batch.set_batch([100 + i], i, False)
                llm._ctx.decode(llm._batch)
                if i == 0:
                    started = time.perf_counter()
            rates.append(GEN / (time.perf_counter() - started))
        return statistics.median(rates[1:])

    first = decode()
    second: list[float] = []
    thread = threading.Thread(target=lambda: second.append(decode()))
    thread.start()
    thread.join()
    llm.close()
    return {"first": first, "second": second[0]}


def _side(model: Path, tuned: bool) -> dict[str, float]:
    sys.path.insert(0, str(ROOT))
    from inference import openmp

    env = {k: v for k, v in os.environ.items() if k not in openmp.SETTINGS}
    if tuned:
        openmp.prepare(env)
    env["PYTHONPATH"] = str(ROOT)
    done = subprocess.run([sys.executable, "-m", "benchmarks.openmp_bench", str(model)], cwd=ROOT,
                          env=env, capture_output=True, text=True, timeout=600)
    lines = [line for line in done.stdout.splitlines() if line.startswith("RESULT ")]
    if done.returncode or not lines:
        raise RuntimeError(f"the {'tuned' if tuned else 'default'} side failed: {done.stderr[-2000:]}")
    return json.loads(lines[-1][len("RESULT "):])


def run(quick: bool = False) -> list[Figure]:
    from core.models import resolve_model

    model = resolve_model()
    sides: dict[bool, list[dict[str, float]]] = {True: [], False: []}
    for i in range(2 if quick else 4):
        for tuned in (True, False) if i % 2 == 0 else (False, True):
            sides[tuned].append(_side(model, tuned))
    figures = []
    for tuned, label in ((False, "libgomp's defaults"), (True, "Hearth's setting")):
        second, first = [r["second"] for r in sides[tuned]], [r["first"] for r in sides[tuned]]
        figures.append(Figure(f"decode tokens/s on a second thread ÷ on the first, {label}",
                              median(second) / median(first), "ratio",
                              "target ≥ 0.9" if tuned else "", spread(second, first)))
    for what in ("first", "second"):
        mine, theirs = [r[what] for r in sides[True]], [r[what] for r in sides[False]]
        figures.append(Figure(f"decode tokens/s on the {what} thread, Hearth's setting ÷ libgomp's defaults",
                              median(mine) / median(theirs), "ratio",
                              "target ≥ 0.97" if what == "first" else "", spread(mine, theirs)))
    return figures


if __name__ == "__main__":
    print("RESULT " + json.dumps(child(Path(sys.argv[1]))), flush=True)
