"""What may be read of a document file, and what is said when it may not.

The limits of every parser (file size by type, pages, extracted characters, the zip
packages' expanded size and ratio), the one way a file is opened (``open_regular``: no
link followed at the last step, no blocking open of a FIFO or a device, and the very file
the folder walk found, checked on the open descriptor itself), reads bounded by those
limits, and the reasons a file is refused, as data (``Said``) and as text in the
interface language (``reason``): the parser's child process has no translation, so it
sends the data and the parent says it.
"""

from __future__ import annotations

import errno
import hashlib
import importlib.util
import os
import stat
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

from guard.text import one_line
from i18n import translate
from storage.errors import said_why, why_kind

MAX_BYTES = {"pdf": 200 << 20, "docx": 100 << 20, "epub": 100 << 20, "pptx": 100 << 20,
             "xlsx": 100 << 20}
MAX_PARTS = 5000  # chapters of an EPUB, slides of a presentation, sheets of a workbook
MAX_BYTES.update({"png": 50 << 20, "jpg": 50 << 20, "jpeg": 50 << 20, "tif": 100 << 20,
                  "tiff": 100 << 20})
MAX_BYTES.update({suffix: 2 << 30 for suffix in ("wav", "mp3", "m4a", "ogg", "opus", "flac", "mp4", "mkv", "webm",
                                                 "aac")})  # read as it is decoded; the hour of sound is the bound
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
# Recordings, and the sound of films: read by speech recognition only (storage.documents.speech).
AUDIO_SUFFIXES = {".wav", ".mp3", ".m4a", ".ogg", ".opus", ".flac", ".mp4", ".mkv", ".webm", ".aac"}
# Recordings count only where speech recognition is installed (the installers leave it out
# for now): elsewhere they are files Hearth does not read, as before.
SPEECH_INSTALLED = all(importlib.util.find_spec(name) is not None for name in ("av", "faster_whisper"))
SUPPORTED = ({".pdf"} | set(PACKAGES) | IMAGE_SUFFIXES | TEXT_SUFFIXES | MARKDOWN_SUFFIXES | RST_SUFFIXES | HTML_SUFFIXES
             | CODE_SUFFIXES | (AUDIO_SUFFIXES if SPEECH_INSTALLED else set()))


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
NOT_AUDIO, AUDIO_TOO_LONG, NO_SPEECH_MODEL = "not-audio", "audio-too-long", "no-speech-model"
DOCX_DTD, DOCX_XML, DOCX_NOT_ZIP, DOCX_BROKEN, DOCX_NO_BODY, DOCX_BOMB = (
    "docx-dtd", "docx-xml", "docx-not-zip", "docx-broken", "docx-no-body", "docx-bomb")
TRUNCATED = "truncated"  # a note, not an error
SAME_CONTENT, RECOGNISED, NOT_RECOGNISED, NO_PAGE_RECOGNISED = (
    "same-content", "recognised", "not-recognised", "no-page-recognised")
Value = str | int | float
Said = tuple[str, dict[str, Value]]  # (kind, values)


class SaidText(str):
    """A reason's or note's text that remembers what it says as data (``said``), so that
    it is stored as a kind and values and said again in the language of whoever reads it
    (``say_again``): a document imported under English reads in Chinese after a switch."""

    said: Said | None = None


def said_of(text: str) -> list | None:
    """What to store beside a reason or note: [kind, values], or None for a bare text."""
    found = getattr(text, "said", None)
    return [found[0], dict(found[1])] if found else None


def say_again(stored: object, text: str) -> str:
    """The stored [kind, values] said in the interface's language now; ``text`` (as it was
    said at import) where there is none, or one this version does not know."""
    if not isinstance(stored, list) or len(stored) != 2 or not isinstance(stored[1], dict):
        return text
    try:
        return reason(str(stored[0]), stored[1])
    except (KeyError, ValueError, TypeError, IndexError):
        return text


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
    """The text of a reason or note of ``kind``, in the interface language, carrying its
    kind and values (``SaidText``); KeyError for a kind (or a value) it does not know,
    ValueError for a value of the wrong type."""
    text = SaidText(_reason(kind, values))
    text.said = (kind, dict(values))
    return text


def _reason(kind: str, values: Mapping[str, Value]) -> str:
    """(The messages keep the context of the module they were written in, ``parsers``, so
    that the translations still find them.)"""
    v = values
    if kind == LINK:
        return translate("storage.documents.parsers", "is a link now (links are not followed)")
    if kind == UNREADABLE:  # the system's words ("Permission denied") are the log's: what they mean is said
        return translate("storage.documents.parsers", "cannot be read ({error})").format(
            error=said_why(v.get("why")))
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
    if kind == PDF_DAMAGED:  # PDFium's own words ("Data format error") are not the user's: left out
        return translate("storage.documents.parsers", "the PDF is damaged or is not a PDF; if it opens "
                         "in a PDF viewer, save a new copy from there and use that")
    if kind == NOT_IMAGE:
        # The decoder's own words (English, with its internals) are not the user's: left out.
        return translate("storage.documents.parsers", "not an image Hearth reads (PNG, JPEG or "
                         "TIFF), or a damaged one")
    if kind == NOT_AUDIO:  # the decoder's own words are not the user's: left out
        return translate("storage.documents.parsers", "not a recording Hearth reads, or a damaged one")
    if kind == AUDIO_TOO_LONG:
        return translate("storage.documents.parsers", "the recording is longer than {minutes} minutes").format(
            minutes=v["minutes"])
    if kind == NO_SPEECH_MODEL:
        return translate("storage.documents.parsers", "speech recognition is not installed here (its model or "
                         "faster-whisper is missing)")
    if kind == IMAGE_TOO_LARGE:
        return translate("storage.documents.parsers", "the image is {pixels:,.0f} megapixels; "
                         "the limit is {limit}").format(pixels=v["pixels"], limit=v["limit"])
    if kind == DOCX_DTD:
        return translate("storage.documents.parsers", "not a valid {format} file ({part} declares a "
                         "DTD or entities, which a {format} never needs)").format(
                             part=v["part"], format=_format(v))
    if kind == DOCX_XML:  # the XML parser's words ("unbound prefix: line 1") are not the user's
        return translate("storage.documents.parsers", "not a valid {format} file (its part {part} is "
                         "damaged)").format(part=v["part"], format=_format(v))
    if kind == DOCX_NOT_ZIP:
        return translate("storage.documents.parsers",
                         "not a valid {format} file (it is not a zip archive)").format(format=_format(v))
    if kind == DOCX_BROKEN:  # nor the zip module's ("BadZipFile", "Bad CRC-32")
        return translate("storage.documents.parsers", "not a valid {format} file (part of it is damaged: "
                         "it was cut short or changed)").format(format=_format(v))
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
    if kind == SAME_CONTENT:
        return translate("core.documents", "the same content as {name}").format(name=v["name"])
    if kind == RECOGNISED:
        pages = _count(v["pages"])  # a plain name: lupdate reads no expression
        return translate("core.documents", "%n pages read by text recognition (OCR)", None, pages)
    if kind == NOT_RECOGNISED:
        return translate("core.documents", "pages {pages} could not be read").format(pages=v["pages"])
    if kind == NO_PAGE_RECOGNISED:
        return translate("core.documents", "no page of this scan could be read")
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

    def __post_init__(self) -> None:
        if self.heading is not None:  # a label wherever it is shown: one line, no controls
            object.__setattr__(self, "heading", one_line(self.heading))


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
        raise refused(UNREADABLE, error=str(exc.strerror or exc), why=why_kind(exc)) from None
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


def size_check(fh: BinaryIO, limit: int) -> None:
    size = os.fstat(fh.fileno()).st_size
    if size > limit:
        raise _refused_too_large(size, limit)


def read_bounded(fh: BinaryIO, limit: int) -> bytes:
    """All of ``fh``, refused past ``limit`` bytes (whatever its size said)."""
    size_check(fh, limit)
    data = fh.read(limit + 1)
    if len(data) > limit:
        raise _refused_too_large(None, limit)
    return data


def digest(path: Path, identity: Identity | None = None) -> str:
    """The sha256 of ``path``'s content, read within its type's size limit."""
    limit = size_limit(path)
    sha = hashlib.sha256()
    with open_regular(path, identity) as fh:
        size_check(fh, limit)
        total = 0
        while block := fh.read(READ_BLOCK):
            total += len(block)
            if total > limit:
                raise _refused_too_large(None, limit)
            sha.update(block)
    return sha.hexdigest()


class Budget:
    def __init__(self) -> None:
        self.left = MAX_CHARS
        self.truncated = False

    def take(self, text: str) -> str:
        if len(text) > self.left:
            self.truncated = True
            text = text[: self.left]
        self.left -= len(text)
        return text


def read_text(fh: BinaryIO) -> str:
    data = read_bounded(fh, MAX_TEXT_BYTES)
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
