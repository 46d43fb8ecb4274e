"""One MCP server reached over Streamable HTTP, at the intranet address the user added.

The SDK's client transport (``mcp.client.streamable_http``) speaks the protocol; the HTTP
client under it is Hearth's, so that nothing happens the user did not set up:

- its host and port are admitted by the egress guard when it starts (``allow_destination``
  under the server's own guard name, its name resolved then, once) and revoked when it
  stops; a connection goes only to an address the guard resolved, on that one port, and a
  request for any other host or port is refused before a socket is made;
- TLS is the engines' (``inference.trust.tls_context``: system CAs, the organisation's CA,
  a pin), and the pin is checked after the handshake, before a byte of a request is sent;
- no redirect is followed (an MCP server that redirects elsewhere reaches nothing), no
  proxy variable, ``.netrc`` or certificate variable of the environment is read;
- one message (a JSON answer, one event of a stream) is at most MESSAGE_LIMIT bytes, like a
  line from a server on standard input and output: a server that sends more is stopped;
- the bytes each way are counted for the Privacy panel and the guard's own counters.

Like the other connection, it lives on the tool host's event loop.
"""

from __future__ import annotations

import contextlib
import logging
import ssl
from collections.abc import AsyncIterator, Iterable
from typing import Any
from urllib.parse import urlsplit

import anyio
import anyio.to_thread
import httpcore2
import httpx2
from httpcore2 import AsyncNetworkBackend, AsyncNetworkStream
from httpcore2._backends.anyio import AnyIOBackend
from mcp.client.streamable_http import streamable_http_client

from core.tools.mcp_client import BaseConnection, UncheckedSession, failure
from core.tools.results import (
    CALL_SECONDS,
    MESSAGE_LIMIT,
    REAP_SECONDS,
    START_SECONDS,
    ToolInfo,
    ToolResult,
)
from core.tools.servers import ToolError, ToolServerRecord
from guard import egress
from guard.text import one_line
from i18n import translate
from inference.trust import (
    Endpoint,
    EngineError,
    certificate_pins,
    normalise_pin,
    parse_url,
    tls_context,
)

log = logging.getLogger(__name__)
CONNECT_SECONDS = 10.0
IDLE_SECONDS = 300.0  # the server's own stream of notifications may stay quiet this long


class _TooLarge(httpx2.StreamError):
    """A message over the limit (the SDK answers the request it was for with an error)."""


class _Counted(AsyncNetworkStream):
    """A connection's stream: what passes is counted, and TLS is checked against the pin."""

    def __init__(self, inner: AsyncNetworkStream, link: HttpConnection) -> None:
        self._inner = inner
        self._link = link

    async def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        data = await self._inner.read(max_bytes, timeout)
        self._link.counted(received=len(data))
        return data

    async def write(self, buffer: bytes, timeout: float | None = None) -> None:
        await self._inner.write(buffer, timeout)
        self._link.counted(sent=len(buffer))

    async def aclose(self) -> None:
        await self._inner.aclose()

    async def start_tls(self, ssl_context: ssl.SSLContext, server_hostname: str | None = None,
                        timeout: float | None = None) -> AsyncNetworkStream:
        try:
            secured = await self._inner.start_tls(ssl_context, server_hostname, timeout)
        except httpcore2.ConnectError as exc:
            cause = exc.__cause__ or exc.__context__
            if not isinstance(cause, ssl.SSLError):
                raise
            detail = getattr(cause, "verify_message", "") or getattr(cause, "reason", "") or str(cause)
            raise self._link.refuse(translate(
                "core.tools", "{name}: the secure connection failed ({detail}). Add your organisation's CA "
                "certificate, or pin the server's certificate. Nothing was sent.").format(
                name=self._link.record.name, detail=one_line(str(detail))[:120])) from None
        pin = self._link.record.trust.pin
        if pin:
            peer = secured.get_extra_info("ssl_object")
            der = peer.getpeercert(binary_form=True) if peer is not None else b""
            if not der or normalise_pin(pin) not in certificate_pins(der):
                await secured.aclose()
                raise self._link.refuse(translate(
                    "core.tools", "{name}: the server's certificate does not match the pinned SHA-256: "
                    "this may not be your organisation's server. Nothing was sent.").format(
                    name=self._link.record.name))
        return _Counted(secured, self._link)

    def get_extra_info(self, info: str) -> Any:
        return self._inner.get_extra_info(info)


class _Backend(AsyncNetworkBackend):
    """Connections to the server's admitted addresses only, on its one port."""

    def __init__(self, link: HttpConnection) -> None:
        self._link = link
        self._plain = AnyIOBackend()

    async def connect_tcp(self, host: str, port: int, timeout: float | None = None,
                          local_address: str | None = None,
                          socket_options: Iterable[Any] | None = None) -> AsyncNetworkStream:
        endpoint = self._link.endpoint
        if (host.lower(), int(port)) != (endpoint.host.lower(), endpoint.port):  # a redirect's, say
            raise self._link.refuse(translate("core.tools", "{name} sent Hearth to another address; it "
                                              "was not followed.").format(name=self._link.record.name))
        last: Exception | None = None
        for address in admitted(self._link.guard_name, endpoint):
            try:
                stream = await self._plain.connect_tcp(address, endpoint.port, timeout, local_address,
                                                       socket_options)
            except (httpcore2.ConnectError, httpcore2.ConnectTimeout) as exc:
                last = exc  # nothing was sent: the next address may answer
                continue
            return _Counted(stream, self._link)
        raise self._link.refuse(translate("core.tools", "{name} cannot be reached at {where} ({problem}).").format(
            name=self._link.record.name, where=f"{endpoint.host}:{endpoint.port}", problem=_reason(last)))

    async def connect_unix_socket(self, path: str, timeout: float | None = None,
                                  socket_options: Iterable[Any] | None = None) -> AsyncNetworkStream:
        raise httpcore2.ConnectError("not this server")

    async def sleep(self, seconds: float) -> None:
        await anyio.sleep(seconds)


def _reason(exc: BaseException | None) -> str:
    """Why a connection failed, in a few words: the guard's refusal when it was one (anyio
    wraps it in an error of its own)."""
    seen: list[BaseException] = []
    while exc is not None and exc not in seen:
        seen.append(exc)
        if isinstance(exc, egress.EgressBlocked):
            return translate("core.tools", "Hearth's network guard refused it: {why}").format(why=one_line(str(exc)))
        exc = exc.__cause__ or exc.__context__ or next(iter(getattr(exc, "exceptions", None) or ()), None)
    return failure(seen[0] if seen else None)


def admitted(guard_name: str, endpoint: Endpoint) -> list[str]:
    """The addresses the guard resolved for this server (IPv4 first); [] when it is not
    admitted, or admitted for another host or port (an edit meanwhile)."""
    for found in egress.destinations():
        if found.name == guard_name and (found.host, found.port) == (endpoint.host, endpoint.port):
            return sorted(found.addresses, key=lambda a: ":" in a)
    return []


class _Bounded(httpx2.AsyncByteStream):
    """A response's body, at most MESSAGE_LIMIT bytes a message: the whole body of a JSON
    answer, each event of a stream (they end with a blank line)."""

    def __init__(self, inner: httpx2.AsyncByteStream, link: HttpConnection, events: bool) -> None:
        self._inner = inner
        self._link = link
        self._events = events

    async def __aiter__(self) -> AsyncIterator[bytes]:
        pending = 0  # bytes of the message under way
        tail = b""
        async for chunk in self._inner:
            if self._events:
                data = tail + chunk
                ends = [data.rfind(mark) + len(mark) for mark in (b"\n\n", b"\r\n\r\n", b"\r\r") if mark in data]
                pending = len(data) - max(ends) if ends else pending + len(chunk)
                tail = data[-3:]
            else:
                pending += len(chunk)
            if pending > MESSAGE_LIMIT:
                raise self._link.too_large()
            yield chunk

    async def aclose(self) -> None:
        await self._inner.aclose()


class _Transport(httpx2.AsyncHTTPTransport):
    """httpx2's transport over the backend above, with the engines' TLS; it answers a
    redirect by stopping the server, and bounds what a response may hold."""

    def __init__(self, link: HttpConnection, context: ssl.SSLContext) -> None:
        super().__init__(verify=context, trust_env=False, retries=0)
        # httpx2 builds its pool without a choice of network backend: ours replaces it.
        self._pool = httpcore2.AsyncConnectionPool(ssl_context=context, max_connections=8, retries=0,
                                                   network_backend=_Backend(link))
        self._link = link

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        # Bytes as they are bounded: a compressed body would be bounded before it grows
        # (4 MB of gzip is gigabytes); one the server compresses anyway is refused.
        request.headers["Accept-Encoding"] = "identity"
        response = await super().handle_async_request(request)
        if response.headers.get("content-encoding", "identity").strip().lower() != "identity":
            await response.aclose()
            self._link.fail(translate("core.tools", "{name} sent a compressed answer, which Hearth does not "
                                      "take from a tool server; it was stopped.").format(name=self._link.record.name))
            raise _TooLarge(self._link.problem)
        status = response.status_code
        if 300 <= status < 400:
            self._link.fail(translate("core.tools", "{name} answered with a redirect (HTTP {status}); Hearth "
                                      "does not follow one. Use the address the server should be reached "
                                      "at.").format(name=self._link.record.name, status=status))
        elif status in (401, 403) and not self._link.problem:
            self._link.problem = translate("core.tools", "{name} refused Hearth (HTTP {status}): check the "
                                           "server's token.").format(name=self._link.record.name, status=status)
        length = response.headers.get("content-length", "")
        if length.isdigit() and int(length) > MESSAGE_LIMIT:
            await response.aclose()
            raise self._link.too_large()
        events = response.headers.get("content-type", "").lower().startswith("text/event-stream")
        assert isinstance(response.stream, httpx2.AsyncByteStream)
        return httpx2.Response(status, headers=response.headers, extensions=response.extensions,
                               stream=_Bounded(response.stream, self._link, events), request=request)


class HttpConnection(BaseConnection):
    """A server reached over Streamable HTTP."""

    def __init__(self, record: ToolServerRecord, guard_name: str) -> None:
        super().__init__(record)
        self.guard_name = guard_name
        try:
            self.endpoint = parse_url(record.url, record.trust)
        except EngineError as exc:
            raise ToolError(str(exc)) from None
        self._calls: set[anyio.CancelScope] = set()
        self._scope: anyio.CancelScope | None = None
        self._started = False

    # What the HTTP client reports -------------------------------------------------------
    def counted(self, sent: int = 0, received: int = 0) -> None:
        self.bytes_out += sent
        self.bytes_in += received
        egress.count_traffic(self.guard_name, sent, received)

    def refuse(self, problem: str) -> httpcore2.ConnectError:
        """Nothing could be sent: the reason kept, the error for the HTTP client."""
        self.fail(problem)
        return httpcore2.ConnectError(problem)

    def too_large(self) -> _TooLarge:
        self.fail(translate("core.tools", "{name} sent a message larger than {mb} MB; it was stopped.").format(
            name=self.record.name, mb=MESSAGE_LIMIT // (1024 * 1024)))
        return _TooLarge(self.problem)

    def fail(self, problem: str) -> None:
        """The server cannot be used any more: say why, stop it, end the calls under way."""
        if not self.problem:
            self.problem = problem
        self._done.set()
        for scope in list(self._calls):
            scope.cancel()
        if not self._ready.is_set() and self._scope is not None:
            self._scope.cancel()  # still starting: start() says why at once

    # Starting ---------------------------------------------------------------------------
    async def start(self, task_group: anyio.abc.TaskGroup) -> list[ToolInfo]:
        """Admit the address, shake hands, list the tools; ToolError with the reason if any
        of it fails (the address is revoked then)."""
        from guard import seccomp

        if seccomp.RESTRICTION.active:
            raise ToolError(translate("core.tools", "Hearth started with no network at all, as it does while "
                                      "nothing needs it: {name} can be reached once Hearth starts again.").format(
                name=self.record.name))
        try:
            await anyio.to_thread.run_sync(egress.allow_destination, self.guard_name, self.endpoint.host,
                                           self.endpoint.port)
        except OSError as exc:  # the resolver's words ("Name or service not known") are the log's
            log.info("looking up a tool server's host name failed: %s", exc)
            raise ToolError(translate("core.tools", "{name}: the host name {host} cannot be found on this "
                                      "network; check the address.").format(name=self.record.name,
                                                                             host=self.endpoint.host)) from None
        try:
            context = tls_context(self.record.trust)
        except EngineError as exc:
            egress.revoke_destination(self.guard_name)
            raise ToolError(str(exc)) from None
        task_group.start_soon(self._lifetime, context)
        self._started = True
        with anyio.move_on_after(START_SECONDS):
            await self._ready.wait()
        if self._session is None:
            problem = self.problem or translate("core.tools", "{name} did not answer within {seconds:.0f} s.") \
                .format(name=self.record.name, seconds=START_SECONDS)
            await self.stop()
            raise ToolError(problem)
        return self.tools

    def _client(self, context: ssl.SSLContext) -> httpx2.AsyncClient:
        headers = {"User-Agent": "Hearth"}
        if self.record.token:
            headers["Authorization"] = f"Bearer {self.record.token}"
        return httpx2.AsyncClient(transport=_Transport(self, context), headers=headers, trust_env=False,
                                  follow_redirects=False, max_redirects=0,
                                  timeout=httpx2.Timeout(CONNECT_SECONDS, read=IDLE_SECONDS))

    def _address(self) -> str:
        """The URL the SDK posts to: the user's path on the endpoint as checked."""
        path = urlsplit(self.record.url.strip()).path or "/"
        host = f"[{self.endpoint.host}]" if ":" in self.endpoint.host else self.endpoint.host
        return f"{self.endpoint.scheme}://{host}:{self.endpoint.port}{path}"

    async def _lifetime(self, context: ssl.SSLContext) -> None:
        try:
            with anyio.CancelScope() as self._scope:
                async with self._client(context) as client, streamable_http_client(
                        self._address(), http_client=client, max_sse_event_size=MESSAGE_LIMIT) as (read, write), \
                        UncheckedSession(read, write) as session:
                    await self._listed(session)
                    await self._done.wait()
        except Exception as exc:  # unreachable, refused, nonsense, the protocol broken
            if not self.problem:
                self.problem = self._ended_message(exc)
            # Its kind only: the message holds the server's name, address and words.
            log.info("tool server %s ended (%s)", egress.log_tag(self.record.name), type(exc).__name__)
        finally:
            self._session = None
            egress.revoke_destination(self.guard_name)
            self._ready.set()
            self._done.set()
            self._ended.set()

    def _ended_message(self, exc: BaseException | None = None) -> str:
        return translate("core.tools", "{name} stopped answering ({problem}).").format(
            name=self.record.name, problem=failure(exc))

    # Using it ---------------------------------------------------------------------------
    async def call(self, tool: str, arguments: dict[str, Any], seconds: float = CALL_SECONDS) -> ToolResult:
        with anyio.CancelScope() as scope:
            self._calls.add(scope)
            try:
                return await super().call(tool, arguments, seconds)
            except ToolError:
                if self._done.is_set():  # a fault (too large, redirected) ended the server
                    await self.stop()
                raise
            finally:
                self._calls.discard(scope)
        await self.stop()
        raise ToolError(self.problem or translate("core.tools", "{name} is not running.").format(
            name=self.record.name))

    async def stop(self) -> None:
        """End the session (the server is told, briefly), close the connections, revoke the
        address."""
        self._done.set()
        if self._started:
            with anyio.move_on_after(REAP_SECONDS):
                await self._ended.wait()
        if not self._ended.is_set() and self._scope is not None:
            self._scope.cancel()
            with anyio.move_on_after(REAP_SECONDS):
                await self._ended.wait()
        egress.revoke_destination(self.guard_name)

    def kill(self) -> None:
        self._killed = True
        with contextlib.suppress(Exception):
            egress.revoke_destination(self.guard_name)  # from any thread: the guard has its lock
