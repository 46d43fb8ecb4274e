"""Headless document commands: ``docs add``, ``docs list``, ``docs search``, ``ask``.

They open the same vault as the window (passphrase from HEARTH_PASSPHRASE or a
prompt) and run the same worker, engine, embedder and pipeline, without Qt.
"""

from __future__ import annotations

import json
import queue
import sys
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from app.documents import Documents, Progress, label
from app.headless import HeadlessError, open_store
from app.models import resolve_embedding_model, resolve_model
from inference.bundled import embedding_model
from inference.embedder import LlamaEmbedder
from inference.errors import InferenceError
from inference.llama_engine import LlamaEngine
from inference.protocol import (
    ChatMessage,
    Chunk,
    Done,
    EmbedderFailed,
    EmbedderLoaded,
    Failed,
    Generate,
    LoadEmbedder,
    LoadModel,
    ModelFailed,
    ModelLoaded,
    ModelSpec,
    Retrieval,
    Retrieved,
    SamplingParams,
    Stopped,
)
from inference.worker import InferenceWorker
from storage.crypto import BadPassphrase, DamagedVault, WrongPassphrase
from storage.instance_lock import AlreadyRunning

TIMEOUT = 600.0


class CommandError(Exception):
    pass


def _wait(events: queue.Queue, kinds: tuple[type, ...]) -> Any:
    deadline = time.monotonic() + TIMEOUT
    while True:
        event = events.get(timeout=max(0.1, deadline - time.monotonic()))
        if isinstance(event, kinds):
            return event


@contextmanager
def session(chat: bool = False):
    """The vault, a worker with the embedding model (and the chat model if asked), Documents."""
    try:
        store, lock = open_store()
    except (WrongPassphrase, BadPassphrase, DamagedVault, AlreadyRunning, HeadlessError) as exc:
        raise CommandError(str(exc)) from exc
    events: queue.Queue = queue.Queue()
    worker = InferenceWorker(LlamaEngine, events.put, flush_interval=0.05, embedder_factory=LlamaEmbedder)
    worker.start()
    try:
        chat_path = resolve_model() if chat else None  # also chooses the CPU build
        embed_path = resolve_embedding_model()
        worker.submit(LoadEmbedder(embed_path))
        loaded = _wait(events, (EmbedderLoaded, EmbedderFailed))
        if isinstance(loaded, EmbedderFailed):
            raise CommandError(loaded.reason)
        if chat_path is not None:
            worker.submit(LoadModel(ModelSpec(chat_path)))
            model = _wait(events, (ModelLoaded, ModelFailed))
            if isinstance(model, ModelFailed):
                raise CommandError(model.reason)
        documents = Documents(store.vault, worker.submit, embedding_model().sha256)
        documents.load_index()
        yield documents, worker, events
    except InferenceError as exc:
        raise CommandError(str(exc)) from exc
    finally:
        worker.shutdown(10.0)
        store.close()
        lock.release()


def _collection(documents: Documents, name: str):
    found = documents.collection(name)
    if found is None:
        names = ", ".join(c.name for c in documents.collections()) or "none yet"
        raise CommandError(f"There is no collection named {name!r} (collections: {names}).")
    return found


def docs_add(name: str, paths: list[str]) -> int:
    with session() as (documents, _worker, _events):
        collection = documents.collection(name, create=True)

        def show(progress: Progress) -> None:
            eta = f", about {progress.eta_seconds:.0f} s left" if progress.eta_seconds else ""
            print(f"\r[{progress.files_done}/{progress.files_total}] {progress.chunks_done} chunks{eta}  ",
                  end="", file=sys.stderr, flush=True)

        report = documents.add(collection, [Path(p) for p in paths], show)
        print(file=sys.stderr)
        for path in report.indexed:
            print(f"indexed  {path}")
        for path, why in report.skipped:
            print(f"skipped  {path}: {why}")
        for path, why in report.failed:
            print(f"failed   {path}: {why}")
        print(f"{len(report.indexed)} indexed, {len(report.skipped)} skipped, {len(report.failed)} failed; "
              f"{report.chunks} chunks")
    return 0


def docs_list() -> int:
    with session() as (documents, _worker, _events):
        for collection in documents.collections():
            docs = documents.store.documents(collection.id)
            print(f"{collection.name}: {len(docs)} files")
            for doc in docs:
                why = f" ({doc.reason})" if doc.reason else ""
                print(f"  {doc.status:<8} {doc.path}{why}")
    return 0


def docs_search(name: str, question: str, k: int, as_json: bool, mode: str) -> int:
    with session() as (documents, _worker, _events):
        collection = _collection(documents, name)
        vector = documents.embed([question])[0] if mode != "bm25" else None
        hits = documents.hits(question, vector, [collection.id], k=k, mode=mode)
        rows = [{"file": h.chunk.path, "page": h.chunk.page, "section": h.chunk.heading,
                 "score": round(h.score, 6), "cosine": round(h.cosine, 4), "text": h.chunk.text}
                for h in hits]
        if as_json:
            print(json.dumps(rows, ensure_ascii=False, indent=2))
        else:
            for n, (hit, row) in enumerate(zip(hits, rows, strict=True), start=1):
                print(f"[{n}] {label(hit.chunk)}  score {row['score']}\n    {hit.chunk.text[:200]!r}")
            if not rows:
                print("No relevant passages found.")
    return 0


def ask(name: str, question: str, max_tokens: int) -> int:
    with session(chat=True) as (documents, worker, events):
        collection = _collection(documents, name)
        messages = (ChatMessage("system", "You are a helpful assistant."), ChatMessage("user", question))
        retrieval = Retrieval(question, documents.searcher([collection.id]))
        worker.submit(Generate(1, 0, messages, SamplingParams(max_tokens=max_tokens, temperature=0.2, seed=1),
                               retrieval))
        passages: tuple = ()
        while True:
            event = _wait(events, (Retrieved, Chunk, Done, Stopped, Failed))
            if isinstance(event, Retrieved):
                passages = event.passages
            elif isinstance(event, Chunk):
                print(event.text, end="", flush=True)
            elif isinstance(event, Failed):
                raise CommandError(event.reason)
            else:
                break
        print()
        if passages:
            print("\nSources:")
            for p in passages:
                print(f"[{p.number}] {p.label} — {p.path}")
        else:
            print("\n(No passage in the collection matched this question.)")
    return 0


def run(args: Any) -> int:
    try:
        if args.command == "serve":
            return serve(args.host, args.port, args.token)
        if args.command == "chat":
            return terminal_chat()
        if args.command == "models":
            return models_list()
        if args.command == "docs":
            if args.docs_command == "add":
                return docs_add(args.collection, args.paths)
            if args.docs_command == "list":
                return docs_list()
            return docs_search(args.collection, args.question, args.k, args.json, args.mode)
        return ask(args.collection, args.question, args.max_tokens)
    except CommandError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1


def serve(host: str, port: int, token: str | None) -> int:
    """The local API without a window: the starter (or chosen) model and the embedder."""
    import signal
    import threading

    from app.api import ApiServer, Backend, RequestRouter
    from inference.bundled import starter_model

    router = RequestRouter()
    worker = InferenceWorker(LlamaEngine, router.sink, flush_interval=0.05, embedder_factory=LlamaEmbedder)
    worker.start()
    try:
        path = resolve_model()
        worker.submit(LoadModel(ModelSpec(path)))
        waiting: queue.Queue = queue.Queue()
        router.fallback = waiting.put
        loaded = _wait(waiting, (ModelLoaded, ModelFailed))
        if isinstance(loaded, ModelFailed):
            raise CommandError(loaded.reason)
        worker.submit(LoadEmbedder(resolve_embedding_model()))
        if isinstance(_wait(waiting, (EmbedderLoaded, EmbedderFailed)), EmbedderFailed):
            raise CommandError("the embedding model could not be loaded")
        router.fallback = None
        model_id = Path(starter_model().file).stem if path.name == starter_model().file else path.stem
        backend = Backend(worker.submit, worker.cancel, router, lambda: model_id,
                          lambda: Path(embedding_model().file).stem)
        try:
            server = ApiServer(backend, host=host, port=port, token=token)
        except ValueError as exc:
            raise CommandError(str(exc)) from exc
        server.start()
        print(f"Hearth API on {server.url}\nmodel: {model_id}\ntoken: {server.token}\n"
              "Conversations through the API are not stored. Ctrl+C stops.", flush=True)
        stop = threading.Event()
        signal.signal(signal.SIGINT, lambda *_: stop.set())
        signal.signal(signal.SIGTERM, lambda *_: stop.set())
        stop.wait()
        server.stop()
    finally:
        worker.shutdown(5.0)
    return 0


def terminal_chat() -> int:
    """Chat in the terminal with the starter (or first) model. Not stored."""
    events: queue.Queue = queue.Queue()
    worker = InferenceWorker(LlamaEngine, events.put, flush_interval=0.05)
    worker.start()
    try:
        worker.submit(LoadModel(ModelSpec(resolve_model())))
        model = _wait(events, (ModelLoaded, ModelFailed))
        if isinstance(model, ModelFailed):
            raise CommandError(model.reason)
        print(f"{model.name}. Empty line or Ctrl+D to leave. This terminal chat is not saved.")
        history = [ChatMessage("system", "You are a helpful assistant.")]
        request = 0
        while True:
            try:
                line = input("you> ").strip()
            except EOFError:
                break
            if not line:
                break
            history.append(ChatMessage("user", line))
            request += 1
            worker.submit(Generate(request, 0, tuple(history), SamplingParams(max_tokens=512)))
            answer = ""
            print("model> ", end="", flush=True)
            while True:
                event = _wait(events, (Chunk, Done, Stopped, Failed))
                if isinstance(event, Chunk):
                    answer += event.text
                    print(event.text, end="", flush=True)
                elif isinstance(event, Failed):
                    print(f"\n(error: {event.reason})")
                    break
                else:
                    print()
                    break
            history.append(ChatMessage("assistant", answer))
    finally:
        worker.shutdown(5.0)
    return 0


def models_list() -> int:
    """The model library (in the vault) and the bundled models."""
    from inference.bundled import manifests
    from storage.library import ModelLibrary

    try:
        store, lock = open_store()
    except (WrongPassphrase, BadPassphrase, DamagedVault, AlreadyRunning, HeadlessError) as exc:
        raise CommandError(str(exc)) from exc
    try:
        entries = ModelLibrary(store).entries()
        listed = {e.sha256 for e in entries}
        for model in manifests():
            if model.sha256 not in listed:
                print(f"{model.name:<40} {model.role:<9} bundled")
        for entry in entries:
            info = entry.info
            state = "ready" if entry.usable else f"unusable: {entry.probe.get('reason', 'not checked')}"
            print(f"{entry.name:<40} {info.get('role', '?'):<9} {info.get('quantization', '?'):<8} "
                  f"{info.get('file_size', 0) / 2**20:>8.0f} MB  {entry.stored:<9} {state}")
    finally:
        store.close()
        lock.release()
    return 0
