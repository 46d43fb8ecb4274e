from pathlib import Path

import pytest

from core.engines import Engines
from guard import egress
from storage.chats import ChatStore
from storage.library import ModelLibrary
from tests.storage.conftest import store, vault_path  # noqa: F401 - the same vault fixtures


@pytest.fixture
def engines(store: ChatStore):  # noqa: F811 - the fixture above
    """The vault's intranet engines; every one admitted is revoked after the test."""
    found = Engines(ModelLibrary(store))
    yield found
    for record in found.records():
        egress.revoke_destination(record.name)


@pytest.fixture(scope="module")
def worker(embedding_model_path: Path):
    """A real inference worker with the bundled embedding model loaded (no chat model);
    a test module that needs more models loaded defines its own."""
    from inference.bundled import embedding_model
    from inference.embedder import LlamaEmbedder
    from inference.llama_engine import LlamaEngine
    from inference.protocol import LoadEmbedder
    from inference.worker import InferenceWorker

    w = InferenceWorker(LlamaEngine, lambda _event: None, embedder_factory=LlamaEmbedder)
    w.start()
    w.submit(LoadEmbedder(embedding_model_path, embedding_model().sha256))
    yield w
    assert w.shutdown(5.0)
