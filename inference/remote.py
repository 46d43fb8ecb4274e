"""Answers from an intranet engine (vLLM, SGLang, llama.cpp's server), as local ones.

``RemoteEngine`` speaks the OpenAI-compatible chat API of one engine and model;
``RemoteRunner`` runs each request on its own thread (the server batches them, so
concurrent chats are not queued behind each other here) and reports the same events as
the local worker: Started, Chunk, Done / Stopped / Failed. The history is fitted into
the engine's context window with the engine's own tokenizer where it has one; document
passages are found locally first (``core.retrieval``, with the local
embedding model) and only the passages found are sent.

The differences between engines that the adapter handles (each was met on the real
servers; docs/intranet-engines.md lists them): where the context length is published (vLLM's
``max_model_len`` in /v1/models, llama-server's per-slot ``n_ctx`` in /props), how a
prompt is tokenized (/tokenize with ``prompt`` on vLLM and SGLang, ``content`` on
llama-server), the name of the repetition penalty, whether usage comes at the end of a
stream, and that a request whose prompt plus ``max_tokens`` exceeds the window is
refused outright by vLLM rather than cut.
"""

from __future__ import annotations

import logging
import math
import threading
from collections import OrderedDict
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from guard.egress import log_tag
from i18n import translate
from inference.chat_template import ControlTextEscaper
from inference.citations import document_answer
from inference.engine_tokens import control_spellings, escape_control_text
from inference.errors import InferenceError
from inference.generation import Sink, emit_safely, place_passages, stream_pieces
from inference.intranet import Abort, Aborted, Client, EngineError, Overloaded, Overrun
from inference.prompt import answer_reserve, fit_messages
from inference.protocol import (
    ChatMessage,
    Done,
    Failed,
    Generate,
    Notice,
    SamplingParams,
    Started,
    Stats,
    Stopped,
)
from inference.remote_discovery import RemoteModel, positive
from inference.remote_pictures import data_uri
from inference.remote_tokens import estimate_tokens
from inference.remote_tools import CallDeltas, engine_request
from inference.tool_formats import escaped
from inference.tool_grammar import grammar_fields

log = logging.getLogger(__name__)

ESTIMATE_MARGIN = 1.1  # how much an estimated token count may fall short
DEFAULT_CONTEXT = 4096  # an engine that does not say: a window every current model has
PER_MESSAGE = 8  # a chat template's tokens around each message, counted generously
RETRIES = 3
PICTURE_TOKENS = 1024  # what a picture may take of an engine's window (its own count is not asked)
MAX_CHARS_PER_TOKEN = 32  # an answer's text beyond max_tokens × this is a server that will not stop
# ... and its stream's bytes beyond that text's bound × this (an event's JSON around a piece
# of text is a few hundred bytes; events with no text count here alone)
MAX_BYTES_PER_CHAR = 64
class RemoteEngine:
    """One model on one engine. Safe to use from several threads at once."""

    def __init__(self, client: Client, kind: str, model: RemoteModel) -> None:
        self.client = client
        self.kind = kind
        self.model = model
        self._counts: OrderedDict[str, int] = OrderedDict()
        self._lock = threading.Lock()
        self._tokenizer = kind in ("vllm", "sglang", "llama.cpp")
        self.counted_exactly = self._tokenizer
        # The engine's own control-token spellings, asked once before any content is sent
        # (by the first request; others wait for it, and can still be stopped meanwhile).
        self._learned: ControlTextEscaper | None = None
        self._learner: threading.Event | None = None
        self._learning = threading.Lock()

    @property
    def name(self) -> str:
        return self.model.id

    @property
    def n_ctx(self) -> int:
        return self.model.n_ctx or DEFAULT_CONTEXT

    def escape(self, text: str, abort: Abort | None = None) -> str:
        """``text`` unable to spell a control token: of the common families, and of those
        this engine's tokenizer has (``engine_tokens``)."""
        return self._escaper(abort).escape(escape_control_text(text))

    def _escaper(self, abort: Abort | None) -> ControlTextEscaper:
        while True:
            with self._learning:
                if self._learned is not None:
                    return self._learned
                mine = self._learner is None
                if mine:
                    self._learner = threading.Event()
                learning = self._learner
            assert learning is not None
            if mine:
                try:
                    learned = ControlTextEscaper(control_spellings(self.client, self.kind, self.model.id, abort))
                except BaseException:  # stopped: the next request asks again
                    with self._learning:
                        self._learner = None
                    learning.set()
                    raise
                with self._learning:
                    self._learned, self._learner = learned, None
                learning.set()
                return learned
            while not learning.wait(0.1):
                if abort is not None and abort.is_set():
                    raise Aborted()

    # Token counts -------------------------------------------------------------------
    def count_tokens(self, messages: Sequence[ChatMessage], abort: Abort | None = None) -> int:
        pictures = sum(len(m.pictures) for m in messages) if self.model.vision else 0
        return 2 + pictures * PICTURE_TOKENS + sum(PER_MESSAGE + self._count(self.escape(m.content, abort), abort)
                                                   for m in messages)

    def counter(self, abort: Abort) -> Callable[[Sequence[ChatMessage]], int]:
        """count_tokens for one request: its /tokenize calls stop with it."""
        return lambda messages: self.count_tokens(messages, abort)

    def _count(self, text: str, abort: Abort | None = None) -> int:
        with self._lock:
            if text in self._counts:
                self._counts.move_to_end(text)
                return self._counts[text]
        found = self._tokenize(text, abort) if self._tokenizer and text else None
        if found is None:
            found = estimate_tokens(text)
        with self._lock:
            self._counts[text] = found
            while len(self._counts) > 4096:
                self._counts.popitem(last=False)
        return found

    def _tokenize(self, text: str, abort: Abort | None = None) -> int | None:
        body: dict[str, Any] = ({"content": text, "add_special": False} if self.kind == "llama.cpp"
                                else {"model": self.model.id, "prompt": text, "add_special_tokens": False})
        try:
            data = self.client.post_json(self.client.endpoint.root + "/tokenize", body, abort)
        except EngineError as exc:
            log.info("%s has no usable /tokenize (%s): token counts are estimated", log_tag(self.client.name),
                     type(exc).__name__)
            self._tokenizer = False
            self.counted_exactly = False
            return None
        if isinstance(data, dict):
            if positive(data.get("count")):
                return int(data["count"])
            if isinstance(data.get("tokens"), list):
                return len(data["tokens"])
        return None

    # The answer ---------------------------------------------------------------------
    def request_body(self, messages: Sequence[ChatMessage], params: SamplingParams, max_tokens: int,
                     abort: Abort | None = None, extra: dict[str, Any] | None = None) -> dict[str, Any]:
        body: dict[str, Any] = {
            "model": self.model.id, "stream": True, "max_tokens": max_tokens,
            "messages": [{"role": m.role, "content": self._content(m, abort)} for m in messages],
            "temperature": params.temperature, "top_p": params.top_p,
            "stream_options": {"include_usage": True},
        }
        if params.seed is not None:
            body["seed"] = params.seed
        if params.ignore_eos and self.kind in ("llama.cpp", "vllm", "sglang"):
            body["ignore_eos"] = True
        if messages and messages[-1].role == "assistant" and self.kind in ("vllm", "sglang"):
            # Continue an answer that was cut off: from its last word, no new turn opened.
            body.update(continue_final_message=True, add_generation_prompt=False)
        if self.kind == "llama.cpp":
            body.update(top_k=params.top_k, min_p=params.min_p, repeat_penalty=params.repeat_penalty)
        elif self.kind in ("vllm", "sglang"):
            body.update(top_k=params.top_k, min_p=params.min_p, repetition_penalty=params.repeat_penalty)
        body.update(grammar_fields(self.kind, params.grammar))  # a tool choice: the engine's sampler follows it
        if extra and extra.get("tools"):  # a tool choice of an engine without a grammar
            body.update(tools=escaped(extra["tools"], lambda text: self.escape(text, abort)),
                        tool_choice=extra.get("tool_choice", "auto"))
        return body

    def _content(self, message: ChatMessage, abort: Abort | None) -> str | list[dict[str, Any]]:
        """A message's content: its text, and for a model that says it sees pictures, the
        pictures given with it (as ``image_url`` data URIs, after the text)."""
        text = self.escape(message.content, abort)
        if not (self.model.vision and message.pictures):
            return text
        return [{"type": "text", "text": text},
                *({"type": "image_url", "image_url": {"url": data_uri(p)}} for p in message.pictures)]

    def stream(self, messages: Sequence[ChatMessage], params: SamplingParams, abort: Abort,
               max_tokens: int, usage: dict[str, int], notice: Callable[[str], None],
               extra: dict[str, Any] | None = None) -> Iterator[str]:
        """The answer's text pieces as they arrive (a tool call the engine parsed: Hearth's
        JSON of it, last, in place of any text). Busy (429/503) is retried with back-off
        before the answer starts, each wait said through ``notice``."""
        body = self.request_body(messages, params, max_tokens, abort, extra)
        calls = CallDeltas()
        # A choice asked through the tools field is said once, whole, at the end: the call
        # the engine parsed, or else the text (which is then no call).
        held: list[str] | None = [] if extra and extra.get("tools") else None
        for attempt in range(RETRIES + 1):
            try:
                conn, response = self.client.open("POST", self.client.endpoint.path + "/chat/completions",
                                                  body, stream=True, abort=abort)
                break
            except Overloaded as exc:
                if attempt == RETRIES:
                    raise EngineError(translate("inference.remote", "{busy} Hearth tried {n} times; "
                                                "try again in a while.").format(busy=exc, n=RETRIES + 1)) from None
                wait = exc.wait or float(2 ** attempt)
                notice(translate("inference.remote", "{busy} Trying again in {seconds} s…")
                       .format(busy=exc, seconds=int(round(wait))))
                if abort.wait(wait):
                    raise Aborted() from None
        sent = 0
        most = max_tokens * MAX_CHARS_PER_TOKEN + 1024
        try:
            for event in self.client.events(response, abort, limit=most * MAX_BYTES_PER_CHAR):
                if isinstance(event.get("usage"), dict):
                    for key in ("prompt_tokens", "completion_tokens"):
                        if positive(event["usage"].get(key)):
                            usage[key] = event["usage"][key]
                for choice in event.get("choices") or []:
                    delta = choice.get("delta") if isinstance(choice, dict) else None
                    content = delta.get("content") if isinstance(delta, dict) else None
                    if isinstance(delta, dict) and calls.add(delta.get("tool_calls")):
                        continue
                    if isinstance(content, str) and content:
                        sent += len(content)
                        if sent > most:  # a server that will not stop: only Stop would end it
                            raise Overrun("")
                        if held is not None:
                            held.append(content)
                        else:
                            yield content
            if held is not None:
                called = calls.text()
                yield called if called is not None else "".join(held)
        except Overrun:
            raise EngineError(translate(
                "inference.remote", "The engine {name} sent far more than the {count} "
                "tokens asked for; Hearth stopped reading.").format(
                    name=self.client.name, count=max_tokens)) from None
        finally:
            conn.close()


class RemoteRunner:
    """Requests to intranet engines, each on its own thread, reported like the worker's."""

    def __init__(self, sink: Sink, engine_for: Callable[[Generate], RemoteEngine],
                 flush_interval: float = 1 / 30) -> None:
        self._sink = sink
        self._engine_for = engine_for
        self._flush_interval = flush_interval
        self._lock = threading.Lock()
        self._running: dict[int, tuple[Abort, threading.Thread]] = {}

    def submit(self, command: Generate) -> None:
        abort = Abort()
        thread = threading.Thread(target=self._run, args=(command, abort), daemon=True,
                                  name=f"hearth-engine-{command.request_id}")
        with self._lock:
            self._running[command.request_id] = (abort, thread)
        thread.start()

    def cancel(self, request_id: int) -> None:
        with self._lock:
            found = self._running.get(request_id)
        if found is not None:
            found[0].set()

    def owns(self, request_id: int) -> bool:
        with self._lock:
            return request_id in self._running

    def shutdown(self, timeout: float = 2.0) -> None:
        with self._lock:
            running = list(self._running.values())
        for abort, _ in running:
            abort.set()
        for _, thread in running:
            thread.join(timeout)

    def _emit(self, event: Any) -> None:
        emit_safely(self._sink, event)

    def _run(self, command: Generate, abort: Abort) -> None:
        rid = command.request_id
        try:
            self._answer(command, abort)
        except Aborted:
            self._emit(Stopped(rid, Stats(0, 0, 0.0, 0.0)))
        except InferenceError as exc:
            self._emit(Failed(rid, str(exc)))
        except Exception as exc:
            log.exception("an engine request failed unexpectedly")
            self._emit(Failed(rid, translate("inference.remote", "The request to the engine failed "
                                             "({kind}). Details are in the log.").format(kind=type(exc).__name__)))
        finally:
            with self._lock:
                self._running.pop(rid, None)

    def _answer(self, command: Generate, abort: Abort) -> None:
        rid = command.request_id
        if abort.is_set():
            raise Aborted()
        engine = self._engine_for(command)
        command, extra = engine_request(command, engine.kind)
        n_ctx = engine.n_ctx
        budget = n_ctx - answer_reserve(n_ctx, command.params.max_tokens)
        exact = engine.counted_exactly
        if not exact:
            budget = int(budget / ESTIMATE_MARGIN)  # estimated counts: vLLM refuses an overflow
        counted = engine.counter(abort)
        source = list(command.messages)
        numbers: set[int] | None = None
        if command.retrieval is not None:
            source, numbers = place_passages(command, counted, budget, self._emit)
        messages, dropped = fit_messages(source, counted, budget)
        prompt_tokens = counted(messages)
        # What the window has left for the answer, with the same margin on an estimate.
        room = n_ctx - (prompt_tokens if exact and engine.counted_exactly else math.ceil(prompt_tokens * ESTIMATE_MARGIN))
        max_tokens = max(16, min(command.params.max_tokens, room - 8))
        if abort.is_set():
            raise Aborted()
        self._emit(Started(rid, dropped, engine.name))
        usage: dict[str, int] = {}
        broke: list[EngineError] = []

        def pieces() -> Iterator[str]:
            try:
                yield from engine.stream(messages, command.params, abort, max_tokens, usage,
                                         lambda text: self._emit(Notice(rid, text)), extra)
            except Aborted:
                return
            except EngineError as exc:  # a drop, or an error event: what came so far is kept
                broke.append(exc)

        shown = pieces() if numbers is None else document_answer(pieces(), numbers)
        count, ttft, total = stream_pieces(rid, shown, self._emit, abort.is_set, self._flush_interval)
        written = usage.get("completion_tokens", count)
        stats = Stats(usage.get("prompt_tokens", prompt_tokens), written, ttft, total, dropped,
                      written >= max_tokens)
        if broke:
            if count:
                self._emit(Stopped(rid, stats, str(broke[0])))
            else:
                self._emit(Failed(rid, str(broke[0])))
        elif abort.is_set():
            self._emit(Stopped(rid, stats))
        else:
            self._emit(Done(rid, stats))


class Dispatch:
    """Where a command goes: a Generate naming an engine to the runner, all else to the
    local worker. The turn machine and the clients hold this instead of the worker."""

    def __init__(self, local: Any, remote: RemoteRunner) -> None:
        self.local = local
        self.remote = remote

    def submit(self, command: Any) -> None:
        if isinstance(command, Generate) and command.engine:
            self.remote.submit(command)
        else:
            self.local.submit(command)

    def cancel(self, request_id: int) -> None:
        if self.remote.owns(request_id):
            self.remote.cancel(request_id)
        else:
            self.local.cancel(request_id)
