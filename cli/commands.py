"""The terminal commands: ``docs add|list|search``, ``ask``, ``chat``, ``serve``,
``models list`` and ``check-vault``.

They open the same vault as the window (passphrase from HEARTH_PASSPHRASE or a
prompt) and run the same worker, engine, embedder and pipeline, without Qt.
"""

from __future__ import annotations

import json
import os
import queue
import sys
from collections.abc import Callable, Iterator
from concurrent.futures import Future
from concurrent.futures import TimeoutError as FutureTimeout
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TextIO

from cli.headless import OPENING_FAILED, open_store
from core.answers import extract, extract_markdown, weakness, weakness_text
from core.client import Answer, ClientError, WorkerClient
from core.document_protocol import CollectionsChanged, DocumentsUnavailable, JobFailed
from core.document_service import DocumentService
from core.documents import FAILED, INDEXED, PENDING, SKIPPED, Collection, Progress, Report, label
from core.history import SYSTEM_PROMPT
from core.models import resolve_embedding_model, resolve_model
from core.protocol import (
    ChatMessage,
    InferenceError,
    ModelSpec,
    Passages,
    SamplingParams,
    embedding_model,
    invented,
    starter_model,
    weak_languages,
)
from core.vault import VaultClosed, checkup, trouble
from guard.text import printable
from i18n import translate


class CommandError(Exception):
    pass


API_TOKEN_ENV = "HEARTH_API_TOKEN"
MIN_TOKEN_LENGTH = 16


def token_in_arguments() -> str:
    """Why ``serve --token`` is refused, and what to do instead."""
    return translate("cli.commands", "--token is not accepted: every user of this computer can read "
                     "a program's arguments (ps). Put the token in {variable}, or in a file: "
                     "--token-file PATH (--token-file - reads it from standard input). Without "
                     "either, serve makes a new token and prints it.").format(variable=API_TOKEN_ENV)


def _status(status: str) -> str:
    """A document's state (a stored value, compared in code) in the user's words."""
    words = {INDEXED: translate("cli.commands", "indexed"),
             PENDING: translate("cli.commands", "pending"),
             SKIPPED: translate("cli.commands", "skipped"),
             FAILED: translate("cli.commands", "failed")}
    return words.get(status, status)


JOB_TIMEOUT = 3600.0  # an import of many files; progress shows meanwhile


class Documents:
    """The document service for one command: started, its index loaded, waited on.

    The service's thread owns the store and the index; this side only sends commands and
    waits on the futures they carry, and reads the events (progress) off a queue.
    """

    def __init__(self, service: DocumentService, client: WorkerClient,
                 events: queue.Queue[Any]) -> None:
        self.service = service
        self.client = client
        self.events = events  # the service's sink
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
        done.add_done_callback(self.events.put)  # the end, in line behind the progress events
        self.service.add(collection.id, paths, done=done)
        while (event := self.events.get()) is not done:
            if isinstance(event, Progress):
                progress(event)
            elif isinstance(event, JobFailed):
                self._failure = event.message
        return self.wait(done)

    def find(self, question: str, collection: Collection, k: int = 5, mode: str = "hybrid") -> Future:
        """The search's hits as the window finds them (``core.retrieval``); a note when the
        collection's embedding model is not the one loaded here (keywords alone)."""
        def missing(_model: str) -> None:
            print(translate("cli.commands", "(The collection was indexed with another embedding model: "
                            "keyword search only. Open Hearth to re-index it.)"), file=sys.stderr)

        return self.service.find(question, [collection.id], [collection.embedding_model], k, mode,
                                 timeout=JOB_TIMEOUT, missing=missing)


def _embedding_model(store: Any) -> Path:
    """The embedding model the window uses for documents (Models ▸ Use for documents), else
    the bundled one."""
    from core.records import ModelLibrary

    library = ModelLibrary(store)
    chosen = library.get(library.preferences().get("embedding_model") or -1)
    if chosen is not None and chosen.usable and Path(chosen.path).is_file():
        return Path(chosen.path)
    return resolve_embedding_model()


@contextmanager
def session(chat: bool = False, engine: str = "", read_only: bool = False, model: str = ""
            ) -> Iterator[tuple[Documents, WorkerClient]]:
    """The vault, a worker with the embedding model (and the chat model if asked, unless an
    intranet ``engine`` answers), and the document service with its index loaded; all
    closed in order at the end."""
    try:
        store, lock = open_store(read_only)
    except OPENING_FAILED as exc:
        raise CommandError(str(exc)) from exc
    client = WorkerClient()
    service: DocumentService | None = None
    try:
        if engine:
            _use_engine(client, store, engine)
        chat_path = local_model(model, store) if chat and not engine else None  # also the CPU build
        loaded = client.load_embedder(_embedding_model(store))
        if chat_path is not None:
            client.load(ModelSpec(chat_path))
        events: queue.Queue[Any] = queue.Queue()
        # No re-embedding in the background here: a command does what it was asked (an
        # import re-embeds the collection it adds to first, if it was on another model).
        service = DocumentService(store.vault, client.worker.submit,
                                  loaded.model or embedding_model().sha256, events.put,
                                  follow_model=False)
        documents = Documents(service, client, events)
        service.start()
        loaded_index: Future = Future()
        service.load_index(done=loaded_index)
        documents.wait(loaded_index)
        yield documents, client
    except (InferenceError, ClientError) as exc:
        raise CommandError(str(exc)) from exc
    finally:
        if service is not None:
            service.close(5.0)
        client.close(10.0)
        store.close()
        lock.release()


def docs_add(name: str, paths: list[str]) -> int:
    with session() as (documents, _client):
        collection = documents.collection(name, create=True)

        def show(progress: Progress) -> None:
            eta = (translate("cli.commands", ", about {seconds:.0f} s left").format(
                seconds=progress.eta_seconds) if progress.eta_seconds else "")
            what = (translate("cli.commands", "re-indexing for the embedding model: ")
                    if progress.reembedding else "")
            chunks = progress.chunks_done  # a plain name: pyside6-lupdate skips an expression
            line = translate("cli.commands", "{what}[{done}/{total}] {chunks}{eta}").format(
                what=what, done=progress.files_done, total=progress.files_total,
                chunks=translate("cli.commands", "%n chunks", None, chunks), eta=eta)
            print(f"\r{line}  ", end="", file=sys.stderr, flush=True)

        report = documents.add(collection, [Path(p) for p in paths], show)
        print(file=sys.stderr)
        for path in report.indexed:
            print(translate("cli.commands", "indexed  {path}").format(path=path))
        for path, why in report.skipped:
            print(translate("cli.commands", "skipped  {path}: {why}").format(path=path, why=why))
        for path, why in report.failed:
            print(translate("cli.commands", "failed   {path}: {why}").format(path=path, why=why))
        chunks = report.chunks
        print(translate("cli.commands", "{indexed} indexed, {skipped} skipped, {failed} failed; "
                        "{chunks}").format(indexed=len(report.indexed), skipped=len(report.skipped),
                                           failed=len(report.failed),
                                           chunks=translate("cli.commands", "%n chunks", None, chunks)))
    # A script must see that a file was not indexed (a missing path, a broken file).
    return 1 if report.failed else 0


def docs_list() -> int:
    with session(read_only=True) as (documents, _client):
        snapshot = documents.collections()
        for collection in snapshot.collections:
            docs = snapshot.documents.get(collection.id, ())
            count = len(docs)
            files = translate("cli.commands", "%n files", None, count)
            print(translate("cli.commands", "{collection}: {files}").format(
                collection=collection.name, files=files))
            for doc in docs:
                why = f" ({doc.reason})" if doc.reason else ""
                print(f"  {_status(doc.status):<8} {doc.path}{why}")
    return 0


def docs_search(name: str, question: str, k: int, as_json: bool, mode: str) -> int:
    with session(read_only=True) as (documents, _client):
        collection = documents.collection(name)
        hits = documents.wait(documents.find(question, collection, k, mode))
        rows = [{"file": h.chunk.path, "page": h.chunk.page, "section": h.chunk.heading,
                 "score": round(h.score, 6), "cosine": round(h.cosine, 4), "text": h.chunk.text}
                for h in hits]
        if as_json:
            print(json.dumps(rows, ensure_ascii=False, indent=2))
        else:
            for n, hit in enumerate(hits, start=1):
                # The passage as a reader sees it: one line, its spaces plain, control
                # characters gone, cut at a word. Scores are for --json.
                text = " ".join(terminal_safe(hit.chunk.text).split())
                if len(text) > PREVIEW:
                    text = text[:PREVIEW].rsplit(" ", 1)[0] + " …"
                print(translate("cli.commands", "[{number}] {passage}\n    {text}")
                      .format(number=n, passage=terminal_safe(label(hit.chunk)), text=text))
            if not rows:
                print(translate("cli.commands", "No relevant passages found."))
    return 0


def _use_engine(client: WorkerClient, store: Any, name: str, documents: bool = True) -> str:
    """Route answers to the intranet engine ``name``; says on standard error what leaves."""
    from core.engines import Engines
    from core.records import ModelLibrary

    engines = Engines(ModelLibrary(store))
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


def ask(name: str, question: str, max_tokens: int, engine: str = "", model: str = "") -> int:
    with session(chat=True, engine=engine, read_only=True, model="" if engine else model) as (documents, client):
        collection = documents.collection(name)
        messages = (ChatMessage("system", SYSTEM_PROMPT), ChatMessage("user", question))
        found = documents.wait(documents.service.retrieve(question, [collection.id],
                                                          [collection.embedding_model], timeout=JOB_TIMEOUT))
        retrieval = Passages(tuple(found))
        answer = _answer(client, messages, SamplingParams(max_tokens=max_tokens, temperature=0.2, seed=1),
                         retrieval, engine, model)
        print()
        sources = [p.as_dict() for p in answer.passages]
        if found := invented(answer.text, sources):
            print("\n" + translate("cli.commands", "Not a source (the model wrote citations that "
                                    "point at no passage it was given): {citations}").format(
                citations=", ".join(terminal_safe(f.text) for f in found)))
        weak = client.model is not None and not engine and \
            weakness(question, sources, weak_languages(client.model.path))
        if weak:
            print("\n" + weakness_text(weak) + "\n\n"
                  + terminal_safe(extract_markdown(extract(question, sources), markdown=False)))
        if answer.passages:
            print("\n" + translate("cli.commands", "Sources:"))
            for p in answer.passages:
                print(f"[{p.number}] {p.label} — {p.path}")
        else:
            print("\n" + translate("cli.commands",
                                   "(No passage in the collection matched this question.)"))
    return 0


def _answer(client: WorkerClient, messages: tuple[ChatMessage, ...], params: SamplingParams,
            retrieval: Passages | None = None, engine: str = "", model: str = "") -> Answer:
    """Stream one answer to the terminal."""
    try:
        answer = client.generate(messages, params, retrieval, on_chunk=_show,
                                 engine=engine, model=model, on_notice=_notice)
    except ClientError as exc:
        raise CommandError(str(exc)) from exc
    if answer.interrupted:
        _notice(translate("cli.commands", "{reason} The answer above is incomplete.").format(
            reason=answer.interrupted))
    return answer


PREVIEW = 240  # characters of a passage that `docs search` shows


def terminal_safe(text: str) -> str:
    """Model output as the terminal should see it: no escape sequences or other control
    characters (a hostile answer could otherwise set the clipboard, retitle the window or
    hide text), line breaks and tabs kept. Everything a command prints passes through the
    same filter again (``cli.main.SafeStream``)."""
    return printable(text)


def _show(text: str) -> None:
    print(terminal_safe(text), end="", flush=True)


def _notice(text: str) -> None:
    print("\n" + translate("cli.commands", "({message})").format(message=text), file=sys.stderr, flush=True)


def check_vault() -> int:
    """Decrypt every item and check the file; 0 when all is sound."""
    try:
        store, lock = open_store(read_only=True)
    except OPENING_FAILED as exc:
        raise CommandError(str(exc)) from exc
    try:
        problems = checkup.problems(store)
        sound = store.vault.integrity_problem()
        chats, messages = len(store.list_chats()), store.message_count()
    finally:
        store.close()
        lock.release()
    if problems or sound:
        for problem in problems + ([f"SQLite: {sound}"] if sound else []):
            print(translate("cli.commands", "damaged: {problem}").format(problem=problem))
        return 1
    print(translate("cli.commands", "vault ok: {chats}, {messages}, all decrypt; file sound").format(
        chats=translate("cli.commands", "%n chats", None, chats),
        messages=translate("cli.commands", "%n messages", None, messages)))
    return 0


def run(args: Any) -> int:
    try:
        if args.command == "check-vault":
            return check_vault()
        if args.command == "serve":
            if getattr(args, "token", None) is not None:
                raise CommandError(token_in_arguments())
            return serve(args.host, args.port, read_api_token(getattr(args, "token_file", None)))
        if args.command == "chat":
            return terminal_chat(args.engine, args.model)
        if args.command == "engines":
            from cli.engines import run as engines_run

            return engines_run(args)
        if args.command == "models":
            return models_list()
        if args.command == "docs":
            if args.docs_command == "add":
                return docs_add(args.collection, args.paths)
            if args.docs_command == "list":
                return docs_list()
            return docs_search(args.collection, args.question, args.k, args.json, args.mode)
        return ask(args.collection, args.question, args.max_tokens, args.engine, args.model)
    except CommandError as exc:
        print(translate("cli.commands", "error: {message}").format(message=exc), file=sys.stderr)
        return 1


def read_api_token(token_file: str | None, stdin: TextIO | None = None) -> str | None:
    """The bearer token the user chose, never from the arguments (``ps`` shows those): the
    first line of ``token_file`` (``-``: standard input), else HEARTH_API_TOKEN, which is
    removed from the environment so that no child inherits it. None: make a new one."""
    from_environment = os.environ.pop(API_TOKEN_ENV, None)
    if token_file is None:
        token = from_environment
        where = API_TOKEN_ENV
    else:
        where = translate("cli.commands", "standard input") if token_file == "-" else token_file
        try:
            text = (stdin or sys.stdin).readline() if token_file == "-" else \
                Path(token_file).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise CommandError(translate("cli.commands", "The token could not be read from {where}: "
                                         "{reason}.").format(where=where, reason=exc)) from exc
        token = (text.strip().splitlines() or [""])[0].strip()
    if token is None:
        return None
    token = token.strip()
    if len(token) < MIN_TOKEN_LENGTH or not token.isprintable() or any(c.isspace() for c in token):
        raise CommandError(translate("cli.commands", "The token from {where} must be at least %n "
                                     "characters, without spaces.", None, MIN_TOKEN_LENGTH).format(
            where=where))
    return token


def serve(host: str, port: int, token: str | None) -> int:
    """The local API without a window: the starter (or chosen) model and the embedder."""
    import signal
    import threading

    from core.api import ApiServer, Backend
    from core.protocol import starter_model

    client = WorkerClient()
    try:
        path = resolve_model()
        client.load(ModelSpec(path))
        client.load_embedder(resolve_embedding_model())
        client.router.fallback = None  # from now on every event belongs to an API request
        model_id = Path(starter_model().file).stem if path.name == starter_model().file else path.stem
        backend = Backend(client.worker.submit, client.worker.cancel, client.router, lambda: model_id,
                          lambda: Path(embedding_model().file).stem,
                          embedding_sha256=lambda: embedding_model().sha256)
        try:
            server = ApiServer(backend, host=host, port=port, token=token)
        except ValueError as exc:
            raise CommandError(str(exc)) from exc
        server.start()
        shown = server.token if token is None else translate("cli.commands", "the one you gave")
        print("\n".join((translate("cli.commands", "Hearth API on {url}").format(url=server.url),
                         translate("cli.commands", "model: {model}").format(model=model_id),
                         translate("cli.commands", "token: {token}").format(token=shown),
                         translate("cli.commands", "Conversations through the API are not stored. "
                                   "Ctrl+C stops."))), flush=True)
        stop = threading.Event()
        signal.signal(signal.SIGINT, lambda *_: stop.set())
        signal.signal(signal.SIGTERM, lambda *_: stop.set())
        stop.wait()
        server.stop()
    except (InferenceError, ClientError) as exc:
        raise CommandError(str(exc)) from exc
    finally:
        client.close(5.0)
    return 0


def local_model(name: str, store: Any = None) -> Path:
    """The local model a command asked for by ``--model``: the starter with none, else a
    model of the library (checked, usable, for chat) by its name or its file's name, case
    aside (``store``: the vault a command has open already). CommandError, saying where
    the names are listed, for one it does not know."""
    if not name:
        return resolve_model()
    from core.records import ModelLibrary

    wanted = name.casefold()
    if store is None:
        try:
            opened, lock = open_store(read_only=True)
        except OPENING_FAILED as exc:
            raise CommandError(str(exc)) from exc
        try:
            return local_model(name, opened)
        finally:
            opened.close()
            lock.release()
    for entry in ModelLibrary(store).entries():
        names = {entry.name.casefold(), Path(entry.path).name.casefold(), Path(entry.path).stem.casefold()}
        if wanted in names and entry.usable and entry.info.get("role", "chat") == "chat":
            return Path(entry.path)
    if wanted in {starter_model().name.casefold(), Path(starter_model().file).stem.casefold()}:
        return resolve_model()
    raise CommandError(translate("cli.commands", "No usable local chat model is called “{name}”; "
                                 "`models list` shows them.").format(name=name))


def terminal_chat(engine: str = "", model: str = "") -> int:
    """Chat in the terminal with the starter model (or the local one ``model`` names), or
    an intranet engine's. Not stored."""
    if not engine:
        path = local_model(model)
        with WorkerClient(with_embedder=False) as client:
            try:
                loaded = client.load(ModelSpec(path))
            except (InferenceError, ClientError) as exc:
                raise CommandError(str(exc)) from exc
            return _chat_loop(client, loaded.name)
    try:
        store, lock = open_store(read_only=True)  # the engines are in the vault
    except OPENING_FAILED as exc:
        raise CommandError(str(exc)) from exc
    try:
        with WorkerClient(with_embedder=False) as client:
            try:
                name = _use_engine(client, store, engine, documents=False)
            except InferenceError as exc:
                raise CommandError(str(exc)) from exc
            return _chat_loop(client, model or name, engine, model)
    finally:
        store.close()
        lock.release()


def _chat_loop(client: WorkerClient, title: str, engine: str = "", model: str = "") -> int:
    print(translate("cli.commands", "{model}. Empty line or Ctrl+D to leave. This terminal chat "
                    "is not saved.").format(model=title))
    history = [ChatMessage("system", SYSTEM_PROMPT)]
    while True:
        try:
            line = input(translate("cli.commands", "you> ")).strip()
        except EOFError:
            break
        if not line:
            break
        history.append(ChatMessage("user", line))
        print(translate("cli.commands", "model> "), end="", flush=True)
        try:
            answer = client.generate(tuple(history), SamplingParams(max_tokens=512), on_chunk=_show,
                                     engine=engine, model=model, on_notice=_notice)
        except ClientError as exc:
            print("\n" + translate("cli.commands", "(error: {message})").format(message=exc))
            continue
        print()
        if answer.interrupted:
            _notice(answer.interrupted)
        history.append(ChatMessage("assistant", answer.text))
    return 0


def models_list() -> int:
    """The model library (in the vault) and the bundled models."""
    from core.protocol import manifests
    from core.records import ModelLibrary

    try:
        store, lock = open_store(read_only=True)
    except OPENING_FAILED as exc:
        raise CommandError(str(exc)) from exc
    try:
        entries = ModelLibrary(store).entries()
        listed = {e.sha256 for e in entries}
        for model in manifests():
            if model.sha256 not in listed:
                print(f"{model.name:<40} {model.role:<9} " + translate("cli.commands", "bundled"))
        for entry in entries:
            info = entry.info
            reason = entry.probe.get("reason", translate("cli.commands", "not checked"))
            state = (translate("cli.commands", "ready") if entry.usable
                     else translate("cli.commands", "unusable: {reason}").format(reason=reason))
            print(f"{entry.name:<40} {info.get('role', '?'):<9} {info.get('quantization', '?'):<8} "
                  f"{info.get('file_size', 0) / 2**20:>8.0f} MB  {entry.stored:<9} {state}")
    finally:
        store.close()
        lock.release()
    return 0
