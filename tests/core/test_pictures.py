"""Pictures attached to a question (#39): an image's pixels are made in the isolated child
(first frame, upright, scaled down, nothing of its metadata), kept compressed and
encrypted with the question, and given to a model that sees pictures in every turn of the
chat (regenerate, follow-up, edit), never to an intranet engine. Real files, the real
vault, the real starter model with the tests' projector (tests/vision_projector.py)."""

from __future__ import annotations

import base64
import io
import json
import zlib
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from core.attachments import AttachmentRefused, from_stats, read_all, to_stats
from core.pictures import from_stored, stored
from inference.protocol import Picture, SamplingParams
from storage.documents.isolation import IsolatedParser
from storage.documents.parser_replies import Malformed, checked
from storage.documents.parsers import ParseError
from tests import scans
from tests.storage.conftest import store, vault_path  # noqa: F401 - the vault fixtures

FUSE = "The spare heater fuse is kept in the blue tin on the top shelf of the potting shed."


def photo(width: int = 1600, height: int = 900, seed: int = 0) -> Image.Image:
    return Image.fromarray(np.random.default_rng(seed).integers(0, 256, (height, width, 3), dtype=np.uint8))


@pytest.fixture(scope="module")
def parser():
    with IsolatedParser() as p:
        yield p


def test_a_photo_becomes_upright_small_pixels_without_its_metadata(tmp_path: Path, parser) -> None:
    taken = photo(1600, 900)
    exif = taken.getexif()
    exif[0x0112] = 6  # Orientation: turned a quarter; upright it is 900 wide
    exif[0x010E] = "Secret description 47.3769N 8.5417E"
    exif[0x8825] = {1: "N", 2: (47.0, 22.0, 36.84), 3: "E", 4: (8.0, 32.0, 30.12)}
    taken.save(tmp_path / "garden.jpg", exif=exif, quality=90)
    width, height, rgb = parser.pixels(tmp_path / "garden.jpg")
    assert (width, height) == (576, 1024) and len(rgb) == width * height * 3
    assert b"47.3769" not in rgb and b"Secret" not in rgb


def test_transparency_is_laid_on_white_and_only_a_first_frame_is_taken(tmp_path: Path, parser) -> None:
    clear = Image.new("RGBA", (10, 10), (0, 0, 0, 0))
    clear.save(tmp_path / "clear.png")
    width, height, rgb = parser.pixels(tmp_path / "clear.png")
    assert (width, height) == (10, 10) and set(rgb) == {255}
    frames = [Image.new("RGB", (8, 8), (i, i, i)) for i in (10, 200)]
    frames[0].save(tmp_path / "two.tiff", save_all=True, append_images=frames[1:])
    assert set(parser.pixels(tmp_path / "two.tiff")[2]) == {10}


def test_sixteen_bit_and_float_pictures_keep_their_grey_levels(tmp_path: Path, parser) -> None:
    """A 16-bit greyscale scan (and a float TIFF) scaled to 8 bits, not clipped to white."""
    ramp = (np.arange(256, dtype=np.uint16) * 257).reshape(1, 256).repeat(4, axis=0)
    Image.fromarray(ramp).save(tmp_path / "ramp16.png")
    width, height, rgb = parser.pixels(tmp_path / "ramp16.png")
    seen = np.frombuffer(rgb, dtype=np.uint8).reshape(height, width, 3)
    assert (width, height) == (256, 4) and len(np.unique(seen)) == 256
    assert list(seen[0, :3, 0]) == [0, 1, 2] and seen[0, -1, 0] == 255
    Image.new("F", (8, 8), 0.5).save(tmp_path / "half.tif")
    assert set(parser.pixels(tmp_path / "half.tif")[2]) in ({127}, {128})


@pytest.mark.parametrize("name", ["bomb", "archive", "pdf"])
def test_what_is_not_a_picture_gives_no_pixels(tmp_path: Path, parser, name: str) -> None:
    from tests.core.test_attachments import _png_claiming

    path = {"bomb": lambda: _png_claiming(tmp_path / "bomb.png", 50_000, 50_000),
            "archive": lambda: (tmp_path / "a.jpg").write_bytes(b"PK\x03\x04" + bytes(200)) and tmp_path / "a.jpg",
            "pdf": lambda: (tmp_path / "p.png").write_bytes(b"%PDF-1.4 x") and tmp_path / "p.png"}[name]()
    with pytest.raises(ParseError):
        parser.pixels(path)


def test_a_childs_pixels_are_believed_only_in_their_honest_shape() -> None:
    good = {"status": "ok", "peak": 1, "width": 2, "height": 1, "rgb": base64.b64encode(bytes(6)).decode()}
    assert checked(json.dumps(good).encode(), "pixels")["width"] == 2
    for wrong in ({"width": 4}, {"width": 5000, "height": 1}, {"rgb": base64.b64encode(bytes(9)).decode()},
                  {"height": "1"}):
        with pytest.raises(Malformed):
            checked(json.dumps({**good, **wrong}).encode(), "pixels")


def test_kept_pixels_are_read_back_only_in_the_size_they_claim() -> None:
    seen = Picture(4, 3, bytes(range(36)))
    assert from_stored(stored(seen)) == seen and from_stored(stored(seen)).rgb == seen.rgb
    inflated = base64.b64encode(zlib.compress(bytes(100_000_000))).decode()  # 100 MB claiming 4×3
    assert from_stored([4, 3, inflated]) is None
    assert from_stored([4, 3, "not base64!"]) is None and from_stored([0, 3, ""]) is None
    assert from_stored([2000, 2000, stored(seen)[2]]) is None and from_stored("junk") is None


@pytest.mark.slow
def test_a_photo_without_text_is_attached_for_a_model_that_sees_and_a_scan_keeps_both(tmp_path: Path) -> None:
    photo(300, 200).save(tmp_path / "cat.png")
    scans.page(FUSE).save(tmp_path / "note.png")
    cat, note = read_all([tmp_path / "cat.png", tmp_path / "note.png"])
    assert cat.picture is not None and not cat.sections and any("sees pictures" in n for n in cat.notes)
    assert note.picture is not None and "fuse" in " ".join(s.text for s in note.sections).lower()
    again = from_stats({"attachments": to_stats([cat, note])})
    assert [a.picture for a in again] == [cat.picture, note.picture]
    (tmp_path / "words.txt").write_text(FUSE)
    (text,) = read_all([tmp_path / "words.txt"])
    assert text.picture is None


def test_an_empty_text_file_is_still_refused(tmp_path: Path) -> None:
    (tmp_path / "empty.txt").write_text("  \n")
    with pytest.raises(AttachmentRefused, match="no text"):
        read_all([tmp_path / "empty.txt"])


def test_pictures_reach_the_model_in_every_turn_and_never_an_engine(store, vault_path) -> None:  # noqa: F811
    """Through the turn machine (a fake model that records what it is given)."""
    from core.attachments import Attachment
    from storage.documents.reading import Section
    from tests.core.test_turns import Rig
    from tests.fakes import FakeEngine
    from tests.storage.conftest import reopen

    seen = Picture(8, 8, bytes(range(192)))
    cat = Attachment("cat.png", (Section("a cat", None),), (), seen)
    engine = FakeEngine()
    rig = Rig(store, engine)
    params = SamplingParams(max_tokens=8, temperature=0.0, seed=1)
    try:
        chat = store.create_chat()
        question = rig.turns.save_user_message(chat.id, "What is this?", [cat])
        assert question is not None and rig.turns.start(chat.id, params, None)
        rig.pump_until(lambda: not rig.turns.busy, 30)
        assert engine.calls[-1][-1].pictures == (seen,)
        answer = store.messages(chat.id)[-1]
        assert rig.turns.start(chat.id, params, None, replaces=answer.id)  # regenerate
        rig.pump_until(lambda: not rig.turns.busy, 30)
        assert engine.calls[-1][-1].pictures == (seen,)
        assert rig.turns.save_user_message(chat.id, "And its colour?") is not None
        assert rig.turns.start(chat.id, params, None)  # a follow-up: the first question keeps it
        rig.pump_until(lambda: not rig.turns.busy, 30)
        assert [m.pictures for m in engine.calls[-1] if m.role == "user"] == [(seen,), ()]
        assert rig.turns.edit(chat.id, question.id, "What animal is this?", params, None)
        rig.pump_until(lambda: not rig.turns.busy, 30)
        assert engine.calls[-1][-1].pictures == (seen,)
    finally:
        rig.close()
    store.close()
    raw = vault_path.read_bytes()
    assert stored(seen)[2].encode() not in raw and b"cat.png" not in raw  # encrypted like the text
    again = reopen(vault_path)
    try:
        kept = next(m for m in again.messages(chat.id) if m.role == "user")
        assert from_stats(kept.stats)[0].picture == seen
    finally:
        again.close()


def test_every_question_keeps_its_pictures_whoever_answers(store, monkeypatch: pytest.MonkeyPatch) -> None:  # noqa: F811
    """The history carries them; only a model that sees pictures is given them (the local
    one, or an engine's once the user agreed: tests/core/test_engine_pictures.py)."""
    from core import history as history_module
    from core.attachments import Attachment
    from core.attachments import stored as stored_attachments
    from storage.documents.reading import Section

    seen = Picture(8, 8, bytes(range(192)))
    chat = store.create_chat()
    store.add_message(chat.id, "user", "What is this?", stats=stored_attachments(
        [Attachment("cat.png", (Section("a cat", None),), (), seen)]))
    kept = stored_attachments([Attachment("c", (), (), seen)])
    local = history_module.history(store, store.get_chat(chat.id), chat.id)
    assert local[-1].pictures == (seen,) and history_module.asked("x", kept).pictures == (seen,)
    monkeypatch.setattr(history_module, "route", lambda _chat: ("corp", "big-model"))
    assert history_module.history(store, store.get_chat(chat.id), chat.id)[-1].pictures == (seen,)


@pytest.mark.model
def test_a_model_that_sees_is_given_the_picture_once_across_turns(store, starter_model_path: Path,  # noqa: F811
                                                                  tmp_path: Path) -> None:
    """The real worker and engine: the picture is encoded for the first answer and found in
    the cache for the follow-up."""
    from core.attachments import Attachment
    from inference.llama_engine import LlamaEngine
    from tests.core.test_turns import Rig
    from tests.vision_projector import make_projector

    projector = make_projector(tmp_path / "mmproj.gguf")

    class Seeing(LlamaEngine):
        def load(self, spec):  # the Rig loads a plain spec: this model has its projector
            super().load(replace(spec, path=starter_model_path, projector=projector, n_ctx=2048))

    engine = Seeing()
    rig = Rig(store, engine, model=starter_model_path)
    params = SamplingParams(max_tokens=6, temperature=0.0, seed=1)
    try:
        rig.pump_until(lambda: engine.projector is not None, 60)
        chat = store.create_chat()
        seen = Picture(32, 32, np.random.default_rng(5).integers(0, 256, 32 * 32 * 3, dtype=np.uint8).tobytes())
        assert rig.turns.save_user_message(chat.id, "What is this?", [Attachment("x.png", (), (), seen)])
        assert rig.turns.start(chat.id, params, None)
        rig.pump_until(lambda: not rig.turns.busy, 60)
        assert engine.projector.encoded == 1
        assert rig.turns.save_user_message(chat.id, "And then?") is not None
        assert rig.turns.start(chat.id, params, None)
        rig.pump_until(lambda: not rig.turns.busy, 60)
        assert engine.projector.encoded == 1 and engine.last_reused_tokens > 16
        assert store.messages(chat.id)[-1].status == "complete"
    finally:
        rig.close()


def test_the_photo_bytes_never_leave_the_child(tmp_path: Path, parser) -> None:
    """What the child hands back is pixels: a JPEG's own bytes (its comment) are not in it."""
    buffer = io.BytesIO()
    photo(64, 64).save(buffer, "JPEG", comment=b"Hearth-canary-comment")
    (tmp_path / "c.jpg").write_bytes(buffer.getvalue())
    assert b"Hearth-canary-comment" not in parser.pixels(tmp_path / "c.jpg")[2]


def test_the_local_apis_images_go_with_its_last_question_for_a_model_that_sees() -> None:
    from core.api_images import image_passages, with_pictures
    from inference.protocol import ChatMessage

    buffer = io.BytesIO()
    photo(40, 30).save(buffer, "PNG")
    given, pictures = image_passages([(".png", buffer.getvalue())], "What is this?")
    assert given == [] and len(pictures) == 1 and (pictures[0].width, pictures[0].height) == (40, 30)
    asked = [ChatMessage("system", "s"), ChatMessage("user", "a"), ChatMessage("assistant", "b"),
             ChatMessage("user", "What is this?")]
    placed = with_pictures(asked, pictures)
    assert [m.pictures for m in placed] == [(), (), (), pictures] and with_pictures(asked, ()) == asked


def test_continuing_an_answer_keeps_the_questions_pictures(store) -> None:  # noqa: F811
    from core.attachments import Attachment
    from core.attachments import stored as stored_attachments
    from core.history import continued

    seen = Picture(8, 8, bytes(range(192)))
    chat = store.create_chat()
    store.add_message(chat.id, "user", "What is this?", stats=stored_attachments([Attachment("c.png", (), (), seen)]))
    answer = store.add_message(chat.id, "assistant", "A ca", stats={"sources": []})
    assert continued(store, store.get_chat(chat.id), chat.id, answer)[-1].pictures == (seen,)


def test_a_readers_pixels_that_do_not_add_up_are_refused(monkeypatch, tmp_path: Path) -> None:
    parser = IsolatedParser()
    monkeypatch.setattr(parser, "_request", lambda *_a: {"width": 2, "height": 1, "rgb": "AAAAAA=="})
    with pytest.raises(ParseError):
        parser.pixels(tmp_path / "x.png")
