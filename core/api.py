"""The local OpenAI-compatible API: off by default, loopback only, bearer token.

Starlette and uvicorn do the HTTP; this module maps the requests onto the app's one
inference worker (no second model in memory). Requests from the API and the window
queue in the same worker, first come, first served. A client that goes away cancels
its generation. No Qt here: ``python -m app serve`` runs it headless, the window runs
it on its own worker.

Other programs on this computer are not all trusted, and neither are web pages in its
browser: every request must name this server in its ``Host`` header (a page that points
its own domain at 127.0.0.1, DNS rebinding, names its domain and is answered 421), a
request must arrive whole within ``REQUEST_TIMEOUT`` and at most ``MAX_CONNECTIONS`` are
served at once (a client that trickles its headers cannot hold the server), and the egress
guard lets the port be reached only while the server runs.
"""

from __future__ import annotations

import asyncio
import hmac
import ipaddress
import itertools
import json
import logging
import secrets
import threading
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from concurrent.futures import Future
from dataclasses import dataclass
from typing import Any, TypeVar

from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.requests import ClientDisconnect, Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route

from core.api_images import ImagesRefused, image_parts, image_passages, with_pictures
from core.api_protocol import timed_protocol
from core.api_tools import (
    ApiTools,
    ToolsRefused,
    choosing,
    chosen_call,
    read_messages,
    read_tools,
    tool_calls,
)
from core.attachments import AttachmentRefused
from core.tools.choice import ToolCall
from i18n import translate
from inference.protocol import (
    ChatMessage,
    Chunk,
    Done,
    Embed,
    Event,
    Failed,
    Generate,
    Passages,
    SamplingParams,
    Stats,
    Stopped,
    ToolChoice,
)
from inference.routing import RequestRouter

log = logging.getLogger(__name__)
MAX_BODY = 1 << 20  # 1 MiB
MAX_HEADERS = 16 << 10  # the request line and headers, in bytes (h11's incomplete-event cap)
REQUEST_TIMEOUT = 10.0  # seconds for a whole request (headers and body) to arrive
KEEP_ALIVE = 5  # seconds an idle kept-alive connection stays open
MAX_CONNECTIONS = 64  # beyond this, requests are answered 503 at once
API_IDS = itertools.count(1_000_000_000)  # far from the window's request ids


@dataclass
class Backend:
    """What the API needs from the app: the worker and the loaded model's name."""

    submit: Callable[[Any], None]
    cancel: Callable[[int], None]
    router: RequestRouter
    model_id: Callable[[], str]  # "" when no model is loaded
    embedding_model_id: Callable[[], str]
    on_exchange: Callable[[list[ChatMessage], str], None] | None = None  # store, if the user asked
    # The sha256 of the embedding model that ``embedding_model_id`` names: every request is
    # embedded by that model or refused, never by whichever embedder was loaded last.
    embedding_sha256: Callable[[], str] = lambda: ""


def error(status: int, message: str, kind: str = "invalid_request_error", code: str | None = None) -> JSONResponse:
    return JSONResponse({"error": {"message": message, "type": kind, "param": None, "code": code}},
                        status_code=status)


def is_loopback(host: str) -> bool:
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return host == "localhost"


def allowed_hosts(port: int) -> frozenset[str]:
    """The Host header values that name this server: loopback by address or by name."""
    return frozenset({f"127.0.0.1:{port}", f"localhost:{port}", f"[::1]:{port}"})


def _not_a_number(name: str) -> float:
    raise ValueError(f"{name} is not a number in JSON")


def sampling(body: dict[str, Any]) -> SamplingParams:
    """The request's sampling settings; ValueError (or TypeError) saying which is wrong."""
    max_tokens = int(body.get("max_tokens") or body.get("max_completion_tokens") or 512)
    temperature, top_p = float(body.get("temperature", 0.7)), float(body.get("top_p", 0.95))
    if max_tokens < 1:
        raise ValueError("'max_tokens' must be at least 1")
    if not 0.0 <= temperature <= 2.0:  # NaN too
        raise ValueError("'temperature' must be between 0 and 2")
    if not 0.0 <= top_p <= 1.0:
        raise ValueError("'top_p' must be between 0 and 1")
    return SamplingParams(max_tokens=max_tokens, temperature=temperature, top_p=top_p,
                          seed=None if body.get("seed") is None else int(body["seed"]), prompt_lookup=True)


T = TypeVar("T")


class ClientGone(Exception):
    """The client closed its connection before its answer was ready."""


async def unless_gone(request: Request, work: Awaitable[T]) -> T:
    """``work``'s result; ClientGone once the client has gone (``work`` is cancelled then: a
    generation stops in ``events``' ``finally``). A streamed answer notices by its writes;
    one answered whole wrote nothing until the end, so the model went on for nobody."""
    async def gone() -> None:
        while (await request.receive())["type"] != "http.disconnect":
            pass

    task, watch = asyncio.ensure_future(work), asyncio.ensure_future(gone())
    try:
        await asyncio.wait({task, watch}, return_when=asyncio.FIRST_COMPLETED)
    finally:
        watch.cancel()
        left = not task.done()
        if left:
            task.cancel()  # asked: the task ends at its next await, its finally run
            await asyncio.gather(task, return_exceptions=True)
    if left:
        raise ClientGone()
    return task.result()


class HostCheck:
    """Refuse, before anything else, a request whose Host is not this server (421).

    A web page whose domain has been re-pointed at 127.0.0.1 (DNS rebinding) would send
    its own domain as Host; without this check the browser would let it read the answers."""

    def __init__(self, app: Any, hosts: frozenset[str]) -> None:
        self.app = app
        self.hosts = hosts

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "http":
            given = [value for name, value in scope["headers"] if name == b"host"]
            if len(given) != 1 or given[0].decode("latin-1").lower() not in self.hosts:
                response = error(421, "This server answers only requests addressed to it on this "
                                 "computer (Host: 127.0.0.1, localhost or [::1] with its port).",
                                 code="misdirected_request")
                await response(scope, receive, send)
                return
        await self.app(scope, receive, send)


def create_app(backend: Backend, token: str, port: int | None = None) -> Starlette:
    """The API's routes; with ``port``, only requests whose Host names it are served."""
    async def read_json(request: Request) -> tuple[Any, JSONResponse | None]:
        declared = request.headers.get("content-length")
        if declared is not None and declared.isdigit() and int(declared) > MAX_BODY:
            return None, error(413, f"The request body is larger than {MAX_BODY} bytes.")
        body = b""
        try:
            async for part in request.stream():
                body += part
                if len(body) > MAX_BODY:
                    return None, error(413, f"The request body is larger than {MAX_BODY} bytes.")
        except ClientDisconnect:  # gone half-way through its body: nothing to answer
            raise ClientGone() from None
        try:  # NaN and Infinity are not JSON; nesting past Python's stack is refused too
            return json.loads(body or b"null", parse_constant=_not_a_number), None
        except (ValueError, UnicodeDecodeError, RecursionError):
            return None, error(400, "The request body is not valid JSON.")

    def authorized(request: Request) -> bool:
        header = request.headers.get("authorization", "")
        scheme, _, given = header.partition(" ")
        return scheme.lower() == "bearer" and hmac.compare_digest(given.strip().encode(), token.encode())

    def authenticated(handler):
        """Every route needs the bearer token; without it: 401, and nothing else happens."""

        async def guarded(request: Request) -> Response:
            if not authorized(request):
                return error(401, "Missing or wrong API token.", "authentication_error", "invalid_api_key")
            try:
                return await handler(request)
            except ClientGone:
                return Response(status_code=499)  # nobody reads it

        return guarded

    @authenticated
    async def models(request: Request) -> Response:
        ids = [m for m in (backend.model_id(), backend.embedding_model_id()) if m]
        return JSONResponse({"object": "list", "data": [
            {"id": m, "object": "model", "created": 0, "owned_by": "hearth"} for m in ids]})

    @authenticated
    async def chat(request: Request) -> Response:
        body, problem = await read_json(request)
        if problem:
            return problem
        if not isinstance(body, dict) or not isinstance(body.get("messages"), list) or not body["messages"]:
            return error(400, "'messages' must be a non-empty list.")
        model = backend.model_id()
        if not model:
            return error(503, "No model is loaded yet.", "server_error")
        if body.get("model") not in (None, model):
            return error(404, f"The model {body.get('model')!r} does not exist; this server has {model!r}.",
                         code="model_not_found")
        try:
            tools = read_tools(body)
            messages = read_messages(body["messages"])
            images = image_parts(body["messages"])
        except (ToolsRefused, ImagesRefused) as exc:
            return error(400, str(exc))
        found = None
        if images:  # read here, in the isolated children, off the server's loop
            question = next((m.content for m in reversed(messages) if m.role == "user"), "")
            try:
                given, pictures = await asyncio.to_thread(image_passages, images, question)
            except AttachmentRefused as exc:
                return error(400, str(exc))
            found, messages = Passages(tuple(given)), with_pictures(messages, pictures)
        try:
            params = sampling(body)
        except (KeyError, TypeError, ValueError, OverflowError) as exc:  # OverflowError: 1e400
            return error(400, f"Malformed request: {exc}.")
        rid = next(API_IDS)
        created = int(time.time())
        if tools is not None:  # the model chooses first: a call goes back for the client to run
            called = await unless_gone(request, choose(rid, messages, tools, params))
            if isinstance(called, Response):
                return called
            if called is not None:
                return answer_calls(tool_calls(called, rid), rid, model, created, bool(body.get("stream")))
            rid = next(API_IDS)
        if body.get("stream"):
            return StreamingResponse(stream(rid, messages, params, model, created, found),
                                     media_type="text/event-stream")
        text, stats, failure = await unless_gone(request, collect(rid, messages, params, found))
        if failure:
            return error(400, failure)
        if backend.on_exchange:
            backend.on_exchange(messages, text)
        usage = {"prompt_tokens": stats.prompt_tokens if stats else 0,
                 "completion_tokens": stats.tokens if stats else 0}
        usage["total_tokens"] = usage["prompt_tokens"] + usage["completion_tokens"]
        return JSONResponse({
            "id": f"chatcmpl-{rid}", "object": "chat.completion", "created": created, "model": model,
            "choices": [{"index": 0, "message": {"role": "assistant", "content": text},
                         "finish_reason": "length" if stats and stats.tokens >= params.max_tokens else "stop"}],
            "usage": usage})

    async def collect(rid: int, messages: list[ChatMessage], params: SamplingParams,
                      found: Passages | None) -> tuple[str, Stats | None, str | None]:
        text, stats, failure = "", None, None
        async for event in events(rid, messages, params, retrieval=found):
            if isinstance(event, Chunk):
                text += event.text
            elif isinstance(event, (Done, Stopped)):
                stats = event.stats
            elif isinstance(event, Failed):
                failure = event.reason
        return text, stats, failure

    async def choose(rid: int, messages: list[ChatMessage], tools: ApiTools,
                     params: SamplingParams) -> ToolCall | Response | None:
        # Off the server's loop: many tools' grammar takes a moment to make (once; cached).
        asked, choosing_params, choice = await asyncio.to_thread(choosing, messages, tools, params)
        text = ""
        async for event in events(rid, list(asked), choosing_params, choice):
            if isinstance(event, Chunk):
                text += event.text
            elif isinstance(event, Failed):
                return error(400, event.reason)
        return chosen_call(text, tools)

    def answer_calls(calls: list[dict], rid: int, model: str, created: int, streamed: bool) -> Response:
        head = {"id": f"chatcmpl-{rid}", "created": created, "model": model}
        if not streamed:
            return JSONResponse({**head, "object": "chat.completion", "choices": [{
                "index": 0, "message": {"role": "assistant", "content": None, "tool_calls": calls},
                "finish_reason": "tool_calls"}], "usage": {"prompt_tokens": 0, "completion_tokens": 0,
                                                           "total_tokens": 0}})
        deltas = [{"role": "assistant", "content": None,
                   "tool_calls": [{"index": i, **call} for i, call in enumerate(calls)]}, {}]
        lines = [json.dumps({**head, "object": "chat.completion.chunk", "choices": [{
            "index": 0, "delta": delta, "finish_reason": None if delta else "tool_calls"}]}) for delta in deltas]
        return StreamingResponse(iter([*(f"data: {line}\n\n" for line in lines), "data: [DONE]\n\n"]),
                                 media_type="text/event-stream")

    async def events(rid: int, messages: list[ChatMessage], params: SamplingParams,
                     choice: ToolChoice | None = None, retrieval: Passages | None = None) -> AsyncIterator[Event]:
        loop = asyncio.get_running_loop()
        queue: asyncio.Queue[Event] = asyncio.Queue()
        backend.router.register(rid, lambda e: loop.call_soon_threadsafe(queue.put_nowait, e))
        finished = False
        try:
            backend.submit(Generate(rid, -1, tuple(messages), params, retrieval, choice=choice))
            while True:
                event = await queue.get()
                yield event
                if isinstance(event, (Done, Stopped, Failed)):
                    finished = True
                    return
        finally:
            if not finished:
                backend.cancel(rid)  # the client went away: stop generating for it
            backend.router.unregister(rid)

    async def stream(rid: int, messages: list[ChatMessage], params: SamplingParams, model: str,
                     created: int, retrieval: Passages | None = None) -> AsyncIterator[str]:
        def chunk(delta: dict, finish: str | None = None) -> str:
            return "data: " + json.dumps({
                "id": f"chatcmpl-{rid}", "object": "chat.completion.chunk", "created": created, "model": model,
                "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}) + "\n\n"

        yield chunk({"role": "assistant", "content": ""})
        text = ""
        async for event in events(rid, messages, params, retrieval=retrieval):
            if isinstance(event, Chunk):
                text += event.text
                yield chunk({"content": event.text})
            elif isinstance(event, Failed):
                yield "data: " + json.dumps({"error": {"message": event.reason, "type": "server_error"}}) + "\n\n"
            elif isinstance(event, (Done, Stopped)):
                yield chunk({}, "length" if event.stats.tokens >= params.max_tokens else "stop")
        if backend.on_exchange:
            backend.on_exchange(messages, text)
        yield "data: [DONE]\n\n"

    @authenticated
    async def embeddings(request: Request) -> Response:
        body, problem = await read_json(request)
        if problem:
            return problem
        if not isinstance(body, dict) or "input" not in body:
            return error(400, "'input' is required.")
        texts = body["input"] if isinstance(body["input"], list) else [body["input"]]
        if not texts or not all(isinstance(t, str) for t in texts):
            return error(400, "'input' must be a string or a list of strings.")
        model = backend.embedding_model_id()
        if body.get("model") not in (None, model):
            return error(404, f"The model {body.get('model')!r} does not exist; embeddings use {model!r}.",
                         code="model_not_found")
        future: Future = Future()
        backend.submit(Embed(tuple(texts), future, backend.embedding_sha256()))
        try:
            vectors = await unless_gone(request, asyncio.wrap_future(future))
        except ClientGone:
            future.cancel()  # not embedded, if the worker had not begun
            raise
        except Exception as exc:
            return error(503, f"Embedding failed: {exc}", "server_error")
        return JSONResponse({"object": "list", "model": model, "data": [
            {"object": "embedding", "index": i, "embedding": [float(x) for x in v]} for i, v in enumerate(vectors)],
            "usage": {"prompt_tokens": 0, "total_tokens": 0}})

    middleware = [Middleware(HostCheck, hosts=allowed_hosts(port))] if port is not None else []
    return Starlette(routes=[
        Route("/v1/models", models, methods=["GET"]),
        Route("/v1/chat/completions", chat, methods=["POST"]),
        Route("/v1/embeddings", embeddings, methods=["POST"]),
    ], middleware=middleware)


class ApiServer:
    """uvicorn on 127.0.0.1 in a background thread; the egress guard lets only its port in."""

    def __init__(self, backend: Backend, host: str = "127.0.0.1", port: int = 0, token: str | None = None,
                 request_timeout: float = REQUEST_TIMEOUT, max_connections: int = MAX_CONNECTIONS) -> None:
        if not is_loopback(host):
            # Read by the user (the terminal's --host, the window's settings), not by a program.
            raise ValueError(translate("core.api", "The local API only listens on this computer "
                                       "(127.0.0.1), not on {host}.").format(host=host))
        import socket

        import uvicorn

        from guard import egress

        self.token = token or secrets.token_urlsafe(32)
        self._socket = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self._socket.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self._socket.bind((host, port))
        # Listening from here on: a client that connects before uvicorn's loop runs waits in
        # the backlog, so starting never has to wait (and never blocks the window).
        self._socket.listen(128)
        self.host, self.port = self._socket.getsockname()[:2]
        egress.allow_loopback_port(self.port)
        self._allowed = True
        config = uvicorn.Config(create_app(backend, self.token, self.port), log_level="warning",
                                access_log=False, lifespan="off", timeout_graceful_shutdown=2,
                                http=timed_protocol(request_timeout), timeout_keep_alive=KEEP_ALIVE,
                                limit_concurrency=max_connections, h11_max_incomplete_event_size=MAX_HEADERS)
        self._server = uvicorn.Server(config)
        self._thread = threading.Thread(target=self._server.run, kwargs={"sockets": [self._socket]},
                                        name="hearth-api", daemon=True)

    @property
    def url(self) -> str:
        return f"http://{self.host}:{self.port}/v1"

    def start(self) -> None:
        """Serve from a background thread; returns at once (requests queue until it runs)."""
        self._thread.start()

    def stop(self, timeout: float = 2.5) -> None:
        """Ask uvicorn to finish (open streams get 2 s) and wait at most ``timeout``; the
        guard no longer lets the port be reached."""
        from guard import egress

        self._server.should_exit = True
        if self._thread.is_alive():
            self._thread.join(timeout)
        self._socket.close()
        if self._allowed:
            self._allowed = False
            egress.revoke_loopback_port(self.port)
