"""A tool choice asked of an intranet engine that takes no grammar (SGLang, any other
OpenAI-compatible server): through the OpenAI ``tools`` field, which the engine renders
with its own chat template and whose calls it parses itself (``tool_calls``).

llama.cpp's server and vLLM follow Hearth's grammar instead (``tool_formats.hearths_request``:
a call in Hearth's JSON, always well formed). The others are given the ``tools`` field
alone, so a model trained for tools calls the way it was trained, through its own
template on the engine; the calls made so far go as plain turns. What comes back is
Hearth's JSON: the engine's ``tool_calls`` are turned into it here, their arguments a
stranger's text read as JSON or not at all; an answer in words is no call. The call then
runs here, under the user's approval, like any other.
"""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any

from inference.protocol import Generate
from inference.tool_formats import calls_in_text, hearths_request, openai_tools
from inference.tool_grammar import NO_TOOL

GRAMMAR_KINDS = ("llama.cpp", "vllm")  # engines whose sampler follows Hearth's grammar
MAX_CALL_CHARS = 64 * 1024  # a call's name and arguments as they arrive, at most


def engine_request(command: Generate, kind: str) -> tuple[Generate, dict[str, Any]]:
    """The request as an engine of ``kind`` is asked, and the fields its body adds (the
    ``tools`` list and ``tool_choice`` for an engine without a grammar; none otherwise)."""
    if command.choice is None:
        return command, {}
    if kind in GRAMMAR_KINDS:
        return hearths_request(command), {}
    choice = command.choice
    messages = (*command.messages, *calls_in_text(choice))
    fields = {"tools": openai_tools(choice.tools), "tool_choice": "required" if choice.required else "auto"}
    return replace(command, messages=messages, params=replace(command.params, grammar=""), choice=None), fields


class CallDeltas:
    """The engine's ``tool_calls`` deltas of one answer, gathered; ``text`` is the first
    call in Hearth's JSON (None when none came)."""

    def __init__(self) -> None:
        self._calls: dict[int, dict[str, str]] = {}
        self._size = 0
        self._cut = False  # a part past the bound: the call is not read

    def add(self, deltas: Any) -> bool:
        """Gather one event's deltas; whether any was a call's."""
        seen = False
        for delta in deltas if isinstance(deltas, list) else ():
            function = delta.get("function") if isinstance(delta, dict) else None
            if not isinstance(function, dict):
                continue
            index = delta.get("index") if isinstance(delta.get("index"), int) else 0
            call = self._calls.setdefault(index, {"name": "", "arguments": ""})
            for key in ("name", "arguments"):
                part = function.get(key)
                if isinstance(part, str) and self._size + len(part) <= MAX_CALL_CHARS:
                    call[key] += part
                    self._size += len(part)
                elif isinstance(part, str):
                    self._cut = True
            seen = True
        return seen

    def text(self) -> str | None:
        if not self._calls:
            return None
        first = self._calls[min(self._calls)]
        try:
            arguments = json.loads(first["arguments"] or "{}")
        except ValueError:
            arguments = None
        if self._cut or not first["name"] or not isinstance(arguments, dict):
            return json.dumps({"tool": NO_TOOL})
        return json.dumps({"tool": first["name"], "arguments": arguments}, ensure_ascii=False)
