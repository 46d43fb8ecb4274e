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
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from guard.hardening import child_environment
from i18n import translate

PROBE_TIMEOUT = 180.0
CANCEL_POLL = 0.1  # how often a running probe looks at its cancel event
RESULT_PREFIX = "HEARTH-PROBE "
# What the child found wrong, as data (``ProbeResult.problem`` and ``values``): the child
# has no translation, so its parent says it in the interface language (``problem_reason``).
INVALID, TEMPLATE, LOAD = "invalid", "template", "load"


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
    problem: str = ""  # INVALID, TEMPLATE or LOAD: what ``reason`` says, as data
    values: dict[str, Any] = field(default_factory=dict, hash=False)

    @property
    def model_bytes(self) -> int:
        """Memory the model took in the process: resident after decoding minus before loading."""
        return max(0, self.rss_after - self.rss_before)


def problem_reason(problem: str, name: str, values: dict[str, Any]) -> str:
    """The reason for a ``problem`` of the model file ``name``, in the interface language;
    KeyError, ValueError or TypeError for a problem or values it does not know. Only
    ``name`` and the values' texts go into it, and only through .format()."""
    if problem == INVALID:
        return translate("inference.probe", "{name} is not a valid model file: {detail}.").format(
            name=name, detail=str(values["detail"]))
    if problem == TEMPLATE:
        from inference.template_sandbox import refusal

        kind, said = values["refusal"], values["refusal_values"]
        if not isinstance(kind, str) or not isinstance(said, dict):
            raise TypeError("a refusal of the wrong shape")
        why = refusal(kind, said)
        return translate("inference.probe", "{name} cannot be used: its chat template was "
                         "stopped because {why}. The file may have been crafted to hang or "
                         "exhaust memory.").format(name=name, why=why)
    if problem == LOAD:
        return translate("inference.probe", "llama.cpp could not load {name} ({detail}).").format(
            name=name, detail=str(values["detail"]))
    raise KeyError(problem)


def _said_here(result: ProbeResult, path: Path) -> ProbeResult:
    """The child's result with its reason said again here, from its problem and values:
    in the interface language, which the child does not have. A problem this side does
    not know keeps the child's own text. For a header the child found invalid, the
    reader's own words come from reading it here (bounded, as the app reads it anyway)."""
    if not result.problem or not isinstance(result.values, dict):
        return result
    values = result.values
    if result.problem == INVALID:
        from inference.gguf import InvalidGGUF, read_header

        try:
            read_header(path)
        except InvalidGGUF as exc:
            values = {**values, "detail": str(exc)}
    try:
        return replace(result, reason=problem_reason(result.problem, path.name, values))
    except (KeyError, ValueError, TypeError, IndexError):
        return result


def probe_command(n_ctx: int, threads: int | None) -> list[str]:
    """The child's command line. Not the model's path: a command line is readable by every
    user of the computer (``ps``, /proc), and a path can name a client or a case; the
    child reads it from its standard input."""
    args = ["--n-ctx", str(n_ctx)] + (["--threads", str(threads)] if threads else [])
    if getattr(sys, "frozen", False):
        return [sys.executable, "--probe-model", *args]  # the frozen app dispatches it
    return [sys.executable, "-m", "inference.probe_child", *args]


def _signal_name(code: int) -> str:
    try:
        return signal.Signals(-code).name
    except ValueError:
        return translate("inference.probe", "signal {number}").format(number=-code)


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
        probe_command(n_ctx, threads), stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        text=True, env=child_environment(env), cwd=Path(__file__).resolve().parent.parent,
    )
    assert child.stdin is not None
    try:  # one JSON line: any path, a line break or undecodable bytes in it included
        child.stdin.write(json.dumps(str(path)) + "\n")
        child.stdin.flush()
    except BrokenPipeError:
        pass  # the child is gone already: how it ended says why
    deadline = time.monotonic() + timeout
    try:
        while True:
            if cancel is not None and cancel.is_set():
                raise ProbeCancelled(translate("inference.probe", "the check of {name} was stopped")
                                     .format(name=path.name))
            try:
                stdout, stderr = child.communicate(timeout=min(CANCEL_POLL, max(0.0, deadline - time.monotonic())))
                break
            except subprocess.TimeoutExpired:
                if time.monotonic() >= deadline:
                    return ProbeResult(False, translate(
                        "inference.probe", "{name} did not load within {seconds:.0f} s; it "
                        "may be too large for this computer or damaged.",
                    ).format(name=path.name, seconds=timeout))
    finally:
        if child.poll() is None:
            child.kill()
            child.communicate()
    done = subprocess.CompletedProcess(child.args, child.returncode, stdout, stderr)
    for line in done.stdout.splitlines():
        if line.startswith(RESULT_PREFIX):
            data = json.loads(line[len(RESULT_PREFIX):])
            return _said_here(ProbeResult(**data), path)
    if done.returncode < 0:
        name = _signal_name(done.returncode)
        if name == "SIGILL":
            why = translate("inference.probe", "llama.cpp used a CPU instruction this processor "
                            "does not have (SIGILL)")
        elif name in ("SIGSEGV", "SIGBUS"):
            why = translate("inference.probe", "llama.cpp crashed while loading it ({signal}); "
                            "the file may be damaged or crafted").format(signal=name)
        elif name == "SIGKILL":
            why = translate("inference.probe", "the system stopped it, most likely for lack of "
                            "memory (SIGKILL)")
        else:
            why = translate("inference.probe", "llama.cpp stopped with {signal}").format(signal=name)
        return ProbeResult(False, translate("inference.probe", "{name} cannot be used: {why}.")
                           .format(name=path.name, why=why))
    tail = (done.stderr or "").strip().splitlines()[-1:] or [
        translate("inference.probe", "no output")]
    return ProbeResult(False, translate(
        "inference.probe", "{name} could not be loaded by llama.cpp ({output})."
    ).format(name=path.name, output=tail[0][:300]))
