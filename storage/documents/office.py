"""The zip packages: DOCX, EPUB, PPTX and XLSX.

Read with the standard library's zip module and defusedxml: the zip's expanded size and
ratio are checked before any part is read, the parts read are at most ``MAX_PARTS``, and
their XML may not declare a DTD or an entity (a package never needs one).
"""

from __future__ import annotations

import posixpath
import zipfile
import zlib
from collections.abc import Iterator
from contextlib import contextmanager
from typing import BinaryIO
from xml.etree import ElementTree

from defusedxml import DefusedXmlException
from defusedxml import ElementTree as SafeElementTree

from storage.documents.markup import read_html
from storage.documents.pages import MAX_LABEL
from storage.documents.reading import (
    DOCX_BOMB,
    DOCX_BROKEN,
    DOCX_DTD,
    DOCX_NO_BODY,
    DOCX_NOT_ZIP,
    DOCX_XML,
    MAX_BYTES,
    MAX_CHARS,
    MAX_PARTS,
    MAX_ZIP_EXPANDED,
    MAX_ZIP_RATIO,
    Budget,
    Section,
    refused,
    size_check,
)

_W = "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}"


def _xml(archive: zipfile.ZipFile, name: str, fmt: str = "DOCX") -> ElementTree.Element | None:
    """One part of the package, parsed. A package never needs a DTD, so the XML parser
    refuses any document type declaration, entity or external reference (the doors to
    entity expansion) as it meets them, whatever the part's encoding."""
    try:
        data = archive.read(name)
    except KeyError:
        return None
    try:
        element: ElementTree.Element = SafeElementTree.fromstring(
            data, forbid_dtd=True, forbid_entities=True, forbid_external=True)
        return element
    except DefusedXmlException:
        raise refused(DOCX_DTD, part=name, format=fmt) from None
    except (ElementTree.ParseError, ValueError) as exc:
        raise refused(DOCX_XML, part=name, error=str(exc)[:200], format=fmt) from exc


def _xml_events(archive: zipfile.ZipFile, name: str, fmt: str) -> Iterator[ElementTree.Element]:
    """A large part's elements as each one ends, read as a stream (a worksheet, the shared
    strings); the caller clears what it has used. The same refusals as ``_xml``."""
    try:
        stream = archive.open(name)
    except KeyError:
        return
    with stream:
        try:
            for _event, element in SafeElementTree.iterparse(
                    stream, ("end",), forbid_dtd=True, forbid_entities=True, forbid_external=True):
                yield element
        except DefusedXmlException:
            raise refused(DOCX_DTD, part=name, format=fmt) from None
        except (ElementTree.ParseError, ValueError) as exc:
            raise refused(DOCX_XML, part=name, error=str(exc)[:200], format=fmt) from exc


def _package(fh: BinaryIO, fmt: str) -> zipfile.ZipFile:
    """A zip package (DOCX, EPUB, PPTX, XLSX), refused before any part is read when it
    would expand past the limits (a decompression bomb)."""
    size_check(fh, MAX_BYTES[fmt.lower()])
    if not zipfile.is_zipfile(fh):
        raise refused(DOCX_NOT_ZIP, format=fmt)
    try:
        archive = zipfile.ZipFile(fh)
    except (zipfile.BadZipFile, OSError) as exc:
        raise refused(DOCX_BROKEN, error=str(exc), format=fmt) from exc
    infos = archive.infolist()
    expanded = sum(i.file_size for i in infos)
    packed = max(1, sum(i.compress_size for i in infos))
    if expanded > MAX_ZIP_EXPANDED or expanded / packed > MAX_ZIP_RATIO:
        archive.close()
        raise refused(DOCX_BOMB, size=expanded / (1 << 20), ratio=expanded / packed, format=fmt)
    return archive


@contextmanager
def _reading(fmt: str) -> Iterator[None]:
    """A damaged part (its data or its checksum) refuses the file in the user's words."""
    try:
        yield
    except (zipfile.BadZipFile, zlib.error, EOFError, NotImplementedError) as exc:
        raise refused(DOCX_BROKEN, error=type(exc).__name__, format=fmt) from exc


def _part_name(base: str, target: str) -> str:
    """A relationship's or a manifest's target as a part name: relative to ``base`` (the
    part's folder), or from the package root when it starts with "/"."""
    target = target.split("#", 1)[0]
    joined = target.lstrip("/") if target.startswith("/") else posixpath.join(base, target)
    return posixpath.normpath(joined).lstrip("/")


def _relationships(archive: zipfile.ZipFile, part: str, fmt: str) -> dict[str, str]:
    """A part's relationships: id -> the part it points to (external links are left out)."""
    folder, name = posixpath.split(part)
    rels = _xml(archive, posixpath.join(folder, "_rels", name + ".rels"), fmt)
    found: dict[str, str] = {}
    for rel in rels if rels is not None else ():
        if rel.get("TargetMode") != "External" and rel.get("Id") and rel.get("Target"):
            found[rel.get("Id", "")] = _part_name(folder, rel.get("Target", ""))
    return found


def _main_part(archive: zipfile.ZipFile, fmt: str, default: str, root: str) -> tuple[str, ElementTree.Element]:
    """An Office package's main part (named by its officeDocument relationship, else
    ``default``), parsed; refused as having no body unless its root element is ``root``
    (a DOCX renamed .xlsx is not read as an empty workbook)."""
    main = default
    for rel in (_xml(archive, "_rels/.rels", fmt) or ()):
        if rel.get("Type", "").endswith("/officeDocument") and rel.get("Target"):
            main = _part_name("", rel.get("Target", ""))
            break
    element = _xml(archive, main, fmt)
    if element is None or element.tag != root:
        raise refused(DOCX_NO_BODY, format=fmt)
    return main, element


def _docx_heading_styles(archive: zipfile.ZipFile) -> set[str]:
    """Ids of the paragraph styles named "Heading N" or "Title" (ids are often localised)."""
    styles = _xml(archive, "word/styles.xml")
    found: set[str] = set()
    for style in styles.iter(f"{_W}style") if styles is not None else ():
        name = style.find(f"{_W}name")
        label = (name.get(f"{_W}val", "") if name is not None else "").lower()
        if label.startswith(("heading", "title")):
            found.add(style.get(f"{_W}styleId", ""))
    return found


def _docx_text(element: ElementTree.Element) -> str:
    """The visible text under ``element``: runs, tabs and breaks; deleted text is skipped
    (it lives in w:delText, which is not w:t)."""
    parts: list[str] = []
    for node in element.iter():
        if node.tag == f"{_W}t":
            parts.append(node.text or "")
        elif node.tag == f"{_W}tab":
            parts.append("\t")
        elif node.tag in (f"{_W}br", f"{_W}cr"):
            parts.append("\n")
    return "".join(parts)


def _docx_blocks(element: ElementTree.Element) -> Iterator[ElementTree.Element]:
    """Paragraphs and table rows in reading order, looking inside content controls and
    other wrappers (w:sdt, w:customXml, tracked insertions)."""
    for child in element:
        if child.tag == f"{_W}p":
            yield child
        elif child.tag == f"{_W}tbl":
            yield from child.findall(f"{_W}tr")
        elif child.tag != f"{_W}sectPr":
            yield from _docx_blocks(child)


def read_docx(fh: BinaryIO, budget: Budget) -> list[Section]:
    """Body text in reading order; headings start sections; each table row is one line
    with its cells separated by " | ". The standard library reads the zip, checked for
    bombs first; defusedxml reads the XML, which may not declare a DTD."""
    with _package(fh, "DOCX") as archive, _reading("DOCX"):
        _name, document = _main_part(archive, "DOCX", "word/document.xml", f"{_W}document")
        headings = _docx_heading_styles(archive)
    body = document.find(f"{_W}body")
    if body is None:
        raise refused(DOCX_NO_BODY, format="DOCX")
    sections: list[Section] = []
    heading: str | None = None
    lines: list[str] = []
    for block in _docx_blocks(body):
        if block.tag == f"{_W}tr":
            cells = block.findall(f"{_W}tc")
            lines.append(" | ".join(" ".join(_docx_text(p) for p in cell.iter(f"{_W}p")) for cell in cells))
            continue
        text = _docx_text(block)
        style = block.find(f"{_W}pPr/{_W}pStyle")
        if style is not None and style.get(f"{_W}val") in headings and text.strip():
            if lines:
                sections.append(Section(budget.take("\n".join(lines)), heading=heading))
            heading, lines = text.strip(), []
        lines.append(text)
    if lines:
        sections.append(Section(budget.take("\n".join(lines)), heading=heading))
    return sections


_OPF = "{http://www.idpf.org/2007/opf}"
_CONTAINER = "{urn:oasis:names:tc:opendocument:xmlns:container}"
_A = "{http://schemas.openxmlformats.org/drawingml/2006/main}"
_P = "{http://schemas.openxmlformats.org/presentationml/2006/main}"
_S = "{http://schemas.openxmlformats.org/spreadsheetml/2006/main}"
_R = "{http://schemas.openxmlformats.org/officeDocument/2006/relationships}"
XHTML_TYPES = {"application/xhtml+xml", "text/html", "application/xml"}


def _epub_root(archive: zipfile.ZipFile) -> str:
    """Where the package's root is: the zip's root, as the standard has it, or the one
    folder everything was zipped inside (Debian's own Debian Edu manual is zipped so, and
    e-book readers open it)."""
    names = archive.namelist()
    if "META-INF/container.xml" in names:
        return ""
    folders = {name.split("/", 1)[0] for name in names}
    if len(folders) == 1 and f"{next(iter(folders))}/META-INF/container.xml" in names:
        return next(iter(folders))
    return ""


def read_epub(fh: BinaryIO, budget: Budget) -> list[Section]:
    """The chapters in reading order (the package's spine), each read as HTML: its
    headings start sections. Only the chapters' text: no script, no style, no image."""
    with _package(fh, "EPUB") as archive, _reading("EPUB"):
        root = _epub_root(archive)
        container = _xml(archive, posixpath.join(root, "META-INF/container.xml"), "EPUB")
        rootfile = container.find(f".//{_CONTAINER}rootfile") if container is not None else None
        opf_name = _part_name(root, rootfile.get("full-path", "")) if rootfile is not None else ""
        package = _xml(archive, opf_name, "EPUB") if opf_name else None
        if package is None or package.tag != f"{_OPF}package":
            raise refused(DOCX_NO_BODY, format="EPUB")
        base = posixpath.dirname(opf_name)
        manifest = {item.get("id"): item for item in package.iter(f"{_OPF}item")}
        sections: list[Section] = []
        seen: set[str] = set()
        for itemref in list(package.iter(f"{_OPF}itemref"))[:MAX_PARTS]:
            item = manifest.get(itemref.get("idref"))
            if item is None or item.get("media-type") not in XHTML_TYPES or not item.get("href") \
                    or item.get("href", "") in seen:
                continue  # (a chapter listed twice is read once)
            seen.add(item.get("href", ""))
            try:
                data = archive.read(_part_name(base, item.get("href", "")))
            except KeyError:
                continue  # a chapter listed but not in the package
            text = data.decode("utf-8", "replace")
            sections += read_html(text, budget)
            if budget.left <= 0:
                break
    return sections


def _drawing_text(element: ElementTree.Element) -> list[str]:
    """The paragraphs of DrawingML text under ``element`` (a slide's shapes, its notes)."""
    lines = []
    for paragraph in element.iter(f"{_A}p"):
        line = "".join((node.text or "") if node.tag == f"{_A}t" else "\n"
                       for node in paragraph.iter() if node.tag in (f"{_A}t", f"{_A}br"))
        if line.strip():
            lines.append(line)
    return lines


def read_pptx(fh: BinaryIO, budget: Budget) -> list[Section]:
    """One section a slide, in the presentation's order, its number as the page: the
    text of its shapes and tables, then its speaker notes; its title as the heading."""
    with _package(fh, "PPTX") as archive, _reading("PPTX"):
        main, presentation = _main_part(archive, "PPTX", "ppt/presentation.xml", f"{_P}presentation")
        links = _relationships(archive, main, "PPTX")
        slides = [links.get(entry.get(f"{_R}id", ""), "") for entry in presentation.iter(f"{_P}sldId")]
        sections: list[Section] = []
        read: set[str] = set()
        for number, name in enumerate(slides[:MAX_PARTS], start=1):
            if name in read:
                continue  # (a slide listed twice is read once)
            read.add(name)
            slide = _xml(archive, name, "PPTX") if name else None
            if slide is None:
                continue
            title = None
            for shape in slide.iter(f"{_P}sp"):
                kind = shape.find(f"{_P}nvSpPr/{_P}nvPr/{_P}ph")
                if kind is not None and kind.get("type") in ("title", "ctrTitle"):
                    title = " ".join(_drawing_text(shape)).strip() or None
                    break
            lines = _drawing_text(slide)
            notes = next((target for target in _relationships(archive, name, "PPTX").values()
                          if "notesSlide" in posixpath.basename(target)), None)
            notes_xml = _xml(archive, notes, "PPTX") if notes else None
            if notes_xml is not None:
                body = [line for line in _drawing_text(notes_xml) if not line.strip().isdigit()]
                if body:
                    lines += ["", *body]  # (a notes page's slide-number field is left out)
            sections.append(Section(budget.take("\n".join(lines)), page=number,
                                    heading=title[:MAX_LABEL] if title else None))
            if budget.left <= 0:
                break
    return sections


def _shared_strings(archive: zipfile.ZipFile, links: dict[str, str]) -> list[str]:
    name = next((t for t in links.values() if posixpath.basename(t) == "sharedStrings.xml"),
                "xl/sharedStrings.xml")
    found: list[str] = []
    for element in _xml_events(archive, name, "XLSX"):
        if element.tag == f"{_S}si":
            found.append("".join(node.text or "" for node in element.iter(f"{_S}t")))
            element.clear()
            if len(found) > MAX_CHARS:
                break
    return found


def read_xlsx(fh: BinaryIO, budget: Budget) -> list[Section]:
    """One section a sheet, its name as the heading: each row one line, its cells' values
    (as last calculated) separated by " | ". Worksheets are read as a stream."""
    with _package(fh, "XLSX") as archive, _reading("XLSX"):
        main, workbook = _main_part(archive, "XLSX", "xl/workbook.xml", f"{_S}workbook")
        links = _relationships(archive, main, "XLSX")
        strings = _shared_strings(archive, links)
        sections: list[Section] = []
        for sheet in list(workbook.iter(f"{_S}sheet"))[:MAX_PARTS]:
            name = links.get(sheet.get(f"{_R}id", ""), "")
            lines: list[str] = []
            cells: list[str] = []
            size = row = 0
            for element in _xml_events(archive, name, "XLSX") if name else ():
                if element.tag == f"{_S}c":
                    if size + row <= budget.left:  # (one huge shared string in many cells)
                        cells.append(_cell(element, strings))
                        row += len(cells[-1]) + 3
                    element.clear()
                elif element.tag == f"{_S}row":
                    line = " | ".join(cells).rstrip(" |")
                    cells, row = [], 0
                    if line.strip():
                        lines.append(line)
                        size += len(line) + 1
                    element.clear()
                    if size > budget.left:
                        break
            title = (sheet.get("name") or "").strip()
            sections.append(Section(budget.take("\n".join(lines)), heading=title[:MAX_LABEL] or None))
            if budget.left <= 0:
                break
    return sections


def _cell(cell: ElementTree.Element, strings: list[str]) -> str:
    """A cell's value as shown: a shared string, an inline one, or the stored value."""
    kind = cell.get("t")
    if kind == "inlineStr":
        return "".join(node.text or "" for node in cell.iter(f"{_S}t"))
    value = cell.find(f"{_S}v")
    text = (value.text or "") if value is not None else ""
    if kind == "s":
        index = int(text) if text.strip().isdigit() else -1
        return strings[index] if 0 <= index < len(strings) else ""
    if kind == "b":
        return {"1": "TRUE", "0": "FALSE"}.get(text.strip(), text)
    return text
