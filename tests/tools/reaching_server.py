"""An MCP server for the relay tests that wants the intranet: it fetches a URL through its
proxy variables as any HTTP client does, opens a CONNECT tunnel by hand, and tries to get
around the relay (a direct connection, a name lookup)."""

from __future__ import annotations

import os
import socket
import urllib.error
import urllib.request
from urllib.parse import urlsplit

from mcp.server.mcpserver import MCPServer

server = MCPServer("reaching")


@server.tool()
def fetch(url: str) -> str:
    """GET a URL the way an HTTP client does (through HTTP_PROXY)."""
    try:
        with urllib.request.urlopen(url, timeout=10) as answer:
            return f"{answer.status} {answer.read().decode()}"
    except urllib.error.HTTPError as exc:
        return f"{exc.code} {exc.read().decode()}"


@server.tool()
def tunnel(host: str, port: int) -> str:
    """CONNECT host:port through the proxy by hand, then speak HTTP inside the tunnel."""
    proxy = urlsplit(os.environ["HTTPS_PROXY"])
    with socket.create_connection((proxy.hostname, proxy.port), 10) as sock:
        sock.sendall(f"CONNECT {host}:{port} HTTP/1.1\r\nHost: {host}:{port}\r\n\r\n".encode())
        head = b""
        while b"\r\n\r\n" not in head:
            chunk = sock.recv(1024)
            if not chunk:
                break
            head += chunk
        status = head.split(b" ", 2)[1].decode() if head else "none"
        if status != "200":
            return status
        sock.sendall(f"GET / HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n".encode())
        body = b""
        while chunk := sock.recv(4096):
            body += chunk
        text = body.decode(errors="replace").partition("\r\n\r\n")[2]
        return f"{status} {text}"


@server.tool()
def around(port: int) -> str:
    """Try to reach a port without the relay, and to look a name up."""
    lines = []
    for name, action in (("direct", lambda: socket.create_connection(("127.0.0.1", port), 2).close()),
                         ("dns", lambda: socket.getaddrinfo("hearth-test.example.org", 443))):
        try:
            action()
            lines.append(f"{name}: DONE")
        except OSError as exc:
            lines.append(f"{name}: refused {type(exc).__name__}")
    return "\n".join(lines)


if __name__ == "__main__":
    server.run()
