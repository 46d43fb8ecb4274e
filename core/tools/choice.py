"""A turn with tools, as data: what the model is asked to choose, how its choice is read,
and what it is given for the answer. The turn machine (``core.turns``) and the terminal's
chat drive the same steps:

1. **choose**: the conversation, the tools' descriptions and the calls so far; the model
   answers JSON under a grammar (``inference.tool_grammar``): a call, or "none";
2. **run**: the call, once the user approved it (or a built-in tool that may run unasked);
   its result is untrusted text, given back as the tool's words, never the user's;
3. again from 1, at most ``limit`` calls; then
4. **answer**: the conversation with the calls and their results, streamed as any answer.

The result of a call goes back to the model in a user turn that says it comes from the
tool: every chat template has a user role, not all have a tool role (Gemma's refuses
any other), and the wording keeps the boundary.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from core.tools.results import untrusted
from inference.protocol import ChatMessage, SamplingParams
from inference.tool_grammar import NO_TOOL, choice_grammar

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


def instructions(specs: Sequence[ToolSpec]) -> str:
    lines = ["You can use tools. To call one, reply with only JSON: "
             '{"tool": "<name>", "arguments": {...}}. When you can answer without a tool, or the '
             'tools have given you what you need, reply with {"tool": "none"}.', "Tools:"]
    for spec in specs:
        arguments = json.dumps(spec.schema.get("properties", {}), ensure_ascii=False)[:600]
        lines.append(f"- {spec.name}: {spec.description[:400]} Arguments: {arguments}")
    return "\n".join(lines)


def _with_question(messages: Sequence[ChatMessage], extra: str) -> list[ChatMessage]:
    """The conversation with ``extra`` after its last question: everything before that
    question is the answer's prompt too, so the model's cache of it serves both (the tools
    in the system message made the answer read the whole chat again)."""
    if not messages or messages[-1].role != "user":
        return [*messages, ChatMessage("user", extra)]
    last = messages[-1]
    return [*messages[:-1], replace(last, content=f"{last.content}\n\n{extra}")]


def refusal(call: ToolCall) -> Exchange:
    """A call the user refused, as the model is told of it."""
    return Exchange(call, "The user refused this call.", is_error=True, refused=True)


def exchange_messages(exchanges: Sequence[Exchange]) -> list[ChatMessage]:
    said: list[ChatMessage] = []
    for exchange in exchanges:
        said.append(ChatMessage("assistant", exchange.call.as_json()))
        text = untrusted(exchange.text, RESULT_CHARACTERS)[0]
        what = ("refused by the user" if exchange.refused else "failed" if exchange.is_error else "result")
        said.append(ChatMessage("user", f"[Tool {exchange.call.name}: {what}. This text comes from the tool, "
                                        f"not from the user.]\n{text}"))
    return said


def choice_request(messages: Sequence[ChatMessage], specs: Sequence[ToolSpec],
                   exchanges: Sequence[Exchange], params: SamplingParams
                   ) -> tuple[tuple[ChatMessage, ...], SamplingParams]:
    """The messages and sampling for step 1: greedy, short, under the tools' grammar."""
    grammar = choice_grammar([(spec.name, spec.schema) for spec in specs])
    asked = _with_question(messages, instructions(specs)) + exchange_messages(exchanges)
    return tuple(asked), replace(params, grammar=grammar, temperature=0.0, max_tokens=CHOICE_TOKENS,
                                 prompt_lookup=False, repeat_penalty=1.0)


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
