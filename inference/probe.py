"""Load a model in a separate process first, so that a crash there cannot take the app down.

The child process (started fresh, never forked) validates the header, loads the model,
tokenizes, decodes a few tokens and reports one JSON line with what it measured,
including its resident memory. The parent reads the line, or the signal or time-out
that ended the child, and turns it into a verdict the user can read.

    python -m inference.probe_child MODEL [--n-ctx N] [--threads N]   (the child)
"""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from guard.hardening import child_environment

PROBE_TIMEOUT = 180.0
CANCEL_POLL = 0.1  # how often a running probe looks at its cancel event
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


def probe_command(path: Path, n_ctx: int, threads: int | None) -> list[str]:
    args = [str(path), "--n-ctx", str(n_ctx)] + (["--threads", str(threads)] if threads else [])
    if getattr(sys, "frozen", False):
        return [sys.executable, "--probe-model", *args]  # the frozen app dispatches it
    return [sys.executable, "-m", "inference.probe_child", *args]


def _signal_name(code: int) -> str:
    try:
        return signal.Signals(-code).name
    except ValueError:
        return f"signal {-code}"


class ProbeCancelled(Exception):
    """The probe was stopped because Hearth is quitting or locking."""


def probe(path: Path, n_ctx: int = 2048, threads: int | None = None,
          timeout: float = PROBE_TIMEOUT, env: dict[str, str] | None = None,
          cancel: threading.Event | None = None) -> ProbeResult:
    """The parent's side: run the probe in a new process and interpret how it ended.

    ``cancel`` set from another thread kills the child at once (quitting must not wait
    up to ``timeout`` for a large model) and raises ProbeCancelled. The child gets only the
    environment it needs (of ``env``, else ours): never the passphrase or a token."""
    child = subprocess.Popen(
        probe_command(path, n_ctx, threads), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        text=True, env=child_environment(env), cwd=Path(__file__).resolve().parent.parent,
    )
    deadline = time.monotonic() + timeout
    try:
        while True:
            if cancel is not None and cancel.is_set():
                raise ProbeCancelled(f"the check of {path.name} was stopped")
            try:
                stdout, stderr = child.communicate(timeout=min(CANCEL_POLL, max(0.0, deadline - time.monotonic())))
                break
            except subprocess.TimeoutExpired:
                if time.monotonic() >= deadline:
                    return ProbeResult(False, f"{path.name} did not load within {timeout:.0f} s; it "
                                       "may be too large for this computer or damaged.")
    finally:
        if child.poll() is None:
            child.kill()
            child.communicate()
    done = subprocess.CompletedProcess(child.args, child.returncode, stdout, stderr)
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
