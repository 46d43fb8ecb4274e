"""A turn with tools, as data: what the model is asked to choose, how its choice is read,
and what it is given for the answer. The turn machine (``core.turns``) and the terminal's
chat drive the same steps:

1. **choose**: the conversation, the tools' descriptions and the calls so far; the model
   answers in its chat template's own tool format where it has one, otherwise in JSON,
   under a grammar either way (``inference.tool_formats``): a call, or "none";
2. **run**: the call, once the user approved it (or a built-in tool that may run unasked);
   its result is untrusted text, given back as the tool's words, never the user's;
3. again from 1, at most ``limit`` calls; then
4. **answer**: the conversation with the calls and their results, streamed as any answer.

The result of a call goes back to the model marked as the tool's words: in the tool's
own turn where the template has a tool format, otherwise in a user turn that says it
comes from the tool (every chat template has a user role; Gemma's refuses any other).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from core.tools.results import untrusted
from inference.protocol import ChatMessage, SamplingParams, ToolChoice
from inference.tool_grammar import NO_TOOL

DEFAULT_LIMIT = 8  # calls in one turn
CHOICE_TOKENS = 256  # a choice is short JSON
RESULT_CHARACTERS = 4000  # of one result, in the prompt


@dataclass(frozen=True)
class ToolSpec:
    server: str  # core.tools.builtin.BUILTIN for Hearth's own
    name: str
    description: str
    schema: dict[str, Any]
    read_only: bool = False  # may run without asking, if the user allows that


@dataclass(frozen=True)
class ToolCall:
    server: str
    name: str
    arguments: dict[str, Any]

    def as_json(self) -> str:
        return json.dumps({"tool": self.name, "arguments": self.arguments}, ensure_ascii=False)


@dataclass(frozen=True)
class Exchange:
    """A call and what came of it."""

    call: ToolCall
    text: str  # the result, or why there is none (refused, failed)
    is_error: bool = False
    refused: bool = False


def refusal(call: ToolCall) -> Exchange:
    """A call the user refused, as the model is told of it."""
    return Exchange(call, "The user refused this call.", is_error=True, refused=True)


def result_text(exchange: Exchange) -> str:
    """What came of a call, as the model reads it: marked as the tool's words."""
    text = untrusted(exchange.text, RESULT_CHARACTERS)[0]
    what = ("refused by the user" if exchange.refused else "failed" if exchange.is_error else "result")
    return f"[Tool {exchange.call.name}: {what}. This text comes from the tool, not from the user.]\n{text}"


def tool_choice(specs: Sequence[ToolSpec], exchanges: Sequence[Exchange], required: bool = False) -> ToolChoice:
    return ToolChoice(tuple((s.name, s.description[:400], json.dumps(s.schema, ensure_ascii=False)) for s in specs),
                      tuple((e.call.name, json.dumps(e.call.arguments, ensure_ascii=False, default=str),
                             result_text(e)) for e in exchanges), required)


def choice_request(messages: Sequence[ChatMessage], specs: Sequence[ToolSpec],
                   exchanges: Sequence[Exchange], params: SamplingParams, required: bool = False
                   ) -> tuple[tuple[ChatMessage, ...], SamplingParams, ToolChoice]:
    """Step 1's request: the conversation, greedy and short sampling, and the choice the
    engine asks its model for (``inference.tool_formats``: in the model's own tool format
    or in Hearth's JSON under a grammar; the answer is Hearth's JSON)."""
    return tuple(messages), replace(params, temperature=0.0, max_tokens=CHOICE_TOKENS, prompt_lookup=False,
                                    repeat_penalty=1.0, grammar=""), tool_choice(specs, exchanges, required)


def answer_request(messages: Sequence[ChatMessage], exchanges: Sequence[Exchange]) -> tuple[ChatMessage, ...]:
    """The messages for step 4: the conversation, its last question followed by what the
    tools gave, marked as theirs (not as the model's own turns: a small model would copy
    the JSON of its calls into the answer)."""
    if not exchanges or not messages or messages[-1].role != "user":
        return tuple(messages)
    lines = ["", "", "[What tools gave for this question. This text comes from the tools, not from the user.]"]
    for exchange in exchanges:
        what = ("refused by the user" if exchange.refused else "failed: " if exchange.is_error else "")
        arguments = json.dumps(exchange.call.arguments, ensure_ascii=False)[:300]
        lines.append(f"- {exchange.call.name} {arguments}: {what}{untrusted(exchange.text, RESULT_CHARACTERS)[0]}")
    last = messages[-1]
    return (*messages[:-1], replace(last, content=last.content + "\n".join(lines)))


def repeated(call: ToolCall, exchanges: Sequence[Exchange]) -> bool:
    """The same call again: a model going round in circles; the turn answers instead."""
    return any(e.call == call for e in exchanges)


def next_call(choice: str, specs: Sequence[ToolSpec], exchanges: Sequence[Exchange],
              limit: int = DEFAULT_LIMIT) -> ToolCall | None:
    """The call to run after the model's ``choice``: None for "none", a repeat of an
    earlier call, or a turn that has made its ``limit`` of calls."""
    call = parse_choice(choice, specs)
    if call is None or repeated(call, exchanges) or len(exchanges) >= limit:
        return None
    return call


def parse_choice(text: str, specs: Sequence[ToolSpec]) -> ToolCall | None:
    """The call the model chose; None for "none" or anything that is not a call of one
    of ``specs`` (a model stopped mid-way, an engine without the grammar)."""
    try:
        data = json.loads(text.strip())
    except ValueError:
        return None
    if not isinstance(data, dict) or data.get("tool") in (None, NO_TOOL):
        return None
    spec = next((s for s in specs if s.name == data.get("tool")), None)
    arguments = data.get("arguments", {})
    if spec is None or not isinstance(arguments, dict):
        return None
    return ToolCall(spec.server, spec.name, arguments)
