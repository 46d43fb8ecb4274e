import sys
from pathlib import Path

import pytest

from core.session import Session
from guard import sandbox
from storage.chats import ChatStore
from tests.storage.conftest import store  # noqa: F401 - the same vault fixture

HERE = Path(__file__).resolve().parent
needs_sandbox = pytest.mark.skipif(not sandbox.layers().complete,
                                   reason="this kernel cannot confine a tool server (Landlock and "
                                          "seccomp are needed); the refusal is tested instead")


@pytest.fixture
def vault_path(data_dir: Path) -> Path:
    """The vault where Hearth keeps it: in its data folder, which no tool may be given."""
    data_dir.mkdir(parents=True, exist_ok=True)
    return data_dir / "vault.db"


@pytest.fixture
def session(store: ChatStore):  # noqa: F811 - the fixture above
    """A session on the test's vault; its tool servers are stopped at the end."""
    opened = Session(store)
    yield opened
    opened.close()


def server_args(name: str) -> tuple[str, list[str]]:
    """The command for one of the test servers beside this file, run by this interpreter."""
    return sys.executable, [str(HERE / f"{name}_server.py")]
