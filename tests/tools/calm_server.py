"""A well-behaved MCP server for the tests, on the official SDK: adds numbers, reads a
file of the folder it was granted, says where it runs."""

from __future__ import annotations

import os
import sys
from pathlib import Path

from mcp.server.mcpserver import MCPServer

server = MCPServer("calm")


@server.tool()
def add(a: float, b: float) -> str:
    """Add two numbers."""
    return str(a + b)


@server.tool()
def read_note(path: str) -> str:
    """Read a text file."""
    return Path(path).read_text()


@server.tool()
def where() -> str:
    """The server's process id and group."""
    return f"{os.getpid()} {os.getpgid(0)} {sys.executable}"


if __name__ == "__main__":
    server.run()
