"""Turn a file into text sections (with page or heading), within fixed limits.

Well-kept parsers do the work (pypdf; the standard library's zip and HTML parsers,
defusedxml for XML); only the Markdown and reStructuredText heading rules are ours.
Every parser is bounded: file size, pages, extracted characters, and for the zip
packages (DOCX, EPUB, PPTX, XLSX) the zip's expanded size and ratio, checked before any
part is read; their XML may not declare a DTD or an entity. Run them through ``isolation.IsolatedParser``, which adds a
time limit and a memory limit in a separate process.

Files are opened once, by ``open_regular``: no link is followed at the last step, the
open never blocks (a FIFO, a device), and what was opened must be a regular file, the
very one the folder walk found (``identity``), checked on the open descriptor itself.
The hash and the parse read that descriptor, within the same size bound.
"""

from __future__ import annotations

import errno
import hashlib
import os
import posixpath
import re
import stat
import zipfile
import zlib
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from html.parser import HTMLParser
from pathlib import Path
from typing import Any, BinaryIO
from xml.etree import ElementTree

from defusedxml import DefusedXmlException
from defusedxml import ElementTree as SafeElementTree

from i18n import translate
from storage.documents.pages import MAX_LABEL, page_roles

MAX_BYTES = {"pdf": 200 << 20, "docx": 100 << 20, "epub": 100 << 20, "pptx": 100 << 20,
             "xlsx": 100 << 20}
MAX_PARTS = 5000  # chapters of an EPUB, slides of a presentation, sheets of a workbook
MAX_BYTES.update({"png": 50 << 20, "jpg": 50 << 20, "jpeg": 50 << 20, "tif": 100 << 20,
                  "tiff": 100 << 20})
# A PDF page whose text layer has fewer characters than this (besides spaces) is a scan:
# it is read by text recognition (``storage.documents.ocr``), its stray characters left out.
MIN_LAYER_CHARS = 8
MAX_TEXT_BYTES = 50 << 20
MAX_PAGES = 2000
MAX_CHARS = 5_000_000
MAX_ZIP_EXPANDED = 200 << 20
MAX_ZIP_RATIO = 100
MAX_LABEL_RANGES = 64  # page label ranges of a PDF read (real ones have a handful)

TEXT_SUFFIXES = {".txt", ".text", ".log", ".csv", ".tsv"}
MARKDOWN_SUFFIXES = {".md", ".markdown"}
RST_SUFFIXES = {".rst"}
HTML_SUFFIXES = {".html", ".htm", ".xhtml"}
CODE_SUFFIXES = {".py", ".js", ".ts", ".tsx", ".jsx", ".java", ".c", ".h", ".cpp", ".hpp", ".cc",
                 ".cs", ".go", ".rs", ".rb", ".php", ".swift", ".kt", ".scala", ".sh", ".sql",
                 ".yaml", ".yml", ".toml", ".json", ".ini", ".cfg", ".r", ".m", ".lua", ".pl"}
PACKAGES = {".docx": "DOCX", ".epub": "EPUB", ".pptx": "PPTX", ".xlsx": "XLSX"}  # zip packages
IMAGE_SUFFIXES = {".png", ".jpg", ".jpeg", ".tif", ".tiff"}  # read by text recognition only
SUPPORTED = ({".pdf"} | set(PACKAGES) | IMAGE_SUFFIXES | TEXT_SUFFIXES | MARKDOWN_SUFFIXES | RST_SUFFIXES | HTML_SUFFIXES
             | CODE_SUFFIXES)


# O_NOFOLLOW: a link at the last step is refused (ELOOP); O_NONBLOCK: opening a FIFO or a
# device never waits. Either may be missing (Windows): then the fstat checks still hold.
OPEN_FLAGS = (os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
              | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_BINARY", 0))
READ_BLOCK = 1 << 20
Identity = tuple[int, int]  # (st_dev, st_ino): which file, whatever its name now


# What a reason (or a note) says, as data: its kind and its values (``reason``). The
# parser's child process has no translation; it sends these, and the parent builds the
# text in the interface language. A value is only ever put into a text by .format().
LINK, UNREADABLE, NOT_REGULAR, CHANGED = "link", "unreadable", "not-regular", "changed"
TOO_LARGE, TOO_LARGE_SIZE = "too-large", "too-large-size"
UNSUPPORTED, NO_EXTENSION, NO_TEXT, BINARY = "unsupported", "no-extension", "no-text", "binary"
PDF_PASSWORD, PDF_PAGES, PDF_DAMAGED = "pdf-password", "pdf-pages", "pdf-damaged"
NOT_IMAGE, IMAGE_TOO_LARGE = "not-image", "image-too-large"
DOCX_DTD, DOCX_XML, DOCX_NOT_ZIP, DOCX_BROKEN, DOCX_NO_BODY, DOCX_BOMB = (
    "docx-dtd", "docx-xml", "docx-not-zip", "docx-broken", "docx-no-body", "docx-bomb")
TRUNCATED = "truncated"  # a note, not an error
Value = str | int | float
Said = tuple[str, dict[str, Value]]  # (kind, values)


def _count(value: Value) -> int:
    """A plural form's count: Qt takes a C int, and the value may come from the child."""
    if type(value) is not int or not 0 <= value < 1 << 31:
        raise ValueError("a count that is not a count")
    return value


def _format(values: Mapping[str, Value]) -> str:
    """A zip package's kind as said to the user (one of PACKAGES' names, nothing else)."""
    found = values.get("format", "DOCX")
    return found if found in PACKAGES.values() else "DOCX"  # type: ignore[return-value]


def reason(kind: str, values: Mapping[str, Value]) -> str:
    """The text of a reason or note of ``kind``, in the interface language; KeyError for
    a kind (or a value) it does not know, ValueError for a value of the wrong type."""
    v = values
    if kind == LINK:
        return translate("storage.documents.parsers", "is a link now (links are not followed)")
    if kind == UNREADABLE:
        return translate("storage.documents.parsers", "cannot be read ({error})").format(
            error=v["error"])
    if kind == NOT_REGULAR:
        return translate("storage.documents.parsers", "is not a regular file")
    if kind == CHANGED:
        return translate("storage.documents.parsers", "changed while it was being imported (it "
                         "is no longer the file found in the folder)")
    if kind == TOO_LARGE:
        return translate("storage.documents.parsers", "too large (more than the limit of "
                         "{limit} MB)").format(limit=v["limit"])
    if kind == TOO_LARGE_SIZE:
        return translate("storage.documents.parsers", "too large ({size:,.0f} MB; the limit is "
                         "{limit} MB)").format(size=v["size"], limit=v["limit"])
    if kind == UNSUPPORTED:
        return translate("storage.documents.parsers", "{suffix} is not a supported type").format(
            suffix=v["suffix"])
    if kind == NO_EXTENSION:
        return translate("storage.documents.parsers",
                         "files without an extension is not a supported type")
    if kind == NO_TEXT:
        return translate("storage.documents.parsers", "no text found (an empty file, or a scan "
                         "in which no text could be recognised)")
    if kind == BINARY:
        return translate("storage.documents.parsers", "binary data, not text")
    if kind == PDF_PASSWORD:
        return translate("storage.documents.parsers", "the PDF is password-protected; open it "
                         "and save an unprotected copy")
    if kind == PDF_PAGES:
        pages = _count(v["pages"])  # computed first: lupdate reads only a plain name here
        return translate("storage.documents.parsers", "%n pages (the limit is {limit})", None,
                         pages).format(limit=v["limit"])
    if kind == PDF_DAMAGED:
        return translate("storage.documents.parsers", "the PDF is damaged or not a PDF "
                         "({error})").format(error=v["error"])
    if kind == NOT_IMAGE:
        return translate("storage.documents.parsers", "not an image Hearth reads (PNG, JPEG or "
                         "TIFF): {error}").format(error=v["error"])
    if kind == IMAGE_TOO_LARGE:
        return translate("storage.documents.parsers", "the image is {pixels:,.0f} megapixels; "
                         "the limit is {limit}").format(pixels=v["pixels"], limit=v["limit"])
    if kind == DOCX_DTD:
        return translate("storage.documents.parsers", "not a valid {format} file ({part} declares a "
                         "DTD or entities, which a {format} never needs)").format(
                             part=v["part"], format=_format(v))
    if kind == DOCX_XML:
        return translate("storage.documents.parsers", "not a valid {format} file ({part}: "
                         "{error})").format(part=v["part"], error=v["error"], format=_format(v))
    if kind == DOCX_NOT_ZIP:
        return translate("storage.documents.parsers",
                         "not a valid {format} file (it is not a zip archive)").format(format=_format(v))
    if kind == DOCX_BROKEN:
        return translate("storage.documents.parsers", "not a valid {format} file ({error})").format(
            error=v["error"], format=_format(v))
    if kind == DOCX_NO_BODY:
        return translate("storage.documents.parsers",
                         "not a valid {format} file (it has no document body)").format(format=_format(v))
    if kind == DOCX_BOMB:
        return translate("storage.documents.parsers", "the {format} expands to {size:,.0f} MB "
                         "({ratio:,.0f}× its size): refused as a decompression bomb").format(
                             size=v["size"], ratio=v["ratio"], format=_format(v))
    if kind == TRUNCATED:
        return translate("storage.documents.parsers",
                         "only the first {chars:,} characters were indexed").format(chars=v["chars"])
    raise KeyError(kind)


class ParseError(Exception):
    """Why a file was skipped or failed, in the user's words.

    ``kind`` and ``values`` say it again as data (see ``reason``); a ParseError made
    from a text alone has the kind "" and no values."""

    def __init__(self, message: str = "", kind: str = "",
                 values: Mapping[str, Value] | None = None) -> None:
        super().__init__(message)
        self.kind = kind
        self.values = dict(values or {})


def refused(kind: str, **values: Value) -> ParseError:
    """The ParseError of ``kind``, its text in the interface language."""
    return ParseError(reason(kind, values), kind, values)


@dataclass(frozen=True)
class Section:
    text: str
    page: int | None = None  # 1-based, PDFs only
    heading: str | None = None
    role: str = ""  # a PDF page's: "nav" (contents, index), "front" (front matter), "" (``pages``)


def supported(path: Path) -> bool:
    return path.suffix.lower() in SUPPORTED


def size_limit(path: Path) -> int:
    """The most bytes a file of this type may have."""
    return MAX_BYTES.get(path.suffix.lower().lstrip("."), MAX_TEXT_BYTES)


def too_large(size: int | None, limit: int) -> str:
    """The reason, with the size if it is known (a read that went past the limit: not)."""
    return reason(*_too_large(size, limit))


def _too_large(size: int | None, limit: int) -> Said:
    if size is None:
        return TOO_LARGE, {"limit": limit >> 20}
    return TOO_LARGE_SIZE, {"size": size / (1 << 20), "limit": limit >> 20}


def _refused_too_large(size: int | None, limit: int) -> ParseError:
    kind, values = _too_large(size, limit)
    return refused(kind, **values)


def open_regular(path: Path, identity: Identity | None = None) -> BinaryIO:
    """``path`` opened for reading, if it is a regular file (and the one with ``identity``).

    The checks are made on the open descriptor, so swapping the file for a link, a FIFO
    or a device between a check and the open does not help.
    """
    try:
        fd = os.open(path, OPEN_FLAGS)
    except OSError as exc:
        if exc.errno in (errno.ELOOP, errno.EMLINK):  # what O_NOFOLLOW answers for a link
            raise refused(LINK) from None
        raise refused(UNREADABLE, error=str(exc.strerror or exc)) from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise refused(NOT_REGULAR)
        if identity is not None and (info.st_dev, info.st_ino) != tuple(identity):
            raise refused(CHANGED)
        if hasattr(os, "set_blocking"):
            os.set_blocking(fd, True)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def _size_check(fh: BinaryIO, limit: int) -> None:
    size = os.fstat(fh.fileno()).st_size
    if size > limit:
        raise _refused_too_large(size, limit)


def _read_bounded(fh: BinaryIO, limit: int) -> bytes:
    """All of ``fh``, refused past ``limit`` bytes (whatever its size said)."""
    _size_check(fh, limit)
    data = fh.read(limit + 1)
    if len(data) > limit:
        raise _refused_too_large(None, limit)
    return data


def digest(path: Path, identity: Identity | None = None) -> str:
    """The sha256 of ``path``'s content, read within its type's size limit."""
    limit = size_limit(path)
    sha = hashlib.sha256()
    with open_regular(path, identity) as fh:
        _size_check(fh, limit)
        total = 0
        while block := fh.read(READ_BLOCK):
            total += len(block)
            if total > limit:
                raise _refused_too_large(None, limit)
            sha.update(block)
    return sha.hexdigest()


class _Budget:
    def __init__(self) -> None:
        self.left = MAX_CHARS
        self.truncated = False

    def take(self, text: str) -> str:
        if len(text) > self.left:
            self.truncated = True
            text = text[: self.left]
        self.left -= len(text)
        return text


def _unsupported(suffix: str) -> ParseError:
    return refused(UNSUPPORTED, suffix=suffix) if suffix else refused(NO_EXTENSION)


def parse(path: Path, identity: Identity | None = None) -> tuple[list[Section], list[str]]:
    """Sections of ``path`` and notes (a truncation, say), its text layer only (pages
    that are scans are left to ``parse_said``'s caller). Raises ParseError, for a file
    with no text layer at all too."""
    sections, notes, _scanned = parse_said(path, identity)
    if not sections:
        raise refused(NO_TEXT)
    return sections, [reason(kind, values) for kind, values in notes]


def parse_said(path: Path, identity: Identity | None = None) -> tuple[list[Section], list[Said], list[int]]:
    """``parse``, with the notes as data (kind, values) for another process to say, and
    the pages to read by text recognition (a scanned PDF's, an image's)."""
    suffix = path.suffix.lower()
    if suffix not in SUPPORTED:
        raise _unsupported(suffix)
    with open_regular(path, identity) as fh:
        return _parse_file(suffix, fh)


def parse_file(suffix: str, fh: BinaryIO) -> tuple[list[Section], list[str]]:
    """Sections and notes of an open file of type ``suffix`` (".pdf", ".md", ...)."""
    sections, notes, _scanned = _parse_file(suffix, fh)
    if not sections:
        raise refused(NO_TEXT)
    return sections, [reason(kind, values) for kind, values in notes]


def _parse_file(suffix: str, fh: BinaryIO) -> tuple[list[Section], list[Said], list[int]]:
    budget = _Budget()
    scanned: list[int] = []
    if suffix == ".pdf":
        sections, scanned = _pdf(fh, budget)
    elif suffix in IMAGE_SUFFIXES:
        sections, scanned = [], list(range(1, image_frames(fh, MAX_BYTES[suffix[1:]]) + 1))
    elif suffix == ".docx":
        sections = _docx(fh, budget)
    elif suffix == ".epub":
        sections = _epub(fh, budget)
    elif suffix == ".pptx":
        sections = _pptx(fh, budget)
    elif suffix == ".xlsx":
        sections = _xlsx(fh, budget)
    elif suffix in HTML_SUFFIXES:
        sections = _html(_read_text(fh), budget)
    elif suffix in MARKDOWN_SUFFIXES:
        sections = _headed(_read_text(fh), budget, _markdown_heading)
    elif suffix in RST_SUFFIXES:
        sections = _rst(_read_text(fh), budget)
    elif suffix in TEXT_SUFFIXES | CODE_SUFFIXES:
        sections = [Section(budget.take(_read_text(fh)))]
    else:
        raise _unsupported(suffix)
    sections = [s for s in sections if s.text.strip()]
    if not sections and not scanned:
        raise refused(NO_TEXT)
    notes: list[Said] = [(TRUNCATED, {"chars": MAX_CHARS})] if budget.truncated else []
    return sections, notes, scanned


def _read_text(fh: BinaryIO) -> str:
    data = _read_bounded(fh, MAX_TEXT_BYTES)
    head = data[:8192]
    if b"\x00" in head:
        raise refused(BINARY)
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        pass
    text = data.decode("latin-1")
    controls = sum(1 for ch in text[:8192] if ord(ch) < 32 and ch not in "\t\n\r\f")
    if controls > len(text[:8192]) * 0.01:
        raise refused(BINARY)
    return text


def _pdf(fh: BinaryIO, budget: _Budget) -> tuple[list[Section], list[int]]:
    """The pages' text layers, and the pages that have none to speak of (scans)."""
    _size_check(fh, MAX_BYTES["pdf"])
    from pypdf import PdfReader
    from pypdf.errors import FileNotDecryptedError, PdfReadError

    try:
        reader = PdfReader(fh, strict=False)
        if reader.is_encrypted:
            try:
                reader.decrypt("")  # many PDFs are "encrypted" with an empty password
                reader.pages[0].extract_text()
            except (FileNotDecryptedError, NotImplementedError, PdfReadError):
                raise refused(PDF_PASSWORD) from None
        pages = len(reader.pages)
        if pages > MAX_PAGES:
            raise refused(PDF_PAGES, pages=pages, limit=MAX_PAGES)
        texts = []
        for page in reader.pages:
            if budget.left <= 0:
                budget.truncated = True
                break
            texts.append(budget.take(page.extract_text() or ""))
        roles = page_roles(texts, _page_labels(reader, len(texts)))
        scanned = [number for number, text in enumerate(texts, start=1)
                   if len("".join(text.split())) < MIN_LAYER_CHARS]
        # A scan's stray characters stay, for when its recognition reads nothing.
        return [Section(text, page=number, role=role)
                for number, (text, role) in enumerate(zip(texts, roles, strict=True), start=1)], scanned
    except ParseError:
        raise
    except Exception as exc:  # pypdf raises many types on damaged files
        raise refused(PDF_DAMAGED, error=f"{type(exc).__name__}: {str(exc)[:120]}") from exc


def _page_labels(reader: Any, pages: int) -> list[str]:
    """The PDF's page labels ("i", "ii", "1", ...) of its first ``pages`` pages, each cut
    to ``MAX_LABEL`` characters. None when the file has none, or its label tree is not a
    plain list of at most ``MAX_LABEL_RANGES`` ranges (pypdf walks it once per page: a
    crafted one would cost minutes), or it is damaged. They only help to tell front
    matter apart: a file is never refused for them."""
    try:
        tree = reader.root_object.get("/PageLabels")
        tree = tree.get_object() if tree is not None else None
        if not isinstance(tree, dict) or "/Kids" in tree:
            return []
        nums = tree.get("/Nums")
        nums = nums.get_object() if nums is not None else None
        if not isinstance(nums, list) or len(nums) > 2 * MAX_LABEL_RANGES:
            return []
        labels = reader.page_labels
        if not isinstance(labels, list):
            return []
        return [label[:MAX_LABEL] if isinstance(label, str) else "" for label in labels[:pages]]
    except Exception:  # pypdf raises many types on damaged files
        return []


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
    _size_check(fh, MAX_BYTES[fmt.lower()])
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


def _docx(fh: BinaryIO, budget: _Budget) -> list[Section]:
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


MAX_IMAGE_PIXELS = 60_000_000  # a 600-dpi A4 scan is 35 million; more is a bomb


def open_image(data: bytes) -> Any:
    """A PNG, JPEG or TIFF from ``data``, its header checked (format, size) before any
    pixel is decoded; ParseError for anything else, or for an image past the pixel limit
    (Pillow's own bomb check, made an error)."""
    import io
    import warnings

    from PIL import Image, UnidentifiedImageError

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", Image.DecompressionBombWarning)
            image = Image.open(io.BytesIO(data), formats=["PNG", "JPEG", "TIFF"])
    except (Image.DecompressionBombError, Image.DecompressionBombWarning):
        raise refused(IMAGE_TOO_LARGE, pixels=0.0, limit=MAX_IMAGE_PIXELS // 1_000_000) from None
    except (UnidentifiedImageError, OSError, ValueError, SyntaxError) as exc:
        raise refused(NOT_IMAGE, error=f"{type(exc).__name__}: {str(exc)[:120]}") from None
    width, height = image.size
    if width * height > MAX_IMAGE_PIXELS:
        raise refused(IMAGE_TOO_LARGE, pixels=width * height / 1e6, limit=MAX_IMAGE_PIXELS // 1_000_000)
    return image


def image_frames(fh: BinaryIO, limit: int) -> int:
    """How many pages an image file has (a TIFF may have several), at most MAX_PAGES."""
    image = open_image(_read_bounded(fh, limit))
    frames = int(getattr(image, "n_frames", 1) or 1)
    if frames > MAX_PAGES:
        raise refused(PDF_PAGES, pages=frames, limit=MAX_PAGES)
    return frames


_OPF = "{http://www.idpf.org/2007/opf}"
_CONTAINER = "{urn:oasis:names:tc:opendocument:xmlns:container}"
_A = "{http://schemas.openxmlformats.org/drawingml/2006/main}"
_P = "{http://schemas.openxmlformats.org/presentationml/2006/main}"
_S = "{http://schemas.openxmlformats.org/spreadsheetml/2006/main}"
_R = "{http://schemas.openxmlformats.org/officeDocument/2006/relationships}"
XHTML_TYPES = {"application/xhtml+xml", "text/html", "application/xml"}


def _epub(fh: BinaryIO, budget: _Budget) -> list[Section]:
    """The chapters in reading order (the package's spine), each read as HTML: its
    headings start sections. Only the chapters' text: no script, no style, no image."""
    with _package(fh, "EPUB") as archive, _reading("EPUB"):
        container = _xml(archive, "META-INF/container.xml", "EPUB")
        rootfile = container.find(f".//{_CONTAINER}rootfile") if container is not None else None
        opf_name = _part_name("", rootfile.get("full-path", "")) if rootfile is not None else ""
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
            sections += _html(text, budget)
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


def _pptx(fh: BinaryIO, budget: _Budget) -> list[Section]:
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


def _xlsx(fh: BinaryIO, budget: _Budget) -> list[Section]:
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


class _HTMLText(HTMLParser):
    SKIP = {"script", "style", "noscript", "template", "head", "svg", "iframe", "object"}
    BLOCK = {"p", "div", "br", "li", "tr", "section", "article", "table", "ul", "ol", "pre",
             "blockquote", "h1", "h2", "h3", "h4", "h5", "h6"}
    HEADINGS = {"h1", "h2", "h3", "h4", "h5", "h6"}

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.skip_depth = 0
        self.sections: list[tuple[str | None, list[str]]] = [(None, [])]
        self.in_heading = False
        self.heading_text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list) -> None:
        if tag in self.SKIP:
            self.skip_depth += 1
        elif tag in self.HEADINGS:
            self.in_heading, self.heading_text = True, []
        elif tag in self.BLOCK:
            self.sections[-1][1].append("\n")

    def handle_endtag(self, tag: str) -> None:
        if tag in self.SKIP and self.skip_depth:
            self.skip_depth -= 1
        elif tag in self.HEADINGS and self.in_heading:
            self.in_heading = False
            title = " ".join("".join(self.heading_text).split())
            self.sections.append((title, [title, "\n"]))
        elif tag in self.BLOCK:
            self.sections[-1][1].append("\n")

    def handle_data(self, data: str) -> None:
        if self.skip_depth:
            return
        if self.in_heading:
            self.heading_text.append(data)
        else:
            self.sections[-1][1].append(data)


def _html(text: str, budget: _Budget) -> list[Section]:
    parser = _HTMLText()
    parser.feed(text)
    parser.close()
    sections = []
    for heading, parts in parser.sections:
        body = re.sub(r"\n\s*\n+", "\n\n", "".join(parts)).strip()
        if body:
            sections.append(Section(budget.take(body), heading=heading))
    return sections


def _markdown_heading(line: str, _next: str | None) -> str | None:
    match = re.match(r"^\s{0,3}#{1,6}\s+(.*?)\s*#*\s*$", line)
    return match.group(1) if match else None


def _headed(text: str, budget: _Budget, heading_of) -> list[Section]:
    lines = text.splitlines()
    sections: list[Section] = []
    heading: str | None = None
    current: list[str] = []
    skip = 0
    for index, line in enumerate(lines):
        if skip:
            skip -= 1
            continue
        following = lines[index + 1] if index + 1 < len(lines) else None
        title = heading_of(line, following)
        if title:
            if "\n".join(current).strip():
                sections.append(Section(budget.take("\n".join(current)), heading=heading))
            heading, current = title, [line]
            if heading_of is _rst_heading:
                skip = 1  # the underline
            continue
        current.append(line)
    if "\n".join(current).strip():
        sections.append(Section(budget.take("\n".join(current)), heading=heading))
    return sections


def _rst_heading(line: str, following: str | None) -> str | None:
    if following and line.strip() and re.fullmatch(r"([=\-~^\"'`#*+])\1{2,}", following.strip()) \
            and len(following.strip()) >= len(line.strip()):
        return line.strip()
    return None


def _rst(text: str, budget: _Budget) -> list[Section]:
    return _headed(text, budget, _rst_heading)
