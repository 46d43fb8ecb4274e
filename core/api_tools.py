"""The local API's ``tools`` (#44): a client sends OpenAI function tools, Hearth returns
``tool_calls`` for the client to run. Hearth never runs a client's tool itself.

The local model chooses the same way as in a chat (``core.tools.choice``: JSON under a
grammar built from the tools' parameter schemas), so the call is well formed. The
conversation the client sends back may carry earlier calls (an assistant message with
``tool_calls``) and their results (``tool`` messages); they are given to the model as in
a chat: the call as the model's own JSON, the result marked as the tool's words.
``tool_choice``: "auto" (the default), "none", "required", or one function by name.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from core.tools.choice import ToolCall, ToolSpec, choice_request, next_call
from inference.protocol import ChatMessage, SamplingParams, ToolChoice

API_SERVER = "client"  # the ToolSpec.server of a client's tools
MAX_TOOLS = 64
NAME = re.compile(r"[A-Za-z0-9_.-]{1,64}")


class ToolsRefused(ValueError):
    """What is wrong with a request's tools, for a 400 answer."""


@dataclass(frozen=True)
class ApiTools:
    specs: tuple[ToolSpec, ...]
    required: bool  # "required" or a named function: a call, never "none"


def read_tools(body: dict[str, Any]) -> ApiTools | None:
    """The request's tools, or None when it has none or ``tool_choice`` is "none"."""
    tools, choice = body.get("tools"), body.get("tool_choice", "auto")
    if not tools or choice == "none":
        return None
    if not isinstance(tools, list) or len(tools) > MAX_TOOLS:
        raise ToolsRefused(f"'tools' must be a list of at most {MAX_TOOLS} functions.")
    specs: list[ToolSpec] = []
    for tool in tools:
        function = tool.get("function") if isinstance(tool, dict) and tool.get("type") == "function" else None
        if not isinstance(function, dict) or not isinstance(function.get("name"), str) \
                or not NAME.fullmatch(function["name"]):
            raise ToolsRefused("Each tool must be {\"type\": \"function\", \"function\": {\"name\": …}} with a "
                               "name of letters, digits, _ . - (at most 64).")
        parameters = function.get("parameters") or {"type": "object", "properties": {}}
        if not isinstance(parameters, dict):
            raise ToolsRefused(f"The parameters of {function['name']} must be a JSON schema object.")
        specs.append(ToolSpec(API_SERVER, function["name"], str(function.get("description") or ""), parameters))
    required = choice == "required"
    if isinstance(choice, dict):
        function = choice.get("function")
        wanted = function.get("name") if isinstance(function, dict) else None
        specs = [s for s in specs if s.name == wanted]
        if not specs:
            raise ToolsRefused(f"tool_choice names {wanted!r}, which is not among the tools.")
        required = True
    elif choice not in ("auto", "required"):
        raise ToolsRefused("tool_choice must be \"auto\", \"none\", \"required\" or a function.")
    return ApiTools(tuple(specs), required)


def _arguments(raw: Any) -> dict[str, Any]:
    """A call's arguments: JSON text as OpenAI sends them, or an object as some clients do."""
    if isinstance(raw, dict):
        return raw
    try:
        parsed = json.loads(raw) if isinstance(raw, str) and raw.strip() else {}
    except ValueError:
        return {}
    return parsed if isinstance(parsed, dict) else {}


def read_messages(raw: list[Any]) -> list[ChatMessage]:
    """The conversation, with earlier calls and their results as a chat gives them."""
    messages: list[ChatMessage] = []
    names: dict[str, str] = {}
    for item in raw:
        if not isinstance(item, dict):
            raise ToolsRefused("Each message must be an object.")
        role, content = str(item.get("role")), item.get("content") or ""
        if isinstance(content, list):  # parts: the text ones
            content = "".join(str(p.get("text", "")) for p in content if isinstance(p, dict))
        if role == "assistant" and item.get("tool_calls"):
            calls = item["tool_calls"]
            if not isinstance(calls, list):
                raise ToolsRefused("'tool_calls' must be a list.")
            for call in calls:
                function = call.get("function") if isinstance(call, dict) else None
                if not isinstance(function, dict) or not isinstance(function.get("name"), str):
                    raise ToolsRefused("Each tool call must be {\"id\": …, \"function\": {\"name\": …, "
                                       "\"arguments\": …}}.")
                names[str(call.get("id"))] = function["name"]
                messages.append(ChatMessage("assistant", ToolCall(API_SERVER, function["name"],
                                                                  _arguments(function.get("arguments"))).as_json()))
            continue
        if role == "tool":
            name = names.get(str(item.get("tool_call_id")), "tool")
            messages.append(ChatMessage("user", f"[Tool {name}: result. This text comes from the tool, not "
                                                f"from the user.]\n{content}"))
            continue
        if role not in ("system", "user", "assistant"):
            raise ToolsRefused("Message roles must be system, user, assistant or tool.")
        messages.append(ChatMessage(role, str(content)))
    return messages


def choosing(messages: list[ChatMessage], tools: ApiTools, params: SamplingParams
             ) -> tuple[tuple[ChatMessage, ...], SamplingParams, ToolChoice]:
    """The request for the model's choice (greedy, under a grammar: ``core.tools.choice``)."""
    return choice_request(messages, tools.specs, [], params, required=tools.required)


def chosen_call(text: str, tools: ApiTools) -> ToolCall | None:
    return next_call(text, tools.specs, [])


def tool_calls(call: ToolCall, request_id: int) -> list[dict[str, Any]]:
    return [{"id": f"call_{request_id}", "type": "function",
             "function": {"name": call.name, "arguments": json.dumps(call.arguments, ensure_ascii=False)}}]
