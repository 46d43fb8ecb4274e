"""The ingestion's steps over the document service's thread: waits that keep answering.

``core.documents`` asks for embeddings, token counts, a file's hash, its parse and the
text of its scanned pages (``core.document_progress.Steps``). Each of them waits, for the
inference worker or for a parser process, and the service's thread must not stand still
meanwhile: while it waits it takes the commands that come in (a search, a list, a
cancel) and checks whether the job must end, which stops the wait with ``Stopped``. A
parse stopped by a kill or a cancel says so as ``Stopped`` too, and a close kills the
parser children from any thread.
"""

from __future__ import annotations

import logging
import queue
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future
from pathlib import Path
from typing import Any

import numpy as np

from core import speech
from core.document_progress import Progress, Stopped
from core.document_protocol import WAKE, Inbox
from i18n import translate
from inference.errors import ModelLoadError
from inference.protocol import CountTokens, Embed
from storage.documents.isolation import IsolatedParser, ParseStopped
from storage.documents.parsers import Identity, ParseError, Section

log = logging.getLogger(__name__)
WORKER_TIMEOUT = 600.0  # one embedding batch, however busy the worker is with answers


class ServiceSteps:
    """``core.document_progress.Steps`` over the service's thread. ``take`` answers one
    command that came in meanwhile, ``check`` raises ``Stopped`` when the job must end,
    ``post`` wakes the thread, ``emit`` sends an event; ``parser`` hashes and parses,
    ``ocr`` reads scanned pages; ``read_ahead``: the parser reads the next file while this
    one is embedded."""

    def __init__(self, submit: Callable[[Embed | CountTokens], None], inbox: Inbox,
                 take: Callable[[Any], None], check: Callable[[], None],
                 post: Callable[[object], None], emit: Callable[[object], None],
                 closing: threading.Event, parser: IsolatedParser, ocr: IsolatedParser,
                 read_ahead: bool = True, speech: IsolatedParser | None = None) -> None:
        self._submit = submit
        self._inbox = inbox
        self._take = take
        self._check = check
        self._post = post
        self._emit = emit
        self._closing = closing
        self._parser = parser
        self._ocr = ocr
        self._speech = speech
        self._read_ahead = read_ahead

    def _result(self, future: Future) -> Any:
        """Wait for the worker's answer while answering what comes in meanwhile."""
        future.add_done_callback(lambda _f: self._post(WAKE))
        deadline = time.monotonic() + WORKER_TIMEOUT
        try:
            while not future.done():
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    raise TimeoutError("the model engine did not answer in time")
                try:
                    command = self._inbox.get(timeout=remaining)
                except queue.Empty:
                    continue
                self._take(command)
                self._check()
        except BaseException:
            future.cancel()  # not started yet: the worker skips it
            raise
        return future.result()

    def embed(self, texts: list[str], model: str) -> np.ndarray:
        future: Future = Future()
        self._submit(Embed(tuple(texts), future, model))
        return self._result(future)

    def count_tokens(self, texts: list[str], model: str) -> list[int]:
        future: Future = Future()
        self._submit(CountTokens(tuple(texts), future, model))
        return self._result(future)

    def digest(self, path: Path, identity: Identity) -> str:
        """In the parser process, like the parse: a file that never ends costs a time-out,
        and a cancel or close stops the read."""
        try:
            return self._parser.digest(path, identity, wake=self._inbox.wake, on_wake=self._check)
        except ParseStopped:
            raise Stopped(closing=self._closing.is_set()) from None

    def parse(self, path: Path, identity: Identity) -> tuple[list[Section], list[str], list[int]]:
        """A document's sections; a recording's, by speech recognition in a child of its own
        (passages headed by their time: ``core.speech.sections``)."""
        try:
            if path.suffix.lower() in speech.AUDIO_SUFFIXES and self._speech is not None:
                return self._transcribed(path, identity)
            return self._parser.parse_document(path, identity, wake=self._inbox.wake, on_wake=self._check)
        except ParseStopped:
            raise Stopped(closing=self._closing.is_set()) from None

    def _transcribed(self, path: Path, identity: Identity) -> tuple[list[Section], list[str], list[int]]:
        try:
            heard = speech.transcribe(path, parser=self._speech, identity=identity, wake=self._inbox.wake,
                                      on_wake=self._check)
        except ModelLoadError as exc:
            raise ParseError(str(exc)) from None
        found = speech.sections(heard)
        if not found:
            raise ParseError(translate("core.document_steps", "no speech was heard in it"))
        minutes = round(heard.seconds / 60, 1)  # a plain name, for pyside6-lupdate
        notes = [translate("core.document_steps", "{minutes} minutes of speech, recognised here").format(
            minutes=minutes)]
        if heard.cut:
            notes.append(translate("core.document_steps", "the recording is damaged midway: what came before it"))
        return found, notes, []

    def recognise(self, path: Path, identity: Identity, page: int) -> str:
        """One scanned page by OCR; a cancel or close stops it as it stops a parse."""
        try:
            return self._ocr.recognise(path, page, identity, wake=self._inbox.wake, on_wake=self._check)
        except ParseStopped:
            raise Stopped(closing=self._closing.is_set()) from None

    def read_ahead(self, path: Path, identity: Identity) -> None:
        if not self._read_ahead:
            return
        try:
            self._parser.read_ahead(path, identity)
        except OSError:  # only a head start: the parse itself will say what is wrong
            log.warning("could not read the next file ahead", exc_info=True)

    def check(self) -> None:
        self._check()

    def progress(self, state: Progress) -> None:
        self._emit(state)
