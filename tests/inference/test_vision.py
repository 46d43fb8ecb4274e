"""A vision model (#39): the real starter model with a projector made for the tests
(tests/vision_projector.py), through llama.cpp's multimodal library. A picture's
embeddings take their positions in the prompt, a follow-up question finds the picture in
the cache (not encoded again), and a warm answer equals a cold one."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from inference.errors import ModelLoadError
from inference.llama_engine import LlamaEngine
from inference.protocol import ChatMessage, ModelSpec, Picture, SamplingParams
from inference.vision import MARKER, placeholders
from tests.vision_projector import TOKENS, make_projector

pytestmark = pytest.mark.model

GREEDY = SamplingParams(max_tokens=12, temperature=0.0, seed=7)


def picture(seed: int = 1, width: int = 64, height: int = 48) -> Picture:
    pixels = np.random.default_rng(seed).integers(0, 256, (height, width, 3), dtype=np.uint8)
    return Picture(width, height, pixels.tobytes())


@pytest.fixture(scope="module")
def projector(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_projector(tmp_path_factory.mktemp("vision") / "mmproj-test.gguf")


@pytest.fixture(scope="module")
def engine(starter_model_path: Path, projector: Path):
    e = LlamaEngine()
    e.load(ModelSpec(starter_model_path, n_ctx=1024, n_threads=2, projector=projector))
    yield e
    e.close()


def answer(engine: LlamaEngine, messages: list[ChatMessage]) -> str:
    return "".join(engine.stream(messages, GREEDY, lambda: False))


def test_the_projector_is_made_the_same_each_time(tmp_path: Path, projector: Path) -> None:
    assert make_projector(tmp_path / "again.gguf").read_bytes() == projector.read_bytes()


def test_a_pictures_tokens_take_their_place_in_the_prompt(engine: LlamaEngine) -> None:
    assert engine.sees_pictures
    seen = picture()
    plain = [ChatMessage("user", "What is in it?")]
    pictured = [ChatMessage("user", "What is in it?", pictures=(seen,))]
    tokens = engine._prompt_tokens(pictured)[0]
    assert [t for t in tokens if t < 0] == placeholders(seen.key, TOKENS)
    assert engine.count_tokens(pictured) >= engine.count_tokens(plain) + TOKENS
    assert answer(engine, pictured) != answer(engine, [ChatMessage("user", "What is in it?",
                                                                   pictures=(picture(2),))])


def test_a_follow_up_finds_the_picture_in_the_cache_and_answers_as_a_cold_start(
        engine: LlamaEngine, starter_model_path: Path, projector: Path) -> None:
    engine.forget()
    first = [ChatMessage("system", "You are brief."),
             ChatMessage("user", "Describe this.", pictures=(picture(3),))]
    said = answer(engine, first)
    encoded = engine.projector.encoded
    follow_up = [*first, ChatMessage("assistant", said), ChatMessage("user", "And its colours?")]
    warm = answer(engine, follow_up)
    assert engine.projector.encoded == encoded  # not encoded again
    start = engine._prompt_tokens(follow_up)[0].index(placeholders(picture(3).key, 1)[0])
    assert engine.last_reused_tokens >= start + TOKENS  # the picture came from the cache
    cold = LlamaEngine()
    cold.load(ModelSpec(starter_model_path, n_ctx=1024, n_threads=2, projector=projector))
    try:
        assert answer(cold, follow_up) == warm
        assert cold.projector.encoded == 1
    finally:
        cold.close()


def test_a_message_cannot_ask_for_a_picture_that_is_not_there(engine: LlamaEngine) -> None:
    """The marker typed in a message (or a document, or a tool's result) stays text."""
    typed = [ChatMessage("user", f"{MARKER} {MARKER} look", pictures=(picture(4),))]
    tokens = engine._prompt_tokens(typed)[0]
    assert sum(t < 0 for t in tokens) == TOKENS  # the one picture given, no more
    assert answer(engine, [ChatMessage("user", f"{MARKER} what is this?")])  # no picture, no failure


def test_a_model_without_a_projector_is_given_no_picture(starter_model_path: Path) -> None:
    plain = LlamaEngine()
    plain.load(ModelSpec(starter_model_path, n_ctx=512, n_threads=2))
    try:
        assert not plain.sees_pictures
        tokens = plain._prompt_tokens([ChatMessage("user", "Hi", pictures=(picture(),))])[0]
        assert min(tokens) >= 0 and tokens == plain._prompt_tokens([ChatMessage("user", "Hi")])[0]
    finally:
        plain.close()


def test_a_projector_that_is_not_one_is_refused_in_words(starter_model_path: Path, tmp_path: Path) -> None:
    broken = tmp_path / "mmproj-broken.gguf"
    broken.write_bytes(b"GGUF" + bytes(60))
    e = LlamaEngine()
    with pytest.raises(ModelLoadError, match="picture reader"):
        e.load(ModelSpec(starter_model_path, n_ctx=512, n_threads=2, projector=broken))
    wrong = make_projector(tmp_path / "mmproj-wide.gguf", text_width=1024)  # another model's width
    with pytest.raises(ModelLoadError, match="picture reader"):
        e.load(ModelSpec(starter_model_path, n_ctx=512, n_threads=2, projector=wrong))
    e.close()


def test_a_picture_must_match_its_size() -> None:
    with pytest.raises(ValueError):
        Picture(4, 4, bytes(10))
    with pytest.raises(ValueError):
        Picture(5000, 1, bytes(15000))
    assert picture(1) == picture(1) and picture(1) != picture(2)
