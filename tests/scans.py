"""Scanned pages made here: text rendered to a 200-dpi grey image with a slight rotation,
sensor noise and blur, as a scanner or a phone camera gives them; saved as an image, or as
a PDF without a text layer, or mixed with text pages in one PDF."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

DPI = 200
A4 = (1654, 2339)  # pixels at 200 dpi
CJK_FONTS = ("/usr/share/fonts/truetype/wqy/wqy-microhei.ttc",
             "/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc",
             "/usr/share/fonts/opentype/noto/NotoSerifCJK-Regular.ttc")

ENGLISH = ("The spiral staircase of the lighthouse has 143 steps. The lamp is cleaned every "
           "Monday and the fog horn sounds for two seconds every thirty seconds. Keepers record "
           "the weather at six in the morning and at six in the evening in the logbook kept on "
           "the second floor. Visitors may climb the tower on Saturdays between ten and four.")
CHINESE = ("灯塔的螺旋楼梯共有一百四十三级台阶。每周一清洁灯室，雾笛在能见度低于两海里时每三十秒鸣响两秒。"
           "看守人每天早上六点和晚上六点在二楼的日志中记录天气。游客可以在周六上午十点到下午四点登塔。")


def _font(chinese: bool, size: int):
    from PIL import ImageFont

    if not chinese:
        return ImageFont.load_default(size=size)  # Pillow's own scalable font
    for path in CJK_FONTS:
        if Path(path).exists():
            return ImageFont.truetype(path, size)
    pytest.skip("no Chinese font to draw the scanned test page with (packaging/bootstrap.py "
                "test installs fonts-wqy-microhei on Debian)")


def page(text: str, chinese: bool = False, seed: int = 1, rotation: float = 1.0):
    """One scanned A4 page of ``text`` (a PIL image, greyscale)."""
    from PIL import Image, ImageDraw, ImageFilter

    font = _font(chinese, 36 if chinese else 34)
    image = Image.new("L", A4, 255)
    draw = ImageDraw.Draw(image)
    lines: list[str] = []
    line = ""
    for piece in (list(text) if chinese else text.split()):
        joined = line + piece if chinese or not line else f"{line} {piece}"
        if draw.textlength(joined, font=font) > A4[0] - 240:
            lines.append(line)
            line = piece
        else:
            line = joined
    lines.append(line)
    for number, line in enumerate(lines):
        draw.text((120, 160 + number * (58 if chinese else 52)), line, font=font, fill=25)
    image = image.rotate(rotation, fillcolor=255, resample=Image.Resampling.BICUBIC)
    noisy = np.asarray(image).astype(np.int16) + np.random.default_rng(seed).normal(0, 18, image.size[::-1])
    return Image.fromarray(np.clip(noisy, 0, 255).astype(np.uint8)).filter(ImageFilter.GaussianBlur(0.6))


def scanned_pdf(path: Path, pages: list) -> Path:
    """A PDF of page images only: no text layer at all."""
    first, *rest = [p.convert("RGB") for p in pages]
    first.save(path, "PDF", resolution=DPI, save_all=True, append_images=rest)
    return path


def mixed_pdf(path: Path, parts: list) -> Path:
    """A PDF whose parts are text pages (a str, with a text layer) or scans (an image)."""
    from fpdf import FPDF

    pdf = FPDF(format="A4")
    pdf.set_font("helvetica", size=12)
    for index, part in enumerate(parts):
        pdf.add_page()
        if isinstance(part, str):
            pdf.multi_cell(0, 8, part)
        else:
            scan = path.with_name(f"{path.stem}-scan{index}.png")
            part.save(scan)
            pdf.image(str(scan), x=0, y=0, w=210, h=297)
    pdf.output(str(path))
    return path


def words_found(expected: str, found: str, chinese: bool = False) -> float:
    """The share of the expected words (characters, for Chinese) that were read."""
    import re
    from collections import Counter

    if chinese:
        want, have = Counter(re.findall(r"\w", expected)), Counter(re.findall(r"\w", found))
    else:
        want = Counter(re.findall(r"\w+", expected.lower()))
        have = Counter(re.findall(r"\w+", found.lower()))
    return sum(min(n, have[w]) for w, n in want.items()) / max(1, sum(want.values()))
