"""Reading the files attached to a message (#39), without widgets: each file on a thread of
its own (a few at a time), through ``core.attachments`` (isolated child processes, text
recognition for scans and images), its result handed to the UI thread by a queued signal;
a pasted image written to a private temporary folder first, deleted once it is read; and
what a drop, a paste or the file dialog offers. ``app.chat.attachment_bar`` shows them."""

from __future__ import annotations

import contextlib
import logging
import shutil
import threading
from pathlib import Path

import shiboken6
from PySide6.QtCore import QBuffer, QByteArray, QIODevice, QMimeData, QObject, Signal
from PySide6.QtGui import QImage
from PySide6.QtWidgets import QApplication

from core import attachments
from core.attachments import Attachment, AttachmentRefused
from core.documents import reading
from core.protocol import one_line
from i18n import translate

log = logging.getLogger(__name__)

READING_AT_ONCE = 2  # files read at the same time (each read starts two child processes)
NAME_LIMIT = 120  # characters of a file's name, as shown
_readers = threading.BoundedSemaphore(READING_AT_ONCE)


def local_files(mime: QMimeData) -> list[Path]:
    """The local files (or folders) ``mime`` names: a drop's or a paste's."""
    if not mime.hasUrls():
        return []
    # Not a file on another computer (file://host/share, a \\host\share path): looking at it
    # would reach out over the network, outside Hearth's guard.
    return [Path(url.toLocalFile()) for url in mime.urls() if url.isLocalFile() and not url.host()
            and url.toLocalFile() and not url.toLocalFile().startswith(("//", "\\\\"))]


def attachable(path: Path) -> bool:
    """Whether a file dropped on the chat is attached: not a model (.gguf), which goes to the
    model library, nor a folder, which goes to the documents' collections."""
    return path.suffix.lower() != ".gguf" and not path.is_dir()


def kinds_filter() -> str:
    """The file dialog's filters: the kinds Hearth reads (either case), then any file."""
    suffixes = sorted(reading.SUPPORTED)
    patterns = " ".join([f"*{s}" for s in suffixes] + [f"*{s.upper()}" for s in suffixes])
    return ";;".join((translate("chat.attachments", "Files Hearth reads") + f" ({patterns})",
                      translate("chat.attachments", "All files") + " (*)"))


def shown_name(name: str) -> str:
    return one_line(name, NAME_LIMIT)


def state_text(attachment: Attachment) -> str:
    """A ready chip's state: its pages (or that it is ready), and the first of its notes."""
    pages = len({s.page for s in attachment.sections if s.page})
    text = (translate("chat.attachments", "%n pages", None, pages) if pages
            else translate("chat.attachments", "ready"))
    if attachment.notes:
        text += " · " + one_line(attachment.notes[0], NAME_LIMIT)
    return text


class Entry:
    """One file attached: where it is read from, and once read, what it holds."""

    def __init__(self, path: Path, name: str, folder: Path | None = None) -> None:
        self.path = path
        self.name = name
        self.folder = folder  # a pasted image's private folder, deleted once it is read
        self.cancelled = threading.Event()  # removed: not read, or its reading stopped
        self.attachment: Attachment | None = None


class Relay(QObject):
    """Carries a reading's result from its thread to the UI thread (queued). It lives as
    long as the application, so a thread never emits on a bar that is gone."""

    read = Signal(object, object, str)  # the entry, its Attachment or None, the refusal or ""


_relay: Relay | None = None


def relay() -> Relay:
    global _relay
    if _relay is None or not shiboken6.isValid(_relay):
        _relay = Relay(QApplication.instance())
    return _relay


def _read(entry: Entry, to: Relay) -> None:
    """On a reading thread: the entry's file read (unless it was removed meanwhile)."""
    attachment: Attachment | None = None
    refusal = ""
    try:
        # Looked at before taking a reading slot: a file on a mount that no longer answers
        # holds this thread, not the slots every other attachment waits for.
        with contextlib.suppress(OSError):
            entry.path.stat()
        with _readers:
            if not entry.cancelled.is_set():  # removed meanwhile: its children are stopped too
                attachment = attachments.read_all([entry.path], entry.cancelled)[0]
    except AttachmentRefused as exc:
        refusal = str(exc)
    except Exception:  # a bug, or the machine's fault: logged (no file name), and said
        log.exception("An attachment could not be read")
        refusal = translate("chat.attachments", "{name} could not be read; the log says why.").format(
            name=shown_name(entry.name))
    finally:
        if entry.folder is not None:  # a pasted image: gone once read, attached or not
            shutil.rmtree(entry.folder, ignore_errors=True)
    with contextlib.suppress(RuntimeError):  # the application ended meanwhile
        to.read.emit(entry, attachment, refusal)


def start(entry: Entry) -> None:
    """Read ``entry``'s file on a thread; its result comes to ``relay().read``."""
    threading.Thread(target=_read, args=(entry, relay()), name="attachment", daemon=True).start()


# The clipboard's own image formats, written as they come: decoded only in the isolated
# child, never in Hearth's process (the clipboard may hold what a web page put there).
RAW_IMAGES = (("image/png", ".png"), ("image/jpeg", ".jpg"), ("image/tiff", ".tiff"))


def raw_image(mime: QMimeData) -> tuple[bytes, str] | None:
    """A pasted image's bytes as the clipboard holds them, and their kind's suffix."""
    for kind, suffix in RAW_IMAGES:
        if mime.hasFormat(kind) and (data := bytes(mime.data(kind).data())):
            return data, suffix
    return None


def write_pasted(image: QImage | tuple[bytes, str], name: str) -> Entry:
    """A pasted image (its raw bytes and suffix, or a platform bitmap Qt decoded, saved
    as PNG) as ``name`` in a new private folder (0700, the file 0600), to be read like any
    file; OSError if it cannot be written (the folder is gone then), ValueError if it is no
    image or larger than an attachment may be."""
    if isinstance(image, tuple):
        raw, suffix = image
    else:
        data = QByteArray()
        buffer = QBuffer(data)
        buffer.open(QIODevice.OpenModeFlag.WriteOnly)
        if image.isNull() or not image.save(buffer, "PNG"):  # type: ignore[call-overload]
            raise ValueError("not an image")
        raw, suffix = bytes(data.data()), ".png"
    if not raw or len(raw) > attachments.MAX_BYTES:
        raise ValueError("no image, or too large")
    name = "".join(c for c in name if c not in "/\\:" and c.isprintable()).strip() or "image"
    folder = Path(attachments.private_folder("hearth-paste-"))  # 0700, in memory where it can be
    try:
        path = attachments.write_private(folder, f"{name}{suffix}", raw)
    except OSError:
        shutil.rmtree(folder, ignore_errors=True)
        raise
    return Entry(path, path.name, folder)
