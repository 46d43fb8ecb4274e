"""Tools the model may call for the user: MCP servers in a sandbox (``servers``,
``mcp_client``, ``host``); built-in tools and the turn's tool steps come next (#44)."""

from core.tools.servers import ToolError, ToolServerRecord
from guard.sandbox import layers as sandbox_layers

__all__ = ["ToolError", "ToolServerRecord", "sandbox_layers"]
