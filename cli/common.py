"""What the terminal commands share: the vault opened for a command with a worker and
its documents (``opened``), the models and engines it names, and how text reaches the
terminal.

A command opens the same vault as the window (passphrase from HEARTH_PASSPHRASE or a
prompt) through ``core.session`` and runs the same worker, engine, embedder and pipeline,
without Qt; the session closes them in its fixed order.
"""

from __future__ import annotations

import logging
import queue
import sys
from collections.abc import Callable, Iterator
from concurrent.futures import Future
from concurrent.futures import TimeoutError as FutureTimeout
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from cli.headless import HeadlessError, unlocked
from core.client import Answer, ClientError, WorkerClient
from core.document_progress import Progress, Report
from core.document_protocol import CollectionsChanged, DocumentsUnavailable, JobFailed
from core.document_service import DocumentService
from core.documents import Collection
from core.engines import Engines
from core.models import projector_of, resolve_embedding_model, resolve_model
from core.protocol import (
    ChatMessage,
    InferenceError,
    ModelSpec,
    SamplingParams,
    embedding_model,
    starter_model,
)
from core.remote_embedding import is_remote, keywords_alone, shown
from core.session import Session
from core.vault import VaultClosed, trouble
from guard.text import printable
from i18n import translate

log = logging.getLogger(__name__)


class CommandError(HeadlessError):
    """A reason a command stops, in the user's words (exit status 1)."""


JOB_TIMEOUT = 3600.0  # an import of many files; progress shows meanwhile
SAVE_TIMEOUT = 600.0  # sealing the index after the work (about 13 s at 200,000 passages)


class Documents:
    """The document service for one command: started, its index loaded, waited on.

    The service's thread owns the store and the index; this side only sends commands and
    waits on the futures they carry, and reads the events (progress) off a queue.
    """

    def __init__(self, service: DocumentService, client: WorkerClient,
                 events: queue.Queue[Any], engines: Callable[[], Engines] | None = None) -> None:
        self.service = service
        self.client = client
        self.events = events  # the service's sink
        self.engines = engines  # the session's intranet engines, read when asked for
        self._failure = ""  # the last job's failure, in the user's words

    def wait(self, future: Future, timeout: float = JOB_TIMEOUT) -> Any:
        """The future's result; a failure the user can act on becomes a CommandError."""
        try:
            return future.result(timeout=timeout)
        except FutureTimeout:
            raise CommandError(translate("cli.commands",
                                         "The documents did not answer in time.")) from None
        except Exception as exc:
            failure, self._failure = self._failure, ""
            found = trouble(exc)
            if failure or found is not None or isinstance(
                    exc, (DocumentsUnavailable, InferenceError, VaultClosed)):
                raise CommandError(failure or (
                    found.message(translate("cli.commands", "Nothing more was saved.")) if found
                    else str(exc))) from exc
            raise

    def collections(self) -> CollectionsChanged:
        return self.wait(self.service.collections())

    def collection(self, name: str, create: bool = False) -> Collection:
        """The collection called ``name``, whatever its letters' case ("Work" is "work",
        as in the window's list); with ``create``, made when there is none."""
        known = self.collections().collections
        found = next((c for c in known if c.name == name), None) or next(
            (c for c in known if c.name.casefold() == name.casefold()), None)
        if found is None and create:
            return self.wait(self.service.create(name))
        if found is None:
            names = ", ".join(c.name for c in known) or translate("cli.commands", "none yet")
            raise CommandError(translate("cli.commands", "There is no collection named {name} "
                                         "(collections: {names}).").format(name=repr(name),
                                                                           names=names))
        return found

    def add(self, collection: Collection, paths: list[Path],
            progress: Callable[[Progress], None]) -> Report:
        done: Future = Future()
        self.service.add(collection.id, paths, done=done)
        return self._follow(done, progress)

    def sync(self, collection: Collection, progress: Callable[[Progress], None]) -> Report:
        """The collection caught up with its sources (``docs sync``)."""
        done: Future = Future()
        self.service.sync(collection.id, done=done)
        reports = self._follow(done, progress)
        return reports[0] if reports else Report(collection_id=collection.id)

    def embed_with(self, collection: Collection, embedder: str,
                   progress: Callable[[Progress], None]) -> Collection:
        """The collection embedded by ``embedder`` from now on ("": the app's model)."""
        done: Future = Future()
        self.service.embed_with(collection.id, embedder, done=done)
        return self._follow(done, progress)

    def _follow(self, done: Future, progress: Callable[[Progress], None]) -> Any:
        done.add_done_callback(self.events.put)  # the end, in line behind the progress events
        while (event := self.events.get()) is not done:
            if isinstance(event, Progress):
                progress(event)
            elif isinstance(event, JobFailed):
                self._failure = event.message
        return self.wait(done)

    def save_index(self) -> None:
        """Seal the search index into its file if the command changed enough of it (the
        rule the window's idle save follows), so that the next unlock loads it instead of
        reading every passage again: a command ends before any idle time. The command's
        work is in the vault already: a save that fails is logged, never the command's
        failure."""
        done: Future = Future()
        self.service.save_index(done)
        try:
            done.result(timeout=SAVE_TIMEOUT)
        except Exception as exc:
            log.warning("the search index was not saved (%s); the next unlock reads the vault",
                        type(exc).__name__)

    def find(self, question: str, collection: Collection, k: int = 5, mode: str = "hybrid") -> Future:
        """The search's hits as the window finds them (``core.retrieval``); a note when the
        collection's embedding model is not the one loaded here (keywords alone)."""
        def missing(model: str, why: str) -> None:
            if is_remote(model):
                print(f"({keywords_alone(why)})", file=sys.stderr)
                return
            print(translate("cli.commands", "(The collection was indexed with another embedding model: "
                            "keyword search only. Open Hearth to re-index it.)"), file=sys.stderr)

        say_embedded_there(collection)

        return self.service.find(question, [collection.id], [collection.embedding_model], k, mode,
                                 timeout=JOB_TIMEOUT, missing=missing)


def embedding_model_path(session: Session) -> Path:
    """The embedding model the window uses for documents (Models ▸ Use for documents), else
    the bundled one."""
    library = session.library
    chosen = library.get(library.preferences().get("embedding_model") or -1)
    if chosen is not None and chosen.usable and Path(chosen.path).is_file():
        return Path(chosen.path)
    return resolve_embedding_model()


@contextmanager
def opened(chat: bool = False, engine: str = "", read_only: bool = False, model: str = ""
           ) -> Iterator[tuple[Documents, WorkerClient]]:
    """The vault's session, a worker with the embedding model (and the chat model if asked,
    unless an intranet ``engine`` answers), and the document service with its index loaded;
    all closed in the session's order at the end."""
    with unlocked(read_only) as session:
        client = WorkerClient()
        session.on_close("answer", client.close)
        try:
            if engine:
                use_engine(client, session, engine)
            chat_spec = local_spec(model, session) if chat and not engine else None  # also the CPU build
            loaded = client.load_embedder(embedding_model_path(session))
            if chat_spec is not None:
                client.load(chat_spec)
            events: queue.Queue[Any] = queue.Queue()
            # No re-embedding in the background here: a command does what it was asked (an
            # import re-embeds the collection it adds to first, if it was on another model).
            # A command that only reads writes nothing of its own, not even the index file
            # (a save it began would be cut off at its end; one with a key that a passphrase
            # change in the window has retired meanwhile must not be put in place).
            service = session.documents(client.worker.submit, loaded.model or embedding_model().sha256,
                                        events.put, stop_within=5.0, follow_model=False,
                                        save_when_idle=not read_only)
            documents = Documents(service, client, events, lambda: session.engines)
            loaded_index: Future = Future()
            service.load_index(done=loaded_index)
            documents.wait(loaded_index)
            yield documents, client
            if not read_only:  # a command that changed documents (docs add, docs sync)
                documents.save_index()
        except (InferenceError, ClientError) as exc:
            raise CommandError(str(exc)) from exc


def say_embedded_there(collection: Collection) -> None:
    """Before a question to ``collection`` leaves: that it goes to the engine embedding it."""
    if is_remote(collection.embedding_model):
        print(translate("cli.commands", "Your question goes to {model} to be embedded for the "
                        "search; the passages are found on this computer.").format(
                            model=shown(collection.embedding_model)), file=sys.stderr)


def local_spec(name: str, session: Session | None = None) -> ModelSpec:
    """The local model a command asked for by ``--model``, as the worker loads it (with its
    projector where it sees pictures): the starter with none, else a model of the library
    (checked, usable, for chat) by its name or its file's name, case aside (``session``:
    the vault a command has open already). CommandError, saying where the names are
    listed, for one it does not know."""
    if not name:
        return ModelSpec(resolve_model())
    if session is None:
        with unlocked(read_only=True) as opened_now:
            return local_spec(name, opened_now)
    wanted = name.casefold()
    for entry in session.library.entries():
        names = {entry.name.casefold(), Path(entry.path).name.casefold(), Path(entry.path).stem.casefold()}
        if wanted in names and entry.usable and entry.info.get("role", "chat") == "chat":
            return ModelSpec(Path(entry.path), projector=projector_of(entry))
    if wanted in {starter_model().name.casefold(), Path(starter_model().file).stem.casefold()}:
        return ModelSpec(resolve_model())
    raise CommandError(translate("cli.commands", "No usable local chat model is called “{name}”; "
                                 "`models list` shows them.").format(name=name))


def use_engine(client: WorkerClient, session: Session, name: str, documents: bool = True) -> str:
    """Route answers to the intranet engine ``name``; says on standard error what leaves."""
    engines = session.engines
    record = engines.require(name)  # EngineError, an InferenceError: said as the reason
    client.use_engines(engines.engine_for)
    print(disclosure(record.name, record.where, documents), file=sys.stderr)
    return record.name


def disclosure(name: str, where: str, documents: bool) -> str:
    """What will leave this computer, said before anything does."""
    if documents:
        return translate("cli.commands", "Your question and the passages found in your documents go to "
                         "the engine {name} ({where}). The documents and the index stay on this "
                         "computer.").format(name=name, where=where)
    return translate("cli.commands", "This conversation goes to the engine {name} ({where}); nothing "
                     "else leaves this computer.").format(name=name, where=where)


def terminal_safe(text: str) -> str:
    """Model output as the terminal should see it: no escape sequences or other control
    characters (a hostile answer could otherwise set the clipboard, retitle the window or
    hide text), line breaks and tabs kept. Everything a command prints passes through the
    same filter again (``cli.main.SafeStream``)."""
    return printable(text)


def show(text: str) -> None:
    print(terminal_safe(text), end="", flush=True)


def notice(text: str) -> None:
    print("\n" + translate("cli.commands", "({message})").format(message=text), file=sys.stderr, flush=True)


def stream_answer(client: WorkerClient, history: tuple[ChatMessage, ...], params: SamplingParams,
                  engine: str = "", model: str = "") -> Answer:
    """One answer shown as it is written (ClientError when the worker fails)."""
    return client.generate(history, params, on_chunk=show, engine=engine, model=model, on_notice=notice)
