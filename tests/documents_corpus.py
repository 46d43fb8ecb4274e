"""Files for the document tests, written at test time (no binary fixtures in the repo)."""

from __future__ import annotations

import zipfile
import zlib
from pathlib import Path


def pdf(path: Path, pages: list[str], password: str | None = None) -> Path:
    from fpdf import FPDF

    doc = FPDF()
    doc.set_font("Helvetica", size=11)
    for text in pages:
        doc.add_page()
        doc.multi_cell(0, 6, text)
    if password:
        doc.set_encryption(owner_password="owner-" + password, user_password=password)
    doc.output(str(path))
    return path


def docx(path: Path, sections: list[tuple[str, str]]) -> Path:
    import docx as python_docx

    document = python_docx.Document()
    for heading, body in sections:
        document.add_heading(heading, level=1)
        for paragraph in body.split("\n\n"):
            document.add_paragraph(paragraph)
    document.save(str(path))
    return path


def pdf_bomb(path: Path, expanded: int = 2 << 30) -> Path:
    """A one-page PDF whose content stream inflates to ``expanded`` bytes."""
    compressor = zlib.compressobj(9)
    block = b" " * (1 << 20)
    data = b"".join(compressor.compress(block) for _ in range(expanded >> 20)) + compressor.flush()
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R >>",
        b"<< /Length %d /Filter /FlateDecode >>\nstream\n" % len(data) + data + b"\nendstream",
    ]
    return pdf_of_objects(path, objects)


def pdf_of_objects(path: Path, objects: list[bytes]) -> Path:
    """A PDF written by hand from its objects (numbered from 1, the catalog first), with
    its cross-reference table."""
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % number + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % o for o in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, xref)
    path.write_bytes(bytes(out))
    return path


def docx_bomb(path: Path, expanded: int = 1 << 30) -> Path:
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("[Content_Types].xml", "<Types/>")
        with archive.open("word/document.xml", "w", force_zip64=True) as member:
            block = b" " * (1 << 20)
            for _ in range(expanded >> 20):
                member.write(block)
    return path


def epub(path: Path, chapters: list[tuple[str, str]]) -> Path:
    from ebooklib import epub as writer

    book = writer.EpubBook()
    book.set_identifier("hearth-test")
    book.set_title("A test book")
    book.set_language("en")
    items = []
    for index, (title, text) in enumerate(chapters, start=1):
        chapter = writer.EpubHtml(title=title, file_name=f"chapter{index}.xhtml", lang="en")
        chapter.content = f"<html><body><h1>{title}</h1><p>{text}</p><script>steal()</script></body></html>"
        book.add_item(chapter)
        items.append(chapter)
    book.toc = items
    book.add_item(writer.EpubNcx())
    book.add_item(writer.EpubNav())
    book.spine = ["nav", *items]
    writer.write_epub(str(path), book)
    return path


def pptx(path: Path, slides: list[tuple[str, str, str]]) -> Path:
    from pptx import Presentation

    deck = Presentation()
    for title, body, notes in slides:
        slide = deck.slides.add_slide(deck.slide_layouts[1])
        slide.shapes.title.text = title
        slide.placeholders[1].text = body
        if notes:
            slide.notes_slide.notes_text_frame.text = notes
    deck.save(str(path))
    return path


def xlsx_shared(path: Path, sheets: dict[str, list[list[object]]]) -> Path:
    """Written by XlsxWriter, which keeps text in the shared strings as Excel does
    (openpyxl writes it inline in the cells)."""
    import xlsxwriter

    book = xlsxwriter.Workbook(str(path))
    for name, rows in sheets.items():
        sheet = book.add_worksheet(name)
        for r, row in enumerate(rows):
            for c, value in enumerate(row):
                sheet.write(r, c, value)
    book.close()
    return path


def xlsx(path: Path, sheets: dict[str, list[list[object]]]) -> Path:
    from openpyxl import Workbook

    book = Workbook()
    book.remove(book.active)
    for name, rows in sheets.items():
        sheet = book.create_sheet(name)
        for row in rows:
            sheet.append(row)
    book.save(str(path))
    return path
