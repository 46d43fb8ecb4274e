"""Hearth against the engines its peers ship (#42), on the same GGUF, threads and context,
each side in its own process, interleaved round by round:

- **llama-server** (llama.cpp's own server, which Jan and LM Studio's llama.cpp engine
  run), built from the binding's vendored llama.cpp by packaging/llama_tools.py; asked
  over plain HTTP on 127.0.0.2, its own timings read from its answers;
- **GPT4All's engine** through its Python package (``gpt4all`` 2.8.2, in its own
  environment: packaging/gpt4all_engine.py);
- **Ollama**: not measured. Building it needs its Go module source and the Go module
  proxy, neither of which this machine's network reaches (only the Python, Debian and npm
  registries); Debian's ``ollama`` package does not exist.

Per side: the prefill speed (a ~600-token prompt, one token back), the decode speed
(exactly ``TOKENS`` tokens of a count that does not end: the benchmark fails if a side
produced another number), the first token of a follow-up turn (each side's own prefix
cache: Hearth's worker, GPT4All's chat session, llama-server's ``cache_prompt``) and the
process's peak memory. Figures are Hearth ÷ peer for speeds (≥ 1: Hearth is faster) and
peer ÷ Hearth for times (≥ 1: Hearth answers sooner).

The starter model is used in a copy whose pre-tokenizer is named "starcoder" (GPT4All
2.8.2 predates "smollm"; the rules are the same), read by all three sides.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Any

from benchmarks.common import Figure, median, process_status

ROOT = Path(__file__).resolve().parent.parent
THREADS = 2
N_CTX = 2048
TOKENS = 96
LONG = " ".join(f"Clause {n}: the tenant keeps the premises in good repair and returns them as found at the end."
                for n in range(1, 31))
ASKED = {"threads": THREADS, "n_ctx": N_CTX, "long": LONG, "count": "Count from 1 to 1000: 1, 2, 3, 4, 5,",
         "tokens": TOKENS, "question": "Which clause comes first?", "again": "And which comes last?"}


def _side(command: list[str], asked: dict[str, Any]) -> dict[str, Any]:
    done = subprocess.run(command, input=json.dumps(asked) + "\n", capture_output=True, text=True, cwd=ROOT,
                          timeout=900, env=dict(os.environ, HEARTH_QUIET="1"))
    line = next((ln for ln in done.stdout.splitlines()[::-1] if ln.startswith("{")), None)
    if done.returncode != 0 or line is None:
        raise RuntimeError(f"{command[-1]} failed ({done.returncode}): {done.stderr[-2000:]}")
    return dict(json.loads(line))


def _post(url: str, body: dict[str, Any]) -> tuple[dict[str, Any], float]:
    request = urllib.request.Request(url, json.dumps(body).encode(), {"Content-Type": "application/json"})
    began = time.perf_counter()
    with urllib.request.urlopen(request, timeout=600) as answer:  # noqa: S310 - the local test server
        data = json.loads(answer.read())
    return data, time.perf_counter() - began


def _server_side(base: str, pid: int) -> dict[str, Any]:
    """llama-server's figures from its own timings (prompt_ms is its time to the first token)."""
    greedy = {"temperature": 0.0, "top_k": 1, "top_p": 1.0, "min_p": 0.0, "repeat_penalty": 1.0, "seed": 1}
    _post(f"{base}/completion", {"prompt": "Hello", "n_predict": 2, **greedy})  # warm
    prefill, _ = _post(f"{base}/completion", {"prompt": ASKED["long"], "n_predict": 1, "cache_prompt": False,
                                              **greedy})
    decode, _ = _post(f"{base}/completion", {"prompt": ASKED["count"], "n_predict": TOKENS, "ignore_eos": True,
                                             "cache_prompt": False, **greedy})
    turn = [{"role": "user", "content": ASKED["long"] + "\n\n" + ASKED["question"]}]
    first, _ = _post(f"{base}/v1/chat/completions", {"messages": turn, "max_tokens": 8, "cache_prompt": True,
                                                     **greedy})
    answer = first["choices"][0]["message"]["content"]
    again, _ = _post(f"{base}/v1/chat/completions", {
        "messages": [*turn, {"role": "assistant", "content": answer}, {"role": "user", "content": ASKED["again"]}],
        "max_tokens": 1, "cache_prompt": True, **greedy})
    timings = decode["timings"]
    return {"prefill_s": prefill["timings"]["prompt_ms"] / 1000, "prefill_tokens": prefill["timings"]["prompt_n"],
            "decode_first_s": timings["prompt_ms"] / 1000,
            "decode_total_s": (timings["prompt_ms"] + timings["predicted_ms"]) / 1000,
            "decode_tokens": timings["predicted_n"], "followup_ttft_s": again["timings"]["prompt_ms"] / 1000,
            "peak_rss": _peak_rss(pid)}


def _peak_rss(pid: int) -> int:
    """A process's peak resident memory (VmHWM, as the other two sides read their own);
    its present one where the system keeps no peak."""
    import psutil

    peak = process_status(pid).get("VmHWM")
    return peak * 1024 if peak else int(psutil.Process(pid).memory_info().rss)


def _decode_rate(side: dict[str, Any]) -> float:
    spent = side["decode_total_s"] - side["decode_first_s"]
    return (side["decode_tokens"] - 1) / spent if spent > 0 else 0.0


def run(quick: bool = False) -> list[Figure]:
    sys.path.insert(0, str(ROOT / "packaging"))
    import gpt4all_engine

    from core.models import resolve_model
    from tests.intranet import llama_server, server_binary

    if server_binary() is None:
        return [Figure("peers: llama-server not built (packaging/llama_tools.py)", 0, "-")]
    if not gpt4all_engine.installed():
        return [Figure("peers: GPT4All's engine not installed (packaging/gpt4all_engine.py)", 0, "-")]
    rounds = 1 if quick else 3
    sides: dict[str, list[dict[str, Any]]] = {"hearth": [], "gpt4all": [], "llama-server": []}
    with tempfile.TemporaryDirectory() as tmp:
        had = os.environ.get("HEARTH_DATA_DIR")
        os.environ.setdefault("HEARTH_DATA_DIR", str(Path(tmp) / "data"))
        model = gpt4all_engine.same_model(resolve_model(), Path(tmp) / "starter-same.gguf")
        from llama_cpp import Llama

        vocab = Llama(str(model), vocab_only=True, verbose=False)
        long_tokens = len(vocab.tokenize(LONG.encode(), add_bos=True))
        asked = {**ASKED, "model": str(model)}
        with llama_server(model, None, n_ctx=N_CTX, parallel=1, threads=THREADS, extra=("-b", "512")) as server:
            base = f"http://{server.host}:{server.port}"
            from guard import egress

            egress.allow_destination("peers", server.host, server.port)
            try:
                for number in range(rounds):
                    order = ["hearth", "gpt4all", "llama-server"]
                    order = order[number % 3:] + order[:number % 3]  # each side first once in three rounds
                    for name in order:
                        if name == "hearth":
                            figures = _side([sys.executable, "-m", "benchmarks.peers_hearth"], asked)
                        elif name == "gpt4all":
                            figures = _side([str(gpt4all_engine.python()), str(ROOT / "benchmarks" /
                                                                                "peers_gpt4all.py")], asked)
                            figures["prefill_tokens"] = long_tokens
                        else:
                            figures = _server_side(base, server.process.pid)
                        sides[name].append(figures)
            finally:
                egress.revoke_destination("peers")
                if had is None:
                    os.environ.pop("HEARTH_DATA_DIR", None)  # not left naming a folder about to go
    counts = {name: sorted({r["decode_tokens"] for r in runs}) for name, runs in sides.items()}
    if any(c != [TOKENS] for c in counts.values()):
        raise AssertionError(f"the sides decoded different numbers of tokens: {counts}")

    def value(name: str, key: str) -> float:
        if key == "decode":
            return median([_decode_rate(r) for r in sides[name]])
        if key == "prefill":
            return median([r["prefill_tokens"] / r["prefill_s"] for r in sides[name] if r["prefill_s"] > 0])
        return median([float(r[key]) for r in sides[name]])

    out: list[Figure] = []
    detail = {name: {"decode_tok_s": round(value(name, "decode"), 2), "prefill_tok_s": round(value(name, "prefill"), 1),
                     "first_token_s": round(value(name, "prefill_s"), 4),
                     "followup_first_token_s": round(value(name, "followup_ttft_s"), 4),
                     "peak_rss_mb": round(value(name, "peak_rss") / 2**20, 1), "decoded": TOKENS}
              for name in sides}
    for peer, label in (("llama-server", "llama-server"), ("gpt4all", "GPT4All")):
        out.append(Figure(f"peers: decode tok/s, Hearth ÷ {label}", value("hearth", "decode") / value(peer, "decode"),
                          "ratio", "goal ≥ 1.0", detail))
        out.append(Figure(f"peers: prefill tok/s, Hearth ÷ {label}",
                          value("hearth", "prefill") / value(peer, "prefill"), "ratio", "goal ≥ 1.0"))
        out.append(Figure(f"peers: first token, {label} ÷ Hearth", value(peer, "prefill_s") / value("hearth",
                                                                                                     "prefill_s"),
                          "ratio", "goal ≥ 1.0"))
        out.append(Figure(f"peers: follow-up first token, {label} ÷ Hearth",
                          value(peer, "followup_ttft_s") / value("hearth", "followup_ttft_s"), "ratio",
                          "goal > 1.0"))
    for name in sides:
        out.append(Figure(f"peers: peak memory, {name} (MB)", value(name, "peak_rss") / 2**20, "MB", "measured"))
    out.append(Figure("peers: Ollama not measured (its Go module source is out of this machine's reach)", 0, "-"))
    return out
