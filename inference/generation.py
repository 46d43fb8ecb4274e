"""The steps of an answer that the local worker and the intranet runner share.

Putting a document question's passages into the prompt (they were found before, on this
computer, whichever engine then writes the answer: ``core.retrieval``), and streaming an
answer's pieces out as coalesced ``Chunk`` events while the stop check is watched.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterable, Sequence

from inference.protocol import ChatMessage, Chunk, Event, Generate, Retrieved
from inference.rag import with_passages

log = logging.getLogger(__name__)

Sink = Callable[[Event], None]


def emit_safely(sink: Sink, event: Event) -> None:
    """Hand an event on; a broken receiver must not kill the thread that produced it."""
    try:
        sink(event)
    except Exception:
        log.exception("event sink failed for %s", type(event).__name__)


def place_passages(command: Generate, count: Callable[[Sequence[ChatMessage]], int],
                   budget: int, emit: Sink) -> tuple[list[ChatMessage], set[int]]:
    """Put the passages found for the question that fit into the prompt; the messages,
    and the numbers of the passages given."""
    retrieval = command.retrieval
    assert retrieval is not None
    passages = list(retrieval.found)
    messages, kept = with_passages(command.messages, passages, count, budget)
    emit(Retrieved(command.request_id, tuple(kept), len(passages) - len(kept)))
    return messages, {p.number for p in kept}


def stream_pieces(request_id: int, pieces: Iterable[str], emit: Sink, should_stop: Callable[[], bool],
                  flush_interval: float) -> tuple[int, float, float]:
    """Send the pieces as Chunk events, at most one per ``flush_interval``; returns the
    number of pieces, the seconds to the first and the seconds to the end."""
    started = time.perf_counter()
    first_at: float | None = None
    count = 0
    pending: list[str] = []
    last_flush = started
    for piece in pieces:
        now = time.perf_counter()
        count += 1
        if first_at is None:
            first_at = now
        pending.append(piece)
        if now - last_flush >= flush_interval:
            text = "".join(pending)
            pending.clear()
            last_flush = now
            if text:
                emit(Chunk(request_id, text))
        if should_stop():
            break
    text = "".join(pending)
    if text:
        emit(Chunk(request_id, text))
    finished = time.perf_counter()
    return count, (first_at or finished) - started, finished - started
