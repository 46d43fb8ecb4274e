"""Pictures and intranet engines (#39): an engine that says its model sees pictures
(llama-server with a projector: /props) is given a chat's pictures as image_url data URIs,
made here from the pixels (a JPEG: nothing of the file); any other engine is given the
text alone. The real llama-server with the starter model and the tests' projector."""

from __future__ import annotations

import base64
import io
from pathlib import Path

import numpy as np
import pytest

from core.engines import EngineRecord, Engines
from inference.intranet import Abort
from inference.protocol import ChatMessage, Generate, Picture, SamplingParams
from inference.remote_discovery import RemoteModel
from tests.core.test_intranet_engines import corp_trust, pki, server  # noqa: F401 - fixtures
from tests.vision_projector import TOKENS, make_projector

pytestmark = [pytest.mark.model, pytest.mark.slow]


def picture(seed: int = 1) -> Picture:
    return Picture(48, 32, np.random.default_rng(seed).integers(0, 256, 48 * 32 * 3, dtype=np.uint8).tobytes())


@pytest.fixture(scope="module")
def seeing_server(starter_model_path: Path, tmp_path_factory: pytest.TempPathFactory):
    from tests.intranet import llama_server, make_pki

    folder = tmp_path_factory.mktemp("seeing")
    projector = make_projector(folder / "mmproj.gguf")
    with llama_server(starter_model_path, make_pki(folder / "pki"), extra=("--mmproj", str(projector))) as running:
        yield running


def prompt_tokens(engines: Engines, messages: tuple[ChatMessage, ...]) -> int:
    engine = engines.engine_for(Generate(1, 1, messages, SamplingParams(), None, "corp", ""))
    usage: dict[str, int] = {}
    params = SamplingParams(max_tokens=4, temperature=0.0, seed=1)
    "".join(engine.stream(messages, params, Abort(), 4, usage, lambda _notice: None))
    return usage["prompt_tokens"]


def test_an_engine_that_sees_is_given_the_pictures(engines: Engines, seeing_server) -> None:
    record = engines.add("corp", seeing_server.url, corp_trust(seeing_server.pki))
    assert record.kind == "llama.cpp" and record.sees_pictures()
    assert EngineRecord.from_dict(record.to_dict()).sees_pictures()  # kept in the vault
    plain = (ChatMessage("user", "What is this?"),)
    pictured = (ChatMessage("user", "What is this?", pictures=(picture(),)),)
    assert prompt_tokens(engines, pictured) >= prompt_tokens(engines, plain) + TOKENS


def test_an_engine_that_does_not_say_it_sees_is_given_the_text_alone(engines: Engines, server, pki) -> None:  # noqa: F811
    record = engines.add("corp", server.url, corp_trust(pki))
    assert not record.sees_pictures()
    engine = engines.engine_for(Generate(1, 1, (), SamplingParams(), None, "corp", ""))
    body = engine.request_body([ChatMessage("user", "What is this?", pictures=(picture(),))], SamplingParams(), 8)
    assert body["messages"] == [{"role": "user", "content": "What is this?"}]


def test_a_picture_goes_as_pixels_made_here_never_the_file() -> None:
    from PIL import Image

    from inference.remote import RemoteEngine

    engine = RemoteEngine(None, "llama.cpp", RemoteModel("m", 4096, vision=True))  # type: ignore[arg-type]
    engine.escape = lambda text, abort=None: text  # no server to ask for its control tokens
    engine._tokenizer = False  # nor to count with
    seen = picture(3)
    body = engine.request_body([ChatMessage("user", "Which colours?", pictures=(seen,))], SamplingParams(), 8)
    text, image = body["messages"][0]["content"]
    assert text == {"type": "text", "text": "Which colours?"}
    url = image["image_url"]["url"]
    assert url.startswith("data:image/jpeg;base64,")
    decoded = Image.open(io.BytesIO(base64.b64decode(url.split(",", 1)[1])))
    assert decoded.size == (48, 32) and not decoded.getexif() and "exif" not in decoded.info
    assert engine.count_tokens([ChatMessage("user", "x", pictures=(seen,))]) > 1000  # its room is counted
