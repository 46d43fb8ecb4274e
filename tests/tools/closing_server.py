"""A tool server that speaks MCP's JSON-RPC by hand (no SDK) and fails as a broken one does:
its tool ``close`` shuts its standard output and stays (the connection closed under a
call); its tool ``garble`` answers with a line that is not JSON-RPC, then shuts its output."""

from __future__ import annotations

import json
import os
import sys
import time


def send(message: dict) -> None:
    sys.stdout.buffer.write(json.dumps(message).encode() + b"\n")
    sys.stdout.buffer.flush()


for line in sys.stdin.buffer:
    request = json.loads(line)
    method, ident = request.get("method"), request.get("id")
    if method == "initialize":
        send({"jsonrpc": "2.0", "id": ident, "result": {
            "protocolVersion": request["params"]["protocolVersion"], "capabilities": {"tools": {}},
            "serverInfo": {"name": "closing", "version": "1"}}})
    elif method == "tools/list":
        send({"jsonrpc": "2.0", "id": ident, "result": {"tools": [
            {"name": "close", "description": "Close.", "inputSchema": {"type": "object"}},
            {"name": "garble", "description": "Garble.", "inputSchema": {"type": "object"}}]}})
    elif method == "tools/call":
        if request["params"]["name"] == "garble":
            sys.stdout.buffer.write(b'{"jsonrpc": "2.0", "id": ' + str(ident).encode() + b', "result": 17}\n')
            sys.stdout.buffer.flush()
        os.close(1)
        time.sleep(60)  # alive, its output closed: Hearth stops it
