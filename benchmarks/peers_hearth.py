"""The Hearth side of the peer benchmark: the app's own path (``core.client.WorkerClient``:
the inference worker thread, its queue and events, llama-cpp-python), in a process of its
own. Reads the same JSON as ``peers_gpt4all.py`` and prints the same figures, with the
prompt's token counts as the worker reports them."""

from __future__ import annotations

import json
import sys
from pathlib import Path


def main() -> int:
    asked = json.loads(sys.stdin.readline())
    from core.client import WorkerClient
    from inference.protocol import ChatMessage, ModelSpec, SamplingParams

    greedy = {"temperature": 0.0, "top_p": 1.0, "top_k": 1, "min_p": 0.0, "repeat_penalty": 1.0, "seed": 1}
    with WorkerClient(with_embedder=False) as client:
        client.load(ModelSpec(Path(asked["model"]), n_ctx=asked["n_ctx"], n_threads=asked["threads"],
                              n_batch=512))
        client.generate((ChatMessage("user", "Hello"),), SamplingParams(max_tokens=2, **greedy))  # warm
        long = (ChatMessage("user", asked["long"]),)
        prefill = client.generate(long, SamplingParams(max_tokens=1, **greedy)).stats
        decode = client.generate((ChatMessage("user", asked["count"]),),
                                 SamplingParams(max_tokens=asked["tokens"], ignore_eos=True, **greedy)).stats
        turn = (ChatMessage("user", asked["long"] + "\n\n" + asked["question"]),)
        answer = client.generate(turn, SamplingParams(max_tokens=8, **greedy)).text
        again = client.generate((*turn, ChatMessage("assistant", answer), ChatMessage("user", asked["again"])),
                                SamplingParams(max_tokens=1, **greedy)).stats
    from benchmarks.common import process_status

    # This process's own peak (ru_maxrss would carry the parent's across fork and exec).
    peak = process_status().get("VmHWM", 0) * 1024
    print(json.dumps({"prefill_s": prefill.ttft_seconds, "prefill_tokens": prefill.prompt_tokens,
                      "decode_first_s": decode.ttft_seconds, "decode_total_s": decode.total_seconds,
                      "decode_tokens": decode.tokens, "followup_ttft_s": again.ttft_seconds,
                      "peak_rss": peak}), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
