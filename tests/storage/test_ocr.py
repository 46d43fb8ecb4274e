"""Text recognition of scanned pages in the isolated parser: English and Chinese scans made
here (tests/scans.py), as PDFs without a text layer, as PNG, JPEG and TIFF, and a PDF that
mixes text pages with scans; and the hostile cases: image bombs, a file that is not the
image it says, a page that claims to be enormous."""

from __future__ import annotations

import struct
import zlib
from pathlib import Path

import pytest

from storage.documents.isolation import OCR_MEMORY_LIMIT, IsolatedParser
from storage.documents.parsers import ParseError
from tests import scans

pytestmark = pytest.mark.slow  # a page takes seconds on two cores


@pytest.fixture(scope="module")
def parser():
    with IsolatedParser(timeout=120, memory_limit=OCR_MEMORY_LIMIT) as p:
        yield p


def test_a_scanned_english_pdf_page_is_read(tmp_path: Path, parser) -> None:
    path = scans.scanned_pdf(tmp_path / "scan.pdf", [scans.page(scans.ENGLISH)])
    sections, notes, scanned = parser.parse_document(path)
    assert (sections, scanned) == ([], [1])  # no text layer: the page is left to recognition
    text = parser.recognise(path, 1)
    assert scans.words_found(scans.ENGLISH, text) >= 0.9, text
    assert "143" in text


def test_a_scanned_chinese_page_is_read_as_png_jpeg_and_tiff(tmp_path: Path, parser) -> None:
    image = scans.page(scans.CHINESE, chinese=True, seed=2, rotation=-0.8)
    for name in ("scan.png", "scan.jpg", "scan.tiff"):
        path = tmp_path / name
        image.save(path, quality=85) if name.endswith(".jpg") else image.save(path)
        sections, _notes, scanned = parser.parse_document(path)
        assert (sections, scanned) == ([], [1]), name
        text = parser.recognise(path, 1)
        assert scans.words_found(scans.CHINESE, text, chinese=True) >= 0.9, (name, text)
        assert "一百四十三" in text


def test_each_page_of_a_multipage_tiff_is_its_own_page(tmp_path: Path, parser) -> None:
    first, second = scans.page("First page about owls and their nests."), scans.page(
        "Second page about foxes and their dens.", seed=3)
    path = tmp_path / "two.tiff"
    first.save(path, save_all=True, append_images=[second])
    assert parser.parse_document(path)[2] == [1, 2]
    assert "foxes" in parser.recognise(path, 2) and "owls" in parser.recognise(path, 1)


def test_a_pdf_mixing_text_and_scans_keeps_the_text_layer_and_reads_the_rest(tmp_path: Path, parser) -> None:
    path = scans.mixed_pdf(tmp_path / "mixed.pdf", ["Page one has a text layer about tide tables.",
                                                    scans.page(scans.ENGLISH),
                                                    "Page three is text again, about the harbour."])
    sections, _notes, scanned = parser.parse_document(path)
    assert [s.page for s in sections] == [1, 3] and scanned == [2]
    assert "143 steps" in parser.recognise(path, 2)


def _png_header_only(width: int, height: int) -> bytes:
    """A PNG that claims ``width`` × ``height`` pixels and holds almost nothing."""
    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(b"\x00" * 64)) + chunk(b"IEND", b""))


def test_an_image_bomb_and_a_file_that_is_not_an_image_are_refused(tmp_path: Path, parser) -> None:
    bomb = tmp_path / "bomb.png"
    bomb.write_bytes(_png_header_only(100_000, 100_000))  # ten billion pixels claimed
    with pytest.raises(ParseError, match="megapixels"):
        parser.parse_document(bomb)
    with pytest.raises(ParseError, match="megapixels"):
        parser.recognise(bomb, 1)
    fake = tmp_path / "photo.jpg"
    fake.write_text("I am a text file, not a photo")
    with pytest.raises(ParseError, match="not an image"):
        parser.parse_document(fake)
    pdf_named_png = tmp_path / "scan.png"
    pdf_named_png.write_bytes(scans.scanned_pdf(tmp_path / "real.pdf", [scans.page("hello")]).read_bytes())
    with pytest.raises(ParseError, match="not an image"):
        parser.parse_document(pdf_named_png)


def test_a_page_that_claims_to_be_enormous_is_rendered_within_bounds(tmp_path: Path) -> None:
    """A MediaBox of 5 km a side would be billions of pixels at 200 dpi: the render scale
    shrinks to keep the longer side at 3,000 pixels."""
    from storage.documents import ocr

    assert ocr._scale(595, 842, 200) == pytest.approx(200 / 72)  # A4 as asked
    huge = ocr._scale(14_000_000, 14_000_000, 200)
    assert 14_000_000 * huge <= ocr.MAX_SIDE + 1
    from fpdf import FPDF

    pdf = FPDF(format=(5000, 5000))  # millimetres: the largest page fpdf2 writes, 14,000 pt
    pdf.add_page()
    path = tmp_path / "vast.pdf"
    pdf.output(str(path))
    image = ocr.pdf_page(path.read_bytes(), 1)
    assert max(image.size) <= ocr.MAX_SIDE


def test_small_print_on_long_lines_keeps_its_word_spaces(tmp_path: Path, parser, monkeypatch) -> None:
    """10-point type on 200-dpi lines: the recognition model drops spaces on such long
    lines ("Patientreferralletter"); the gaps on the page put them back."""
    from PIL import ImageFont

    letter = ("Patient referral letter. Dear Doctor Harris, I am writing to refer Mrs Eleanor "
              "Whitfield, aged 67, who has had persistent knee pain for four months. An X-ray taken "
              "on 3 March showed moderate joint space narrowing. Please see her at your earliest "
              "convenience. Kind regards, Doctor Amelia Grant, Riverside Surgery.")
    monkeypatch.setattr(scans, "_font", lambda _chinese, _size: ImageFont.load_default(size=28))
    path = tmp_path / "letter.png"
    scans.page(letter, seed=6, rotation=0.7).save(path)
    text = parser.recognise(path, 1)
    assert scans.words_found(letter, text) >= 0.9, text
    assert "Eleanor Whitfield" in text


def test_a_pdf_decompression_bomb_costs_the_recognising_child_only(tmp_path: Path, parser) -> None:
    """A content stream that inflates to 2 GB: PDFium in the child runs into its memory or
    time limit, or renders nothing; the parent gets an answer either way."""
    from tests import documents_corpus as corpus

    path = corpus.pdf_bomb(tmp_path / "bomb.pdf")
    try:
        text = parser.recognise(path, 1)
    except ParseError as exc:
        assert any(word in str(exc) for word in ("memory", "damaged", "longer than", "died")), str(exc)
    else:
        assert text.strip() == ""  # two gigabytes of spaces: nothing to read
    assert parser.last_peak_rss < OCR_MEMORY_LIMIT
    ok = scans.scanned_pdf(tmp_path / "ok.pdf", [scans.page("The child still reads pages.")])
    assert "still reads" in parser.recognise(ok, 1)  # (a new child, if that one died)


def test_a_later_tiff_page_past_the_pixel_limit_is_refused_before_it_is_decoded(tmp_path: Path, parser) -> None:
    from PIL import Image

    small = scans.page("A first page that is fine.").convert("1")
    huge = Image.new("1", (10_000, 7_000), 1)  # 70 megapixels, a few kilobytes compressed
    path = tmp_path / "pages.tiff"
    small.save(path, save_all=True, append_images=[huge], compression="group4")
    assert parser.parse_document(path)[2] == [1, 2]
    assert "fine" in parser.recognise(path, 1)
    with pytest.raises(ParseError, match="megapixels"):
        parser.recognise(path, 2)


def test_a_phone_photo_turned_by_its_exif_is_read_upright(tmp_path: Path, parser) -> None:
    """Phones store a portrait shot sideways with EXIF orientation 6 ("turn me a quarter
    clockwise"): the page is read as it is seen, not as the sensor stored it."""
    from PIL import Image

    upright = scans.page(scans.ENGLISH).convert("RGB")
    exif = Image.Exif()
    exif[0x0112] = 6
    upright.transpose(Image.Transpose.ROTATE_90).save(tmp_path / "phone.jpg", quality=92, exif=exif.tobytes())
    text = parser.recognise(tmp_path / "phone.jpg", 1)
    assert scans.words_found(scans.ENGLISH, text) >= 0.9, text


def test_black_text_on_a_transparent_background_is_read(tmp_path: Path, parser) -> None:
    """An exported diagram or a snipping tool's PNG: transparent pixels stored as
    (0, 0, 0, 0) are white paper, not black ink."""
    from PIL import Image

    grey = scans.page(scans.ENGLISH).convert("L")
    clear = Image.new("RGBA", grey.size, (0, 0, 0, 0))
    clear.putalpha(grey.point(lambda level: 255 - level))  # the ink opaque black, the page transparent
    clear.save(tmp_path / "clear.png")
    text = parser.recognise(tmp_path / "clear.png", 1)
    assert scans.words_found(scans.ENGLISH, text) >= 0.9, text


def test_a_16_bit_grey_scan_keeps_its_grey_levels_for_recognition(tmp_path: Path, parser) -> None:
    """Scanners write 16-bit greyscale PNGs; turned to 8 bits by clipping, all but the
    darkest levels come out white and the page reads as empty."""
    import numpy as np
    from PIL import Image

    levels = np.asarray(scans.page(scans.ENGLISH).convert("L")).astype(np.uint16) * 257
    Image.fromarray(levels).save(tmp_path / "scan16.png")
    assert Image.open(tmp_path / "scan16.png").mode.startswith("I")
    text = parser.recognise(tmp_path / "scan16.png", 1)
    assert scans.words_found(scans.ENGLISH, text) >= 0.9, text


def test_text_recognition_leaves_no_usage_log_or_device_id(tmp_path: Path, monkeypatch) -> None:
    """A review: ONNX Runtime kept a device id and a queue of usage events (the program's
    path, the times of each recognition) under ~/.cache/Microsoft, and a session file in
    the temporary folder, for its collector."""
    home, temporary = tmp_path / "home", tmp_path / "tmp"
    home.mkdir()
    temporary.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("TMPDIR", str(temporary))
    monkeypatch.delenv("XDG_CACHE_HOME", raising=False)
    path = scans.scanned_pdf(tmp_path / "scan.pdf", [scans.page(scans.ENGLISH)])
    with IsolatedParser(timeout=120, memory_limit=OCR_MEMORY_LIMIT) as fresh:  # its own child: this HOME
        assert scans.words_found(scans.ENGLISH, fresh.recognise(path, 1)) >= 0.9
    assert [p.relative_to(tmp_path) for p in (*home.rglob("*"), *temporary.rglob("*"))] == []
