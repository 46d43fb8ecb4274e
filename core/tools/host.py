"""The tool servers of one unlock, on an event loop of their own.

The MCP SDK is asynchronous; the window and the terminal are not. The host runs one event
loop on a thread of its own and gives the rest of Hearth plain methods that wait for an
answer with a time limit, so that a server that hangs holds up neither the window nor the
inference worker. A server is started at its first use (never when it is added or when
Hearth starts), and every server is stopped, with everything it started, when the session
ends: at lock, auto-lock and quit.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import logging
import threading
import time
from collections.abc import Callable, Coroutine
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeVar

import anyio

from core.tools.results import CALL_SECONDS, START_SECONDS, ToolInfo, ToolResult
from core.tools.servers import CHECK_PREFIX, ToolError, ToolServerRecord, ToolServers
from guard import egress
from guard.sandbox import sweep

if TYPE_CHECKING:
    from core.tools.mcp_client import BaseConnection
from i18n import translate

log = logging.getLogger(__name__)
T = TypeVar("T")
MARGIN = 5.0  # seconds a caller waits beyond the host's own limit


@dataclass(frozen=True)
class Audit:
    """What a server did this session, for the Privacy panel."""

    server: str
    calls: int
    bytes_in: int
    bytes_out: int
    running: bool
    problem: str
    where: str = ""  # host:port of a server reached over HTTP, or what one started here may reach
    # A server started here that may reach the intranet: connections its relay let through
    # and those it refused (to a destination not granted), bytes each way over them.
    relayed: int = 0
    relay_refused: int = 0
    relayed_out: int = 0
    relayed_in: int = 0


def _connection(record: ToolServerRecord, check: bool = False) -> BaseConnection:
    """The connection for ``record``, its module loaded now (the SDK with it): started here
    in its sandbox, or reached over HTTP (``check``: admitted by the guard under a name of
    its own, for the check only, so that its end never revokes the running server's)."""
    if record.remote:
        from core.tools.mcp_http import HttpConnection

        return HttpConnection(record, egress.check_name(CHECK_PREFIX, record.name) if check else record.guard_name)
    from core.tools.mcp_client import Connection

    return Connection(record)


def _closed_meanwhile() -> str:
    return translate("core.tools", "The tools were stopped: Hearth was locked or is closing.")


class ToolHost:
    def __init__(self, servers: ToolServers) -> None:
        self.servers = servers
        self._connections: dict[str, BaseConnection] = {}  # (the SDK is loaded at a server's first start)
        self._lock = threading.Lock()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._group: anyio.abc.TaskGroup | None = None
        self._starting: dict[str, asyncio.Future] = {}  # on the loop: the starts under way
        self._closed = False

    # The loop ---------------------------------------------------------------------------
    def _ensure_loop(self) -> asyncio.AbstractEventLoop:
        with self._lock:
            if self._closed:
                raise ToolError(translate("core.tools", "Hearth is locked: tools stopped."))
            if self._loop is None:
                sweep()  # what the servers of a Hearth that crashed left behind
                ready = threading.Event()
                self._thread = threading.Thread(target=self._run, args=(ready,), name="hearth-tools",
                                                daemon=True)
                self._thread.start()
                ready.wait(10)
            assert self._loop is not None
            return self._loop

    def _run(self, ready: threading.Event) -> None:
        async def main() -> None:
            self._loop = asyncio.get_running_loop()
            self._stopped = asyncio.Event()
            async with anyio.create_task_group() as group:
                self._group = group
                ready.set()
                await self._stopped.wait()
                group.cancel_scope.cancel()

        try:
            asyncio.run(main())
        except Exception:
            log.exception("the tool host's loop ended")
        finally:
            ready.set()

    def _wait(self, work: Callable[[], Coroutine[Any, Any, T]], seconds: float) -> T:
        loop = self._ensure_loop()
        future = asyncio.run_coroutine_threadsafe(work(), loop)
        try:
            return future.result(seconds + MARGIN)
        except concurrent.futures.TimeoutError:
            future.cancel()
            raise ToolError(translate("core.tools", "The tools did not answer in time.")) from None
        except concurrent.futures.CancelledError:  # the host closed meanwhile (a lock, the quit)
            raise ToolError(_closed_meanwhile()) from None

    # Servers ----------------------------------------------------------------------------
    def start(self, name: str) -> list[ToolInfo]:
        """The server's tools, starting it first if it is not running (ToolError)."""
        record = self.servers.require(name)
        return self._wait(lambda: self._start(record), START_SECONDS)

    async def _start(self, record: ToolServerRecord) -> list[ToolInfo]:
        """One start per server at a time: a second caller waits for the first's, rather
        than start a copy that nothing would ever stop before the lock."""
        connection = self._connections.get(record.name)
        if connection is not None and connection.running:
            return connection.tools
        pending = self._starting.get(record.name)
        if pending is None:
            connection = _connection(record)
            self._connections[record.name] = connection
            assert self._group is not None
            pending = self._starting[record.name] = asyncio.ensure_future(connection.start(self._group))
            name = record.name

            def started(_done: asyncio.Future) -> None:
                self._starting.pop(name, None)

            pending.add_done_callback(started)
        return await asyncio.shield(pending)

    def tools_of(self, name: str) -> list[ToolInfo]:
        """A running server's tools ([] when it is not running): never starts one."""
        connection = self._connections.get(name)
        return list(connection.tools) if connection is not None and connection.running else []

    def check(self, name: str) -> list[ToolInfo]:
        """Start the server in its sandbox, list its tools, stop it (ToolError)."""
        record = self.servers.require(name)

        async def check() -> list[ToolInfo]:
            connection = _connection(record, check=True)
            assert self._group is not None
            try:
                return await connection.start(self._group)
            finally:
                await connection.stop()

        return self._wait(check, START_SECONDS)

    def call(self, server: str, tool: str, arguments: dict[str, Any],
             seconds: float = CALL_SECONDS) -> ToolResult:
        """Run one tool (the server started if need be); ToolError in the user's words."""
        try:
            return self.submit(server, tool, arguments, seconds).result(START_SECONDS + seconds + MARGIN)
        except concurrent.futures.TimeoutError:
            raise ToolError(translate("core.tools", "The tools did not answer in time.")) from None
        except concurrent.futures.CancelledError:
            raise ToolError(_closed_meanwhile()) from None

    def submit(self, server: str, tool: str, arguments: dict[str, Any],
               seconds: float = CALL_SECONDS) -> concurrent.futures.Future:
        """``call`` without waiting: a future of its ToolResult (or its ToolError), for a
        turn that must not block its thread. Cancelling it cancels the call (Stop)."""
        record = self.servers.require(server)

        async def call() -> ToolResult:
            await self._start(record)
            connection = self._connections.get(server)
            if connection is None:
                raise ToolError(translate("core.tools", "{name} is not running.").format(name=server))
            return await connection.call(tool, arguments, seconds)

        return asyncio.run_coroutine_threadsafe(call(), self._ensure_loop())

    def running(self, name: str) -> bool:
        connection = self._connections.get(name)
        return connection is not None and connection.running

    def stop(self, name: str, wait: bool = True) -> None:
        """End a server's session and reap it. ``wait=False`` (the window's thread): the stop
        runs on the host's loop and nothing waits for it; a server that no longer answers
        takes its few seconds there, not in the window."""
        connection = self._connections.get(name)
        if connection is None or self._loop is None:
            return
        if wait:
            self._wait(connection.stop, 5.0)
        else:
            asyncio.run_coroutine_threadsafe(connection.stop(), self._loop)

    def audit(self) -> list[Audit]:
        audits = []
        for c in list(self._connections.values()):
            relay = getattr(c, "relay", None)
            counted = relay.counters if relay is not None else None
            audits.append(Audit(c.record.name, c.calls, c.bytes_in, c.bytes_out, c.running, c.problem,
                                c.record.where(), *((counted.connections, counted.refused, counted.sent,
                                                     counted.received) if counted else ())))
        return audits

    def close(self, timeout: float = 2.0) -> None:
        """Stop every server and the loop (the session's end). Idempotent."""
        with self._lock:
            self._closed = True
            loop = self._loop
        connections = list(self._connections.values())
        for connection in connections:
            connection.kill()  # at once, from this thread: a signal needs no loop
        if loop is None or loop.is_closed():
            return
        deadline = time.monotonic() + timeout

        async def shutdown() -> None:
            for connection in connections:
                await connection.stop()  # reaped: nothing left in their groups
            self._stopped.set()

        future = asyncio.run_coroutine_threadsafe(shutdown(), loop)
        with contextlib.suppress(Exception):
            future.result(timeout)
        if self._thread is not None:
            self._thread.join(max(0.1, deadline - time.monotonic()))
