"""Compare engines on a workload (#42, first step): the local model and the organisation's
intranet engines, each at 1, 2, 4, 8 chats at once, on a built-in set of questions in
English and Chinese, measured, not assumed.

Per setup and number of chats: the total tokens a second, the tokens a second each chat
sees, the time to first token (median and p95) and the errors. The verdict says, for a
first-token target the user picks (2 s by default), how many people at once each setup
serves within it, and which setup the measurements favour for that load. Results are
kept encrypted in the vault with when, on what hardware and with which versions they were
measured (the last ``KEPT``).

What leaves the computer to an engine is the built-in questions alone, unless the user
asks for their own workload (``own_questions``: the questions they wrote last, from their
most recently used chats; never an answer, a passage or an attachment), and is told first
which engines will be sent them. Nothing of their documents ever goes.
"""

from __future__ import annotations

import itertools
import os
import platform
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from typing import Any

from core.client import Routed, WorkerClient, concurrently
from i18n import translate
from inference.protocol import ChatMessage, Generate, SamplingParams

PREFERENCE = "comparisons"
KEPT = 20
LEVELS = (1, 2, 4, 8)
_IDS = itertools.count(500_000_000)  # between the window's request ids and the local API's
QUESTIONS = (
    "Explain in three sentences what a lease's break clause is.",
    "List four things to check before signing a contract with a new supplier.",
    "Summarise the difference between a memo and a letter.",
    "用三句话解释什么是合同中的不可抗力条款。",
    "列出召开项目启动会议前需要准备的四件事。",
    "简要说明会议纪要和备忘录的区别。",
)


OWN_QUESTIONS = 12  # the user's own questions a workload of theirs takes, newest first
MAX_OWN_CHARS = 2000  # of each: a pasted document is a question's start, not a workload


@dataclass(frozen=True)
class Own:
    """The user's own workload: their questions, and the titles of the chats they are from
    (said to the user before any engine is sent them)."""

    questions: list[str]
    chats: list[str]


def _from_the_local_api(messages: Sequence[Any]) -> bool:
    """A chat the local API had, kept at the user's wish: its "user" turns are what another
    program sent (its prompts, pasted files, tool results), not the user's questions."""
    return any(step.get("via") == "api" for m in messages if m.role == "assistant"
               for step in (m.stats or {}).get("steps") or () if isinstance(step, dict))


def own_questions(store: Any, count: int = OWN_QUESTIONS) -> Own:
    """The last ``count`` questions the user wrote (their messages, newest first, from
    their most recently used chats, never a chat the local API had), each cut at
    MAX_OWN_CHARS; read from the vault into memory only. The workload of "my own chats"
    (#42)."""
    found: list[str] = []
    chats: list[str] = []
    for chat in sorted(store.list_chats(), key=lambda c: (-c.updated_at, -c.id)):
        messages = store.messages(chat.id)
        if _from_the_local_api(messages):
            continue
        for message in reversed(messages):
            text = message.content.strip() if message.role == "user" else ""
            if text and len(found) < count:
                found.append(text[:MAX_OWN_CHARS])
                if chat.title not in chats:
                    chats.append(chat.title)
        if len(found) >= count:
            break
    return Own(found, chats)


@dataclass(frozen=True)
class Target:
    label: str  # as the table says it: "local: NAME" or "ENGINE ▸ MODEL"
    engine: str = ""  # "" for the local model
    model: str = ""


@dataclass(frozen=True)
class Result:
    label: str
    at_once: int
    total_tps: float
    chat_tps: float
    ttft_p50: float
    ttft_p95: float
    errors: int


def _percentile(values: Sequence[float], share: float) -> float:
    ordered = sorted(values)
    if not ordered:
        return 0.0
    return ordered[min(len(ordered) - 1, max(0, round(share * (len(ordered) - 1))))]


def measure(client: WorkerClient | Routed, targets: Sequence[Target], levels: Sequence[int] = LEVELS,
            max_tokens: int = 64, rounds: int = 2, stop: threading.Event | None = None,
            progress: Callable[[Target, int], None] | None = None,
            questions: Sequence[str] = QUESTIONS) -> list[Result]:
    """Each target at each level: ``level × rounds`` requests of ``questions`` in turn,
    ``level`` in flight (``progress`` told before each; ``stop`` set: Cancelled, every
    request cancelled)."""
    questions = tuple(questions) or QUESTIONS
    results = []
    for target in targets:
        for level in levels:
            if progress is not None:
                progress(target, level)
            commands = [Generate(next(_IDS), 0, (ChatMessage("user", questions[n % len(questions)]),),
                                 SamplingParams(max_tokens=max_tokens, temperature=0.0, seed=n), None,
                                 target.engine, target.model)
                        for n in range(level * rounds)]
            began = time.perf_counter()
            outcomes = concurrently(client, commands, level, stop=stop)
            wall = max(time.perf_counter() - began, 1e-6)
            good = [o for o in outcomes if not o.error]
            tokens = sum(o.tokens for o in good)
            # Each chat's decode speed, where it had one to measure (an answer in one piece has none).
            chat = [(o.tokens - 1) / (o.seconds - o.ttft) for o in good if o.tokens > 1 and o.seconds - o.ttft > 0.05]
            results.append(Result(target.label, level, tokens / wall, sum(chat) / len(chat) if chat else 0.0,
                                  _percentile([o.ttft for o in good], 0.5), _percentile([o.ttft for o in good], 0.95),
                                  len(outcomes) - len(good)))
    return results


def served(results: Sequence[Result], label: str, target_s: float) -> int:
    """How many chats at once ``label`` served with its p95 first token within target (0: none)."""
    return max((r.at_once for r in results if r.label == label and not r.errors and r.ttft_p95 <= target_s),
               default=0)


def verdict(results: Sequence[Result], target_s: float) -> list[str]:
    """The plain-words conclusion: each setup's load within the target, and the favoured one."""
    labels = list(dict.fromkeys(r.label for r in results))
    lines = []
    for label in labels:
        count = served(results, label, target_s)
        lines.append(translate("core.compare", "{setup}: serves %n people at once with the first word within "
                               "{target:.1f} s.", None, count).format(setup=label, target=target_s)
                     if count else translate("core.compare", "{setup}: not even one person at a time gets the "
                                             "first word within {target:.1f} s.").format(setup=label,
                                                                                         target=target_s))
    best = max(labels, key=lambda label: (served(results, label, target_s), max(
        (r.total_tps for r in results if r.label == label), default=0.0)), default=None)
    if best is not None and served(results, best, target_s):
        lines.append(translate("core.compare", "For that load the measurements favour {setup}.").format(setup=best))
    return lines


def table(results: Sequence[Result]) -> list[str]:
    header = translate("core.compare", "setup | chats at once | tokens/s in all | tokens/s a chat | first token "
                       "p50 / p95 | errors")
    return [header] + [f"{r.label} | {r.at_once} | {r.total_tps:.1f} | {r.chat_tps:.1f} | {r.ttft_p50:.2f} s / "
                       f"{r.ttft_p95:.2f} s | {r.errors}" for r in results]


def keep(library: object, results: Sequence[Result], target_s: float, workload: str = "built-in") -> None:
    """The results, with when, on what and on which workload ("built-in", or "own": the
    user's questions) they were measured, in the vault (the last KEPT)."""
    from importlib import metadata

    def version(name: str) -> str:
        try:
            return metadata.version(name)
        except metadata.PackageNotFoundError:
            return ""

    record = {"when": time.time(), "target_s": target_s, "workload": workload,
              "results": [asdict(r) for r in results],
              "hardware": {"machine": platform.machine(), "cores": os.cpu_count() or 0,
                           "system": platform.system()},
              "versions": {"hearth": version("hearth"), "llama_cpp_python": version("llama_cpp_python")}}
    kept = library.preferences().get(PREFERENCE)  # type: ignore[attr-defined]
    library.set_preference(PREFERENCE, [*(kept if isinstance(kept, list) else [])][-(KEPT - 1):] + [record])  # type: ignore[attr-defined]


def kept(library: object) -> list[tuple[float, list[Result]]]:
    """The runs kept in the vault, newest first: when, and its results (a record of the
    wrong shape is passed over: the vault is ours, but a value is read as its kind)."""
    runs = []
    records = library.preferences().get(PREFERENCE)  # type: ignore[attr-defined]
    for record in records if isinstance(records, list) else []:
        try:
            results = [Result(str(r["label"]), int(r["at_once"]), float(r["total_tps"]), float(r["chat_tps"]),
                              float(r["ttft_p50"]), float(r["ttft_p95"]), int(r["errors"])) for r in record["results"]]
            runs.append((float(record["when"]), results))
        except (KeyError, TypeError, ValueError):
            continue
    return runs[::-1]


def csv_text(results: Sequence[Result]) -> str:
    """The figures as CSV, with the names the terminal's JSON uses."""
    import csv
    import io

    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["setup", "chats_at_once", "tokens_per_s", "tokens_per_s_per_chat", "ttft_p50_s", "ttft_p95_s",
                     "errors"])
    for r in results:
        writer.writerow([r.label, r.at_once, f"{r.total_tps:.2f}", f"{r.chat_tps:.2f}", f"{r.ttft_p50:.3f}",
                         f"{r.ttft_p95:.3f}", r.errors])
    return out.getvalue()


SAMPLE = "Write one sentence about why a contract should name its parties. 用一句话说明合同为什么要写明当事方。"
LONG = " ".join(f"Clause {n}: the tenant keeps the premises in good repair and returns them as found."
                for n in range(1, 80))


def migration(client: WorkerClient, engine: str, model_id: str, n_ctx: int) -> list[str]:
    """What differs when a workload moves from the local model (loaded in ``client``) to
    ``engine``'s ``model_id``, measured on both (#42's migration check): the context
    window, whether the prompt counts agree (the same tokenizer and template), whether the
    length limit is kept, the greedy answers' agreement, and whether a repeated long
    prompt is served from the engine's cache."""
    greedy = SamplingParams(max_tokens=24, temperature=0.0, top_p=1.0, top_k=1, min_p=0.0, repeat_penalty=1.0,
                            seed=1)
    asked = (ChatMessage("user", SAMPLE),)
    there = client.generate(asked, greedy, engine=engine, model=model_id)
    here = client.generate(asked, greedy) if client.model is not None else None
    lines = [translate("core.compare", "context window: {there} tokens there, {here} here").format(
        there=n_ctx or "?", here=client.model.n_ctx if client.model is not None else "-")]
    lines.append(translate("core.compare", "length limit kept: {answer} ({tokens} of {limit} tokens)").format(
        answer=translate("core.compare", "yes") if there.stats.tokens <= greedy.max_tokens
        else translate("core.compare", "no"), tokens=there.stats.tokens, limit=greedy.max_tokens))
    if here is not None:
        same = here.stats.prompt_tokens == there.stats.prompt_tokens
        lines.append(translate("core.compare", "prompt counted alike (tokenizer and template): {answer} ({there} "
                               "tokens there, {here} here)").format(
                                   answer=translate("core.compare", "yes") if same else translate("core.compare", "no"),
                                   there=there.stats.prompt_tokens, here=here.stats.prompt_tokens))
        common = next((i for i, (a, b) in enumerate(zip(here.text, there.text, strict=False)) if a != b),
                      min(len(here.text), len(there.text)))
        share = common / max(len(here.text), len(there.text), 1)
        lines.append(translate("core.compare", "greedy answers agree for {share:.0%} of their text").format(share=share))
    long = (ChatMessage("user", LONG + "\n\nWhich clause comes first?"),)
    once = SamplingParams(max_tokens=1, temperature=0.0, seed=1)
    first = client.generate(long, once, engine=engine, model=model_id).stats.ttft_seconds
    again = client.generate(long, once, engine=engine, model=model_id).stats.ttft_seconds
    lines.append(translate("core.compare", "a repeated long prompt's first token: {ratio:.2f} of the first time's "
                           "({cached})").format(ratio=again / first if first > 0 else 0.0,
                                                cached=translate("core.compare", "served from its cache")
                                                if first > 0 and again / first < 0.5
                                                else translate("core.compare", "not served from a cache")))
    return lines
