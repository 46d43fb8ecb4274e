"""A tool server that speaks MCP's JSON-RPC by hand (no SDK), for the test of text that is
not quite text: its one tool, ``ls``, answers with a file name that is not UTF-8, as a
Python server's ``os.listdir`` and ``json.dumps`` give it (a lone surrogate, escaped), a
raw byte that is not UTF-8, and a string cut inside an emoji."""

from __future__ import annotations

import json
import sys


def send(message: dict) -> None:
    sys.stdout.buffer.write(json.dumps(message).encode() + b"\n")
    sys.stdout.buffer.flush()


for line in sys.stdin.buffer:
    request = json.loads(line)
    method, ident = request.get("method"), request.get("id")
    if method == "initialize":
        send({"jsonrpc": "2.0", "id": ident, "result": {
            "protocolVersion": request["params"]["protocolVersion"], "capabilities": {"tools": {}},
            "serverInfo": {"name": "garbled", "version": "1"}}})
    elif method == "tools/list":
        send({"jsonrpc": "2.0", "id": ident, "result": {"tools": [
            {"name": "ls", "description": "List the files.", "inputSchema": {"type": "object"}}]}})
    elif method == "tools/call":
        name = b"caf\xe9.txt".decode("utf-8", "surrogateescape")  # as os.listdir gives it
        text = json.dumps({"jsonrpc": "2.0", "id": ident, "result": {"content": [
            {"type": "text", "text": f"files: {name}, RAW, half an emoji: \ud83d, whole: \U0001f600"}]}})
        sys.stdout.buffer.write(text.encode().replace(b"RAW", b"r\xe9sum\xe9.txt") + b"\n")
        sys.stdout.buffer.flush()
