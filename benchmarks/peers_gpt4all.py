"""The GPT4All side of the peer benchmark, run by GPT4All's own Python package in its own
environment (packaging/gpt4all_engine.py): it imports nothing of Hearth.

    python peers_gpt4all.py  < {"model", "threads", "n_ctx", "long", "count", "tokens", "question", "again"}

Prints one JSON line: the prefill (a long prompt, one token), the decode (``tokens``
tokens of a count that does not end), the follow-up turn's first token in a chat session
(its own cache), the tokens each produced and the process's peak memory.
"""

from __future__ import annotations

import json
import sys
import time


def _stream(model, prompt: str, tokens: int) -> tuple[float, float, int]:
    """(first token s, total s, tokens) of one streamed generation, greedy."""
    began = time.perf_counter()
    first, count = 0.0, 0
    for _piece in model.generate(prompt, max_tokens=tokens, temp=0.0, top_k=1, top_p=1.0, repeat_penalty=1.0,
                                 streaming=True):
        if not count:
            first = time.perf_counter() - began
        count += 1
    return first, time.perf_counter() - began, count


def main() -> int:
    asked = json.loads(sys.stdin.readline())
    from gpt4all import GPT4All

    model = GPT4All(asked["model"], allow_download=False, device="cpu", n_threads=asked["threads"],
                    n_ctx=asked["n_ctx"], verbose=False)
    _stream(model, "Hello", 2)  # warm: the first call's one-time costs are nobody's speed
    prefill, _, _ = _stream(model, asked["long"], 1)
    first, total, produced = _stream(model, asked["count"], asked["tokens"])
    with model.chat_session():
        _stream(model, asked["long"] + "\n\n" + asked["question"], 8)
        again, _, _ = _stream(model, asked["again"], 1)
    from common import process_status  # benchmarks/common.py, beside this script (stdlib only)

    # This process's own peak (ru_maxrss would carry the parent's across fork and exec).
    peak = process_status().get("VmHWM", 0) * 1024
    print(json.dumps({"prefill_s": prefill, "decode_first_s": first, "decode_total_s": total,
                      "decode_tokens": produced, "followup_ttft_s": again, "peak_rss": peak}), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
