"""A small page-by-page PDF layout for test documents that look like real ones.

Each document is a list of pages, each page a list of blocks placed exactly there (no
automatic page breaks: a page that overflows is an error, so every label stays true).
What real documents carry and our plain generated ones lacked: running headers with the
document title and the current chapter, footers with the printed page number, front matter
numbered i, ii, iii (written as PDF page labels, so printed numbers differ from indices), a
table of contents with dot leaders and printed page numbers, an index of terms with their
printed pages, tables, figures with captions, and two-column text.

Chinese needs a font with CJK glyphs, and a test machine may have none (fonts-noto-cjk
is not a dependency). So a TrueType font is built here with fontTools (installed with
fpdf2), holding a plain box glyph for exactly the characters the documents use. fpdf2
embeds it as a Type0/Identity-H font with a ToUnicode map, as real CJK PDFs are made, so
pypdf extracts the real text; only the glyph shapes are placeholders.
"""

from __future__ import annotations

import tempfile
from dataclasses import dataclass
from pathlib import Path

PAGE_BOTTOM = 297 - 18  # mm: below this the footer lives
CJK_FONT = "HearthTestCJK"


@dataclass(frozen=True)
class Block:
    kind: str  # title, h1, h2, p, small, table, figure, toc, captions, index, cols
    text: str = ""
    rows: tuple = ()  # table rows; for toc and index: the (start, stop) slice of entries
    left: tuple = ()  # cols: the blocks of each column
    right: tuple = ()


def title(text: str) -> Block:
    return Block("title", text)


def h1(text: str) -> Block:
    return Block("h1", text)


def h2(text: str) -> Block:
    return Block("h2", text)


def p(text: str) -> Block:
    return Block("p", text)


def small(text: str) -> Block:
    return Block("small", text)


def table(caption: str, *rows: tuple[str, ...]) -> Block:
    return Block("table", caption, rows)


def figure(caption: str) -> Block:
    return Block("figure", caption)


def toc(start: int = 0, stop: int | None = None) -> Block:
    return Block("toc", rows=(start, stop))


def captions() -> Block:
    """A list of tables and figures: each caption's title with its printed page."""
    return Block("captions")


def index(start: int = 0, stop: int | None = None) -> Block:
    return Block("index", rows=(start, stop))


def cols(left: list[Block], right: list[Block]) -> Block:
    return Block("cols", left=tuple(left), right=tuple(right))


@dataclass(frozen=True)
class Doc:
    file: str
    lang: str  # "en" or "zh"
    running: str  # left side of the running header
    pages: tuple[tuple[Block, ...], ...]
    front: int = 0  # pages numbered i, ii, ... before page 1
    printed_start: int = 1  # the number printed on the first page after the front matter
    page_labels: bool = True  # write the numbering as PDF page labels (/PageLabels)
    footer: str = "Page {label}"
    header_from: int = 2  # the cover has no running header or footer
    running_right: str = ""  # fixed right side of the header (else the current chapter)
    leader: str = "."
    index_terms: tuple[str, ...] = ()


def roman(number: int) -> str:
    out = ""
    for value, letters in ((10, "x"), (9, "ix"), (5, "v"), (4, "iv"), (1, "i")):
        while number >= value:
            out += letters
            number -= value
    return out


def printed(doc: Doc, page: int) -> str:
    """The number printed on ``page`` (1-based index): what a TOC or an index cites."""
    return roman(page) if page <= doc.front else str(doc.printed_start + page - doc.front - 1)


def _flat(blocks: tuple[Block, ...]) -> list[Block]:
    out: list[Block] = []
    for block in blocks:
        out += _flat(block.left + block.right) if block.kind == "cols" else [block]
    return out


def block_text(block: Block) -> str:
    return " ".join([block.text, *(" ".join(row) for row in block.rows if isinstance(row, tuple))])


def page_text(doc: Doc, page: int) -> str:
    """What the spec puts on ``page`` (1-based), without the running header and footer."""
    return "\n".join(block_text(b) for b in _flat(doc.pages[page - 1]))


def _is_nav(doc: Doc, page: int) -> bool:
    return any(b.kind in ("toc", "captions", "index") for b in _flat(doc.pages[page - 1]))


def toc_entries(doc: Doc) -> list[tuple[int, str, str]]:
    """(level, heading, printed page) for every heading after the front matter."""
    found = []
    for number in range(doc.front + 1, len(doc.pages) + 1):
        for block in _flat(doc.pages[number - 1]):
            if block.kind in ("h1", "h2"):
                found.append((1 if block.kind == "h1" else 2, block.text, printed(doc, number)))
    return found


def caption_entries(doc: Doc) -> list[tuple[str, str]]:
    """(caption title, printed page) for every table and figure after the front matter."""
    found = []
    for number in range(doc.front + 1, len(doc.pages) + 1):
        for block in _flat(doc.pages[number - 1]):
            if block.kind in ("table", "figure"):
                found.append((block.text.split(". ")[0].split("：")[0], printed(doc, number)))
    return found


def index_entries(doc: Doc) -> list[tuple[str, str]]:
    """(term, printed pages) for each index term, from the body pages that mention it."""
    found = []
    for term in sorted(doc.index_terms, key=str.casefold):
        pages = [printed(doc, n) for n in range(doc.front + 1, len(doc.pages) + 1)
                 if not _is_nav(doc, n) and term.casefold() in page_text(doc, n).casefold()]
        if not pages:
            raise ValueError(f"{doc.file}: index term {term!r} is on no page")
        found.append((term, ", ".join(pages)))
    return found


def chapter(doc: Doc, page: int) -> str:
    """The running header's chapter: the last chapter heading up to this page's top."""
    current = ""
    for number in range(doc.front + 1, page + 1):
        blocks = _flat(doc.pages[number - 1])
        heads = [b.text for b in blocks if b.kind == "h1"]
        if number < page and heads:
            current = heads[-1]
        elif number == page and blocks and blocks[0].kind == "h1":
            current = blocks[0].text
    return current


def _characters(docs: list[Doc]) -> str:
    chars = set()
    for doc in docs:
        chars |= set(doc.running + doc.running_right + doc.footer + doc.leader + "0123456789ivx")
        for number in range(1, len(doc.pages) + 1):
            chars |= set(page_text(doc, number))
            chars |= set(chapter(doc, number))
        for term, _pages in index_entries(doc):
            chars |= set(term)
        for caption, _page in caption_entries(doc):
            chars |= set(caption)
    chars |= {chr(c) for c in range(32, 127)}
    return "".join(sorted(chars))


def build_cjk_font(path: Path, chars: str) -> Path:
    """A TrueType font with a box glyph for each of ``chars`` (wide for CJK and full-width
    characters, narrow for the rest): enough for fpdf2 to embed and pypdf to read back."""
    from fontTools.fontBuilder import FontBuilder
    from fontTools.pens.ttGlyphPen import TTGlyphPen

    wanted = sorted({c for c in chars if ord(c) > 32 and (c.isprintable() or c == "\u3000")})
    names = {c: f"uni{ord(c):04X}" if ord(c) <= 0xFFFF else f"u{ord(c):X}" for c in wanted}
    builder = FontBuilder(1000, isTTF=True)
    builder.setupGlyphOrder([".notdef", "space", *names.values()])
    builder.setupCharacterMap({32: "space", **{ord(c): n for c, n in names.items()}})

    def box(width: int):
        pen = TTGlyphPen(None)
        pen.moveTo((60, 0))
        pen.lineTo((60, 760))
        pen.lineTo((width - 60, 760))
        pen.lineTo((width - 60, 0))
        pen.closePath()
        return pen.glyph()

    def width(c: str) -> int:
        return 1000 if ord(c) >= 0x2E80 or c in "“”‘’…—" else 560

    glyphs = {".notdef": box(560), "space": TTGlyphPen(None).glyph()}
    glyphs.update({n: TTGlyphPen(None).glyph() if c.isspace() else box(width(c))
                   for c, n in names.items()})
    builder.setupGlyf(glyphs)
    metrics = {".notdef": (560, 60), "space": (300, 0)}
    metrics.update({n: (width(c), 60) for c, n in names.items()})
    builder.setupHorizontalMetrics(metrics)
    builder.setupHorizontalHeader(ascent=880, descent=-120)
    builder.setupNameTable({"familyName": CJK_FONT, "styleName": "Regular"})
    builder.setupOS2(sTypoAscender=880, sTypoDescender=-120, usWinAscent=880, usWinDescent=120)
    builder.setupPost()
    builder.save(str(path))
    return path


class _Writer:
    def __init__(self, doc: Doc, cjk_font: Path | None) -> None:
        from fpdf import FPDF

        writer = self

        class _PDF(FPDF):
            def header(self) -> None:
                writer.header()

            def footer(self) -> None:
                writer.footer()

        self.doc = doc
        self.pdf = _PDF(format="A4")
        self.pdf.set_margins(20, 22, 20)
        self.pdf.set_auto_page_break(False)
        if doc.lang == "zh":
            assert cjk_font is not None
            self.pdf.add_font(CJK_FONT, fname=str(cjk_font))
            self.family = CJK_FONT
        else:
            self.family = "Helvetica"

    def font(self, size: float, style: str = "") -> None:
        self.pdf.set_font(self.family, style if self.doc.lang == "en" else "", size)

    def header(self) -> None:
        number = self.pdf.page_no()
        if number < self.doc.header_from:
            return
        self.font(8)
        self.pdf.set_xy(20, 10)
        self.pdf.cell(90, 5, self.doc.running)
        self.pdf.set_xy(110, 10)
        self.pdf.cell(80, 5, self.doc.running_right or chapter(self.doc, number), align="R")
        self.pdf.line(20, 16, 190, 16)
        self.pdf.set_xy(20, 22)

    def footer(self) -> None:
        number = self.pdf.page_no()
        if number < self.doc.header_from:
            return
        self.font(8)
        self.pdf.set_xy(20, -14)
        self.pdf.cell(170, 5, self.doc.footer.format(label=printed(self.doc, number)), align="C")

    def write(self, path: Path) -> Path:
        doc = self.doc
        for number, blocks in enumerate(doc.pages, start=1):
            self.pdf.add_page()
            if doc.page_labels and doc.front and number == 1:
                self.pdf.set_page_label("r")
            if doc.page_labels and number == doc.front + 1:
                self.pdf.set_page_label("D", None, doc.printed_start)
            self.pdf.set_xy(20, 26 if number >= doc.header_from else 40)
            for block in blocks:
                self.block(block, 20.0, 170.0)
            if self.pdf.get_y() > PAGE_BOTTOM:
                raise ValueError(f"{doc.file}: page {number} overflows ({self.pdf.get_y():.0f} mm)")
        self.pdf.output(str(path))
        return path

    def block(self, block: Block, x: float, width: float) -> None:
        pdf = self.pdf
        pdf.set_x(x)
        kind = block.kind
        if kind == "title":
            self.font(22 if self.doc.lang == "en" else 20, "B")
            pdf.multi_cell(width, 11, block.text, align="C", new_x="LEFT", new_y="NEXT")
            pdf.ln(4)
        elif kind == "h1":
            pdf.ln(3)
            pdf.set_x(x)
            self.font(15, "B")
            pdf.multi_cell(width, 8, block.text, new_x="LEFT", new_y="NEXT")
            pdf.ln(1)
        elif kind == "h2":
            pdf.ln(2)
            pdf.set_x(x)
            self.font(12, "B")
            pdf.multi_cell(width, 6.5, block.text, new_x="LEFT", new_y="NEXT")
        elif kind in ("p", "small"):
            self.font(10.5 if kind == "p" else 9)
            pdf.multi_cell(width, 5.2 if kind == "p" else 4.6, block.text, new_x="LEFT", new_y="NEXT")
            pdf.ln(2)
        elif kind == "table":
            self.font(9.5, "B")
            pdf.multi_cell(width, 5, block.text, new_x="LEFT", new_y="NEXT")
            pdf.ln(1)
            self.font(9.5)
            margin = pdf.l_margin
            pdf.set_left_margin(x)
            with pdf.table(width=width, align="LEFT", line_height=5.5,
                           first_row_as_headings=self.doc.lang == "en") as grid:
                for row in block.rows:
                    cells = grid.row()
                    for cell in row:
                        cells.cell(cell)
            pdf.set_left_margin(margin)
            pdf.ln(3)
        elif kind == "figure":
            top = pdf.get_y() + 1
            pdf.rect(x + width * 0.1, top, width * 0.8, 32)
            pdf.line(x + width * 0.15, top + 26, x + width * 0.85, top + 8)
            self.font(8)
            pdf.set_xy(x + width * 0.12, top + 2)
            pdf.cell(10, 4, "N")
            pdf.set_xy(x, top + 34)
            self.font(9, "I")
            pdf.multi_cell(width, 4.6, block.text, new_x="LEFT", new_y="NEXT")
            pdf.ln(2)
        elif kind == "toc":
            self.font(10.5)
            start, stop = block.rows
            for level, heading, label in toc_entries(self.doc)[start:stop]:
                indent = 0.0 if level == 1 else 7.0
                self.leader_line(x + indent, width - indent, heading, label, 6.2 if level == 1 else 5.6)
        elif kind == "captions":
            self.font(10.5)
            for caption, label in caption_entries(self.doc):
                self.leader_line(x, width, caption, label, 6.2)
            pdf.ln(2)
        elif kind == "index":
            self.font(9.5)
            start, stop = block.rows
            entries = index_entries(self.doc)[start:stop]
            middle = (len(entries) + 1) // 2
            top = pdf.get_y()
            bottom = top
            for column, part in enumerate((entries[:middle], entries[middle:])):
                pdf.set_y(top)
                for term, pages in part:
                    pdf.set_x(x + column * (width / 2 + 4))
                    sep = ", " if self.doc.lang == "en" else "　"
                    pdf.multi_cell(width / 2 - 4, 5, f"{term}{sep}{pages}", new_x="LEFT", new_y="NEXT")
                bottom = max(bottom, pdf.get_y())
            pdf.set_y(bottom)
        elif kind == "cols":
            gap = 8.0
            half = (width - gap) / 2
            top = pdf.get_y()
            ends = []
            for column, blocks in enumerate((block.left, block.right)):
                pdf.set_y(top)
                for inner in blocks:
                    self.block(inner, x + column * (half + gap), half)
                ends.append(pdf.get_y())
            pdf.set_xy(x, max(ends))
        else:
            raise ValueError(f"unknown block {kind}")

    def leader_line(self, x: float, width: float, heading: str, label: str, height: float) -> None:
        pdf = self.pdf
        room = width - pdf.get_string_width(heading) - pdf.get_string_width(label) \
            - 2 * pdf.get_string_width(" ")
        dots = self.doc.leader * max(3, int(room / pdf.get_string_width(self.doc.leader)))
        pdf.set_x(x)
        pdf.cell(width, height, f"{heading} {dots} {label}", new_x="LEFT", new_y="NEXT")


def write_pdfs(docs: list[Doc], folder: Path) -> list[Path]:
    """Write each document into ``folder``; the CJK font is made in a temporary place."""
    folder.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as scratch:
        font = None
        chinese = [d for d in docs if d.lang == "zh"]
        if chinese:
            font = build_cjk_font(Path(scratch) / "cjk.ttf", _characters(chinese))
        return [_Writer(doc, font).write(folder / doc.file) for doc in docs]
