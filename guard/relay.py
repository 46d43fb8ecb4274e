"""Hearth's relay for a tool server that may reach the intranet: the one way out of its
network (``guard.netns``), to the destinations the user granted it and nowhere else.

The server's launcher hands Hearth a listening socket inside the server's own network,
over a Unix socket pair Hearth made (``child_fd`` is the launcher's end). Hearth accepts
there. Each connection is an HTTP proxy request, as programs send them when their
HTTP(S)_PROXY variables point at it:

- ``CONNECT host:port`` (HTTPS, or any TCP): answered ``200`` and then relayed both ways;
- an absolute-form request ``GET http://host:port/path`` (plain HTTP): sent on in origin
  form, then relayed both ways.

``host:port`` must be one the user granted (the name as granted, any case); anything
else is answered ``403`` and nothing leaves. A granted name is resolved by the egress
guard, once, the first time it is used (``allow_destination`` under the server's own
guard name and the destination), so the connection goes through the guard like an
engine's, and its bytes are counted for the Privacy panel. What the relay refuses is
counted too (the last few kept as examples, the rest a count). The request's head is
bounded (16 KiB, 10 s in all) and so is the number of connections at once. A plain
``http://`` request is one exchange: its head and its body (by its Content-Length; one
without, chunked, is not relayed) go on with ``Connection: close``, and what the client
sends after it on the same connection does not.
"""

from __future__ import annotations

import contextlib
import ipaddress
import logging
import re
import secrets
import socket
import struct
import threading
import time
from collections import deque
from dataclasses import dataclass, field

from guard import egress

log = logging.getLogger("hearth.tools")

HEAD_LIMIT = 16 * 1024
HEAD_SECONDS = 10.0
CONNECT_SECONDS = 10.0
CONNECTIONS = 32
CHUNK = 64 * 1024
EXAMPLES = 20
LOGGED = 20  # refusals logged one by one; after these, every hundredth
HOST_NAME = re.compile(r"[a-z0-9_](?:[a-z0-9_.-]{0,251}[a-z0-9_])?")


def parse_destination(text: str) -> tuple[str, int]:
    """``host:port`` (``[v6]:port`` too) as the user grants it: ValueError otherwise."""
    host, colon, port = text.strip().rpartition(":")
    if host.startswith("[") and host.endswith("]"):
        host = host[1:-1]
    host = host.lower().rstrip(".")
    if ":" in host:  # only an IPv6 literal holds colons
        with contextlib.suppress(ValueError):
            host = str(ipaddress.IPv6Address(host))
    if not colon or not port.isdigit() or not 0 < int(port) < 65536 or \
            not (HOST_NAME.fullmatch(host) or (":" in host and _is_v6(host))):
        raise ValueError(f"{text}: write a host name and port, such as wiki.intranet:443")
    return host, int(port)


def _is_v6(text: str) -> bool:
    try:
        ipaddress.IPv6Address(text)
    except ValueError:
        return False
    return True


@dataclass
class Counters:
    sent: int = 0
    received: int = 0
    connections: int = 0
    refused: int = 0
    examples: deque[str] = field(default_factory=lambda: deque(maxlen=EXAMPLES))  # the last few refused


class Relay:
    """The relay of one running server. ``child_fd`` goes to its launcher (pass_fds), then
    ``started`` closes Hearth's copy of it; ``close`` ends every connection."""

    def __init__(self, guard_name: str, granted: list[str]) -> None:
        self.guard_name = guard_name
        self._tag = secrets.token_hex(4)  # this relay's admissions are its own: another's end cannot revoke them
        self.granted = {parse_destination(text) for text in granted}
        self.counters = Counters()
        self._lock = threading.Lock()
        self._closed = threading.Event()
        self._open: set[socket.socket] = set()
        self._admitted: dict[tuple[str, int], str] = {}
        self._slots = threading.BoundedSemaphore(CONNECTIONS)
        self._listener: socket.socket | None = None
        self._control, child = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        self.child_fd = child.detach()
        self._thread = threading.Thread(target=self._run, name="tool-relay", daemon=True)
        self._thread.start()

    def started(self) -> None:
        """The launcher has its end now: close Hearth's, so that the launcher ending before it
        handed over its listener ends the wait too."""
        with self._lock:
            fd, self.child_fd = self.child_fd, -1
        if fd >= 0:  # once: the number may be another file's afterwards
            with contextlib.suppress(OSError):
                socket.close(fd)

    def _run(self) -> None:
        try:
            message, fds, _flags, _address = socket.recv_fds(self._control, 16, 1)
        except OSError:
            return
        finally:
            self._control.close()
        if not fds:
            return  # the launcher refused or failed; its standard error says why
        listener = socket.socket(fileno=fds[0])
        with self._lock:
            if self._closed.is_set():
                listener.close()
                return
            self._listener = listener
        log.info("tool relay listening for %s (port %d)", egress.log_tag(self.guard_name),
                 struct.unpack("=H", message[:2])[0] if len(message) >= 2 else 0)
        while not self._closed.is_set():
            try:
                client, _ = listener.accept()
            except OSError:
                return
            if not self._slots.acquire(blocking=False):
                client.close()  # too many at once: the server may try again
                continue
            threading.Thread(target=self._serve, args=(client,), name="tool-relay-conn", daemon=True).start()

    def _track(self, sock: socket.socket) -> bool:
        with self._lock:
            if self._closed.is_set():
                return False
            self._open.add(sock)
            return True

    def _serve(self, client: socket.socket) -> None:
        upstream: socket.socket | None = None
        try:
            if not self._track(client):
                return
            request = self._head(client)
            if request is None:
                return
            head, rest = request
            parsed = self._request(head)
            if parsed is None:
                self._refuse(client, "a request the relay does not read", 400)
                return
            (host, port), forward = parsed
            if (host, port) not in self.granted:
                self._refuse(client, f"{host}:{port}", 403)
                return
            try:
                upstream, name = self._connect(host, port)
            except OSError as exc:
                log.info("tool relay: %s could not be reached (%s)", egress.log_tag(self.guard_name),
                         type(exc).__name__)
                with contextlib.suppress(OSError):
                    client.sendall(b"HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
                return
            if not self._track(upstream):
                return
            with self._lock:
                self.counters.connections += 1
            if forward is None:
                client.sendall(b"HTTP/1.1 200 Connection established\r\n\r\n")
                if rest:
                    self._send(name, upstream, rest)
                self._pump(name, client, upstream)
            else:  # one exchange: the request and its body, then the answer, then the end
                head_out, body = forward
                self._send(name, upstream, head_out)
                self._send_body(name, client, upstream, rest, body)
                self._pump(name, client, upstream, client_done=True)
        except OSError:
            pass
        finally:
            for sock in (client, upstream):
                if sock is not None:
                    with self._lock:
                        self._open.discard(sock)
                    sock.close()
            self._slots.release()

    def _head(self, client: socket.socket) -> tuple[bytes, bytes] | None:
        """The request's head and what came after it, read within HEAD_LIMIT bytes and
        HEAD_SECONDS in all (a client that trickles loses its slot)."""
        deadline = time.monotonic() + HEAD_SECONDS
        data = b""
        while b"\r\n\r\n" not in data:
            if len(data) > HEAD_LIMIT:
                self._refuse(client, "an oversized request", 431)
                return None
            left = deadline - time.monotonic()
            if left <= 0:
                return None
            client.settimeout(left)
            chunk = client.recv(4096)
            if not chunk:
                return None
            data += chunk
        client.settimeout(None)
        head, _, rest = data.partition(b"\r\n\r\n")
        return head, rest

    @staticmethod
    def _request(head: bytes) -> tuple[tuple[str, int], tuple[bytes, int] | None] | None:
        """The destination and, for plain HTTP, the head to send on (origin form, the
        connection closed after this one exchange) and the length of its body."""
        lines = head.split(b"\r\n")
        parts = lines[0].split(b" ")
        if len(parts) != 3 or not parts[2].startswith(b"HTTP/1."):
            return None
        method, target, version = (p.decode("latin-1") for p in parts)
        try:
            if method.upper() == "CONNECT":
                return parse_destination(target), None
            if not target.lower().startswith("http://"):
                return None
            authority, _, path = target[7:].partition("/")
            authority = authority.rpartition("@")[2]
            has_port = "]:" in authority if authority.startswith("[") else ":" in authority
            destination = parse_destination(authority if has_port else f"{authority}:80")
        except ValueError:
            return None
        first = f"{method} /{path} {version}".encode("latin-1")
        kept = [line for line in lines[1:]
                if not line.lower().startswith((b"proxy-", b"keep-alive", b"connection", b"te:", b"upgrade"))]
        lengths = [line.split(b":", 1)[1].strip() for line in kept if line.lower().startswith(b"content-length:")]
        if any(line.lower().startswith(b"transfer-encoding:") for line in kept) or len(set(lengths)) > 1 or \
                (lengths and not lengths[0].isdigit()):
            return None  # a body whose end the relay cannot see from its head: not relayed
        size = int(lengths[0]) if lengths else 0
        return destination, (b"\r\n".join([first, *kept, b"Connection: close"]) + b"\r\n\r\n", size)

    def _connect(self, host: str, port: int) -> tuple[socket.socket, str]:
        """A connection to a granted destination through the egress guard, its name resolved
        the first time (and admitted under this server's guard name for it), and that name."""
        name = f"{self.guard_name} {host}:{port} {self._tag}"
        with self._lock:
            admitted = (host, port) in self._admitted
        if not admitted:
            egress.allow_destination(name, host, port)
            with self._lock:
                self._admitted[(host, port)] = name
        found = next((d for d in egress.destinations() if d.name == name), None)
        if found is None:
            raise OSError(f"{host}:{port} is not admitted")
        problem: OSError = OSError(f"{host}:{port} has no address")
        for address in sorted(found.addresses):
            try:
                return socket.create_connection((address, port), timeout=CONNECT_SECONDS), name
            except OSError as exc:
                problem = exc
        raise problem

    def _send(self, name: str, upstream: socket.socket, data: bytes) -> None:
        upstream.sendall(data)
        self._count(name, sent=len(data))

    def _count(self, name: str, sent: int = 0, received: int = 0) -> None:
        with self._lock:
            self.counters.sent += sent
            self.counters.received += received
        egress.count_traffic(name, sent, received)

    def _send_body(self, name: str, client: socket.socket, upstream: socket.socket, rest: bytes, size: int) -> None:
        """A plain request's body: exactly its Content-Length; what the client sends past it
        (another request on the same connection) is not relayed."""
        body = rest[:size]
        if body:
            self._send(name, upstream, body)
        left = size - len(body)
        while left > 0:
            chunk = client.recv(min(CHUNK, left))
            if not chunk:
                break
            self._send(name, upstream, chunk)
            left -= len(chunk)

    def _pump(self, name: str, client: socket.socket, upstream: socket.socket, client_done: bool = False) -> None:
        upstream.settimeout(None)

        def out() -> None:
            with contextlib.suppress(OSError):
                while not client_done and (chunk := client.recv(CHUNK)):
                    self._send(name, upstream, chunk)
            with contextlib.suppress(OSError):
                if not client_done:
                    upstream.shutdown(socket.SHUT_WR)

        sender = threading.Thread(target=out, name="tool-relay-out", daemon=True)
        sender.start()
        with contextlib.suppress(OSError):
            while chunk := upstream.recv(CHUNK):
                client.sendall(chunk)
                self._count(name, received=len(chunk))
        with contextlib.suppress(OSError):
            client.shutdown(socket.SHUT_WR)
        sender.join()

    def _refuse(self, client: socket.socket, what: str, status: int) -> None:
        with self._lock:
            self.counters.refused += 1
            self.counters.examples.append(what)
            count = self.counters.refused
        if count <= LOGGED or count % 100 == 0:  # a server that loops on refusals does not fill the log
            log.warning("tool relay refused a connection for %s (%d; %d so far)", egress.log_tag(self.guard_name),
                        status, count)
        reason = {400: "Bad Request", 403: "Forbidden", 431: "Request Header Fields Too Large"}[status]
        body = f"Hearth lets this tool reach only the addresses you gave it ({status}).\n".encode()
        with contextlib.suppress(OSError):
            client.sendall(f"HTTP/1.1 {status} {reason}\r\nContent-Type: text/plain\r\nContent-Length: "
                           f"{len(body)}\r\nConnection: close\r\n\r\n".encode() + body)

    def close(self) -> None:
        """End the relay: no more connections, those open cut, the admissions revoked."""
        with self._lock:
            self._closed.set()
            listener, self._listener = self._listener, None
            sockets = list(self._open)
            names = list(self._admitted.values())
        self.started()
        with contextlib.suppress(OSError):
            self._control.shutdown(socket.SHUT_RDWR)
        if listener is not None:
            with contextlib.suppress(OSError):
                listener.shutdown(socket.SHUT_RDWR)
            listener.close()
        for sock in sockets:
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)
        for name in names:
            egress.revoke_destination(name)
        self._thread.join(timeout=2.0)
