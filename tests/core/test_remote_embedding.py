"""A collection embedded on an intranet engine (#43): a real llama-server serving the
bundled multilingual-e5 in embedding mode behind TLS, the real local worker for the
rest, the real document service and vault. And an engine that answers wrongly, on a
socket of its own, refused at the door."""

from __future__ import annotations

import http.server
import json
from concurrent.futures import Future
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from core.document_protocol import JobFailed, Reembed, SearchNote
from core.engines import EngineRecord, Engines
from core.remote_embedding import EmbeddingRoute, choose, disclosure, where_digest
from guard import egress
from inference.bundled import embedding_model
from inference.embedder import profile
from inference.embedding_ids import identity, parts, shown
from inference.intranet import Client, EngineError, Trust, parse_url
from inference.protocol import CountTokens, Embed
from inference.remote_discovery import RemoteModel
from inference.remote_embed import EngineEmbedderUnavailable, RemoteEmbedder
from inference.worker import InferenceWorker
from storage.chats import ChatStore
from storage.documents.store import DocumentStore
from tests import retrieval_set
from tests.core.test_document_service import Service
from tests.intranet import ENGINE_HOST, serving

pytestmark = [pytest.mark.model, pytest.mark.slow]
BUNDLED = embedding_model().sha256
WAIT = 120.0


class Recorder:
    """The local worker's place: what reached it, passed on."""

    def __init__(self, worker: InferenceWorker) -> None:
        self.worker = worker
        self.seen: list = []

    def submit(self, command) -> None:
        self.seen.append(command)
        self.worker.submit(command)


def embed(submit, model: str, texts: list[str]) -> np.ndarray:
    future: Future = Future()
    submit(Embed(tuple(texts), future, model))
    return future.result(timeout=WAIT)


def test_a_collection_embedded_on_the_engine_answers_by_its_vectors_and_comes_back_here(
        store: ChatStore, engines: Engines, worker, embedding_engine, tmp_path: Path) -> None:
    engines.add("Corp", embedding_engine.url, Trust(system=False, ca_pem=embedding_engine.pki.ca_pem))
    local = Recorder(worker)
    route = EmbeddingRoute(local.submit, lambda: engines)
    service = Service(store.vault, route, BUNDLED)
    try:
        folder = retrieval_set.write_corpus(tmp_path / "corpus")
        collection = service.create("work")
        assert not service.add(collection.id, [folder]).result(timeout=WAIT).failed

        choice = choose(engines, "corp")
        assert choice.model == identity("Corp", "corp-multilingual-e5-small", where_digest(engines.require("Corp")))
        said = disclosure(choice, "work")
        assert "every passage of “work”" in said and f"{ENGINE_HOST}:{embedding_engine.port}" in said
        local.seen.clear()
        done: Future = Future()
        service.service.embed_with(collection.id, choice.model, done)
        switched = done.result(timeout=WAIT)
        assert switched.embedder == switched.embedding_model == choice.model
        # Nothing of it was embedded here, and every passage now has the engine's vectors.
        assert not [c for c in local.seen if isinstance(c, Embed)]
        assert set().union(*DocumentStore(store.vault).chunk_models(collection.id).values()) == {choice.model}
        sent = next(d for d in egress.destinations() if d.name == "Corp")
        assert sent.bytes_sent > 1000 and sent.bytes_received > 1000

        # The same model, there and here: e5's prefixes follow the name the engine gives it.
        assert profile(choice.model).passage_prefix == "passage: "
        there = embed(route, choice.model, ["passage: The mooring fee is 2 euros per meter."])
        here = embed(local.submit, BUNDLED, ["passage: The mooring fee is 2 euros per meter."])
        assert float(there[0] @ here[0]) > 0.98 and abs(float(np.linalg.norm(there[0])) - 1.0) < 1e-5

        # A question is embedded by the engine too, and the vectors rank.
        for question in retrieval_set.QUESTIONS[:4]:
            hits = service.service.find(question.text, [collection.id], [choice.model]).result(timeout=WAIT)
            assert hits and Path(hits[0].chunk.path).name == question.file, question.text
            assert hits[0].cosine > 0.5  # the vector side answered (-1 without a vector)

        # A file added later goes to the engine as well; the app's own re-embedding, when
        # its model changes, leaves the collection where the user put it.
        extra = tmp_path / "extra.md"
        extra.write_text("# Lighthouse\n\nThe lighthouse keeper logs every ship that passes at night.\n")
        local.seen.clear()
        assert service.add(collection.id, [extra]).result(timeout=WAIT).indexed == [str(extra)]
        service.service.post(Reembed())
        again: Future = Future()
        service.service.embed_with(collection.id, choice.model, again)
        assert again.result(timeout=WAIT).embedding_model == choice.model
        assert not [c for c in local.seen if isinstance(c, (Embed, CountTokens))]
        assert set().union(*DocumentStore(store.vault).chunk_models(collection.id).values()) == {choice.model}

        # Switched off: a question is searched by its keywords, and says why; an import
        # stops with the engine's reason and keeps what it had.
        engines.set_enabled("Corp", False)
        heard: list[tuple[str, str]] = []
        hits = service.service.find("mooring fee per meter", [collection.id], [choice.model],
                                    missing=lambda model, why: heard.append((model, why))).result(timeout=WAIT)
        assert hits and hits[0].cosine == -1.0
        assert heard and heard[0][0] == choice.model and "switched off" in heard[0][1]
        note = service.until(lambda e: isinstance(e, SearchNote))  # what the window shows
        assert "switched off" in note.message and "searched by its keywords alone" in note.message
        later = tmp_path / "later.md"
        later.write_text("# Harbour master\n\nThe harbour master assigns berths each morning.\n")
        with pytest.raises(EngineEmbedderUnavailable, match="switched off"):
            service.add(collection.id, [later]).result(timeout=WAIT)
        failure = service.until(lambda e: isinstance(e, JobFailed))
        assert "switched off" in failure.message and "files indexed before it are kept" in failure.message
        assert later.name not in {Path(d.path).name for d in DocumentStore(store.vault).documents(collection.id)
                                  if d.status == "indexed"}

        # Back on this computer: embedded here again, by the app's model.
        engines.set_enabled("Corp", True)
        home: Future = Future()
        service.service.embed_with(collection.id, "", home)
        back = home.result(timeout=WAIT)
        assert back.embedder == "" and back.embedding_model == BUNDLED
        assert set().union(*DocumentStore(store.vault).chunk_models(collection.id).values()) == {BUNDLED}
    finally:
        service.service.close(5.0)
        route.close()


class Hostile(http.server.BaseHTTPRequestHandler):
    """An engine that answers /v1/embeddings with ``answer`` (a JSON text)."""

    answer = ""

    def do_POST(self) -> None:  # noqa: N802 - http.server's name
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        body = self.answer.encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *_args) -> None:
        pass


def rows(*vectors: object) -> str:
    return json.dumps({"data": [{"index": n, "embedding": v} for n, v in enumerate(vectors)]})


WRONG = {
    "one vector for two passages": rows([0.1, 0.2]),
    "a NaN": '{"data": [{"index": 0, "embedding": [NaN, 1.0]}, {"index": 1, "embedding": [1.0, 1.0]}]}',
    "an infinity": '{"data": [{"index": 0, "embedding": [1e999, 1.0]}, {"index": 1, "embedding": [1.0, 1.0]}]}',
    "two sizes": rows([0.1, 0.2], [0.1, 0.2, 0.3]),
    "base64 text": json.dumps({"data": [{"index": 0, "embedding": "AAAA"}, {"index": 1, "embedding": "AAAA"}]}),
    "booleans": rows([True, False], [True, True]),
    "strings of numbers": rows(["0.1", "0.2"], ["0.1", "0.2"]),
    "the same index twice": json.dumps({"data": [{"index": 0, "embedding": [1.0, 0.0]},
                                                 {"index": 0, "embedding": [0.0, 1.0]}]}),
    "an index out of range": json.dumps({"data": [{"index": 0, "embedding": [1.0, 0.0]},
                                                  {"index": 7, "embedding": [0.0, 1.0]}]}),
    "all zero": rows([0.0, 0.0], [1.0, 0.0]),
    "too many dimensions": rows([0.5] * 5000, [0.5] * 5000),
    "an integer of a thousand digits": rows([10 ** 1000, 1], [1, 1]),
    "no data": json.dumps({"object": "list"}),
    "a list": json.dumps([[0.1, 0.2], [0.3, 0.4]]),
}


@pytest.mark.parametrize("what", sorted(WRONG))
def test_an_engine_that_answers_wrongly_is_refused_and_nothing_is_stored(what: str) -> None:
    with serving(Hostile, answer=WRONG[what]) as (httpd, _handler):
        port = httpd.server_address[1]
        trust = Trust(allow_http=True)
        client = Client("Odd", parse_url(f"http://{ENGINE_HOST}:{port}/v1", trust), trust, guard_name="odd")
        egress.allow_destination("odd", ENGINE_HOST, port)
        try:
            embedder = RemoteEmbedder(client, RemoteModel("odd-e5", 0))
            with pytest.raises(EngineError, match="answered the request for embeddings with something else"):
                embedder.embed(["first passage", "second passage"])
        finally:
            egress.revoke_destination("odd")


def test_a_right_answer_in_any_order_is_taken_in_the_order_asked() -> None:
    answer = json.dumps({"data": [{"index": 1, "embedding": [0.0, 3.0]}, {"index": 0, "embedding": [4.0, 0]}]})
    with serving(Hostile, answer=answer) as (httpd, _handler):
        port = httpd.server_address[1]
        trust = Trust(allow_http=True)
        client = Client("Odd", parse_url(f"http://{ENGINE_HOST}:{port}/v1", trust), trust, guard_name="odd")
        egress.allow_destination("odd", ENGINE_HOST, port)
        try:
            vectors = RemoteEmbedder(client, RemoteModel("odd", 0)).embed(["a", "b"])
        finally:
            egress.revoke_destination("odd")
    assert vectors.dtype == np.float32 and vectors.tolist() == [[1.0, 0.0], [0.0, 1.0]]


def test_an_engine_gone_switched_off_or_moved_is_sent_nothing(engines: Engines) -> None:
    local: list = []
    route = EmbeddingRoute(local.append, lambda: engines)
    off = EngineRecord("Off", f"http://{ENGINE_HOST}:9/v1", Trust(allow_http=True), models=(RemoteModel("e5", 512),))
    moved = EngineRecord("Moved", f"http://{ENGINE_HOST}:9/v1", Trust(allow_http=True),
                         models=(RemoteModel("e5", 512),))
    try:
        engines.keep(off)
        engines.set_enabled("Off", False)
        chosen_there = where_digest(moved)  # the engine as the user chose it for the collection
        engines.keep(replace(moved, url=f"http://{ENGINE_HOST}:10/v1"))  # edited since: elsewhere now
        for wanted, why in ((identity("Gone", "e5", "0" * 16), "no longer among your engines"),
                            (identity("Off", "e5", where_digest(off)), "switched off"),
                            (identity("Moved", "e5", chosen_there), "was changed")):
            future: Future = Future()
            route(Embed(("a question",), future, wanted))
            with pytest.raises(EngineEmbedderUnavailable, match=why):
                future.result(timeout=WAIT)
        assert all(d.name not in ("Off", "Moved") for d in egress.destinations())  # never admitted
        # Whatever names a local model goes to the worker, untouched.
        plain = Embed(("text",), Future(), BUNDLED)
        route(plain)
        assert local == [plain]
    finally:
        route.close()
    after: Future = Future()
    route(Embed(("late",), after, identity("Off", "e5", where_digest(off))))
    with pytest.raises(EngineEmbedderUnavailable, match="closing"):
        after.result(timeout=WAIT)


def test_a_close_stops_a_request_under_way_and_ends_those_waiting(engines: Engines) -> None:
    import threading

    class Slow(http.server.BaseHTTPRequestHandler):
        arrived = threading.Event()
        release = threading.Event()

        def do_POST(self) -> None:  # noqa: N802 - http.server's name
            self.rfile.read(int(self.headers.get("Content-Length") or 0))
            self.arrived.set()
            self.release.wait(30)

        def log_message(self, *_args) -> None:
            pass

    with serving(Slow) as (httpd, handler):
        port = httpd.server_address[1]
        record = engines.keep(EngineRecord("Slow", f"http://{ENGINE_HOST}:{port}/v1", Trust(allow_http=True),
                                           models=(RemoteModel("e5", 512),)))
        model = identity("Slow", "e5", where_digest(record))
        route = EmbeddingRoute(lambda _c: None, lambda: engines)
        futures = [Future() for _ in range(4)]  # two under way (two threads), two waiting
        for future in futures:
            route(Embed(("text",), future, model))
        assert handler.arrived.wait(WAIT)
        route.close()
        try:
            for future in futures:
                with pytest.raises(EngineEmbedderUnavailable, match="closing"):
                    future.result(timeout=WAIT)
        finally:
            handler.release.set()


def test_an_engine_model_identity_names_its_engine_whatever_the_names_hold() -> None:
    # A "|" or quotes in a name cannot make one engine's identity read as another's.
    assert identity("corp", "gpu|e5", "d") != identity("corp|gpu", "e5", "d")
    assert parts(identity('a"|b', 'm"]x', "d")) == ('a"|b', 'm"]x', "d")
    assert shown(identity("corp|gpu", "e5", "d")) == "e5 on corp|gpu"
    assert parts(BUNDLED) is None and parts("intranet:not json") is None
    assert profile(identity("Corp", "intfloat/multilingual-e5-large", "d")).query_prefix == "query: "
    assert profile(identity("multilingual-e5-box", "bge-m3", "d")).query_prefix == ""  # the engine's name is not the model
    assert profile(identity("Corp", "intfloat/e5-mistral-7b-instruct", "d")).query_prefix == ""
    assert profile(identity("Corp", "tree5-mini", "d")).query_prefix == ""


def test_a_collection_keeps_its_own_model_in_the_vault(store: ChatStore) -> None:
    documents = DocumentStore(store.vault)
    made = documents.create_collection("work")
    chosen = identity("Corp", "corp-e5", "0123456789abcdef")
    documents.update_collection(replace(made, embedder=chosen))
    again = documents.get_collection(made.id)
    assert again is not None and again.embedder == chosen and again.model_for(BUNDLED) == chosen
    documents.update_collection(replace(again, embedder=""))
    assert documents.get_collection(made.id).model_for(BUNDLED) == BUNDLED  # type: ignore[union-attr]
