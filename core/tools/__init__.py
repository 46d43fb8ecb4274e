"""Tools the model may call for the user: MCP servers in a sandbox (``servers``,
``mcp_client``, ``host``), Hearth's own tools (``builtin``), a turn's choice of a tool
(``choice``) and a chat's toolbox (``toolbox``); the steps are in ``core.tool_steps``."""

from core.tools.servers import ToolError, ToolServerRecord, missing_layers
from guard.sandbox import layers as sandbox_layers

__all__ = ["ToolError", "ToolServerRecord", "missing_layers", "sandbox_layers"]
