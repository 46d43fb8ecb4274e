"""The probe's child process: validate the header, render the chat template within
bounds, load the model, decode a few tokens and print one JSON line with what it
measured. Started fresh by ``inference.probe``; a crash here (SIGILL, SIGSEGV, an
abort) ends only this process, and a template that hangs is ended by the parent.

Kept apart from the parent's side so that choosing a CPU build (``cpu_variant``, which
runs probes) never imports the engine that depends on that choice.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from dataclasses import asdict
from pathlib import Path
from typing import TYPE_CHECKING, Any

from inference.probe import INVALID, LOAD, RESULT_PREFIX, TEMPLATE, ProbeResult, problem_reason

if TYPE_CHECKING:
    from inference.chat_template import TemplateRefused

TEMPLATE_SECONDS = 10.0  # for rendering the model's chat template, well within the probe's limit


def _rss() -> int:
    import psutil

    return int(psutil.Process().memory_info().rss)


def _vet_template(template: object, n_ctx: int) -> TemplateRefused | None:
    """The template is rendered here first, before the app ever renders it: this process
    is killed at the probe's time limit, the app's rendering could not be. The refusal
    (a TemplateRefused), or None."""
    if not isinstance(template, str) or not template:
        return None
    from inference.chat_template import vet_refusal

    return vet_refusal(template, n_ctx, seconds=TEMPLATE_SECONDS)


def _failed(problem: str, name: str, **values: Any) -> ProbeResult:
    """A failed result: the problem and its values, which the parent says in its own
    language, and the reason in this process's (English: no translation is installed)."""
    return ProbeResult(False, problem_reason(problem, name, values), problem=problem, values=values)


def probe_here(path: Path, n_ctx: int, threads: int | None) -> ProbeResult:
    """The child's side: runs in the probe process."""
    from inference.gguf import InvalidGGUF, read_header
    from inference.modelinfo import info_from_header

    try:
        header = read_header(path)
        info = info_from_header(header)
    except InvalidGGUF as exc:
        return _failed(INVALID, path.name, detail=str(exc))
    embedding = info.role == "embedding"
    refused = None if embedding else _vet_template(header.get("tokenizer.chat_template"), n_ctx)
    if refused is not None:
        return _failed(TEMPLATE, path.name, refusal=refused.kind, refusal_values=refused.values)
    from inference.llama_load import construct_llama

    before = _rss()
    started = time.perf_counter()
    if embedding:  # an embedding model is checked by embedding, not by generating
        n_ctx = min(n_ctx, 512)
        llm = construct_llama(model_path=str(path), embedding=True, n_ctx=n_ctx, n_batch=n_ctx,
                              n_ubatch=n_ctx, n_threads=threads, n_threads_batch=threads, n_gpu_layers=-1,
                              verbose=False)
    else:  # all layers on the GPU, as the app loads them, where the build has one
        llm = construct_llama(model_path=str(path), n_ctx=n_ctx, n_batch=256, n_gpu_layers=-1,
                              n_threads=threads, n_threads_batch=threads, verbose=False)
    load_seconds = time.perf_counter() - started
    loaded = _rss()
    if embedding:
        vector = llm.embed(["The quick brown fox"])[0]
        text = f"{len(vector)} dimensions"
    else:
        tokens = llm.tokenize(b"The quick brown fox", add_bos=True)
        pieces = []
        for i, token in enumerate(llm.generate(tokens, temp=0.0)):
            pieces.append(token)
            if i >= 3:
                break
        text = llm.detokenize(pieces).decode("utf-8", errors="replace")
    after = _rss()
    result = ProbeResult(True, "", load_seconds, before, loaded, after, int(llm.n_ctx()), text)
    llm.close()
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="inference.probe_child")
    parser.add_argument("model", type=Path, nargs="?", help="the model; read from standard input if left out "
                        "(as one JSON string: a command line is readable by every user)")
    parser.add_argument("--n-ctx", type=int, default=2048)
    parser.add_argument("--threads", type=int, default=None)
    args = parser.parse_args(argv)
    if args.model is None:
        args.model = Path(json.loads(sys.stdin.readline()))
    try:
        result = probe_here(args.model, args.n_ctx, args.threads)
    except Exception as exc:  # reported to the parent as a reason, not a traceback
        result = _failed(LOAD, args.model.name, detail=str(exc))
    print(RESULT_PREFIX + json.dumps(asdict(result)), flush=True)
    return 0 if result.ok else 1


if __name__ == "__main__":
    from guard import egress

    egress.install()  # a child is guarded like the app: no connection leaves it
    sys.exit(main())
