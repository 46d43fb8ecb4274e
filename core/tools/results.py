"""What a tool server gives, as Hearth keeps it, and the limits on it: light, so that the
window can know of tools without loading the MCP SDK (which brings an HTTP stack) until a
server starts (``core.tools.mcp_client``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from guard.text import printable
from inference.engine_tokens import escape_control_text

MESSAGE_LIMIT = 4 * 1024 * 1024  # bytes of one JSON-RPC message from a server
RESULT_LIMIT = 32 * 1024  # characters of a tool's result the model is given
START_SECONDS = 30.0  # to start, shake hands and list the tools
CALL_SECONDS = 60.0  # for one call, by default
STDERR_KEPT = 4096
REAP_SECONDS = 2.0  # for a killed server to be reaped
# A tool's own tags for calls and results in some chat templates (Hermes, Qwen): a result
# that spells one could end its own result and make up a call.
_TOOL_TAGS = ("<tool_call>", "</tool_call>", "<tool_response>", "</tool_response>",
              "<tool_result>", "</tool_result>")


@dataclass(frozen=True)
class ToolInfo:
    server: str
    name: str
    description: str
    schema: dict[str, Any]


@dataclass(frozen=True)
class ToolResult:
    text: str  # untrusted: bounded, control characters and control-token spellings defused
    is_error: bool
    cut: int  # characters left out
    seconds: float


def untrusted(text: str, limit: int = RESULT_LIMIT) -> tuple[str, int]:
    """A tool's text as the model may see it: no control characters, no chat-template
    control spellings or tool tags that could end the result and start a turn, at most
    ``limit`` characters (the number left out is returned)."""
    text = escape_control_text(printable(text))
    for tag in _TOOL_TAGS:
        text = text.replace(tag, tag[0] + "\u2060" + tag[1:])
    cut = max(0, len(text) - limit)
    return text[:limit], cut
