"""The steps of an answer that the local worker and the intranet runner share.

Finding passages for a document question (always here, on this computer: the question
is embedded by the local embedding model and the index is searched locally, whichever
engine then writes the answer), and streaming an answer's pieces out as coalesced
``Chunk`` events while the stop check is watched.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from inference.embedder import profile
from inference.protocol import ChatMessage, Chunk, Event, Generate, Retrieved
from inference.rag import with_passages

log = logging.getLogger(__name__)

Sink = Callable[[Event], None]
QueryVector = Callable[[str, str], Any]  # (embedding model, prefixed query) -> vector or None


def emit_safely(sink: Sink, event: Event) -> None:
    """Hand an event on; a broken receiver must not kill the thread that produced it."""
    try:
        sink(event)
    except Exception:
        log.exception("event sink failed for %s", type(event).__name__)


def retrieve(command: Generate, vector: QueryVector, count: Callable[[Sequence[ChatMessage]], int],
             budget: int, emit: Sink) -> tuple[list[ChatMessage], set[int]]:
    """Embed the question with each model asked for, find passages, and put those that
    fit into the prompt; the messages, and the numbers of the passages given. A model
    that is not loaded is left out (its collections are searched by keywords), never
    replaced by another."""
    retrieval = command.retrieval
    assert retrieval is not None
    vectors = {}
    for model in dict.fromkeys(retrieval.models):
        found = vector(model, profile(model).query(retrieval.question))
        if found is None:
            log.warning("embedding model %s… not loaded: its collections are searched by "
                        "keywords alone", model[:12])
            continue
        vectors[model] = found
    passages = retrieval.search(retrieval.question, vectors)
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
