"""Files attached to a question (#39, first step): read in the isolated parser child as an
import is (scans and images by text recognition), given to the model whole when short and
searched for the question when long, cited "name (attached), page N"; a file that cannot
be read is refused with one line saying why. Real files: a scanned PDF page made with
Pillow, a PNG of Chinese text, a DOCX; the real starter and embedding models."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from core.attachments import (
    MAX_ATTACHMENTS,
    WHOLE_CHARACTERS,
    Attachment,
    AttachmentRefused,
    first_turn,
    passages,
    read_all,
)
from inference.protocol import SamplingParams
from storage.documents.reading import Section
from tests import documents_corpus, scans
from tests.storage.conftest import store, vault_path  # noqa: F401 - the vault fixtures

ROOT = Path(__file__).resolve().parents[2]
FUSE = "The spare heater fuse is kept in the blue tin on the top shelf of the potting shed."
ZH = "应急基金的金额为三万五千元，由财务部保管。"


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("attach")
    scans.scanned_pdf(folder / "greenhouse.pdf", [scans.page("Greenhouse manual. Watering twice a day."),
                                                   scans.page(FUSE, seed=2)])
    scans.page(ZH, chinese=True).save(folder / "fund.png")
    documents_corpus.docx(folder / "permits.docx", [("Permits", "Hazardous cargo requires permit HRB-7731.")])
    (folder / "empty.txt").write_text("   \n")
    (folder / "binary.exe").write_bytes(b"MZ" + bytes(100))
    (folder / "fake.png").write_bytes(b"%PDF-1.4 not an image at all")
    return {p.stem: p for p in folder.iterdir()}


@pytest.mark.slow
def test_a_scan_an_image_and_a_document_are_read_as_an_import_reads_them(files: dict[str, Path]) -> None:
    pdf, png, docx = read_all([files["greenhouse"], files["fund"], files["permits"]])
    assert [s.page for s in pdf.sections] == [1, 2] and "fuse" in pdf.sections[1].text.lower()
    assert "2 pages read by text recognition" in pdf.notes, pdf.notes
    assert "text read from the picture by text recognition" in png.notes, png.notes  # a picture, no "page(s)"
    assert not any("(s)" in note or "page" in note for note in png.notes), png.notes
    assert "三万五千" in "".join(png.sections[0].text.split()) or "应急基金" in png.sections[0].text
    assert "HRB-7731" in " ".join(s.text for s in docx.sections)
    given = passages([pdf, png, docx], "Where is the spare fuse?")
    labels = [p.label for p in given]
    assert "greenhouse.pdf (attached), page 2" in labels and "fund.png (attached)" in labels
    assert any(label.startswith("permits.docx (attached)") for label in labels)
    assert [p.number for p in given] == list(range(1, len(given) + 1))
    kept = first_turn("Where is the spare fuse?", given)
    assert kept.plain == "Where is the spare fuse?" and "[2]" in kept.content  # a follow-up still has them


@pytest.mark.parametrize(("name", "why"), [("empty", "no text"), ("binary", "does not read this kind"),
                                           ("fake", "fake.png cannot be attached")])
def test_a_file_that_cannot_be_read_is_refused_with_one_line(files: dict[str, Path], name: str, why: str) -> None:
    with pytest.raises(AttachmentRefused) as refused:
        read_all([files[name]])
    assert why in str(refused.value) and "\n" not in str(refused.value)


def test_a_missing_file_and_too_many_files_are_refused(tmp_path: Path) -> None:
    with pytest.raises(AttachmentRefused, match="gone.pdf cannot be attached"):
        read_all([tmp_path / "gone.pdf"])
    with pytest.raises(AttachmentRefused, match=f"At most {MAX_ATTACHMENTS}"):
        read_all([tmp_path / f"{i}.txt" for i in range(MAX_ATTACHMENTS + 1)])


def test_a_refused_files_name_is_said_without_control_characters(tmp_path: Path) -> None:
    """A right-to-left override (U+202E) would have "invoice[U+202E]fdp.js" read as
    "invoicesj.pdf" in the message that refuses it."""
    with pytest.raises(AttachmentRefused) as refused:
        read_all([tmp_path / "invoice\u202efdp\n.js"])
    said = str(refused.value)
    assert said.startswith("invoicefdp .js cannot be attached: ") and "\u202e" not in said and "\n" not in said


def test_a_long_attachment_is_searched_for_the_question_and_given_in_its_order(tmp_path: Path) -> None:
    filler = [Section(f"Chapter {i}. " + "The harbour office opens at nine and closes at five. " * 12, i)
              for i in range(1, 30)]
    filler.insert(17, Section("Mooring costs 12 euros per metre per day, paid at the harbour office.", 18))
    long = Attachment("harbour.pdf", tuple(filler))
    given = passages([long], "How much does mooring cost per metre?")
    assert sum(len(s.text) for s in filler) > WHOLE_CHARACTERS and len(given) <= 6
    long_file = tmp_path / "harbour.txt"
    long_file.write_text("\n\n".join(s.text for s in filler))
    assert read_all([long_file])[0].notes[0] == "long: the passages that match each question are used"
    assert any("12 euros" in p.text for p in given)
    assert [p.page for p in given] == sorted(p.page for p in given)  # the file's order
    unrelated = passages([long], "Summarise it.")  # nothing matches: its first passages
    assert unrelated and unrelated[0].page == 1


@pytest.mark.model
@pytest.mark.slow
def test_the_terminal_chat_answers_from_attachments_and_cites_their_pages(files: dict[str, Path],
                                                                         data_dir: Path) -> None:
    env = dict(os.environ, HEARTH_DATA_DIR=str(data_dir), LANG="C.UTF-8")
    chat = subprocess.run([sys.executable, "-m", "app", "chat", "--attach", str(files["greenhouse"]),
                           "--attach", str(files["permits"])], cwd=ROOT, env=env, input="Where is the spare "
                          "heater fuse kept?\nAnd which permit does hazardous cargo need?\n\n", capture_output=True,
                          text=True, timeout=600)
    assert chat.returncode == 0, chat.stderr
    assert "greenhouse.pdf: " in chat.stderr and "text recognition" in chat.stderr
    sources = chat.stdout.split("Sources:")[1]
    assert "greenhouse.pdf (attached), page 2" in sources and "permits.docx (attached)" in sources
    refused = subprocess.run([sys.executable, "-m", "app", "chat", "--attach", str(files["binary"])], cwd=ROOT,
                             env=env, input="\n", capture_output=True, text=True, timeout=120)
    assert refused.returncode == 1 and refused.stderr.strip().count("\n") == 0
    assert "binary.exe cannot be attached" in refused.stderr


def test_attachments_are_kept_with_the_question_and_given_again_in_every_turn(store, vault_path) -> None:  # noqa: F811
    """Through the turn machine (a fake model, the real vault): the question keeps its
    attachments' text, encrypted; the answer cites them; a regenerate, a follow-up and an
    edit find them again; a restart reads them back; a collection's passages come after."""
    from core.attachments import attached_names, from_stats
    from inference.rag import Passage
    from tests.core.test_turns import Rig, finding
    from tests.fakes import FakeEngine
    from tests.storage.conftest import reopen

    manual = Attachment("greenhouse.pdf", (Section("Watering twice a day.", 1), Section(FUSE, 2)))
    engine = FakeEngine()
    rig = Rig(store, engine)
    try:
        chat = store.create_chat()
        question = rig.turns.save_user_message(chat.id, "Where is the spare fuse?", [manual])
        assert question is not None and attached_names(question.stats) == ["greenhouse.pdf"]
        elsewhere = [Passage(1, "notes.md", "The shed key hangs by the door.", "notes.md")]
        params = SamplingParams(max_tokens=32, temperature=0.0, seed=1)
        assert rig.turns.start(chat.id, params, lambda _c, _q: finding(elsewhere))
        rig.pump_until(lambda: not rig.turns.busy, 30)
        answer = store.messages(chat.id)[-1]
        labels = [s["label"] for s in answer.stats["sources"]]
        assert labels == ["greenhouse.pdf (attached), page 1", "greenhouse.pdf (attached), page 2", "notes.md"]
        assert FUSE in engine.calls[-1][-1].content
        assert rig.turns.start(chat.id, params, None, replaces=answer.id)  # regenerate: found again
        rig.pump_until(lambda: not rig.turns.busy, 30)
        assert FUSE in engine.calls[-1][-1].content
        assert rig.turns.save_user_message(chat.id, "And how often is it watered?") is not None
        assert rig.turns.start(chat.id, params, None)  # a follow-up: still searched
        rig.pump_until(lambda: not rig.turns.busy, 30)
        assert "Watering twice a day." in engine.calls[-1][-1].content.split("Question:")[-2]
        assert rig.turns.edit(chat.id, question.id, "Where is the fuse kept?", params, None)
        rig.pump_until(lambda: not rig.turns.busy, 30)
        edited = next(m for m in store.messages(chat.id) if m.content == "Where is the fuse kept?")
        assert attached_names(edited.stats) == ["greenhouse.pdf"] and FUSE in engine.calls[-1][-1].content
    finally:
        rig.close()
    store.close()
    assert FUSE.encode() not in vault_path.read_bytes() and b"greenhouse.pdf" not in vault_path.read_bytes()
    again = reopen(vault_path)
    try:
        kept = next(m for m in again.messages(chat.id) if m.role == "user")
        assert from_stats(kept.stats)[0].sections[1].text == FUSE
    finally:
        again.close()


def _png_claiming(path: Path, width: int, height: int) -> Path:
    """A small real PNG whose header claims ``width`` × ``height`` (a decompression bomb's)."""
    import io
    import struct
    import zlib

    from PIL import Image

    buffer = io.BytesIO()
    Image.new("L", (8, 8), 255).save(buffer, "PNG")
    data = bytearray(buffer.getvalue())
    body = struct.pack(">II", width, height) + bytes(data[24:29])
    data[16:29] = body
    data[29:33] = struct.pack(">I", zlib.crc32(b"IHDR" + body))
    path.write_bytes(bytes(data))
    return path


def _tiff_of(path: Path, frames: int) -> Path:
    """A TIFF of ``frames`` one-pixel pages, written directly (Pillow takes minutes for this)."""
    import struct

    entries = [(256, 3, 1, 1), (257, 3, 1, 1), (258, 3, 1, 8), (259, 3, 1, 1), (262, 3, 1, 1),
               (273, 4, 1, 8), (278, 3, 1, 1), (279, 4, 1, 1)]  # the pixel is the byte at offset 8
    ifd = 2 + 12 * len(entries) + 4
    data = bytearray(b"II*\x00" + struct.pack("<I", 12) + b"\x80\x00\x00\x00")
    for i in range(frames):
        at = 12 + i * ifd
        data += struct.pack("<H", len(entries))
        for tag, kind, count, value in entries:
            data += struct.pack("<HHII", tag, kind, count, value)
        data += struct.pack("<I", at + ifd if i + 1 < frames else 0)
    path.write_bytes(bytes(data))
    return path


@pytest.fixture(scope="module")
def hostile(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("hostile")
    made = {"bomb": _png_claiming(folder / "bomb.png", 50_000, 50_000)}
    whole = folder / "whole.png"
    scans.page("A page that was cut off in the middle.").save(whole)
    (folder / "truncated.png").write_bytes(whole.read_bytes()[: whole.stat().st_size // 2])
    made["truncated"] = folder / "truncated.png"
    made["pages"] = _tiff_of(folder / "pages.tiff", 10_000)
    (folder / "vector.svg").write_text('<svg xmlns="http://www.w3.org/2000/svg"><image href="https://example.com/x.png"/></svg>')
    made["vector"] = folder / "vector.svg"
    (folder / "archive.jpg").write_bytes(b"PK\x03\x04" + bytes(200))
    made["archive"] = folder / "archive.jpg"
    return made


@pytest.mark.parametrize("name", ["bomb", "truncated", "pages", "vector", "archive"])
def test_a_hostile_file_is_refused_with_a_message_and_nothing_attached(hostile: dict[str, Path], name: str) -> None:
    """#39: decompression bombs, truncated and mislabelled files, 10,000 frames, an SVG with
    an external reference: each is refused in one line naming it (read in the child, which
    may die; Hearth does not)."""
    path = hostile[name]
    with pytest.raises(AttachmentRefused) as refused:
        read_all([path])
    said = str(refused.value)
    assert said.startswith(f"{path.name} cannot be attached: ") and "\n" not in said and len(said) < 400


@pytest.mark.slow
def test_a_photos_location_is_not_kept(tmp_path: Path) -> None:
    """Only the text a photo shows is kept with the message, never its metadata (EXIF)."""
    import json

    from core.attachments import to_stats

    photo = scans.page(FUSE)
    exif = photo.getexif()
    exif[0x010E] = "Secret description 47.3769N 8.5417E"  # ImageDescription
    exif[0x8825] = {1: "N", 2: (47.0, 22.0, 36.84), 3: "E", 4: (8.0, 32.0, 30.12)}  # GPS
    photo.convert("RGB").save(tmp_path / "shed.jpg", exif=exif)
    (attachment,) = read_all([tmp_path / "shed.jpg"])
    kept = json.dumps(to_stats([attachment]))
    assert "fuse" in kept.lower() and "47.3769" not in kept and "Secret" not in kept and "36.84" not in kept


def test_bytes_that_exist_only_to_be_read_go_to_memory_where_the_system_offers_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from core.attachments import private_folder

    runtime = tmp_path / "run-user"
    runtime.mkdir(mode=0o700)
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(runtime))
    folder = Path(private_folder("hearth-paste-"))
    assert folder.parent == runtime and (folder.stat().st_mode & 0o777) == 0o700
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(tmp_path / "gone"))
    elsewhere = Path(private_folder("hearth-paste-"))
    assert elsewhere.parent != runtime and (elsewhere.stat().st_mode & 0o777) == 0o700


def test_a_long_attachment_is_embedded_once_in_batches_and_a_huge_one_by_keywords(monkeypatch) -> None:
    """#39 review: every turn of a chat searches its attachments; their vectors are made
    once, in batches (answers queued behind wait one batch at most), and a file of more
    passages than EMBED_CHUNKS is searched by keywords alone, never minutes of embedding."""
    import numpy as np

    from core import attachments as module

    sections = tuple(Section(f"Chapter {i}. " + "The harbour office opens at nine. " * 12, i) for i in range(1, 60))
    long = Attachment("harbour.pdf", sections)
    batches: list[int] = []

    def embed(texts: list[str]):
        batches.append(len(texts))
        return np.ones((len(texts), 4), dtype=np.float32)

    monkeypatch.setattr(module, "EMBED_BATCH", 16)
    module._vectors.clear()
    assert passages([long], "When does the office open?", embed, "m")
    first = list(batches)
    assert max(first[:-1]) <= 16 and first[-1] == 1  # the passages in batches, then the question
    passages([long], "And on Sundays?", embed, "m")
    assert batches[len(first):] == [1]  # the next turn: the question alone
    monkeypatch.setattr(module, "EMBED_CHUNKS", 10)
    batches.clear()
    assert passages([long], "When does the office open?", embed, "m") and batches == []


def test_a_lock_drops_the_attachments_vectors_kept_for_the_next_turn(vault_path: Path) -> None:  # noqa: F811
    """The vectors are kept "in memory, this session": a lock (and so a quit, and "delete
    everything", which locks first) drops them, and the same file attached in the next
    session, or in a new vault, is embedded again rather than recognised."""
    import numpy as np

    from core import attachments as module
    from core.session import Session
    from tests.storage.conftest import FAST_KDF, PASSPHRASE

    sections = tuple(Section(f"Clause {i}. The Kowalczyk settlement moves the alimony offshore. " * 8, i)
                     for i in range(1, 30))
    memo = Attachment("memo.pdf", sections)
    embedded: list[int] = []

    def embed(texts: list[str]):
        embedded.append(len(texts))
        return np.ones((len(texts), 4), dtype=np.float32)

    session = Session.create(vault_path, PASSPHRASE, FAST_KDF)
    passages([memo], "Where did the money go?", embed, "m")
    assert module._vectors and sum(embedded) > 1
    session.close()  # the lock
    assert not module._vectors
    embedded.clear()
    again = Session.open(vault_path, PASSPHRASE)
    try:
        passages([memo], "Where did the money go?", embed, "m")
        assert sum(embedded) > 1  # its passages embedded again, not only the question
    finally:
        again.close()
    assert not module._vectors


def test_a_link_the_user_chose_is_read_as_its_file_and_named_as_they_named_it(tmp_path: Path) -> None:
    real = tmp_path / "real-notes.txt"
    real.write_text("The harbour office opens at nine.")
    link = tmp_path / "notes.txt"
    link.symlink_to(real)
    (attachment,) = read_all([link])
    assert attachment.name == "notes.txt" and "opens at nine" in attachment.sections[0].text
    fifo = tmp_path / "pipe.txt"
    os.mkfifo(fifo)
    with pytest.raises(AttachmentRefused, match="not a file"):
        read_all([fifo])


def test_bytes_left_by_a_hearth_that_crashed_are_swept(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from core.attachments import private_folder, sweep

    runtime = tmp_path / "run-user"
    runtime.mkdir(mode=0o700)
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(runtime))
    mine = Path(private_folder("hearth-paste-"))
    assert mine.name.startswith(f"hearth-paste-{os.getpid()}-")
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    left = runtime / f"hearth-images-{int(dead.stdout)}-x1y2"
    left.mkdir(mode=0o700)
    (left / "image-1.png").write_bytes(b"\x89PNG a screenshot")
    other = runtime / "someone-elses-folder"
    other.mkdir()
    assert sweep() >= 1
    assert not left.exists() and mine.exists() and other.exists()


@pytest.mark.slow
def test_removing_a_file_while_it_is_read_stops_its_children(tmp_path: Path) -> None:
    """#39: the remove button's word reaches the reading itself: the children are killed
    and the reading ends, refused as stopped, instead of reading every page for nothing."""
    import threading

    scan = scans.scanned_pdf(tmp_path / "long-scan.pdf", [scans.page(FUSE, seed=i) for i in range(6)])
    stop = threading.Event()
    outcome: list[object] = []

    def reading() -> None:
        try:
            outcome.append(read_all([scan], stop))
        except AttachmentRefused as exc:
            outcome.append(exc)

    worker = threading.Thread(target=reading)
    worker.start()
    stop.set()
    worker.join(120)
    assert not worker.is_alive() and len(outcome) == 1
    assert isinstance(outcome[0], AttachmentRefused) and "stopped" in str(outcome[0])


def test_the_children_reading_attachments_run_at_the_apps_own_priority(tmp_path: Path, monkeypatch) -> None:
    """#43: the user waits for an attachment. Its children ran niced like an import's,
    and on a busy machine a pasted image's text recognition took a minute (its time limit)
    instead of seconds."""
    from storage.documents import isolation

    lowered = []
    real = isolation._watched

    def watched(pid: int, background: bool):
        lowered.append(background)
        return real(pid, background)

    monkeypatch.setattr(isolation, "_watched", watched)
    path = tmp_path / "note.txt"
    path.write_text("The lighthouse has 143 steps.")
    assert "143" in read_all([path])[0].sections[0].text
    assert lowered == [False]  # the one child this file needed, not lowered
