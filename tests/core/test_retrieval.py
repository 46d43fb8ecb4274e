"""#37 item 2: retrieval is data. A document question's passages are found before the
answer is asked for (``core.retrieval``: the question embedded on the worker, the index
searched on the document service's thread), so the worker never waits on the document
service: with the service held busy, another chat's answer streams meanwhile. With the
real starter model, the real embedding model and a real document service."""

from __future__ import annotations

import contextlib
import queue
import threading
import time
from concurrent.futures import Future
from pathlib import Path

import pytest

from core.document_service import DocumentService
from core.turns import TurnMachine
from inference.bundled import embedding_model
from inference.embedder import LlamaEmbedder
from inference.llama_engine import LlamaEngine
from inference.protocol import (
    ChatMessage,
    Done,
    Embed,
    Generate,
    LoadEmbedder,
    LoadModel,
    ModelLoaded,
    ModelSpec,
    Retrieved,
    SamplingParams,
)
from inference.worker import InferenceWorker
from storage.chats import COMPLETE, ChatStore
from storage.vault import Vault
from tests.core.test_turns import Recorder
from tests.storage.conftest import FAST_KDF

pytestmark = [pytest.mark.model]
WAIT = 120.0
BUNDLED = embedding_model().sha256
NOTE = "The harbour office sets the mooring fee: forty euros a night for boats up to twelve metres."
PARAMS = SamplingParams(max_tokens=12, temperature=0.0, seed=1)


class Held:
    """The document service's index, held busy: its searches wait until ``release``."""

    def __init__(self, service: DocumentService) -> None:
        self.searching = threading.Event()
        self.released = threading.Event()
        real = service._indexes.search

        def search(*args, **kwargs):
            self.searching.set()
            assert self.released.wait(WAIT), "the test never released the search"
            return real(*args, **kwargs)

        service._indexes.search = search  # type: ignore[method-assign]


@pytest.fixture(scope="module")
def worker(starter_model_path: Path, embedding_model_path: Path):
    events: queue.Queue = queue.Queue()
    w = InferenceWorker(LlamaEngine, events.put, embedder_factory=LlamaEmbedder, flush_interval=0.0)
    w.start()
    w.submit(LoadEmbedder(embedding_model_path, BUNDLED))
    w.submit(LoadModel(ModelSpec(starter_model_path, n_ctx=2048, n_threads=2)))
    deadline = time.monotonic() + WAIT
    while not isinstance(events.get(timeout=max(0.1, deadline - time.monotonic())), ModelLoaded):
        pass
    yield w, events
    assert w.shutdown(5.0)


@pytest.fixture
def documents(tmp_path: Path, worker):
    w, _events = worker
    vault = Vault.create(tmp_path / "vault.db", "retrieval passphrase", FAST_KDF)
    service = DocumentService(vault, w.submit, BUNDLED, lambda _event: None)
    service.start()
    loaded: Future = Future()
    service.load_index(done=loaded)
    loaded.result(timeout=WAIT)
    collection = service.create("Harbour").result(timeout=WAIT)
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "fees.md").write_text(f"# Mooring\n\n{NOTE}\n", encoding="utf-8")
    done: Future = Future()
    service.add(collection.id, [folder], done=done)
    assert done.result(timeout=WAIT).indexed
    store = ChatStore(vault)
    yield service, collection.id, store
    service.close(10.0)
    vault.close()


def _drain(events: queue.Queue) -> None:
    while True:
        try:
            events.get_nowait()
        except queue.Empty:
            return


def _pump(events: queue.Queue, handle, condition, timeout: float = WAIT) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        with contextlib.suppress(queue.Empty):
            handle(events.get(timeout=0.05))


def _document_turn(worker, documents, submit=None, timeout: float = 30.0) -> tuple[TurnMachine, Held, int]:
    """A turn machine as the window has it, the service held busy, and a document
    question asked in a new chat (its id)."""
    w, events = worker
    service, collection_id, store = documents
    _drain(events)
    held = Held(service)
    turns = TurnMachine(Recorder(), submit or w.submit, w.cancel, deliver=events.put)
    turns.store = store
    chat = store.create_chat("Harbour")
    assert turns.save_user_message(chat.id, "What is the mooring fee?") is not None
    assert turns.start(chat.id, PARAMS, lambda _chat, question: service.retrieve(
        question, [collection_id], [BUNDLED], timeout=timeout))
    return turns, held, chat.id


def test_another_answer_streams_while_the_documents_are_searched(worker, documents) -> None:
    w, events = worker
    store = documents[2]
    turns, held, asked = _document_turn(worker, documents)
    assert held.searching.wait(WAIT)  # the question was embedded; the search is held on the service's thread
    # Meanwhile, a plain answer in another chat: the worker is free to write it.
    other: list = []
    w.submit(Generate(10_000, 0, (ChatMessage("user", "Say hello."),), PARAMS))

    def handle(event) -> None:
        if getattr(event, "request_id", None) == 10_000:
            other.append(event)
        else:
            turns.on_event(event)

    _pump(events, handle, lambda: any(isinstance(e, Done) for e in other))
    assert not held.released.is_set() and turns.busy  # the document answer still waits on its search
    seen: list = []

    def watch(event) -> None:
        seen.append(event)
        turns.on_event(event)

    held.released.set()
    _pump(events, watch, lambda: not turns.busy)
    answer = store.messages(asked)[-1]
    assert answer.status == COMPLETE
    retrieved = next(e for e in seen if isinstance(e, Retrieved))
    assert retrieved.passages and "forty euros" in retrieved.passages[0].text
    assert answer.stats["sources"][0]["path"].endswith("fees.md")


def test_stop_while_searching_asks_no_model(worker, documents) -> None:
    w, events = worker
    service, collection_id, store = documents
    submitted: list = []
    turns, held, chat = _document_turn(worker, documents, lambda c: (submitted.append(c), w.submit(c)))
    assert held.searching.wait(WAIT)
    turns.stop()
    assert not turns.busy
    held.released.set()
    found = service.retrieve("mooring", [collection_id], [BUNDLED])  # behind the stopped one
    found.result(timeout=WAIT)
    _pump(events, turns.on_event, lambda: events.empty())
    assert not any(isinstance(c, Generate) for c in submitted)  # no model was asked
    assert [m.role for m in store.messages(chat)] == ["user"]  # the empty answer went


def test_a_search_that_never_answers_fails_the_turn_plainly(worker, documents) -> None:
    _w, events = worker
    store = documents[2]
    turns, held, chat = _document_turn(worker, documents, timeout=1.0)
    _pump(events, turns.on_event, lambda: not turns.busy)
    held.released.set()
    answer = store.messages(chat)[-1]
    assert answer.role == "assistant" and "could not be searched in time" in answer.stats["error"]


def test_one_place_embeds_a_question(worker, documents) -> None:
    """The terminal's ``docs search`` and the window's answers embed the question alike:
    once, with the model's query prefix, on the worker."""
    w, _events = worker
    service, collection_id, _store = documents
    seen: list = []
    real = service._submit

    def submit(command) -> None:
        if isinstance(command, Embed):
            seen.append(command.texts)
        real(command)

    service._submit = submit  # type: ignore[method-assign]
    hits = service.find("mooring fee", [collection_id], [BUNDLED]).result(timeout=WAIT)
    passages = service.retrieve("mooring fee", [collection_id], [BUNDLED]).result(timeout=WAIT)
    assert hits[0].chunk.text == passages[0].text
    assert seen == [("query: mooring fee",), ("query: mooring fee",)]
