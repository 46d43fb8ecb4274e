"""A smaller copy of a model, and what it costs (#42): llama.cpp's quantizer makes Q8_0,
Q6_K, Q5_K_M or Q4_K_M from a model in F32, F16, BF16 or Q8_0, and the same text read by
both says how much the copy differs before the user keeps it.

Both run in a child process (``inference.quantize_child``): a Cancel kills it at once,
a crash ends only it, and the worker that serves the chats is never held. The copy is
written under a partial name beside its final one and renamed only when whole; a
failure, a Cancel or a full disk leaves nothing behind. Before starting, the free space
is checked against the copy's expected size.

Weighed by the user's text (``importance``): for Q6_K, Q5_K_M and Q4_K_M, the original
can first read a text of the user's (their documents) and the quantizer then keeps most
exact the columns of each matrix that the text uses most (an importance matrix, as
llama.cpp's ``llama-imatrix`` makes; ``inference.importance``). Q8_0 has no use for one.

The measure, as llama.cpp's own ``llama-perplexity --kl-divergence`` reports it: the mean
(and 99th percentile) KL divergence of the copy's next-token distributions from the
original's, how often the two agree on the most likely next token, and each one's
perplexity on the text, with each one's prompt speed and file size.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import secrets
import shutil
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from guard.hardening import child_environment
from i18n import translate
from inference.quantize_child import FILE_TYPES, RESULT_PREFIX
from storage.errors import FULL, Trouble, why_not

TYPES = tuple(FILE_TYPES)  # Q8_0, Q6_K, Q5_K_M, Q4_K_M
WEIGHED = ("Q6_K", "Q5_K_M", "Q4_K_M")  # the types an importance matrix helps (llama.cpp's Q8_0 ignores one)
SOURCES = ("F32", "F16", "BF16", "Q8_0")
BITS = {"F32": 32.0, "F16": 16.0, "BF16": 16.0, "Q8_0": 8.5, "Q6_K": 6.6, "Q5_K_M": 5.7, "Q4_K_M": 4.9}
TIMEOUT = 4 * 3600.0
MEASURE_TIMEOUT = 1800.0
SAMPLE = (
    "The tenant shall pay the rent monthly in advance and keep the premises in good repair. Either "
    "party may end this agreement by giving the other three months' notice in writing. A notice is "
    "given when it is delivered by hand or two days after it is posted. The landlord may enter the "
    "premises to inspect them at reasonable times, after giving at least twenty-four hours' notice, "
    "except in an emergency. Any deposit is held in a protected scheme and returned within ten days "
    "of the end of the tenancy, less any amounts properly deducted for damage beyond fair wear and tear.\n"
    "租户应按月预付租金，并保持房屋处于良好状态。任何一方均可提前三个月以书面形式通知对方终止本协议。"
    "通知以专人送达之时，或邮寄后两日视为送达。出租人可在合理时间内进入房屋检查，但除紧急情况外，"
    "应至少提前二十四小时通知。押金存放于受保护的账户中，并在租期结束后十日内退还，扣除因超出合理损耗"
    "的损坏而依法扣减的款项。"
)
_PROGRESS = re.compile(r"^\[\s*(\d+)/\s*(\d+)\]")
_READING = re.compile(r"^\[importance (\d+)/(\d+)\]")


class QuantizeError(Exception):
    """Why a copy was not made or measured, in the user's words."""


class QuantizeCancelled(Exception):
    """Stopped by the user, a lock or a quit; nothing was left behind."""


@dataclass(frozen=True)
class Quality:
    tokens: int
    kl_mean: float
    kl_p99: float
    top1_agreement: float
    perplexity_original: float
    perplexity_quantized: float
    speed_original: float
    speed_quantized: float
    size_original: int
    size_quantized: int

    def lines(self) -> list[str]:
        """The measure in plain words, for the window and the terminal."""
        return [
            translate("core.quantize", "Measured on {tokens} tokens of text.").format(tokens=self.tokens),
            translate("core.quantize", "Next-token agreement with the original: {share:.1%} of the most likely "
                      "next tokens are the same.").format(share=self.top1_agreement),
            translate("core.quantize", "KL divergence from the original: {mean:.4f} on average, {p99:.4f} at "
                      "the 99th percentile (0 is identical).").format(mean=self.kl_mean, p99=self.kl_p99),
            translate("core.quantize", "Perplexity: {before:.2f} for the original, {after:.2f} for the copy "
                      "(lower is better).").format(before=self.perplexity_original, after=self.perplexity_quantized),
            translate("core.quantize", "Reading speed: {before:.0f} tokens/s for the original, {after:.0f} for "
                      "the copy.").format(before=self.speed_original, after=self.speed_quantized),
            translate("core.quantize", "Size: {before:.0f} MB for the original, {after:.0f} MB for the copy.").format(
                before=self.size_original / 2**20, after=self.size_quantized / 2**20),
        ]


def refusal(quantization: str, kind: str) -> str | None:
    """Why a model in ``quantization`` is not made into ``kind`` (None: it can be)."""
    if kind not in TYPES:
        return translate("core.quantize", "{kind} is not one of the types Hearth makes: {types}.").format(
            kind=kind, types=", ".join(TYPES))
    if quantization.upper() not in SOURCES:
        return translate("core.quantize", "This model is already quantized ({quantization}): quantizing it again "
                         "loses more than quantizing its original. Hearth makes smaller copies of models in "
                         "F32, F16, BF16 or Q8_0.").format(quantization=quantization or "?")
    if BITS.get(kind, 0.0) >= BITS.get(quantization.upper(), 0.0):
        return translate("core.quantize", "{kind} would not be smaller than this model's {quantization}.").format(
            kind=kind, quantization=quantization)
    return None


def read_text(path: Path) -> str:
    """A text file the user chose, to measure or to weigh by (its first 200,000
    characters; bytes that are not UTF-8 replaced). QuantizeError in the user's words."""
    try:
        return path.read_text(encoding="utf-8", errors="replace")[:200_000]
    except OSError as exc:
        raise QuantizeError(translate("core.quantize", "{file} could not be read: {reason}.").format(
            file=path.name or path, reason=why_not(exc))) from None


def target_for(source: Path, kind: str, folder: Path) -> Path:
    """A new name in ``folder`` for the copy while it is made and measured: one that says
    nothing of the user's file (a file name can name a client or a matter, and the models
    folder is not encrypted); ``keep`` names it by its sha256, as imported copies are."""
    return folder / f"copy-{secrets.token_hex(8)}.{kind}.gguf"


def expected_size(source: Path, quantization: str, kind: str) -> int:
    return int(source.stat().st_size * BITS[kind] / BITS.get(quantization.upper(), 16.0))


def _command() -> list[str]:
    if getattr(sys, "frozen", False):
        return [sys.executable, "--quantize-model"]  # the frozen app dispatches it
    return [sys.executable, "-m", "inference.quantize_child"]


def _run(asked: dict[str, object], cancel: threading.Event | None, timeout: float,
         on_line: Callable[[str], None] | None = None) -> dict[str, Any]:
    """The child's one result, or an error; its standard error read line by line. Its
    standard input stays open until it is done: it ends by itself should this process die."""
    child = subprocess.Popen(_command(), stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             text=True, errors="replace", env=child_environment(),
                             cwd=Path(__file__).resolve().parent.parent)
    assert child.stdin is not None and child.stdout is not None and child.stderr is not None
    out: list[str] = []

    def read_errors() -> None:
        assert child.stderr is not None
        for line in child.stderr:
            if on_line is not None:
                on_line(line)

    def read_out() -> None:
        assert child.stdout is not None
        out.append(child.stdout.read())

    readers = [threading.Thread(target=read_errors, name="hearth-quantize-log", daemon=True),
               threading.Thread(target=read_out, name="hearth-quantize-out", daemon=True)]
    for reader in readers:
        reader.start()
    try:
        with contextlib.suppress(BrokenPipeError, OSError):
            child.stdin.write(json.dumps(asked) + "\n")
            child.stdin.flush()
        deadline = time.monotonic() + timeout
        while child.poll() is None:
            if cancel is not None and cancel.is_set():
                raise QuantizeCancelled()
            if time.monotonic() > deadline:
                raise QuantizeError(translate("core.quantize", "llama.cpp did not finish within {hours:.0f} "
                                              "hour(s).").format(hours=timeout / 3600))
            time.sleep(0.05)
    finally:
        if child.poll() is None:
            child.kill()
        child.wait()
        for reader in readers:
            reader.join(2.0)
        for pipe in (child.stdin, child.stdout, child.stderr):
            with contextlib.suppress(OSError):
                pipe.close()
    line = next((ln for ln in "".join(out).splitlines() if ln.startswith(RESULT_PREFIX)), None)
    if line is None:
        code = child.returncode
        how = translate("core.quantize", "it was ended by the system (signal {signal}; often: not enough "
                        "memory)").format(signal=_signal_name(-code)) if code < 0 else translate(
                            "core.quantize", "exit {code}").format(code=code)
        raise QuantizeError(translate("core.quantize", "llama.cpp stopped without finishing: {how}.").format(how=how))
    result = json.loads(line[len(RESULT_PREFIX):])
    return result if isinstance(result, dict) else {"error": "no result"}


def _signal_name(number: int) -> str:
    import signal

    try:
        return signal.Signals(number).name
    except ValueError:
        return str(number)


def quantize(source: Path, quantization: str, kind: str, target: Path, cancel: threading.Event | None = None,
             progress: Callable[[int, int], None] | None = None, importance: str | None = None,
             reading: Callable[[int, int], None] | None = None) -> Path:
    """Write the ``kind`` copy of ``source`` to ``target`` (never a partial one); ``progress``
    hears (tensors done, tensors in all). With ``importance`` (a text of the user's, for a
    type in ``WEIGHED``), the original reads it first, ``reading`` hearing (steps done,
    steps), and the copy is weighed by it. QuantizeError, QuantizeCancelled."""
    why = refusal(quantization, kind)
    if why is not None:
        raise QuantizeError(why)
    if importance is not None and kind not in WEIGHED:
        raise QuantizeError(translate("core.quantize", "{kind} has no use for a text to weigh it by: choose Q6_K, "
                                      "Q5_K_M or Q4_K_M, or no text.").format(kind=kind))
    if target.exists() or target.resolve() == source.resolve():
        raise QuantizeError(translate("core.quantize", "{file} is there already (a copy made before?): remove it "
                                      "from the library first, or choose another type.").format(file=target.name))
    needed = expected_size(source, quantization, kind)
    free = shutil.disk_usage(target.parent).free
    if free < needed + (64 << 20):
        raise QuantizeError(Trouble(FULL).message(translate(
            "core.quantize", "The copy needs about {needed:.0f} MB and {free:.0f} MB are free; nothing was "
            "written.").format(needed=needed / 2**20, free=free / 2**20)))
    partial = target.with_name(target.name + ".partial")

    def heard(line: str) -> None:
        found, read = _PROGRESS.match(line), _READING.match(line)
        if found and progress is not None:
            progress(int(found.group(1)), int(found.group(2)))
        if read and reading is not None:
            reading(int(read.group(1)), int(read.group(2)))

    asked: dict[str, object] = {"op": "quantize", "source": str(source), "target": str(partial), "type": kind}
    if importance is not None:
        asked["importance"] = importance
    try:
        result = _run(asked, cancel, TIMEOUT, heard)
        if "importance" in result:
            raise QuantizeError(_unweighed(str(result["importance"])))
        if "error" in result or not partial.exists():
            nearly_full = shutil.disk_usage(target.parent).free < (64 << 20)
            if nearly_full:
                raise QuantizeError(Trouble(FULL).message(translate(
                    "core.quantize", "The copy was not made; nothing of it was left behind.")))
            raise QuantizeError(translate("core.quantize", "llama.cpp could not quantize {file}: {reason}.").format(
                file=source.name, reason=result.get("error", "?")))
        os.replace(partial, target)
    except BaseException:
        with contextlib.suppress(OSError):
            partial.unlink()
        raise
    return target


def _unweighed(why: str) -> str:
    """Why the text could not weigh the copy, in the user's words (``inference.importance``'s
    reasons); nothing was written."""
    if why == "short":
        return translate("core.quantize", "The text to weigh the copy by is too short: give it a few paragraphs "
                         "at least. Nothing was written.")
    if why == "layout":
        return translate("core.quantize", "This build of llama.cpp cannot be read for an importance matrix; make "
                         "the copy without a text to weigh it by. Nothing was written.")
    return translate("core.quantize", "The original could not read the text to weigh the copy by; make the copy "
                     "without it. Nothing was written.")


def measure(original: Path, quantized: Path, text: str = SAMPLE, n_ctx: int = 512,
            cancel: threading.Event | None = None) -> Quality:
    """Both models on the same text (the built-in English and Chinese sample unless said)."""
    result = _run({"op": "measure", "original": str(original), "quantized": str(quantized), "text": text,
                   "n_ctx": n_ctx}, cancel, MEASURE_TIMEOUT)
    if "error" in result:
        raise QuantizeError(translate("core.quantize", "The copy could not be measured: {reason}.").format(
            reason=result["error"]))
    try:
        number = {name: float(result[name]) for name in (
            "kl_mean", "kl_p99", "top1_agreement", "perplexity_original", "perplexity_quantized", "speed_original",
            "speed_quantized")}
        return Quality(tokens=int(result["tokens"]), size_original=int(result["size_original"]),
                       size_quantized=int(result["size_quantized"]), **number)
    except (KeyError, TypeError, ValueError) as exc:
        raise QuantizeError(translate("core.quantize", "The copy could not be measured: {reason}.").format(
            reason=exc)) from None


def keep(library: object, path: Path, kind: str, original: object, sha: str | None = None) -> object:
    """The copy, hashed, in the library beside its ``original`` entry (stored as a copy
    Hearth made: removing it from the library deletes the file; a picture reader the
    original has is the copy's too, but stays the original's to delete); its entry."""
    from core.models import hash_file
    from core.protocol import read_info

    info = read_info(path)
    sha = sha or hash_file(path)
    existing = library.find_sha256(sha)  # type: ignore[attr-defined]
    if existing is not None:  # the same bytes are in the library already: this copy is not needed
        if Path(existing.path) != path:
            path.unlink(missing_ok=True)
        return existing
    named = path.with_name(f"{sha}.gguf")  # as an imported copy is: no name of the user's
    os.replace(path, named)
    try:
        return _add_copy(library, named, kind, original, sha, info)
    except BaseException:
        os.replace(named, path)  # where the caller, which removes it, expects it
        raise


def _add_copy(library: object, path: Path, kind: str, original: object, sha: str, info: Any) -> object:
    from core.protocol import ModelSettings
    from core.records import COPY

    settings = ModelSettings.for_model(info.context_length)
    name = re.sub(r"\s*\((F32|F16|BF16|Q8_0)\)$", "", str(getattr(original, "name", "") or info.name))
    seeing = {k: v for k, v in dict(getattr(original, "info", {}) or {}).items()
              if k in ("projector", "projector_sha256")}
    return library.add(f"{name} ({kind})", str(path), COPY, sha,  # type: ignore[attr-defined]
                       {**info.as_dict(), **seeing, "quantized_from": name}, settings.as_dict())


def sweep(folder: Path, older_than: float = 3600.0) -> int:
    """Partial copies a quantizer that was killed left in ``folder`` (untouched for
    ``older_than`` seconds: one being written now is not), removed; how many."""
    removed = 0
    for partial in folder.glob("*.gguf.partial"):
        with contextlib.suppress(OSError):
            if time.time() - partial.stat().st_mtime > older_than:
                partial.unlink()
                removed += 1
    return removed
