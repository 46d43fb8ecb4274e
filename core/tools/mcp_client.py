"""One MCP server over standard input and output, started in its sandbox.

The official SDK's ``ClientSession`` speaks the protocol; the transport under it is ours,
because the SDK's reads a line of any length into memory: a server that writes a gigabyte
without a line break would take Hearth's memory with it. Here a message is at most
MESSAGE_LIMIT bytes; a server that sends more is stopped and the user is told. So is one
that does not answer in time, and one that exits. Everything the server writes on its
standard error is kept (the last few lines) for the message that explains a failure.

A connection lives on the tool host's event loop (``core.tools.host``); its methods are
coroutines for that loop.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import signal
import ssl
import sys
import time
from typing import Any

import anyio
import anyio.to_thread
import httpcore2
import httpx2
import mcp_types as types
from mcp.client.session import ClientSession
from mcp.shared.exceptions import MCPError
from mcp.shared.message import SessionMessage

from core.tools.results import (
    CALL_SECONDS,
    MESSAGE_LIMIT,
    REAP_SECONDS,
    START_SECONDS,
    STDERR_KEPT,
    ToolInfo,
    ToolResult,
    untrusted,
)
from core.tools.servers import ToolError, ToolServerRecord, forbidden, missing_layers
from guard import confine, egress, sandbox
from guard.relay import Relay
from guard.text import one_line
from i18n import translate
from storage.errors import why_not

log = logging.getLogger(__name__)
_TIMEOUTS = (TimeoutError, httpx2.TimeoutException, httpcore2.TimeoutException)
_CLOSED = (anyio.EndOfStream, anyio.ClosedResourceError, anyio.BrokenResourceError, ConnectionError,
           httpx2.RemoteProtocolError, httpx2.ReadError, httpx2.WriteError, httpx2.CloseError,
           httpcore2.RemoteProtocolError, httpcore2.ReadError, httpcore2.WriteError)
_NOT_MCP = (ValueError, httpx2.DecodingError, httpx2.ProtocolError, httpcore2.ProtocolError)


def _server_said(exc: Exception) -> str:
    """A call's failure: the server's own error message (its words, for the model to act on),
    else why it failed (``failure``)."""
    if isinstance(exc, MCPError) and exc.code != types.CONNECTION_CLOSED:
        return one_line(exc.message)[:300]
    return failure(exc)


def failure(exc: BaseException | None) -> str:
    """Why talking to a tool server failed, in a few of the user's words: a ToolError's text is
    what the user reads in the tool panel and what the model reads, so it says what can be
    done about it. The exception's type and words (a library's, English) go to the log."""
    while exc is not None and getattr(exc, "exceptions", None):  # a task group's: its first
        exc = exc.exceptions[0]  # type: ignore[attr-defined]
    if exc is not None:
        log.info("a tool server failed: %s: %s", type(exc).__name__, one_line(str(exc))[:300])
    seen: list[BaseException] = []
    while exc is not None and exc not in seen and len(seen) < 8:
        seen.append(exc)
        if isinstance(exc, MCPError) and exc.code == types.CONNECTION_CLOSED:  # the SDK's, not the server's
            return translate("core.tools", "the server closed the connection")
        if isinstance(exc, _TIMEOUTS):
            return translate("core.tools", "the server did not answer in time")
        if isinstance(exc, ConnectionRefusedError):
            return translate("core.tools", "nothing answers at that address (is the server running?)")
        if isinstance(exc, _CLOSED):
            return translate("core.tools", "the server closed the connection")
        if isinstance(exc, httpx2.HTTPStatusError):
            return translate("core.tools", "the server answered with an error (HTTP {status})").format(
                status=exc.response.status_code)
        if isinstance(exc, ssl.SSLError):
            return translate("core.tools", "the secure connection to the server failed (the details are in the log)")
        if isinstance(exc, _NOT_MCP):
            return translate("core.tools", "the server's answer is not valid MCP")
        exc = exc.__cause__ or exc.__context__
    return translate("core.tools", "the connection to the server failed (the details are in the log)")

def result_text(result: types.CallToolResult) -> str:
    parts: list[str] = []
    for item in result.content:
        if isinstance(item, types.TextContent):
            parts.append(item.text)
        else:  # images, audio, resources: not shown to the model in this version
            parts.append(f"[{getattr(item, 'type', 'content')} left out]")
    return "\n".join(parts)


class UncheckedSession(ClientSession):
    """The SDK's session without its check of a result against the tool's output schema:
    Hearth gives the model a result's text only, and a server's schema (a regular
    expression made to backtrack, say) could take any time to check, on the tools' loop,
    holding the interpreter's lock that the window needs too."""

    async def validate_tool_result(self, name: str, result: types.CallToolResult) -> None:
        return None


class BaseConnection:
    """What every started server has, however it is reached: its tools, ``call``, ``stop``.
    ``bytes_in``/``bytes_out`` and ``calls`` are for the Privacy panel."""

    def __init__(self, record: ToolServerRecord) -> None:
        self.record = record
        self.tools: list[ToolInfo] = []
        self.bytes_in = self.bytes_out = self.calls = 0
        self.missing_layers: list[str] = []
        self.problem = ""  # why it stopped, when it did on its own
        self._session: ClientSession | None = None
        self._done = anyio.Event()  # asked to stop
        self._ended = anyio.Event()  # stopped, all it held let go
        self._ready = anyio.Event()
        self._killed = False

    async def start(self, task_group: anyio.abc.TaskGroup) -> list[ToolInfo]:
        raise NotImplementedError

    async def stop(self) -> None:
        raise NotImplementedError

    def kill(self) -> None:
        """Stop at once; callable from any thread (the session's end)."""
        raise NotImplementedError

    def _ended_message(self, exc: BaseException | None = None) -> str:
        raise NotImplementedError

    async def _listed(self, session: ClientSession) -> None:
        """Shake hands, keep the tools it lists (bounded, their descriptions untrusted)."""
        await session.initialize()
        listing = await session.list_tools()
        self.tools = [ToolInfo(self.record.name, one_line(t.name)[:64], untrusted(t.description or "", 2000)[0],
                               dict(t.input_schema)) for t in listing.tools[:128]]
        self._session = session
        self._ready.set()

    # Using it -------------------------------------------------------------------------
    async def call(self, tool: str, arguments: dict[str, Any], seconds: float = CALL_SECONDS) -> ToolResult:
        """Call ``tool``; ToolError when the server has stopped, stops meanwhile or does not
        answer within ``seconds`` (then it is stopped: a server that hangs once is not
        trusted with the next call)."""
        session = self._session
        if session is None:
            raise ToolError(self.problem or translate("core.tools", "{name} is not running.").format(
                name=self.record.name))
        self.calls += 1
        started = time.monotonic()
        result: types.CallToolResult | None = None
        with anyio.move_on_after(seconds):
            try:
                result = await session.call_tool(tool, arguments)
            except Exception as exc:
                if not self.problem:
                    self.problem = self._ended_message(exc) if self._session is None else translate(
                        "core.tools", "{name} could not run {tool}: {problem}").format(
                        name=self.record.name, tool=tool, problem=_server_said(exc))
                raise ToolError(self.problem) from None
        if result is None:
            self.problem = translate("core.tools", "{name} did not answer within {seconds:.0f} s; it "
                                     "was stopped.").format(name=self.record.name, seconds=seconds)
            await self.stop()
            raise ToolError(self.problem)
        text, cut = untrusted(result_text(result))
        return ToolResult(text, bool(result.is_error), cut, time.monotonic() - started)

    @property
    def running(self) -> bool:
        return self._session is not None and not self._killed


class Connection(BaseConnection):
    """A server started here, over its standard input and output, in its sandbox."""

    def __init__(self, record: ToolServerRecord) -> None:
        super().__init__(record)
        self._stderr = b""
        self._process: anyio.abc.Process | None = None
        self._plan: sandbox.Plan | None = None
        self.relay: Relay | None = None  # for a server that may reach the intranet

    # Starting -------------------------------------------------------------------------
    async def start(self, task_group: anyio.abc.TaskGroup) -> list[ToolInfo]:
        """Start the server in its sandbox, shake hands, list its tools; ToolError with the
        reason if any of it fails (the server is stopped then)."""
        layers = sandbox.layers()
        if not layers.complete and not self.record.unconfined_ok:
            raise ToolError(unconfined_message(self.record.name, layers))
        try:
            self._plan = sandbox.plan(self.record.command, list(self.record.args), self.record.read,
                                      self.record.write, self.record.env, forbidden(),
                                      require=layers.complete)
        except (ValueError, OSError) as exc:
            raise ToolError(translate("core.tools", "{name} cannot start: {problem}").format(
                name=self.record.name, problem=one_line(str(exc)))) from None
        if self.record.reach:
            from guard import seccomp

            if not sys.platform.startswith("linux"):  # its own network is made with Linux's namespaces
                self._plan.close()
                raise ToolError(translate("core.tools", "{name} may reach the intranet, which Hearth can confine "
                                          "on Linux only for now: remove its addresses to run it here with no "
                                          "network.").format(name=self.record.name))
            if seccomp.RESTRICTION.active:
                self._plan.close()
                raise ToolError(translate("core.tools", "Hearth started with no network at all, as it does while "
                                          "nothing needs it: {name} can reach the intranet once Hearth starts "
                                          "again.").format(name=self.record.name))
            self.relay = Relay(self.record.guard_name, list(self.record.reach))
            self._plan.relay = self.relay.child_fd
        argv, env = self._plan.spawn()
        task_group.start_soon(self._lifetime, argv, env)
        with anyio.move_on_after(START_SECONDS):
            await self._ready.wait()
        if self._session is None:
            problem = self.problem or translate("core.tools", "{name} did not start within {seconds:.0f} s.") \
                .format(name=self.record.name, seconds=START_SECONDS)
            await self.stop()
            raise ToolError(problem)
        return self.tools

    async def _lifetime(self, argv: list[str], env: dict[str, str]) -> None:
        read_writer, read_stream = anyio.create_memory_object_stream[SessionMessage | Exception](16)
        write_stream, write_reader = anyio.create_memory_object_stream[SessionMessage](16)
        relay = self.relay
        try:
            self._process = await anyio.open_process(argv, env=env, start_new_session=True,
                                                     pass_fds=(relay.child_fd,) if relay else ())
        except OSError as exc:
            self.problem = translate("core.tools", "{name} cannot start: {problem}").format(
                name=self.record.name, problem=why_not(exc))
            if relay is not None:
                relay.close()
            self._ready.set()
            self._ended.set()
            return
        finally:
            if relay is not None:
                relay.started()  # the launcher has its end; Hearth's copy goes
        try:
            async with anyio.create_task_group() as group:
                group.start_soon(self._read_stdout, read_writer)
                group.start_soon(self._write_stdin, write_reader)
                group.start_soon(self._read_stderr)
                async with UncheckedSession(read_stream, write_stream) as session:
                    await self._listed(session)
                    await self._done.wait()
                group.cancel_scope.cancel()
        except Exception as exc:  # the server went away, sent nonsense, broke the protocol
            if not self.problem:
                with anyio.move_on_after(1.0, shield=True):
                    await self._process.wait()  # its exit code says more than a broken pipe
                self.problem = self._ended_message(exc)
            # Its kind only: the message holds the server's name and what it wrote to stderr.
            log.info("tool server %s ended (%s)", egress.log_tag(self.record.name), type(exc).__name__)
        finally:
            self._session = None
            self.kill()
            self._ready.set()
            self._done.set()
            with anyio.move_on_after(REAP_SECONDS, shield=True):
                await self._process.wait()  # no zombie left in the group
            with anyio.CancelScope(shield=True), contextlib.suppress(Exception):
                await self._process.aclose()
            if self._plan is not None:
                with anyio.CancelScope(shield=True):
                    await anyio.to_thread.run_sync(self._plan.close)
            if relay is not None:
                with anyio.CancelScope(shield=True):
                    await anyio.to_thread.run_sync(relay.close)
            self._ended.set()

    def _ended_message(self, exc: BaseException | None = None) -> str:
        code = self._process.returncode if self._process is not None else None
        said = self.said()
        if code == confine.REFUSED and said:
            return translate("core.tools", "{name} was not started: {reason}").format(
                name=self.record.name, reason=said)
        detail = f" {said}" if said else ""
        if code is not None:
            return translate("core.tools", "{name} stopped (exit code {code}).{detail}").format(
                name=self.record.name, code=code, detail=detail)
        return translate("core.tools", "{name} stopped answering ({problem}).{detail}").format(
            name=self.record.name, problem=failure(exc), detail=detail)

    def said(self) -> str:
        """The last line the server wrote on its standard error, as a label."""
        lines = [line for line in self._stderr.decode("utf-8", "replace").splitlines() if line.strip()]
        text = lines[-1] if lines else ""
        return one_line(text.removeprefix(confine.PREFIX))[:300]

    # The pipes ------------------------------------------------------------------------
    async def _read_stdout(self, sink: Any) -> None:
        assert self._process is not None and self._process.stdout is not None
        buffer = b""
        async with sink:
            with contextlib.suppress(anyio.EndOfStream, anyio.ClosedResourceError, anyio.BrokenResourceError):
                while True:
                    chunk = await self._process.stdout.receive(65536)
                    self.bytes_in += len(chunk)
                    buffer += chunk
                    *lines, buffer = buffer.split(b"\n")
                    if len(buffer) > MESSAGE_LIMIT:
                        self.problem = translate(
                            "core.tools", "{name} sent a message larger than {mb} MB; it was stopped.").format(
                            name=self.record.name, mb=MESSAGE_LIMIT // (1024 * 1024))
                        self.kill()
                        return
                    for line in lines:
                        if line.strip():
                            await sink.send(_parse(line))

    async def _write_stdin(self, source: Any) -> None:
        assert self._process is not None and self._process.stdin is not None
        with contextlib.suppress(anyio.ClosedResourceError, anyio.BrokenResourceError, OSError):
            async with source:
                async for message in source:
                    data = (message.message.model_dump_json(by_alias=True, exclude_unset=True) + "\n").encode()
                    self.bytes_out += len(data)
                    await self._process.stdin.send(data)

    async def _read_stderr(self) -> None:
        assert self._process is not None and self._process.stderr is not None
        with contextlib.suppress(anyio.EndOfStream, anyio.ClosedResourceError, anyio.BrokenResourceError):
            while True:
                self._stderr = (self._stderr + await self._process.stderr.receive(65536))[-STDERR_KEPT:]

    async def stop(self) -> None:
        """Stop the server and everything it started (its process group), at once, and
        wait (briefly) until it is gone."""
        self._done.set()
        self.kill()
        if self._process is not None or self._plan is not None:
            with anyio.move_on_after(REAP_SECONDS + 1):
                await self._ended.wait()

    def kill(self) -> None:
        process = self._process
        if process is not None and not self._killed:
            self._killed = True  # once: a group long gone may have given its number away
            with contextlib.suppress(ProcessLookupError, PermissionError, OSError):
                if hasattr(os, "killpg"):
                    os.killpg(process.pid, signal.SIGKILL)
                else:  # Windows: the launcher ends, its job closes, and all it started with it
                    process.kill()
        if process is None and self._plan is not None:
            self._plan.close()  # never started: nothing to wait for



def _parse(line: bytes) -> SessionMessage | Exception:
    """A line from the server as a JSON-RPC message, or why it is not one (the SDK's
    session logs it and goes on).

    Text that is not UTF-8 (a file name as the system gave it, through a server's
    ``json.dumps``) or holds a lone surrogate (a string cut inside an emoji) is read with
    U+FFFD in place of what cannot be a character. The SDK's strict reader refused the
    whole line: the request it answered waited out its limit, and the server was stopped
    and blamed for not answering."""
    try:
        return SessionMessage(types.jsonrpc_message_adapter.validate_json(line, by_name=False))
    except ValueError as exc:
        refused = exc
    try:
        data = _characters(json.loads(line.decode("utf-8", errors="replace")))
        return SessionMessage(types.jsonrpc_message_adapter.validate_python(data, by_name=False))
    except (ValueError, RecursionError):
        return refused


def _characters(value: Any) -> Any:
    """``value`` read from JSON, each lone surrogate in its strings (keys too) a U+FFFD."""
    if isinstance(value, str):
        return value.encode("utf-16", "surrogatepass").decode("utf-16", "replace")
    if isinstance(value, list):
        return [_characters(item) for item in value]
    if isinstance(value, dict):
        return {_characters(key): _characters(item) for key, item in value.items()}
    return value


def unconfined_message(name: str, layers: sandbox.Layers) -> str:
    return translate("core.tools", "This computer cannot confine {name} fully ({missing}). It was not "
                     "started. Start it only if you trust it with your files and network: add it "
                     "again with “--unconfined”, or allow it in Settings ▸ Tools.").format(
        name=name, missing=missing_layers(layers))
