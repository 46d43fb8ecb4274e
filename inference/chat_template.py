"""Rendering a model's chat template within bounds.

A GGUF file's chat template is untrusted code. ``ChatTemplate`` compiles it in the
sandbox of ``inference.template_sandbox`` and renders it with a budget for one render: a
count of steps, a wall-clock deadline, and a cap on the size of every value it builds
and of its output. Exceeding the budget raises ``TemplateRefused``.

The probe child renders a model's template first (``vet``: a separate process that the
parent kills after its time limit); the app renders it again with these bounds on every
turn. ``ControlTextEscaper`` keeps the content of messages from spelling control tokens.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime
from typing import Any

from inference.template_sandbox import (
    MEMORY,
    OUTPUT,
    RECURSION,
    Budget,
    Guard,
    SandboxEnvironment,
    TemplateRefused,
)

__all__ = ["DEFAULT_SECONDS", "DEFAULT_STEPS", "SAMPLE_CONVERSATION", "WORD_JOINER", "ChatTemplate",
           "ControlTextEscaper", "TemplateRefused", "output_limit", "vet", "vet_refusal"]

DEFAULT_STEPS = 1_000_000
DEFAULT_SECONDS = 5.0


def output_limit(n_ctx: int, content_chars: int) -> int:
    """The most characters a render may produce: the messages' own text (twice, for
    templates that repeat the system prompt) plus room for the structure, in proportion
    to the context (a token is rarely more than a few characters)."""
    return 2 * content_chars + 32 * max(n_ctx, 0) + 65_536


def _raise_exception(message: str) -> None:
    raise ValueError(message)


def _strftime_now(fmt: str) -> str:
    return datetime.now().strftime(fmt)


SAMPLE_CONVERSATION: list[dict[str, str]] = [
    {"role": "system", "content": "You are helpful."},
    {"role": "user", "content": "Hello"},
    {"role": "assistant", "content": "Hi!"},
    {"role": "user", "content": "How are you?"},
]


def _long_conversation() -> list[dict[str, str]]:
    turns = [{"role": "system", "content": "You are helpful. " * 40}]
    for n in range(16):
        turns.append({"role": "user", "content": f"Question {n}: " + "what about this? " * 80})
        turns.append({"role": "assistant", "content": f"Answer {n}: " + "it is like that. " * 80})
    turns.append({"role": "user", "content": "And finally?"})
    return turns


def vet(source: str, n_ctx: int, seconds: float = DEFAULT_SECONDS) -> str:
    """Why a model's own template must not be used ('' when it may).

    It renders a short and a long conversation within the bounds the app uses. Only a
    template that goes past them is refused here: one that merely fails (bad syntax, an
    unknown filter) is explained when the model is loaded, with built-in formats offered.
    Meant for the probe child, a process its parent kills at its time limit."""
    refused = vet_refusal(source, n_ctx, seconds)
    return str(refused) if refused is not None else ""


def vet_refusal(source: str, n_ctx: int,
                seconds: float = DEFAULT_SECONDS) -> TemplateRefused | None:
    """``vet``'s refusal itself (None when the template may be used), with its kind and
    values, for a process that says it in its own language."""
    try:
        template = ChatTemplate(source, bos_token="<s>", eos_token="</s>")
        for sample in (SAMPLE_CONVERSATION, _long_conversation()):
            chars = sum(len(m["content"]) + len(m["role"]) for m in sample)
            template.render(sample, max_chars=output_limit(n_ctx, chars), seconds=seconds)
    except TemplateRefused as exc:
        return exc
    except Exception:  # noqa: BLE001 - not hostile, only broken: reported at load
        return None
    return None


class ChatTemplate:
    """A compiled chat template. Compiling raises jinja2's TemplateError on bad syntax.

    One thread renders it at a time (the worker, or the probe child)."""

    def __init__(self, source: str, bos_token: str = "", eos_token: str = "") -> None:
        self.source = source
        self.bos_token = bos_token
        self.eos_token = eos_token
        self._env = SandboxEnvironment()
        tree = Guard().visit(self._env.parse(source))
        self._template = self._env.from_string(tree)

    def render(self, messages: Sequence[Mapping[str, Any]], *, max_chars: int,
               max_steps: int = DEFAULT_STEPS, seconds: float = DEFAULT_SECONDS,
               add_generation_prompt: bool = True, tools: Sequence[Mapping[str, Any]] | None = None) -> str:
        """The prompt text; TemplateRefused when the template goes past its budget."""
        budget = Budget(max_chars, max_steps, seconds)
        self._env.budget = budget
        parts: list[str] = []
        total = 0
        try:
            for part in self._template.generate(
                messages=[dict(m) for m in messages], bos_token=self.bos_token,
                eos_token=self.eos_token, add_generation_prompt=add_generation_prompt,
                raise_exception=_raise_exception, strftime_now=_strftime_now,
                functions=None, function_call=None, tool_choice=None,
                tools=[dict(t) for t in tools] if tools else None,
            ):
                total += len(part)
                if total > max_chars:
                    raise TemplateRefused(OUTPUT, chars=max_chars)
                budget.tick()
                parts.append(part)
        except RecursionError:
            raise TemplateRefused(RECURSION) from None
        except MemoryError:
            raise TemplateRefused(MEMORY) from None
        return "".join(parts)


WORD_JOINER = "\u2060"
# Invisible, not whitespace (``trim`` and ``strip`` keep them): the first that no control
# text holds is the joiner. A vocabulary that holds a joiner in a control token ("e" and a
# word joiner) would otherwise be spelled again by each joiner put in.
JOINERS = (WORD_JOINER, "\ufeff", "\u200d", "\u200c")


class ControlTextEscaper:
    """Makes sure that content cannot spell a control token.

    The rendered prompt is tokenized with special tokens parsed, because that is how the
    template's own markers (``<|im_start|>``, ``{{ bos_token }}``) become tokens. Content
    goes through this first: in every occurrence of a control token's text, a joiner (a
    WORD JOINER unless a control text holds one; see JOINERS) goes after the first
    character, so the text is tokenized as ordinary text. Escaping the content rather than
    tokenizing it apart keeps the prompt one string, tokenized exactly as the template's
    authors expect (no extra SentencePiece space prefix at each boundary, no split merges)
    for any template, also those that trim or split the content. Single-character control
    tokens cannot be broken this way and are left as they are.

    One pass: every occurrence, overlapping ones too, is broken at once; a joiner that no
    control text holds cannot make a new one (it only parts characters). The passes until
    nothing matched were quadratic in the text with a hostile vocabulary, and never ended
    where a control text held the joiner.
    """

    def __init__(self, texts: Iterable[str]) -> None:
        words = {t for t in texts if len(t) > 1}
        self.joiner = next((j for j in JOINERS if not any(j in w for w in words)), WORD_JOINER)
        # Every joiner in some control text: a vocabulary made to defeat this, whose model
        # is then the attacker already (the escaper keeps content from steering a model one
        # trusts). Those texts are left out; the escaping stays one pass.
        words = {w for w in words if self.joiner not in w}
        ordered = sorted(words, key=len, reverse=True)
        self._pattern = re.compile("(?=" + "|".join(map(re.escape, ordered)) + ")") if ordered else None

    def escape(self, text: str) -> str:
        pattern = self._pattern
        if pattern is None:
            return text
        starts = [m.start() for m in pattern.finditer(text)]
        if not starts:
            return text
        pieces: list[str] = []
        last = 0
        for start in starts:
            pieces += (text[last : start + 1], self.joiner)
            last = start + 1
        pieces.append(text[last:])
        return "".join(pieces)
