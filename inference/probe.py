"""Load a model in a separate process first, so that a crash there cannot take the app down.

The child process (started fresh, never forked) validates the header, loads the model,
tokenizes, decodes a few tokens and reports one JSON line with what it measured,
including its resident memory. The parent reads the line, or the signal or time-out
that ended the child, and turns it into a verdict the user can read.

    python -m inference.probe MODEL [--n-ctx N] [--threads N]
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import time
from dataclasses import asdict, dataclass
from pathlib import Path

PROBE_TIMEOUT = 180.0
RESULT_PREFIX = "HEARTH-PROBE "


@dataclass(frozen=True)
class ProbeResult:
    ok: bool
    reason: str = ""
    load_seconds: float = 0.0
    rss_before: int = 0
    rss_loaded: int = 0
    rss_after: int = 0
    n_ctx: int = 0
    text: str = ""

    @property
    def model_bytes(self) -> int:
        """Memory the model took in the process: resident after decoding minus before loading."""
        return max(0, self.rss_after - self.rss_before)


def _rss() -> int:
    import psutil

    return int(psutil.Process().memory_info().rss)


def probe_here(path: Path, n_ctx: int, threads: int | None) -> ProbeResult:
    """The child's side: runs in the probe process."""
    from inference.gguf import InvalidGGUF, read_header
    from inference.modelinfo import info_from_header

    try:
        info = info_from_header(read_header(path))
    except InvalidGGUF as exc:
        return ProbeResult(False, f"{path.name} is not a valid model file: {exc}.")
    from inference.llama_engine import construct_llama

    embedding = info.role == "embedding"
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


def probe_command(path: Path, n_ctx: int, threads: int | None) -> list[str]:
    args = [str(path), "--n-ctx", str(n_ctx)] + (["--threads", str(threads)] if threads else [])
    if getattr(sys, "frozen", False):
        return [sys.executable, "--probe-model", *args]  # the frozen app dispatches it
    return [sys.executable, "-m", "inference.probe", *args]


def _signal_name(code: int) -> str:
    try:
        return signal.Signals(-code).name
    except ValueError:
        return f"signal {-code}"


def probe(path: Path, n_ctx: int = 2048, threads: int | None = None,
          timeout: float = PROBE_TIMEOUT, env: dict[str, str] | None = None) -> ProbeResult:
    """The parent's side: run the probe in a new process and interpret how it ended."""
    try:
        done = subprocess.run(
            probe_command(path, n_ctx, threads), capture_output=True, text=True, timeout=timeout,
            env=env or dict(os.environ), cwd=Path(__file__).resolve().parent.parent,
        )
    except subprocess.TimeoutExpired:
        return ProbeResult(False, f"{path.name} did not load within {timeout:.0f} s; it may be too "
                           "large for this computer or damaged.")
    for line in done.stdout.splitlines():
        if line.startswith(RESULT_PREFIX):
            data = json.loads(line[len(RESULT_PREFIX):])
            return ProbeResult(**data)
    if done.returncode < 0:
        name = _signal_name(done.returncode)
        if name == "SIGILL":
            why = "llama.cpp used a CPU instruction this processor does not have (SIGILL)"
        elif name in ("SIGSEGV", "SIGBUS"):
            why = f"llama.cpp crashed while loading it ({name}); the file may be damaged or crafted"
        elif name == "SIGKILL":
            why = "the system stopped it, most likely for lack of memory (SIGKILL)"
        else:
            why = f"llama.cpp stopped with {name}"
        return ProbeResult(False, f"{path.name} cannot be used: {why}.")
    tail = (done.stderr or "").strip().splitlines()[-1:] or ["no output"]
    return ProbeResult(False, f"{path.name} could not be loaded by llama.cpp ({tail[0][:300]}).")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="inference.probe")
    parser.add_argument("model", type=Path)
    parser.add_argument("--n-ctx", type=int, default=2048)
    parser.add_argument("--threads", type=int, default=None)
    args = parser.parse_args(argv)
    try:
        result = probe_here(args.model, args.n_ctx, args.threads)
    except Exception as exc:  # reported to the parent as a reason, not a traceback
        result = ProbeResult(False, f"llama.cpp could not load {args.model.name} ({exc}).")
    print(RESULT_PREFIX + json.dumps(asdict(result)), flush=True)
    return 0 if result.ok else 1


if __name__ == "__main__":
    sys.exit(main())
