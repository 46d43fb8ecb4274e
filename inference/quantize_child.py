"""The quantizer's child process (#42): llama.cpp's quantizer, and the measure of what a
quantization cost, each in a process of its own so that a crash, a full disk or a Cancel
ends only it, and the worker thread that serves the chats never waits on either.

It reads one JSON line from its standard input (the paths are not put on the command
line, which every user of the computer can read), writes llama.cpp's progress lines
("[ 12/ 272] blk.3.attn_k.weight …") to its standard error as the quantizer prints
them, and ends with one line on its standard output: ``RESULT {json}``.

- ``{"op": "quantize", "source", "target", "type", "importance"?}``: ``target`` written
  (whole or not at all is the parent's concern: it names a partial file and renames it).
  With ``importance`` (a text), the original reads it first and the quantizer weighs each
  matrix's columns by what the text made of them (``importance``); its steps are said as
  ``[importance 3/12]`` lines.
- ``{"op": "measure", "original", "quantized", "text", "n_ctx"}``: both models read the
  same tokens; the KL divergence of the quantized model's next-token distributions from
  the original's (mean, and the 99th percentile), how often their most likely next
  token agrees, each one's perplexity, and each one's prompt speed.
"""

from __future__ import annotations

import ctypes
import json
import math
import os
import sys
import time
from typing import Any

RESULT_PREFIX = "RESULT "
FILE_TYPES = {"Q8_0": 7, "Q6_K": 18, "Q5_K_M": 17, "Q4_K_M": 15}  # llama_ftype


def _load_llama() -> Any:
    """llama.cpp's libraries, loaded the way the app loads them: the C++ runtime shared
    first (the CUDA build's, see ``cpu_variant.share_cxx_runtime``), before NumPy is, and
    OpenMP's settings in place while they load."""
    from inference import cpu_variant, openmp

    if "llama_cpp" not in sys.modules:
        cpu_variant.share_cxx_runtime()
    with openmp.while_loading():
        import llama_cpp
    return llama_cpp


def quantize(source: str, target: str, kind: str, importance: str | None = None) -> dict[str, Any]:
    llama_cpp = _load_llama()

    params = llama_cpp.llama_model_quantize_default_params()
    params.ftype = FILE_TYPES[kind]
    params.nthread = max(1, (os.cpu_count() or 2))
    params.allow_requantize = True  # Q8_0 is a source too: the parent refuses what is already small
    alive: list[Any] = []
    if importance is not None:
        from inference.importance import ImportanceError, as_parameter, compute

        def said(done: int, steps: int) -> None:
            print(f"[importance {done}/{steps}]", file=sys.stderr, flush=True)

        try:
            matrix = compute(source, importance, params.nthread, said)
        except ImportanceError as exc:
            return {"error": "no importance matrix", "importance": str(exc)}
        except (OSError, RuntimeError, AttributeError):  # ggml's library not found, or without a function
            return {"error": "no importance matrix", "importance": "layout"}
        params.imatrix, alive = as_parameter(llama_cpp, matrix)
    code = llama_cpp.llama_model_quantize(os.fsencode(source), os.fsencode(target), ctypes.byref(params))
    del alive  # the matrix lived while the quantizer read it
    if code != 0:
        return {"error": f"llama.cpp's quantizer ended with {code}"}
    return {"size": os.path.getsize(target)}


def _read(path: str, text: str, n_ctx: int) -> tuple[list[int], Any, float]:
    """The tokens of ``text`` (at most ``n_ctx``), the model's log-probabilities of the next
    token after each, and its prompt speed (tokens a second)."""
    _load_llama()  # before NumPy (the C++ runtime, above)
    import numpy as np

    from inference.llama_load import construct_llama

    # The metadata's chat templates are hidden while it loads (construct_llama): a template
    # is a stranger's code, and this needs none.
    model = construct_llama(model_path=path, n_ctx=n_ctx, n_batch=n_ctx, n_ubatch=n_ctx, logits_all=True,
                            verbose=False, n_threads=max(1, os.cpu_count() or 2))
    try:
        tokens = model.tokenize(text.encode("utf-8"), add_bos=True)[:n_ctx]
        began = time.perf_counter()
        model.eval(tokens)
        seconds = max(time.perf_counter() - began, 1e-9)
        logp = np.empty((len(tokens), model.n_vocab()), dtype=np.float32)
        for row in range(len(tokens)):  # one row at a time: a 150,000-word vocabulary stays small
            logits = np.asarray(model.scores[row], dtype=np.float64)
            top = logits.max()
            logp[row] = logits - (top + np.log(np.exp(logits - top).sum()))
    finally:
        model.close()
    return tokens, logp, len(tokens) / seconds


def measure(original: str, quantized: str, text: str, n_ctx: int) -> dict[str, Any]:
    import numpy as np

    tokens, before, speed_before = _read(original, text, n_ctx)
    tokens_after, after, speed_after = _read(quantized, text, n_ctx)
    if tokens != tokens_after or before.shape != after.shape:
        return {"error": "the two models do not read the text alike: they are not the same model"}
    if len(tokens) < 2:
        return {"error": "the text is too short to measure"}
    before, after = before[:-1], after[:-1]  # the last token has no next one to predict
    kl = np.array([float((np.exp(b.astype(np.float64)) * (b.astype(np.float64) - a.astype(np.float64))).sum())
                   for b, a in zip(before, after, strict=True)])
    following = np.array(tokens[1:])
    rows = np.arange(len(following))
    return {
        "tokens": len(tokens),
        "kl_mean": float(kl.mean()),
        "kl_p99": float(np.percentile(kl, 99)),
        "top1_agreement": float((before.argmax(axis=1) == after.argmax(axis=1)).mean()),
        "perplexity_original": float(math.exp(-before[rows, following].mean())),
        "perplexity_quantized": float(math.exp(-after[rows, following].mean())),
        "speed_original": speed_before,
        "speed_quantized": speed_after,
        "size_original": os.path.getsize(original),
        "size_quantized": os.path.getsize(quantized),
    }


def _end_with_parent() -> None:
    """The parent keeps this process's standard input open until it has its result; when
    it closes (the parent died, or gave up), this process ends at once rather than going
    on for hours with every core."""
    import threading

    def watch() -> None:
        sys.stdin.read()
        os._exit(3)

    threading.Thread(target=watch, name="hearth-parent-watch", daemon=True).start()


def main(_argv: list[str] | None = None) -> int:
    asked = json.loads(sys.stdin.readline())
    _end_with_parent()
    try:
        if asked.get("op") == "quantize":
            result = quantize(asked["source"], asked["target"], asked["type"], asked.get("importance"))
        else:
            result = measure(asked["original"], asked["quantized"], asked["text"], int(asked.get("n_ctx", 512)))
    except MemoryError:
        result = {"error": "not enough memory"}
    except Exception as exc:  # said to the parent as a reason, not a traceback (no path in it)
        result = {"error": type(exc).__name__}
    print(RESULT_PREFIX + json.dumps(result), flush=True)
    return 1 if "error" in result else 0


if __name__ == "__main__":
    from guard import egress

    egress.install()  # a child is guarded like the app: no connection leaves it
    sys.exit(main())
