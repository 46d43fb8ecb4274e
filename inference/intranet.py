"""The connection to an intranet engine: one host and port, TLS as the user configured it.

Written on ``http.client`` over a socket this module opens itself, so that nothing
happens that the user did not set up: the socket goes only to an address the guard
resolved when the engine was allowed (``guard.egress.allow_destination``), redirects are
answered with an error rather than followed, and proxy variables in the environment are
never read (http.client does not know them; only urllib and requests do). Trust is
the system's certificate store, the organisation's CA (PEM), a pinned SHA-256 of the
server's certificate or public key, or a combination; the pin is checked after the
handshake, before one byte of the request is written.

Everything a server sends is untrusted: sizes are bounded, its error text is cut to one
short line, and a redirect's target is never shown as a link (the errors and what they
say: ``inference.intranet_errors``).
"""

from __future__ import annotations

import contextlib
import http.client
import json
import socket
import ssl
import threading
import time
from collections.abc import Iterator
from typing import Any

from guard import egress
from i18n import translate
from inference.intranet_errors import (
    Aborted,
    Dropped,
    Overloaded,
    Overrun,
    error_text,
    network_reason,
    one_line,
    status_error,
    tls_reason,
)
from inference.trust import (
    Endpoint,
    EngineError,
    Trust,
    certificate_pins,
    normalise_pin,
    parse_url,
    tls_context,
)

__all__ = ["Abort", "Aborted", "Client", "Dropped", "Endpoint", "EngineError", "Overloaded", "Overrun", "Trust",
           "certificate_pins", "normalise_pin", "one_line", "parse_url", "valid_api_key"]

CONNECT_TIMEOUT = 10.0
READ_TIMEOUT = 120.0  # a busy server's prefill of a long prompt, before its first byte
MAX_JSON = 4 * 1024 * 1024
MAX_LINE = 1024 * 1024


class _Connection(http.client.HTTPConnection):
    """http.client's connection, but connected to the address the guard resolved, and
    over TLS with the user's trust and pin when the scheme is https."""

    def __init__(self, name: str, endpoint: Endpoint, address: str, trust: Trust, timeout: float) -> None:
        super().__init__(endpoint.host, endpoint.port, timeout=timeout)
        self._name = name
        self._endpoint = endpoint
        self._address = address
        self._trust = trust
        self._connect_timeout = min(timeout, CONNECT_TIMEOUT)
        self.raw: socket.socket | None = None  # the TCP socket, while TLS is being set up too

    def connect(self) -> None:
        family = socket.AF_INET6 if ":" in self._address else socket.AF_INET
        sock = socket.socket(family, socket.SOCK_STREAM)
        self.raw = sock
        try:
            sock.settimeout(self._connect_timeout)
            sock.connect((self._address, self._endpoint.port))
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            if self._endpoint.scheme == "https":
                sock = tls_context(self._trust).wrap_socket(sock, server_hostname=self._endpoint.host)
                if self._trust.pin:
                    der = sock.getpeercert(binary_form=True) or b""
                    if normalise_pin(self._trust.pin) not in certificate_pins(der):
                        raise EngineError(translate(
                            "inference.intranet", "The engine's certificate does not match the "
                            "pinned SHA-256: this may not be your organisation's server. Nothing "
                            "was sent."))
            sock.settimeout(self.timeout)
        except BaseException:
            sock.close()
            raise
        self.sock = sock

    def send(self, data: Any) -> None:
        """Every byte of a request (headers and body) passes here: counted for the engine."""
        super().send(data)
        egress.count_traffic(self._name, sent=len(data) if isinstance(data, (bytes, bytearray)) else 0)


def valid_api_key(key: str) -> bool:
    """Visible ASCII only (and not absurdly long): what a bearer token can be."""
    return 0 < len(key) <= 4096 and all("!" <= c <= "~" for c in key)


class Client:
    """Requests to one engine. Thread-safe: each request opens its own connection."""

    def __init__(self, name: str, endpoint: Endpoint, trust: Trust, api_key: str = "",
                 read_timeout: float = READ_TIMEOUT, guard_name: str = "") -> None:
        self.name = name  # the engine's, in messages
        self.guard_name = guard_name or name  # what the guard admitted it as (a check has its own)
        self.endpoint = endpoint
        self.trust = trust
        self._api_key = api_key
        self._read_timeout = read_timeout

    # One request ------------------------------------------------------------------
    def _addresses(self) -> list[str]:
        for found in egress.destinations():
            # The same host and port, too: an engine edited meanwhile is not this client's.
            if found.name == self.guard_name and (found.host, found.port) == (self.endpoint.host, self.endpoint.port):
                return sorted(found.addresses, key=lambda a: ":" in a)  # IPv4 first
        raise EngineError(translate("inference.intranet", "The engine {name} is not allowed "
                                    "(switched off or removed).").format(name=self.name))

    def _headers(self, stream: bool) -> dict[str, str]:
        headers = {"Content-Type": "application/json", "User-Agent": "Hearth",
                   "Accept": "text/event-stream" if stream else "application/json"}
        if self._api_key:
            if not valid_api_key(self._api_key):  # http.client's error would quote it, into the log
                raise EngineError(translate("inference.intranet", "The API key holds characters an HTTP "
                                            "header cannot carry (spaces, line breaks or non-ASCII)."))
            headers["Authorization"] = f"Bearer {self._api_key}"
        return headers

    def _connected(self, abort: Abort | None) -> _Connection:
        """A connection to the first of the engine's addresses that takes one, TLS checked.
        Only a failed connect moves on to the next address: nothing was sent yet."""
        if abort is not None and abort.is_set():  # stopped before anything was opened
            raise Aborted()
        last: Exception | None = None
        for address in self._addresses():
            conn = _Connection(self.guard_name, self.endpoint, address, self.trust, self._read_timeout)
            if abort is not None:
                abort.attach(conn)
            try:
                conn.connect()
            except EngineError:
                conn.close()
                raise
            except (ssl.SSLError, ssl.CertificateError) as exc:
                conn.close()
                if abort is not None and abort.is_set():
                    raise Aborted() from None
                raise EngineError(tls_reason(exc, self.name, self.endpoint)) from None
            except OSError as exc:
                conn.close()
                if abort is not None and abort.is_set():
                    raise Aborted() from None
                last = exc
                continue
            if abort is not None and abort.is_set():  # stopped during the connect or handshake
                conn.close()
                raise Aborted()
            return conn
        raise EngineError(network_reason(last, self.name, self.endpoint))

    def open(self, method: str, path: str, body: dict[str, Any] | None = None, stream: bool = False,
             abort: Abort | None = None) -> tuple[_Connection, http.client.HTTPResponse]:
        """Send one request; the connection and its response, whose status is 2xx. A request
        is sent once: a connection lost after it was written is an error, never a resend
        (that would start a second answer)."""
        data = json.dumps(body).encode() if body is not None else None
        conn = self._connected(abort)
        try:
            conn.request(method, path, body=data, headers=self._headers(stream))
            response = conn.getresponse()
        except (OSError, http.client.HTTPException) as exc:
            conn.close()
            if abort is not None and abort.is_set():
                raise Aborted() from None
            if isinstance(exc, TimeoutError):
                raise EngineError(translate("inference.intranet", "The engine {name} did not answer in "
                                            "{seconds} seconds.").format(name=self.name,
                                                                         seconds=int(self._read_timeout))) from None
            raise Dropped(translate("inference.intranet", "The engine {name} closed the "
                                    "connection without an answer ({error}).")
                          .format(name=self.name, error=type(exc).__name__)) from None
        if 200 <= response.status < 300:
            return conn, response
        try:
            raise status_error(response, self.name, self.guard_name)
        finally:
            conn.close()

    def get_json(self, path: str, abort: Abort | None = None) -> Any:
        conn, response = self.open("GET", path, abort=abort)
        try:
            return self._read_json(response, abort)
        finally:
            conn.close()

    def post_json(self, path: str, body: dict[str, Any], abort: Abort | None = None) -> Any:
        conn, response = self.open("POST", path, body, abort=abort)
        try:
            return self._read_json(response, abort)
        finally:
            conn.close()

    def _read_json(self, response: http.client.HTTPResponse, abort: Abort | None = None) -> Any:
        """The answer's JSON, read whole within the read timeout. Each read waits at most
        that long; a server that sent a byte just before each wait ran out was read for
        ever (an engine check's admission by the guard stayed open meanwhile). Stopped
        (``abort``), the connection's end is no answer: Aborted, not a JSON error."""
        deadline = time.monotonic() + self._read_timeout
        raw = bytearray()
        while len(raw) <= MAX_JSON:
            try:
                part = response.read1(min(1 << 16, MAX_JSON + 1 - len(raw)))
            except (OSError, http.client.HTTPException):
                if abort is not None and abort.is_set():
                    raise Aborted() from None
                raise
            egress.count_traffic(self.guard_name, received=len(part))
            if not part:
                break
            raw += part
            if time.monotonic() > deadline:
                raise EngineError(translate("inference.intranet", "The engine {name} took more than "
                                            "{seconds} seconds to send its answer.").format(
                                                name=self.name, seconds=int(self._read_timeout)))
        if abort is not None and abort.is_set():
            raise Aborted()
        if len(raw) > MAX_JSON:
            raise EngineError(translate("inference.intranet", "The engine {name} sent an answer "
                                        "too large to be one.").format(name=self.name))
        try:
            return json.loads(raw)
        except (ValueError, RecursionError):
            raise EngineError(translate("inference.intranet", "The engine {name} answered with "
                                        "something that is not JSON: is the URL an OpenAI-"
                                        "compatible API (…/v1)?").format(name=self.name)) from None

    def events(self, response: http.client.HTTPResponse, abort: Abort | None,
               limit: int | None = None) -> Iterator[dict[str, Any]]:
        """The JSON objects of a server-sent event stream, until ``[DONE]`` or its end.

        Raises Dropped when the stream ends without ``[DONE]`` or a finish reason, Aborted
        when the user stopped it, and Overrun past ``limit`` bytes of it all (events with no
        text, a tool call's pieces and comments count too: a server that sends those for
        ever is otherwise read until the user stops it)."""
        finished = False
        read = 0
        try:
            while True:
                line = response.readline(MAX_LINE + 1)
                egress.count_traffic(self.guard_name, received=len(line))
                if not line:
                    break
                read += len(line)
                if limit is not None and read > limit:
                    raise Overrun(translate("inference.intranet", "The engine {name} sent far more "
                                            "than was asked for; Hearth stopped reading.").format(name=self.name))
                if len(line) > MAX_LINE:
                    raise EngineError(translate("inference.intranet", "The engine {name} sent a "
                                                "line too long to be an answer's piece.").format(name=self.name))
                text = line.strip()
                if not text.startswith(b"data:") and not text.startswith(b"error:"):
                    continue  # comments, keep-alives, event names, blank separators
                payload = text.split(b":", 1)[1].strip()
                if payload == b"[DONE]":
                    finished = True
                    break
                try:
                    event = json.loads(payload)
                except (ValueError, RecursionError):
                    event = payload.decode("utf-8", "replace") if text.startswith(b"error:") else None
                if text.startswith(b"error:") or (isinstance(event, dict) and (
                        "error" in event or event.get("object") == "error")):
                    raise EngineError(translate("inference.intranet", "The engine {name} reported "
                                                "an error: {error}").format(name=self.name,
                                                                            error=error_text(event) or "-"))
                if not isinstance(event, dict):
                    continue
                if any(isinstance(c, dict) and c.get("finish_reason") for c in event.get("choices") or []):
                    finished = True
                yield event
        except (OSError, ValueError, http.client.HTTPException) as exc:
            if abort is not None and abort.is_set():
                raise Aborted() from None
            if isinstance(exc, TimeoutError):
                raise Dropped(translate("inference.intranet", "The engine {name} stopped sending "
                                        "for {seconds} seconds.").format(
                                            name=self.name, seconds=int(self._read_timeout))) from None
            raise Dropped(translate("inference.intranet", "The connection to {name} dropped in the "
                                    "middle of the answer.").format(name=self.name)) from None
        if abort is not None and abort.is_set():
            raise Aborted()
        if not finished:
            raise Dropped(translate("inference.intranet", "The connection to {name} ended before the "
                                    "answer was complete.").format(name=self.name))



class Abort:
    """Stop one request from another thread: closes its connection, which unblocks the
    reading thread at once and tells the server to stop generating."""

    def __init__(self) -> None:
        self._event = threading.Event()
        self._lock = threading.Lock()
        self._conn: _Connection | None = None

    def attach(self, conn: _Connection) -> None:
        with self._lock:
            self._conn = conn
        if self._event.is_set():
            self._close(conn)

    def set(self) -> None:
        self._event.set()
        with self._lock:
            conn = self._conn
        if conn is not None:
            self._close(conn)

    def is_set(self) -> bool:
        return self._event.is_set()

    def wait(self, seconds: float) -> bool:
        return self._event.wait(seconds)

    @staticmethod
    def _close(conn: _Connection) -> None:
        """Shut the socket down (TLS or, during the connect and handshake, the raw TCP one)."""
        for sock in (conn.sock, conn.raw):
            if sock is not None:
                with contextlib.suppress(OSError):
                    sock.shutdown(socket.SHUT_RDWR)
