"""Commands into the inference worker and events out of it.

Plain frozen dataclasses: the worker never sees Qt, and the UI never sees llama.cpp.
Every generation event carries the request id it belongs to, so the UI can drop the
leftovers of a request it has stopped or replaced.
"""

from __future__ import annotations

import hashlib
from concurrent.futures import Future
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

MAX_PICTURE_SIDE = 1024  # pixels: what a picture is scaled down to before a model sees it


@dataclass(frozen=True)
class Picture:
    """A picture's pixels, decoded (RGB, 8 bits a channel) in the isolated child that read
    its file; ``key``, its digest, says which picture it is (equal pictures are equal)."""

    width: int
    height: int
    rgb: bytes = field(compare=False, repr=False)
    key: str = ""

    def __post_init__(self) -> None:
        if not (0 < self.width <= MAX_PICTURE_SIDE and 0 < self.height <= MAX_PICTURE_SIDE) \
                or len(self.rgb) != self.width * self.height * 3:
            raise ValueError("a picture's pixels do not match its size")
        if not self.key:
            digest = hashlib.sha256(f"{self.width}x{self.height}:".encode() + self.rgb).hexdigest()
            object.__setattr__(self, "key", digest)


@dataclass(frozen=True)
class ChatMessage:
    role: str  # "system" | "user" | "assistant"
    content: str
    # An earlier question given with document passages: the question alone, which takes
    # the passages' place when the context is short (``inference.prompt.fit_messages``).
    plain: str | None = None
    # Pictures given with a question, for a model that sees images (the others get what
    # text recognition read in them, as passages).
    pictures: tuple[Picture, ...] = ()


@dataclass(frozen=True)
class SamplingParams:
    max_tokens: int = 512
    temperature: float = 0.7
    top_p: float = 0.95
    top_k: int = 40
    min_p: float = 0.05
    repeat_penalty: float = 1.1
    seed: int | None = None
    # Generate exactly max_tokens, past end-of-sequence and stop strings: for benchmarks,
    # whose two sides must do the same work (never set by the app for a user's answer).
    ignore_eos: bool = False
    # Draft the next tokens from the context (``inference.lookup``), for answers that copy
    # from their prompt: the same answer, sooner where the guesses pay. The app's answers
    # have it (``ModelSettings.sampling``, the local API); off here, the plain loop, for
    # the benchmarks' comparisons with raw llama.cpp.
    prompt_lookup: bool = False
    # A GBNF grammar the answer must follow ("" for none): a tool choice is JSON of the
    # tools' shapes (``core.tools.choice``), so that even a small model writes one well.
    grammar: str = ""


# A chat model's context where nothing else is said: a document question's passages,
# kept in the history so that the cache holds, need the room (4,096 tokens of KV cache
# are 94 MB for the starter model).
DEFAULT_CONTEXT = 4096


@dataclass(frozen=True)
class ModelSpec:
    path: Path
    n_ctx: int = DEFAULT_CONTEXT
    n_threads: int | None = None
    n_batch: int = 256
    n_gpu_layers: int = -1  # all layers on the GPU when the build has one; ignored on CPU builds
    chat_format: str = "auto"  # or a name from inference.chat_formats
    display_name: str = ""
    # A vision model's projector (mmproj) file: with it, the model sees pictures.
    projector: Path | None = None


# Commands -------------------------------------------------------------------------
@dataclass(frozen=True)
class LoadModel:
    spec: ModelSpec


@dataclass(frozen=True)
class Passages:
    """The passages found for a document question, best first (``core.retrieval`` found
    them before the answer was asked for): the worker or the engine runner puts those that
    fit into the prompt and reports them (``Retrieved``). Empty: the search found nothing,
    and the model is told so. Data only: nothing here calls back anywhere."""

    found: tuple[Any, ...] = ()  # inference.rag.Passage


@dataclass(frozen=True)
class ToolChoice:
    """A Generate that asks the model to choose a tool: a call of one of ``tools`` or none.
    The engine decides how the model is asked (``inference.tool_formats``: its template's
    own format, or Hearth's JSON); what comes back is Hearth's JSON either way."""

    tools: tuple[tuple[str, str, str], ...]  # name, description, argument schema as JSON
    # The calls made so far in this turn: name, arguments as JSON, and what came of it as
    # the model is to read it (marked as the tool's words, never the user's).
    calls: tuple[tuple[str, str, str], ...] = ()
    required: bool = False  # a call, never none (the local API's tool_choice "required")


@dataclass(frozen=True)
class Generate:
    request_id: int
    chat_id: int
    messages: tuple[ChatMessage, ...]
    params: SamplingParams = field(default_factory=SamplingParams)
    retrieval: Passages | None = None  # a document question's passages; None: no documents
    # An intranet engine's name and its model; empty: the local model answers.
    engine: str = ""
    model: str = ""
    choice: ToolChoice | None = None  # the model chooses a tool instead of answering


@dataclass(frozen=True)
class LoadEmbedder:
    """Load an embedding model beside those loaded (the worker keeps two: the old and the
    new one while documents are re-embedded). ``model`` is its sha256, the identity that
    Embed and CountTokens name; empty, the worker hashes the file."""

    path: Path
    model: str = ""


@dataclass(frozen=True, eq=False)
class Embed:
    """Embed texts with the embedding model ``model`` (sha256); the result (an array, one
    row per text) or the error goes to ``future``.

    A model that is not loaded is an error (``EmbedderNotLoaded``), never a quiet switch
    to another: vectors of two models must not meet in one index. An empty ``model``
    means the model loaded last, for callers that keep no vectors (the local API, the
    self-test).
    """

    texts: tuple[str, ...]
    future: Future
    model: str = ""


@dataclass(frozen=True, eq=False)
class CountTokens:
    """Token counts with the tokenizer of embedding model ``model``, for chunking, into
    ``future``; the same rules for ``model`` as Embed."""

    texts: tuple[str, ...]
    future: Future
    model: str = ""


@dataclass(frozen=True)
class Forget:
    """Drop the conversation from the model's memory (the KV cache): sent when the app locks."""


@dataclass(frozen=True)
class Shutdown:
    pass


Command = LoadModel | Generate | Forget | Shutdown | LoadEmbedder | Embed | CountTokens


# Events ---------------------------------------------------------------------------
@dataclass(frozen=True)
class ModelLoading:
    path: Path


@dataclass(frozen=True)
class ModelLoaded:
    path: Path
    name: str
    n_ctx: int
    load_seconds: float
    memory_bytes: int = 0  # resident memory the load added, measured
    backend: str = "CPU"
    base_model: bool = False  # no chat template, no "instruct" or "chat" in its name (modelinfo)


@dataclass(frozen=True)
class ModelFailed:
    path: Path
    reason: str


@dataclass(frozen=True)
class Stats:
    prompt_tokens: int
    tokens: int
    ttft_seconds: float
    total_seconds: float
    dropped_messages: int = 0
    cut_off: bool = False  # it ended at the length limit, not where the model ended it

    @property
    def tokens_per_second(self) -> float:
        decode = self.total_seconds - self.ttft_seconds
        if self.tokens <= 1 or decode <= 0:
            return 0.0
        # The first token's time is prefill; decode speed counts the tokens after it.
        return (self.tokens - 1) / decode

    def as_dict(self) -> dict[str, float | int]:
        return {
            "prompt_tokens": self.prompt_tokens,
            "tokens": self.tokens,
            "ttft_seconds": round(self.ttft_seconds, 4),
            "total_seconds": round(self.total_seconds, 4),
            "tokens_per_second": round(self.tokens_per_second, 2),
            "dropped_messages": self.dropped_messages,
            **({"cut_off": True} if self.cut_off else {}),
        }


@dataclass(frozen=True)
class Started:
    request_id: int
    dropped_messages: int = 0
    model: str = ""  # an intranet engine's model that answers (the local one is known)


SEARCHING, READING = "searching", "reading"


@dataclass(frozen=True)
class Preparing:
    """Before an answer's first token: its documents are searched (SEARCHING), then its
    prompt is read (READING: ``done`` of ``total`` prompt tokens evaluated, the part
    reused from the cache counted as done). Only for a prompt that takes a while."""

    request_id: int
    stage: str
    done: int = 0
    total: int = 0


@dataclass(frozen=True)
class Retrieved:
    request_id: int
    passages: tuple[Any, ...]  # inference.rag.Passage
    left_out: int = 0  # passages found that did not fit in the model's context


@dataclass(frozen=True)
class EmbedderLoaded:
    path: Path
    dimensions: int
    model: str = ""  # its sha256: what Embed and CountTokens name


@dataclass(frozen=True)
class EmbedderFailed:
    path: Path
    reason: str
    model: str = ""


@dataclass(frozen=True)
class Chunk:
    request_id: int
    text: str


@dataclass(frozen=True)
class Done:
    request_id: int
    stats: Stats


@dataclass(frozen=True)
class Stopped:
    """The answer ended before it was complete: the user stopped it, or (``reason``) the
    connection to an intranet engine dropped; the text so far is kept."""

    request_id: int
    stats: Stats
    reason: str = ""


@dataclass(frozen=True)
class Notice:
    """Something the user should know while the answer is on its way (a busy engine)."""

    request_id: int
    text: str


@dataclass(frozen=True)
class Failed:
    request_id: int
    reason: str


@dataclass(frozen=True)
class WorkerDied:
    """The worker thread ended by a fault (its engine could not be built, or a bug).

    ``restarting`` says whether a new worker is being started with the last model; the
    requests that were queued have each been answered (Failed, or their future's error).
    """

    reason: str
    restarting: bool = False
    # The answers the dead worker owed (from the supervisor): a turn started on its
    # successor meanwhile is not one of them, and must not be failed by this event.
    requests: tuple[int, ...] | None = None


Event = (ModelLoading | ModelLoaded | ModelFailed | Started | Chunk | Done | Stopped | Failed
         | Preparing | Retrieved | EmbedderLoaded | EmbedderFailed | WorkerDied | Notice)
