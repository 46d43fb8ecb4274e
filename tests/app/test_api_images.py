"""Images in the local API's messages (#39), with the official openai client and the real
starter model: a ``data:`` URI image's text is read in the isolated children and reaches
the model as a passage; a remote URL is refused (Hearth fetches nothing), and so are a
malformed URI and a hostile image."""

from __future__ import annotations

import base64
import io

import pytest

from tests.app.test_api import client, needs_model, openai_module, server  # noqa: F401 - the API fixtures
from tests.app.test_api_tools import post
from tests.core.test_attachments import _png_claiming

FUSE = "The spare heater fuse is kept in the blue tin in the potting shed."


def _uri(data: bytes, kind: str = "png") -> str:
    return f"data:image/{kind};base64," + base64.b64encode(data).decode()


def _text_png() -> bytes:
    from PIL import Image, ImageDraw, ImageFont

    image = Image.new("L", (1400, 140), 255)
    ImageDraw.Draw(image).text((30, 40), FUSE, font=ImageFont.load_default(size=34), fill=20)
    buffer = io.BytesIO()
    image.save(buffer, "PNG")
    return buffer.getvalue()


def ask(image_url: str) -> list[dict]:
    return [{"role": "user", "content": [{"type": "text", "text": "Where is the spare heater fuse kept?"},
                                         {"type": "image_url", "image_url": {"url": image_url}}]}]


@needs_model
@pytest.mark.slow
def test_an_images_text_reaches_the_model(client) -> None:  # noqa: F811
    reply = client.chat.completions.create(model="smollm2", messages=ask(_uri(_text_png())), max_tokens=48,
                                           temperature=0, seed=1)
    answer = reply.choices[0].message.content.lower()
    assert "tin" in answer or "shed" in answer, answer


@needs_model
@pytest.mark.parametrize(("url", "said"), [
    ("https://example.com/photo.png", "fetches nothing"),
    ("file:///etc/passwd", "fetches nothing"),
    ("data:image/png;base64,@@@not base64@@@", "not valid base64"),
    ("data:text/html;base64,PGgxPg==", "must be a data: URI of a PNG, JPEG or TIFF"),
])
def test_a_remote_or_malformed_image_is_refused(server, url: str, said: str) -> None:  # noqa: F811
    status, reply = post(server, {"model": "smollm2", "messages": ask(url), "max_tokens": 4})
    assert status == 400 and said in reply["error"]["message"], reply


@needs_model
def test_a_hostile_image_is_refused_and_the_server_goes_on(server, tmp_path, client) -> None:  # noqa: F811
    bomb = _png_claiming(tmp_path / "bomb.png", 50_000, 50_000).read_bytes()
    status, reply = post(server, {"model": "smollm2", "messages": ask(_uri(bomb)), "max_tokens": 4})
    assert status == 400 and "image-1.png cannot be attached" in reply["error"]["message"], reply
    again = client.chat.completions.create(model="smollm2", messages=[{"role": "user", "content": "Hi"}],
                                           max_tokens=4)
    assert again.choices[0].message.content is not None
