"""Finding what a document question is about, before any answer is asked for (#37 item 2).

Retrieval is data: the question is embedded on the inference worker (``Embed``, once per
embedding model whose vectors answer for the collections), the index is searched on the
document service's thread (``Search``), and the passages come back as a future. The turn
then asks for the answer with the passages in it (``Generate.retrieval``), so the worker
never waits on the document service and nothing in ``inference`` calls back up into
``core``. Nothing here blocks a thread either: each step starts the next from its
future's callback, and a search that has no answer in ``SEARCH_TIMEOUT`` (the index still
loading) ends the future with a plain message instead of leaving a turn waiting.

This is the one place a question is embedded: the window's answers, the terminal's
``ask`` and ``docs search``, and the local API all come here.
"""

from __future__ import annotations

import contextlib
import logging
import threading
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import Future, InvalidStateError
from typing import Any

from core.document_protocol import SEARCH_TIMEOUT, DocumentsUnavailable, as_passages
from i18n import translate
from inference.embedder import EmbedderNotLoaded, profile
from inference.embedding_ids import shown
from inference.protocol import Embed

log = logging.getLogger(__name__)

Search = Callable[[str, Mapping[str, Any], list[int], int, str], Future]


def _fail(target: Future, exc: BaseException) -> None:
    with contextlib.suppress(InvalidStateError):  # settled meanwhile (the time limit, or the answer)
        target.set_exception(exc)


def _settle(target: Future, work: Callable[[], Any]) -> None:
    """Give ``target`` the result of ``work`` (or its error), unless it has one already."""
    if target.done():
        return
    try:
        value = work()
    except Exception as exc:
        _fail(target, exc)
        return
    with contextlib.suppress(InvalidStateError):
        target.set_result(value)


def find(search: Search, submit: Callable[[Any], None], question: str, collection_ids: Sequence[int],
         models: Sequence[str], k: int = 5, mode: str = "hybrid", timeout: float = SEARCH_TIMEOUT,
         missing: Callable[[str, str], None] | None = None,
         loading: Callable[[], bool] | None = None) -> Future:
    """A future of the search's hits for ``question`` in ``collection_ids``. ``search`` is
    the document service's; ``submit`` reaches the inference worker. A model that is not
    loaded is left out (its collections answer by keywords alone), never replaced by
    another; ``missing`` hears which, and why. ``loading``: true while the index is still
    being loaded and its load moves on; the time limit then starts again (a large archive's
    first load can take minutes: the question waits for it, and Stop ends the wait). A model on an intranet engine that cannot
    embed the question now is left out the same way (``core.remote_embedding``)."""
    result: Future = Future()
    ids = list(collection_ids)
    vectors: dict[str, Any] = {}
    waiting = list(dict.fromkeys(m for m in models if m)) if mode != "bm25" else []

    def searched(done: Future) -> None:
        def hits() -> Any:
            try:
                return done.result()
            except DocumentsUnavailable:
                raise
            except Exception as exc:
                log.error("a document search failed", exc_info=exc)
                raise DocumentsUnavailable(translate(
                    "core.document_protocol",
                    "Your documents could not be searched; details are in the log.")) from exc
        _settle(result, hits)

    def embedded(model: str, done: Future) -> None:
        try:
            vectors[model] = done.result()[0]
        except EmbedderNotLoaded as exc:
            log.warning("embedding model %s not available (%s): its collections are searched by "
                        "keywords alone", shown(model), exc)
            if missing is not None:
                try:
                    missing(model, str(exc))
                except Exception:  # a listener's fault must not hold the search back
                    log.exception("a listener of a model left out failed")
        except Exception as exc:
            log.error("the question could not be embedded", exc_info=exc)
            _fail(result, DocumentsUnavailable(translate(
                "core.retrieval", "Your question could not be prepared for the search; details "
                "are in the log.")))
            return
        step()

    def step() -> None:
        if result.done():
            return
        if waiting:
            model = waiting.pop(0)
            future: Future = Future()

            def then(done: Future, model: str = model) -> None:
                embedded(model, done)

            future.add_done_callback(then)
            submit(Embed((profile(model).query(question),), future, model))
            return
        search(question, dict(vectors), ids, k, mode).add_done_callback(searched)

    timers: list[threading.Timer] = []

    def too_late() -> None:
        if result.done():
            return
        if loading is not None and loading():  # the index is still coming: wait on for it
            wait()
            return
        _fail(result, DocumentsUnavailable(translate(
            "core.document_protocol", "Your documents could not be searched in time (they "
            "are still loading); try again in a moment.")))

    def wait() -> None:
        timer = threading.Timer(timeout, too_late)
        timer.daemon = True
        timers[:] = [timer]
        timer.start()

    wait()
    result.add_done_callback(lambda _done: timers[0].cancel())
    step()
    return result


def passages(hits: Future) -> Future:
    """The passages the model is given for a future of hits (``as_passages``)."""
    result: Future = Future()
    hits.add_done_callback(lambda done: _settle(result, lambda: as_passages(done.result())))
    return result
