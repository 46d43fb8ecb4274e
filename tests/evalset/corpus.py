"""The evaluation corpus: real documentation from Debian's own packages, in English and
Simplified Chinese, laid out in every format Hearth reads, rebuilt the same way every time.

Nothing here was written for Hearth, and the questions about it (``questions/``) were
written from the documents' meaning and frozen before any tuning. Two collections:

``en``: the Debian Reference (a 261-page LaTeX PDF: contents pages, running headers,
tables), the New Maintainers' Guide (a 63-page PDF), and the Debian FAQ split by section
into HTML, DOCX, Markdown, EPUB, reStructuredText, PowerPoint, plain text and Excel files,
except two chapters laid out as a two-column PDF with a contents page and running headers,
and one chapter printed and scanned (a PDF of page images, read by OCR).

``zh``: the same books in their Simplified Chinese translations, and the Debian Edu
manual's real EPUB.

The packages are pinned by version and sha256 (``SOURCES``); ``fetch`` takes them from
Debian's archive with ``apt-get download`` once and keeps them in the build cache. Every
file written here is the same byte for byte on every run (fixed dates in the zip-based
formats and the PDFs): ``tests/test_evalset.py`` holds that.
"""

from __future__ import annotations

import datetime
import hashlib
import html
import io
import os
import re
import shutil
import subprocess
import tarfile
import zipfile
from dataclasses import dataclass
from pathlib import Path

# package: (version, sha256 of the .deb)
SOURCES = {
    "debian-faq": ("11.1", "427426e0cfa6888622fc1d72631071cb4b5a1f86ccde722e7820bcef284de5d0"),
    "debian-faq-zh-cn": ("11.1", "3545356b1aa04d87e91dd15e8406210cf5b4f476662e597897bcb42234591758"),
    "debian-reference-en": ("2.100", "9f31d3a17df505de09689ca255512ea58c1fc47c59bb1b0c7bf1c23362e9743f"),
    "debian-reference-zh-cn": ("2.100", "6d2d8d9a646397e28b04cdff23d2e4374101ebf9be348e35961af62c8a2d0977"),
    "maint-guide": ("1.2.53", "762c8a400a36668d2eb814a3ba356b06488fd889dfce478eb11d5cfb189a47b5"),
    "maint-guide-zh-cn": ("1.2.53", "d605b60a034f63857bc44205aed5ad7ba6e17d0d2b1ba5e79179b4e7ec4ee4bc"),
    "debian-edu-doc-zh-cn": ("2.12.23~deb12u1",
                             "d98fa11ea24238d38631d756ab75144c3d97dbd2a2e5a0223f2f7d8d975ecff2"),
}
# The FAQ's chapters in the book's order.
FAQ_CHAPTERS = ("basic-defs", "getting-debian", "choosing", "compatibility", "software",
                "ftparchives", "pkg-basics", "pkgtools", "uptodate", "kernel", "customizing",
                "support", "contributing", "redistributing", "nextrelease", "faqinfo")
TWO_COLUMN = ("customizing", "kernel")  # one two-column PDF of these chapters
SCANNED = ("nextrelease",)  # printed and scanned: a PDF of page images
# The section files take these formats in turn.
FORMATS = ("html", "docx", "md", "epub", "rst", "pptx", "txt", "xlsx")
CJK_FONT = Path("/usr/share/fonts/truetype/wqy/wqy-microhei.ttc")
EPOCH = (2024, 1, 1, 0, 0, 0)  # every zip member's date: the same bytes on every run
FIXED_DATE = datetime.datetime(*EPOCH, tzinfo=datetime.UTC)


class Unavailable(Exception):
    """The corpus cannot be built here (not Debian-like, no archive, no CJK font)."""


def cache_dir() -> Path:
    base = os.environ.get("HEARTH_BUILD_CACHE") or Path.home() / ".cache" / "hearth-build"
    return Path(base) / "evalset"


def fetch(into: Path | None = None) -> dict[str, Path]:
    """The pinned packages' .deb files, downloaded once and checked by sha256."""
    folder = into or cache_dir()
    folder.mkdir(parents=True, exist_ok=True)
    found: dict[str, Path] = {}
    for package, (version, sha256) in SOURCES.items():
        name = f"{package}_{version.replace(':', '%3a')}_all.deb"
        path = folder / name
        if not path.exists():
            if not shutil.which("apt-get"):
                raise Unavailable("the evaluation corpus comes from Debian's archive, and this "
                                  "machine has no apt-get")
            done = subprocess.run(["apt-get", "download", "-qq", f"{package}={version}"], cwd=folder,
                                  capture_output=True, text=True)
            if done.returncode != 0 or not path.exists():
                raise Unavailable(f"apt-get download {package}={version} failed: "
                                  f"{done.stderr.strip()[-300:]}")
        if hashlib.sha256(path.read_bytes()).hexdigest() != sha256:
            path.unlink()
            raise Unavailable(f"{name} does not match its pinned sha256")
        found[package] = path
    return found


def deb_members(deb: Path) -> dict[str, bytes]:
    """The files of a .deb's data archive (ar, then tar.xz/gz/zst), by path."""
    data = deb.read_bytes()
    assert data[:8] == b"!<arch>\n", deb
    offset = 8
    while offset < len(data):
        header = data[offset:offset + 60]
        name = header[:16].decode().strip().rstrip("/")
        size = int(header[48:58].decode().strip())
        body = data[offset + 60:offset + 60 + size]
        offset += 60 + size + (size & 1)
        if name.startswith("data.tar"):
            files: dict[str, bytes] = {}
            with tarfile.open(fileobj=io.BytesIO(body), mode="r:*") as archive:
                for member in archive.getmembers():
                    if member.isfile():
                        extracted = archive.extractfile(member)
                        assert extracted is not None
                        files[member.name.lstrip("./")] = extracted.read()
            return files
    raise ValueError(f"{deb.name} has no data archive")


# --- Reading the FAQ's HTML chapters -----------------------------------------------------
@dataclass(frozen=True)
class Section:
    chapter: str
    number: int  # 1-based within the chapter
    heading: str
    paragraphs: tuple[str, ...]


_BLOCK = re.compile(r"</?(?:p|pre|li|dt|dd|div|tr|h[1-6]|br|table|ul|ol|dl|blockquote)\b[^>]*>", re.I)


def _text(fragment: str) -> list[str]:
    fragment = re.sub(r"<(script|style)\b.*?</\1>", " ", fragment, flags=re.S | re.I)
    pieces = []
    for block in _BLOCK.split(fragment):
        text = html.unescape(re.sub(r"<[^>]+>", "", block))
        text = re.sub(r"\s+", " ", text.replace("\xa0", " ")).strip()
        if text:
            pieces.append(text)
    return pieces


def faq_sections(page: str, chapter: str) -> tuple[str, list[Section]]:
    """The chapter's title and its sections (each h2 with the text up to the next)."""
    # The chapter's footnotes come after its last section: they would all land in that
    # section's file, far from the answers that cite them, so they are left out.
    body = page.split('<div class="navfooter">')[0].split('<div class="footnotes">')[0]
    title = _text(re.search(r"<h1[^>]*>(.*?)</h1>", body, re.S).group(1))[0]
    parts = re.split(r"<h2[^>]*>(.*?)</h2>", body, flags=re.S)
    sections = []
    for number, index in enumerate(range(1, len(parts) - 1, 2), start=1):
        heading = " ".join(_text(parts[index]))
        paragraphs = tuple(p for p in _text(parts[index + 1]) if not re.fullmatch(r"[\d.\s]+", p))
        sections.append(Section(chapter, number, heading, paragraphs))
    return title, sections


def _slug(heading: str, lang: str) -> str:
    heading = re.sub(r"^[\d.]+\s*", "", heading)
    if lang == "zh":
        return re.sub(r"[^\w]+", "", heading)[:16] or "section"
    words = re.findall(r"[a-z0-9]+", heading.lower())
    return "-".join(words[:6]) or "section"


# --- Writers (each the same bytes on every run) -------------------------------------------
def _normalise_zip(path: Path) -> None:
    """Rewrite a zip package with fixed member dates, in its own member order (EPUB's
    uncompressed ``mimetype`` first stays first and stored)."""
    with zipfile.ZipFile(path) as source:
        members = [(info, source.read(info.filename)) for info in source.infolist()]
    with zipfile.ZipFile(path, "w") as target:
        for info, data in members:
            fixed = zipfile.ZipInfo(info.filename, EPOCH)
            fixed.compress_type = info.compress_type
            fixed.external_attr = 0o644 << 16
            target.writestr(fixed, data)


def write_html(path: Path, title: str, section: Section) -> None:
    body = "".join(f"<p>{html.escape(p)}</p>\n" for p in section.paragraphs)
    path.write_text(f"<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>{html.escape(title)}"
                    f"</title></head>\n<body><h1>{html.escape(section.heading)}</h1>\n{body}</body></html>\n",
                    encoding="utf-8")


def write_md(path: Path, title: str, section: Section) -> None:
    path.write_text(f"# {section.heading}\n\n" + "\n\n".join(section.paragraphs) + "\n", encoding="utf-8")


def write_rst(path: Path, title: str, section: Section) -> None:
    rule = "=" * (len(section.heading.encode("utf-8")))
    path.write_text(f"{rule}\n{section.heading}\n{rule}\n\n" + "\n\n".join(
        p.replace("*", "\\*").replace("`", "\\`") for p in section.paragraphs) + "\n", encoding="utf-8")


def write_txt(path: Path, title: str, section: Section) -> None:
    path.write_text(f"{section.heading}\n\n" + "\n\n".join(section.paragraphs) + "\n", encoding="utf-8")


def write_docx(path: Path, title: str, section: Section) -> None:
    import docx

    document = docx.Document()
    document.core_properties.created = document.core_properties.modified = FIXED_DATE.replace(tzinfo=None)
    document.core_properties.title = title
    document.add_heading(section.heading, level=1)
    for paragraph in section.paragraphs:
        document.add_paragraph(paragraph)
    document.save(str(path))
    _normalise_zip(path)


def write_epub(path: Path, title: str, section: Section, lang: str = "en") -> None:
    from ebooklib import epub

    book = epub.EpubBook()
    book.set_identifier(f"hearth-eval-{path.stem}")
    book.set_title(title)
    book.set_language(lang)
    chapter = epub.EpubHtml(title=section.heading, file_name="section.xhtml", lang=lang)
    chapter.content = (f"<html><body><h1>{html.escape(section.heading)}</h1>"
                       + "".join(f"<p>{html.escape(p)}</p>" for p in section.paragraphs)
                       + "</body></html>")
    book.add_item(chapter)
    book.toc = [chapter]
    book.add_item(epub.EpubNcx())
    book.add_item(epub.EpubNav())
    book.spine = ["nav", chapter]
    book.add_metadata("DC", "date", "2024-01-01")
    epub.write_epub(str(path), book, {"mtime": FIXED_DATE})
    _normalise_zip(path)


def write_pptx(path: Path, title: str, section: Section) -> None:
    from pptx import Presentation

    deck = Presentation()
    deck.core_properties.created = deck.core_properties.modified = FIXED_DATE.replace(tzinfo=None)
    paragraphs = list(section.paragraphs) or [""]
    for start in range(0, len(paragraphs), 3):
        slide = deck.slides.add_slide(deck.slide_layouts[1])
        slide.shapes.title.text = section.heading if start == 0 else f"{section.heading} ({start // 3 + 1})"
        slide.placeholders[1].text = "\n".join(paragraphs[start:start + 3])
    deck.save(str(path))
    _normalise_zip(path)


def write_xlsx(path: Path, title: str, section: Section) -> None:
    import xlsxwriter

    book = xlsxwriter.Workbook(str(path))
    book.set_properties({"title": title, "created": FIXED_DATE.replace(tzinfo=None)})
    sheet = book.add_worksheet("Section")
    sheet.write(0, 0, section.heading)
    for row, paragraph in enumerate(section.paragraphs, start=1):
        sheet.write(row, 0, paragraph)
    book.close()
    _normalise_zip(path)


WRITERS = {"html": write_html, "md": write_md, "rst": write_rst, "txt": write_txt,
           "docx": write_docx, "pptx": write_pptx, "xlsx": write_xlsx}


# --- PDFs made here: two columns, and a scan ----------------------------------------------
def _pdf(lang: str):
    from fpdf import FPDF

    if not CJK_FONT.exists():
        raise Unavailable(f"the evaluation corpus's PDFs need {CJK_FONT} (fonts-wqy-microhei): "
                          "packaging/bootstrap.py test installs it on Debian")
    pdf = FPDF(format="A4")
    pdf.set_creation_date(FIXED_DATE)
    pdf.add_font("body", fname=str(CJK_FONT), collection_font_number=0)
    pdf.set_auto_page_break(True, margin=20)
    return pdf


def write_two_column(path: Path, book: str, chapters: list[tuple[str, list[Section]]], lang: str) -> None:
    """A two-column PDF: a cover, a contents page with dot leaders and page numbers, then
    the chapters in two columns under a running header (book | chapter) and a page footer."""
    starts: dict[str, int] = {}

    def render(contents: dict[str, int]) -> object:
        pdf = _pdf(lang)
        state = {"chapter": ""}

        def header() -> None:
            if pdf.page_no() > 2:
                pdf.set_font("body", size=8)
                pdf.set_xy(15, 8)
                pdf.cell(90, 5, book)
                pdf.set_xy(105, 8)
                pdf.cell(90, 5, state["chapter"], align="R")
                pdf.set_xy(15, 20)

        def footer() -> None:
            if pdf.page_no() > 1:
                pdf.set_font("body", size=8)
                pdf.set_y(-12)
                pdf.cell(0, 5, str(pdf.page_no()), align="C")

        pdf.header = header  # type: ignore[method-assign]
        pdf.footer = footer  # type: ignore[method-assign]
        pdf.set_margins(15, 20, 15)
        pdf.add_page()
        pdf.set_font("body", size=22)
        pdf.ln(60)
        pdf.multi_cell(0, 12, book, align="C")
        pdf.add_page()
        pdf.set_font("body", size=16)
        pdf.cell(0, 10, "目录" if lang == "zh" else "Contents", new_x="LMARGIN", new_y="NEXT")
        pdf.set_font("body", size=9)
        for chapter_title, sections in chapters:
            for section in [Section("", 0, chapter_title, ())] + sections:
                label = str(contents.get(section.heading, ""))
                indent = 0 if section.number == 0 else 6
                room = 180 - indent - pdf.get_string_width(section.heading) - pdf.get_string_width(label) - 4
                dots = "." * max(3, int(room / pdf.get_string_width(".")))
                pdf.set_x(15 + indent)
                pdf.cell(0, 5, f"{section.heading} {dots} {label}", new_x="LMARGIN", new_y="NEXT")
        for chapter_title, sections in chapters:
            state["chapter"] = chapter_title
            pdf.add_page()
            starts[chapter_title] = pdf.page_no()
            pdf.set_font("body", size=15)
            pdf.multi_cell(0, 8, chapter_title, new_x="LMARGIN", new_y="NEXT")
            pdf.ln(2)
            with pdf.text_columns(ncols=2, gutter=8, text_align="J") as columns:
                for section in sections:
                    columns.ln()
                    pdf.set_font("body", size=11)
                    starts[section.heading] = pdf.page_no()
                    columns.write(section.heading + "\n")
                    pdf.set_font("body", size=9)
                    for paragraph in section.paragraphs:
                        columns.write(paragraph + "\n")
        return pdf

    render({})  # a first pass finds where each chapter and section starts
    first = dict(starts)
    render(first).output(str(path))  # the second writes those pages in the contents
    assert starts == first, "the contents page moved a chapter"


def scan_pages(sections: list[Section], title: str, lang: str) -> list[str]:
    """The text printed on each scanned page."""
    text = [title] + [f"{s.heading}\n" + "\n".join(s.paragraphs) for s in sections]
    pages, page = [], ""
    limit = 700 if lang == "zh" else 1500  # characters that fit a scanned page at that size
    for block in "\n".join(text).split("\n"):
        if page and len(page) + len(block) > limit:
            pages.append(page)
            page = ""
        page += block + "\n"
    if page:
        pages.append(page)
    return pages


def write_scanned(path: Path, sections: list[Section], title: str, lang: str) -> None:
    """The chapter printed and scanned: 200-dpi grey page images with a slight tilt, noise
    and blur (tests/scans.py), in a PDF with no text layer."""
    from tests import scans

    images = [scans.page(text.replace("\n", " "), chinese=lang == "zh", seed=n, rotation=0.6)
              for n, text in enumerate(scan_pages(sections, title, lang), start=1)]
    first, *rest = [image.convert("RGB") for image in images]
    buffer = io.BytesIO()
    first.save(buffer, "PDF", resolution=scans.DPI, save_all=True, append_images=rest,
               creationDate=FIXED_DATE.timetuple(), modDate=FIXED_DATE.timetuple())
    path.write_bytes(buffer.getvalue())


# --- The corpus ---------------------------------------------------------------------------
LANGS = {"en": {"faq": "debian-faq", "faq_dir": "usr/share/doc/debian/FAQ/", "faq_suffix": ".en.html",
                "reference": "debian-reference-en", "guide": "maint-guide"},
         "zh": {"faq": "debian-faq-zh-cn", "faq_dir": "usr/share/doc/debian/FAQ/zh-cn/",
                "faq_suffix": ".zh-cn.html", "reference": "debian-reference-zh-cn",
                "guide": "maint-guide-zh-cn"}}


def build(folder: Path, debs: dict[str, Path] | None = None) -> dict[str, Path]:
    """Write both collections under ``folder`` (``en/``, ``zh/``); their folders by name."""
    debs = debs or fetch()
    members = {package: deb_members(path) for package, path in debs.items()}
    out = {}
    for lang, names in LANGS.items():
        target = folder / lang
        if target.exists():
            shutil.rmtree(target)
        target.mkdir(parents=True)
        ref = members[names["reference"]]
        suffix = "en" if lang == "en" else "zh-cn"
        (target / f"debian-reference.{suffix}.pdf").write_bytes(
            ref[f"usr/share/debian-reference/debian-reference.{suffix}.pdf"])
        guide = members[names["guide"]]
        guide_pdf = next(data for name, data in guide.items() if name.endswith(f"maint-guide.{suffix}.pdf"))
        (target / f"maint-guide.{suffix}.pdf").write_bytes(guide_pdf)
        if lang == "zh":
            edu = members["debian-edu-doc-zh-cn"]
            (target / "debian-edu-bookworm-manual.zh-cn.epub").write_bytes(
                edu["usr/share/doc/debian-edu-doc-zh-cn/debian-edu-bookworm-manual.epub"])
        faq = members[names["faq"]]
        book = "Debian GNU/Linux 常见问题" if lang == "zh" else "The Debian GNU/Linux FAQ"
        chapters = {name: faq_sections(faq[names["faq_dir"] + name + names["faq_suffix"]].decode("utf-8"),
                                       name) for name in FAQ_CHAPTERS}
        write_two_column(target / f"faq-{'-'.join(TWO_COLUMN)}.{suffix}.pdf", book,
                         [chapters[name] for name in TWO_COLUMN], lang)
        for name in SCANNED:
            title, sections = chapters[name]
            write_scanned(target / f"faq-{name}-scan.{suffix}.pdf", sections, title, lang)
        turn = 0
        for name in FAQ_CHAPTERS:
            if name in TWO_COLUMN or name in SCANNED:
                continue
            title, sections = chapters[name]
            for section in sections:
                if not section.paragraphs:
                    continue
                kind = FORMATS[turn % len(FORMATS)]
                turn += 1
                path = target / f"faq-{name}-{section.number:02d}-{_slug(section.heading, lang)}.{kind}"
                if kind == "epub":
                    write_epub(path, title, section, lang)
                else:
                    WRITERS[kind](path, title, section)
        out[lang] = target
    return out


def digest(folder: Path) -> str:
    """One sha256 over every file's name and bytes: the same on every build."""
    total = hashlib.sha256()
    for path in sorted(p for p in folder.rglob("*") if p.is_file()):
        total.update(path.relative_to(folder).as_posix().encode() + b"\0")
        total.update(hashlib.sha256(path.read_bytes()).digest())
    return total.hexdigest()
