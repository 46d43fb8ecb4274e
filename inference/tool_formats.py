"""How a model is asked to choose a tool: in its chat template's own tool format where it
has one, otherwise Hearth's JSON under a grammar. The answer is Hearth's JSON either way.

A model trained to call tools was trained on one spelling: Qwen 2.5 and 3, Hermes and
Granite write ``<tool_call>{"name": …, "arguments": …}</tool_call>`` after a system block
their template writes from a ``tools`` list; Llama 3.1 to 3.3 write ``{"name": …,
"parameters": …}`` after tools their template puts before the question. Asked that way,
and held to it by a grammar, such a model calls better than when asked for a spelling it
never saw. Every other template (the starter model's, Gemma 3's, Mistral's, whose
``[TOOL_CALLS]`` is a control token a grammar cannot write) gets Hearth's own request:
instructions after the last question and ``{"tool": …, "arguments": …}`` or
``{"tool": "none"}``.

The engine that answers chooses (``prepare``): the local model by its template, found once
at load (``detect``); an intranet engine always by Hearth's JSON. ``as_choice`` turns the
model's own spelling back into Hearth's JSON, so the turn, the terminal and the local API
read one format.
"""

from __future__ import annotations

import functools
import json
import logging
import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, replace
from typing import Any

from inference.protocol import ChatMessage, Generate, SamplingParams, ToolChoice
from inference.tool_grammar import ANY_OBJECT, NO_TOOL, choice_grammar, gbnf, usable_schema

log = logging.getLogger(__name__)
PROBE = "hearth_probe_tool"
CALL_RULE = "hearth-tool-call"
TEXT_CHARACTERS = 16  # an answer instead of a call: its first characters are enough to know


@dataclass(frozen=True)
class ToolFormat:
    """A template's own way of calling a tool: ``prefix`` JSON ``suffix``, the JSON with
    ``"name"`` and ``arguments`` (the key the model was trained on)."""

    name: str
    prefix: str
    suffix: str
    arguments: str
    starts: str  # the character a call starts with: an answer starts with any other

    def spell(self, name: str, arguments: dict[str, Any]) -> str:
        body = json.dumps({"name": name, self.arguments: arguments}, ensure_ascii=False)
        return f"{self.prefix}{body}{self.suffix}"


HERMES = ToolFormat("hermes", "<tool_call>\n", "\n</tool_call>", "arguments", "<")
LLAMA3 = ToolFormat("llama3", "", "", "parameters", "{")
FORMATS = {f.name: f for f in (HERMES, LLAMA3)}


def _probe_tools() -> list[dict[str, Any]]:
    return openai_tools(((PROBE, "Probe.", json.dumps({"type": "object", "properties": {}})),))


def detect(template: Any) -> ToolFormat | None:
    """The tool format of a compiled chat template (``inference.chat_template``), or None:
    its text must name the format's markers and a conversation rendered with a tool must
    show that tool (a template that ignores ``tools`` has no format to speak of)."""
    source = str(getattr(template, "source", ""))
    if "<tool_call>" in source and '"arguments"' in source:
        found = HERMES
    elif "<|start_header_id|>" in source and '"parameters"' in source:
        found = LLAMA3
    else:
        return None
    try:
        rendered = template.render([{"role": "user", "content": "Hi"}], max_chars=64_000,
                                   tools=_probe_tools())
    except Exception:  # a template that fails with tools: Hearth's own request instead
        log.info("the chat template names a tool format but cannot render tools", exc_info=True)
        return None
    return found if PROBE in rendered else None


DESCRIPTION_LIMIT = 400  # characters of a tool's description, as Hearth's own request gives it
SCHEMA_LIMIT = 2000  # characters of a tool's argument schema in the template's block; past it: its names


def _shown_schema(schema: str) -> dict[str, Any]:
    """A tool's schema as the template shows it: whole if short, else its arguments' names
    and types only (the grammar still holds the call to the whole schema)."""
    data = json.loads(schema)
    if len(schema) <= SCHEMA_LIMIT or not isinstance(data, dict):
        return data
    found = data.get("properties")
    properties: dict[str, Any] = found if isinstance(found, dict) else {}
    return {"type": "object", "properties": {
        str(name)[:64]: {"type": value.get("type", "string")} if isinstance(value, dict) else {}
        for name, value in list(properties.items())[:32]}}


def openai_tools(tools: Iterable[tuple[str, str, str]]) -> list[dict[str, Any]]:
    """``ToolChoice.tools`` as the ``tools`` list that chat templates read, each bounded."""
    return [{"type": "function", "function": {"name": name, "description": description[:DESCRIPTION_LIMIT],
                                              "parameters": _shown_schema(schema)}}
            for name, description, schema in tools]


def escaped(value: Any, escape: Callable[[str], str]) -> Any:
    """``value`` (a tools list: names, descriptions, schemas: a tool server's words) with
    ``escape`` applied to every string in it, keys too, as to a message's content: none can
    spell a control token once the template writes it into the prompt."""
    if isinstance(value, str):
        return escape(value)
    if isinstance(value, dict):
        return {escape(str(k)): escaped(v, escape) for k, v in value.items()}
    if isinstance(value, list):
        return [escaped(v, escape) for v in value]
    return value


def instructions(tools: Sequence[tuple[str, str, str]]) -> str:
    lines = ["You can use tools. To call one, reply with only JSON: "
             '{"tool": "<name>", "arguments": {...}}. When you can answer without a tool, or the '
             'tools have given you what you need, reply with {"tool": "none"}.', "Tools:"]
    for name, description, schema in tools:
        arguments = json.dumps(json.loads(schema).get("properties", {}), ensure_ascii=False)[:600]
        lines.append(f"- {name}: {description[:400]} Arguments: {arguments}")
    return "\n".join(lines)


def _with_question(messages: Sequence[ChatMessage], extra: str) -> list[ChatMessage]:
    """The conversation with ``extra`` after its last question: everything before that
    question is the answer's prompt too, so the model's cache of it serves both (the tools
    in the system message made the answer read the whole chat again)."""
    if not messages or messages[-1].role != "user":
        return [*messages, ChatMessage("user", extra)]
    last = messages[-1]
    return [*messages[:-1], replace(last, content=f"{last.content}\n\n{extra}")]


def _calls(choice: ToolChoice, fmt: ToolFormat | None) -> list[ChatMessage]:
    """The calls so far and what came of them: the model's turns in its own spelling, the
    results as the tool's turn (its template's ``tool`` role) or, in Hearth's request, a
    user turn that says they are the tool's words."""
    said: list[ChatMessage] = []
    for name, arguments, result in choice.calls:
        if fmt is None:
            said.append(ChatMessage("assistant", json.dumps({"tool": name, "arguments": json.loads(arguments)},
                                                            ensure_ascii=False)))
            said.append(ChatMessage("user", result))
        else:
            said.append(ChatMessage("assistant", fmt.spell(name, json.loads(arguments))))
            said.append(ChatMessage("tool", result))
    return said


def calls_in_text(choice: ToolChoice) -> list[ChatMessage]:
    """The calls so far as plain turns (Hearth's JSON, then the tool's words), for an engine
    that is given the tools through the OpenAI field (``inference.remote_tools``)."""
    return _calls(choice, None)


def native_grammar(fmt: ToolFormat, tools: Sequence[tuple[str, dict[str, Any]]], required: bool = False) -> str:
    """GBNF for a call of one of ``tools`` in ``fmt``'s spelling or (unless ``required``)
    the first few characters of an answer, which then ends: no call, and the answer is
    asked for on its own. Made once for the same tools."""
    return _native_grammar(fmt, json.dumps([[name, schema] for name, schema in tools], sort_keys=True), required)


@functools.lru_cache(maxsize=32)
def _native_grammar(fmt: ToolFormat, tools_json: str, required: bool) -> str:
    tools = [(str(name), schema) for name, schema in json.loads(tools_json)]

    def made(schemas: list[dict[str, Any]]) -> str:
        alternatives = [{"type": "object", "properties": {"name": {"const": name}, fmt.arguments: schema},
                         "required": ["name", fmt.arguments]}
                        for (name, _schema), schema in zip(tools, schemas, strict=True)]
        return gbnf({"anyOf": alternatives}, ["name", fmt.arguments])

    try:
        body = made([usable_schema(schema) for _name, schema in tools])
    except Exception:
        log.info("the tools' grammar could not be made from their schemas", exc_info=True)
        body = made([ANY_OBJECT for _tool in tools])
    body = re.sub(r"^root ::=", f"{CALL_RULE} ::=", body, count=1, flags=re.MULTILINE)
    call = f"{json.dumps(fmt.prefix)} {CALL_RULE} {json.dumps(fmt.suffix)}" if fmt.prefix else CALL_RULE
    starts = fmt.starts.replace("\\", "\\\\")
    text = "" if required else f" | [^{starts}] [^\\n]{{0,{TEXT_CHARACTERS - 1}}}"
    return f"root ::= {call}{text}\n{body}"


def prepare(messages: Sequence[ChatMessage], choice: ToolChoice, params: SamplingParams,
            fmt: ToolFormat | None) -> tuple[list[ChatMessage], SamplingParams, list[dict[str, Any]]]:
    """The messages, sampling and template ``tools`` that ask for a tool choice: in the
    model's own format (``fmt``) or, without one, in Hearth's."""
    named = [(name, json.loads(schema)) for name, _description, schema in choice.tools]
    if fmt is None:
        asked = _with_question(messages, instructions(choice.tools)) + _calls(choice, None)
        return asked, replace(params, grammar=choice_grammar(named, allow_none=not choice.required)), []
    asked = [*messages, *_calls(choice, fmt)]
    return asked, replace(params, grammar=native_grammar(fmt, named, choice.required)), openai_tools(choice.tools)


def hearths_request(command: Generate) -> Generate:
    """A tool choice in Hearth's JSON, as an intranet engine is asked (its template is
    its own business; its sampler follows the grammar); any other request as it is."""
    if command.choice is None:
        return command
    messages, params, _tools = prepare(command.messages, command.choice, command.params, None)
    return replace(command, messages=tuple(messages), params=params, choice=None)


def read_native(text: str, fmt: ToolFormat) -> str:
    """The model's choice in its own spelling, as Hearth's JSON (``{"tool": "none"}`` for
    an answer, or a call that does not read)."""
    body = text.strip()
    if fmt.prefix:
        if not body.startswith(fmt.prefix.strip()):
            return json.dumps({"tool": NO_TOOL})
        body = body[len(fmt.prefix.strip()):]
        if fmt.suffix.strip() in body:
            body = body[:body.index(fmt.suffix.strip())]
    try:
        data = json.loads(body)
    except ValueError:
        return json.dumps({"tool": NO_TOOL})
    if not isinstance(data, dict) or not isinstance(data.get("name"), str):
        return json.dumps({"tool": NO_TOOL})
    arguments = data.get(fmt.arguments, {})
    return json.dumps({"tool": data["name"], "arguments": arguments if isinstance(arguments, dict) else {}},
                      ensure_ascii=False)


def as_choice(pieces: Iterable[str], fmt: ToolFormat | None) -> Iterator[str]:
    """The model's pieces as Hearth's JSON: as they are without a format (the grammar wrote
    Hearth's JSON), once whole with one."""
    if fmt is None:
        yield from pieces
        return
    said: list[str] = []
    for piece in pieces:  # one piece out for each in (the token count), the JSON last
        if said:
            yield ""
        said.append(piece)
    yield read_native("".join(said), fmt)
