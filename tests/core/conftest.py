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
