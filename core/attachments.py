"""Files attached to a question (#39, first step): read as an import reads them, and given
to the model as passages of that attachment, cited "report.pdf (attached), page 2".

An attachment is a stranger's file like any document: it is read in the isolated parser
child (``storage.documents.isolation``), its scanned pages and images by text recognition
there, under the same size, time and memory limits as an import. Nothing of it is kept
by this module: the text lives as long as the turn (the terminal's chat is not saved).

A short attachment goes to the model whole; a long one is cut as imports are and searched
for the question (keywords and the embedding model together, as a collection is), its
best passages given in the file's order. A question about an attachment is about it, so
when the search finds fewer passages than asked for (a "summarise this"), the file's
first passages fill the rest: the model always sees some of what was attached.
"""

from __future__ import annotations

import hashlib
import logging
import os
import shutil
import stat
import tempfile
import threading
from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import Future
from concurrent.futures import TimeoutError as FutureTimeout
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from core import speech
from core.document_protocol import SEARCH_TIMEOUT
from core.pictures import from_stored, read_picture
from core.pictures import stored as stored_picture
from guard.text import one_line
from i18n import translate
from inference.bundled import embedding_model
from inference.embedder import EmbedderNotLoaded, profile
from inference.errors import ModelLoadError, NoModelLoaded
from inference.protocol import ChatMessage, Embed, Picture
from inference.rag import Passage, user_turn
from storage.documents.chunking import MAX_TOKENS, Chunk, chunk_sections
from storage.documents.isolation import OCR_MEMORY_LIMIT, IsolatedParser
from storage.documents.reading import IMAGE_SUFFIXES, ParseError, Section, supported
from storage.documents.search import MIN_COSINE, SearchIndex
from storage.documents.store import StoredChunk
from storage.errors import why_not

if TYPE_CHECKING:
    from core.steps import Finder

log = logging.getLogger(__name__)
MAX_BYTES = 50 << 20  # one attachment
MAX_ATTACHMENTS = 10  # one message
OCR_PAGES = 20  # scanned pages read by text recognition, per attachment; the rest is said
WHOLE_CHARACTERS = 6000  # all attachments together this short: given whole
PASSAGES = 6  # otherwise: the best of them for the question
ATTACHMENTS = "attachments"  # the key in a user message's stats
STORED_CHARACTERS = 2_000_000  # of one message's attachments' text; what is past it is said


class AttachmentRefused(Exception):
    """Why a file cannot be attached, in the user's words."""


@dataclass(frozen=True)
class Attachment:
    name: str
    sections: tuple[Section, ...]
    notes: tuple[str, ...] = ()  # what was left out or read by text recognition
    picture: Picture | None = None  # an image's pixels, for a model that sees pictures (core.pictures)


def _refused(name: str, why: str) -> AttachmentRefused:
    """The file's name is a stranger's: one line, no control characters (a right-to-left
    override would show "invoice[U+202E]fdp.js" as "invoicesj.pdf")."""
    return AttachmentRefused(translate("core.attachments", "{name} cannot be attached: {why}").format(
        name=one_line(name), why=one_line(why)))


def read(path: Path, parser: IsolatedParser, ocr: IsolatedParser, hearing: IsolatedParser | None = None) -> Attachment:
    """``path`` read in the isolated child (``ocr``: the one with text recognition's
    memory limit); AttachmentRefused says why it cannot be. A link the user chose is
    followed to its file, as an import follows one (the child then opens that file without
    following links, and checks it is the one looked at); the name shown is the link's."""
    name = path.name
    path = Path(os.path.realpath(path))
    try:
        info = path.stat()
    except OSError as exc:
        raise _refused(name, why_not(exc)) from None
    if not stat.S_ISREG(info.st_mode):
        raise _refused(name, translate("core.attachments", "it is not a file."))
    if info.st_size > MAX_BYTES:
        raise _refused(name, translate("core.attachments", "it is larger than {limit} MB.").format(
            limit=MAX_BYTES >> 20))
    if not supported(path):
        raise _refused(name, translate("core.attachments", "Hearth does not read this kind of file."))
    if path.suffix.lower() in speech.AUDIO_SUFFIXES:  # a recording: its speech, by its time
        try:
            heard = speech.transcribe(path, identity=(info.st_dev, info.st_ino), parser=hearing)
        except (ParseError, ModelLoadError) as exc:
            raise _refused(name, str(exc)) from None
        if not heard.segments:
            raise _refused(name, translate("core.attachments", "no speech was heard in it."))
        heard_notes = [translate("core.attachments", "its speech, recognised here")]
        if heard.cut:
            heard_notes.append(translate("core.attachments", "the recording is damaged midway: what came before it"))
        if sum(len(s.text) for s in heard.segments) > WHOLE_CHARACTERS:
            heard_notes.insert(0, translate("core.attachments", "long: the passages that match each question are used"))
        return Attachment(name, tuple(speech.sections(heard)), tuple(heard_notes))
    try:
        sections, notes, scanned = parser.parse_document(path, (info.st_dev, info.st_ino))
        found = list(sections)
        for page in scanned[:OCR_PAGES]:
            text = ocr.recognise(path, page, (info.st_dev, info.st_ino))
            if text.strip():
                found.append(Section(text, page if path.suffix.lower() == ".pdf" else None))
        picture = read_picture(parser, path, (info.st_dev, info.st_ino))
    except ParseError as exc:
        raise _refused(name, str(exc)) from None
    notes = list(notes)
    if scanned and path.suffix.lower() in IMAGE_SUFFIXES and len(scanned) == 1:  # a picture, not a page
        notes.append(translate("core.attachments", "text read from the picture by text recognition"))
    elif scanned:
        read = min(len(scanned), OCR_PAGES)  # a name, not an expression: lupdate skips those
        notes.append(translate("core.attachments", "%n pages read by text recognition", None, read))
    if len(scanned) > OCR_PAGES:
        unread = len(scanned) - OCR_PAGES
        notes.append(translate("core.attachments", "%n scanned pages left unread", None, unread))
    if not any(s.text.strip() for s in found):
        if picture is None:
            raise _refused(name, translate("core.attachments", "no text was found in it."))
        notes.append(translate("core.attachments", "no text in it: only a model that sees pictures can use it"))
    found.sort(key=lambda s: s.page or 0)
    if sum(len(s.text) for s in found) > STORED_CHARACTERS:  # what a question can keep of it, and no more
        found = _within(found, STORED_CHARACTERS)
        notes.append(translate("core.attachments", "the rest of it was too long to keep"))
    if sum(len(s.text) for s in found) > WHOLE_CHARACTERS:  # said first: it is what the answer gets
        notes.insert(0, translate("core.attachments", "long: the passages that match each question are used"))
    return Attachment(name, tuple(found), tuple(notes), picture)


def _within(sections: Sequence[Section], characters: int) -> list[Section]:
    kept = []
    for section in sections:
        if characters <= 0:
            break
        kept.append(Section(section.text[:characters], section.page, section.heading, section.role))
        characters -= len(section.text)
    return kept


def label(name: str, page: int | None, heading: str | None) -> str:
    if page:
        return translate("core.attachments", "{name} (attached), page {page}").format(name=name, page=page)
    if heading:
        return translate("core.attachments", "{name} (attached), {section}").format(name=name, section=heading)
    return translate("core.attachments", "{name} (attached)").format(name=name)


def _estimate(text: str) -> int:
    """Tokens, counted high (a byte in three, at least a token a word): an attachment is
    cut without asking the embedder, and a chunk must fit its input."""
    return max(len(text.encode("utf-8")) // 3, len(text.split()), 1)


def _chunks(attachments: Sequence[Attachment], chunk_tokens: int) -> list[tuple[int, Chunk]]:
    return [(index, chunk) for index, attachment in enumerate(attachments)
            for chunk in chunk_sections(list(attachment.sections), _estimate, max_tokens=chunk_tokens)]


def passages(attachments: Sequence[Attachment], question: str,
             embed: Callable[[list[str]], Any] | None = None, model: str = "", k: int = PASSAGES) -> list[Passage]:
    """The passages of ``attachments`` the model is given for ``question``: all of them
    when they are short, else the ``k`` best (``embed``: the embedding model ``model``'s
    vectors of some texts; without it, keywords alone), in the files' order."""
    shape = profile(model)
    chunks = _chunks(attachments, shape.chunk_tokens or MAX_TOKENS)
    if sum(len(chunk.text) for _index, chunk in chunks) > WHOLE_CHARACTERS:
        chunks = _best(chunks, attachments, question, embed, model, k)
    return [Passage(n, label(attachments[index].name, chunk.page, chunk.heading), chunk.text,
                    attachments[index].name, chunk.page, chunk.heading)
            for n, (index, chunk) in enumerate(chunks, start=1)]


def _best(chunks: list[tuple[int, Chunk]], attachments: Sequence[Attachment], question: str,
          embed: Callable[[list[str]], Any] | None, model: str, k: int) -> list[tuple[int, Chunk]]:
    shape = profile(model)
    vectors = None
    if embed is not None and len(chunks) <= EMBED_CHUNKS:  # more: keywords alone, never minutes of it
        rows = [_embedded([shape.passage(c.text) for i, c in chunks if i == which], embed, model)
                for which in sorted({i for i, _c in chunks})]
        vectors = np.vstack([*rows, np.asarray(embed([shape.query(question)]), dtype=np.float32)])
    index = SearchIndex(int(vectors.shape[1]) if vectors is not None else 0, model, shape.min_cosine or MIN_COSINE)
    for at, (which, chunk) in enumerate(chunks):
        stored = StoredChunk(at, 0, which, chunk.text, attachments[which].name, chunk.page, chunk.heading,
                             chunk.start, chunk.end, model, chunk.role)
        index.add(stored, vectors[at] if vectors is not None else np.zeros(1, dtype=np.float32))
    hits = index.search(question, vectors[-1] if vectors is not None else None, k,
                        mode="hybrid" if vectors is not None else "bm25")
    chosen = [hit.chunk.id for hit in hits]
    for at in range(len(chunks)):  # too few found: the files' first passages
        if len(chosen) >= k:
            break
        if at not in chosen:
            chosen.append(at)
    return [chunks[at] for at in sorted(chosen)]


def read_all(paths: Sequence[Path], stop: threading.Event | None = None) -> list[Attachment]:
    """Each of ``paths`` read in one isolated parser child, in order; AttachmentRefused for
    the first that cannot be (nothing is attached then). ``stop``, once set, ends a reading
    under way at once (its children are killed): AttachmentRefused, "stopped"."""
    if len(paths) > MAX_ATTACHMENTS:
        raise AttachmentRefused(translate("core.attachments", "At most {count} files can be attached to "
                                          "a message.").format(count=MAX_ATTACHMENTS))
    # The user waits for these: their children run at the app's priority, not an import's.
    with IsolatedParser(background=False) as parser, \
            IsolatedParser(memory_limit=OCR_MEMORY_LIMIT, background=False) as ocr, \
            IsolatedParser(timeout=speech.SPEECH_TIMEOUT, memory_limit=speech.SPEECH_MEMORY_LIMIT,
                           background=False) as hearing:
        done = threading.Event()

        def watch() -> None:  # the remove button's word reaches the children, not only the result
            assert stop is not None
            while not done.wait(0.1):
                if stop.is_set():
                    parser.kill()
                    ocr.kill()
                    hearing.kill()
                    return

        if stop is not None:
            threading.Thread(target=watch, name="hearth-attachment-stop", daemon=True).start()
        try:
            return [read(Path(path), parser, ocr, hearing) for path in paths]
        finally:
            done.set()


def first_turn(question: str, given: Sequence[Passage]) -> ChatMessage:
    """The question as the model saw it, with the passages it was given: what the
    conversation keeps, so that a follow-up question still has them."""
    return user_turn(question, [p.as_dict() for p in given])


# Kept with the message ---------------------------------------------------------------------


def to_stats(attachments: Sequence[Attachment]) -> list[dict[str, Any]]:
    """The attachments as the user message keeps them, encrypted with it in the vault: the
    files' names, notes and text, and an image's pixels (scaled down, nothing of its
    metadata: ``core.pictures``); not their bytes: nothing else of a file is kept."""
    left = STORED_CHARACTERS
    kept = []
    for attachment in attachments:
        sections, notes = [], list(attachment.notes)
        for section in attachment.sections:
            if left <= 0:
                notes.append(translate("core.attachments", "the rest of it was too long to keep"))
                break
            text = section.text[:left]
            left -= len(text)
            sections.append([section.page, section.heading, text])
        item: dict[str, Any] = {"name": attachment.name, "notes": notes, "sections": sections}
        if attachment.picture is not None:
            item["picture"] = stored_picture(attachment.picture)
        kept.append(item)
    return kept


def from_stats(stats: Mapping[str, Any] | None) -> list[Attachment]:
    """The attachments a stored user message keeps (none for one of an older shape)."""
    found = []
    for item in (stats or {}).get(ATTACHMENTS) or []:
        try:
            sections = tuple(Section(str(text), int(page) if page else None, str(heading) if heading else None)
                             for page, heading, text in item["sections"])
            found.append(Attachment(str(item["name"]), sections, tuple(str(n) for n in item.get("notes") or ()),
                                    from_stored(item.get("picture")) if item.get("picture") else None))
        except (KeyError, TypeError, ValueError):
            continue  # a damaged entry: left out, the others kept
    return found


def stored(attachments: Sequence[Attachment]) -> dict[str, Any] | None:
    """A new user message's stats: its attachments, if any."""
    return {ATTACHMENTS: to_stats(attachments)} if attachments else None


def kept_by_edit(stats: Mapping[str, Any] | None) -> dict[str, Any] | None:
    """What an edited question keeps of the old one's stats: its attachments."""
    kept = (stats or {}).get(ATTACHMENTS)
    return {ATTACHMENTS: kept} if kept else None


def attached_names(stats: Mapping[str, Any] | None) -> list[str]:
    """The names of the files attached to a stored user message, for the conversation."""
    items = (stats or {}).get(ATTACHMENTS) or []
    return [str(item.get("name") or "") for item in items if isinstance(item, dict)]


# Found for a turn --------------------------------------------------------------------------
EMBED_SECONDS = 60.0  # for one batch
EMBED_BATCH = 64  # passages a request to the worker: answers queued behind wait one batch at most
EMBED_CHUNKS = 1200  # passages of a turn's attachments beyond which they are searched by keywords alone
VECTORS_KEPT = 32  # attachments whose vectors are kept (in memory, this session) for the next turn
_vectors: OrderedDict[tuple[str, str], np.ndarray] = OrderedDict()
_vectors_lock = threading.Lock()
_session = [0]  # which session's vectors may be kept (``forget`` moves it on)


def forget() -> None:
    """Drop the attachments' vectors kept for the next turn: at a lock, a quit and "delete
    everything" (the session's closers), as the rest of what an unlock decrypted is
    dropped; otherwise the same file attached after them is recognised by its text's hash.
    Vectors an answer still being made embeds meanwhile are not kept either."""
    with _vectors_lock:
        _vectors.clear()
        _session[0] += 1


def _embedded(texts: list[str], embed: Callable[[list[str]], Any], model: str) -> np.ndarray:
    """One attachment's passage vectors: made once a session, in batches."""
    key = (model, hashlib.sha256("\0".join(texts).encode("utf-8")).hexdigest())
    with _vectors_lock:
        if (kept := _vectors.get(key)) is not None:
            _vectors.move_to_end(key)
            return kept
        session = _session[0]
    matrix = np.vstack([np.asarray(embed(texts[at:at + EMBED_BATCH]), dtype=np.float32)
                        for at in range(0, len(texts), EMBED_BATCH)])
    with _vectors_lock:
        if session != _session[0]:  # the session ended while they were made
            return matrix
        _vectors[key] = matrix
        while len(_vectors) > VECTORS_KEPT:
            _vectors.popitem(last=False)
    return matrix


def _embedder(submit: Callable[[Any], None], model: str) -> Callable[[list[str]], Any]:
    def embed(texts: list[str]) -> Any:
        future: Future = Future()
        submit(Embed(tuple(texts), future, model))
        try:
            return future.result(timeout=EMBED_SECONDS)
        except FutureTimeout:
            future.cancel()  # not begun: the worker skips it
            raise
    return embed


def _found(attachments: Sequence[Attachment], question: str, submit: Callable[[Any], None]) -> list[Passage]:
    """The attachments' passages for ``question``: with the bundled embedding model if it
    is loaded, else the one loaded last, else (none loaded, or too slow) by keywords alone."""
    for model in (embedding_model().sha256, ""):
        try:
            return passages(attachments, question, _embedder(submit, model), model)
        except (EmbedderNotLoaded, NoModelLoaded) as exc:  # not loaded here: the next way
            log.info("attachments not searched with embedding model %r: %s", model[:12], type(exc).__name__)
        except Exception as exc:  # a time-out or a fault: keywords, not another long wait
            log.info("attachments searched by keywords alone: %s", type(exc).__name__)
            break
    return passages(attachments, question)


def finder(attachments: Sequence[Attachment], collections: Finder | None,
           submit: Callable[[Any], None]) -> Finder | None:
    """A turn's ``Finder`` (``core.steps``): the attachments' passages first, then the
    chat's collections' (``collections``), numbered on; without attachments, ``collections``."""
    if not attachments:
        return collections

    def find(chat_id: int, question: str) -> Future:
        result: Future = Future()
        others = collections(chat_id, question) if collections is not None else None

        def work() -> None:
            try:
                own = _found(attachments, question, submit)
                more = list(others.result(timeout=SEARCH_TIMEOUT)) if others is not None else []
                joined = [*own, *more]
                result.set_result(tuple(replace(p, number=n) for n, p in enumerate(joined, start=1)))
            except Exception as exc:
                result.set_exception(exc)

        threading.Thread(target=work, name="hearth-attachments", daemon=True).start()
        return result

    return find


def attached(messages: Sequence[Any], until: int | None = None) -> list[Attachment]:
    """The attachments of the user messages in ``messages`` (a chat's branch, as the store
    gives it) before the one with id ``until`` (None: all): a later question about a file
    attached earlier in the chat still finds it."""
    found: list[Attachment] = []
    for message in messages:
        if message.id == until:
            break
        if message.role == "user":
            found += from_stats(message.stats)
    return found


PRIVATE_PREFIXES = ("hearth-paste-", "hearth-images-")


def _memory_places() -> list[str]:
    return [place for place in (os.environ.get("XDG_RUNTIME_DIR", ""), "/dev/shm")
            if place and os.path.isdir(place) and os.access(place, os.W_OK | os.X_OK)]


def private_folder(prefix: str) -> str:
    """A new folder (0700) for bytes that exist only to be read (a pasted image, an API
    client's): in memory where the system offers a place for it (the user's runtime
    folder, /dev/shm), so they never reach the disk; otherwise the temporary folder. Its
    name carries this process's id, so that one left by a crash is swept (``sweep``)."""
    named = f"{prefix}{os.getpid()}-"
    for place in _memory_places():
        try:
            return tempfile.mkdtemp(prefix=named, dir=place)
        except OSError:
            continue
    return tempfile.mkdtemp(prefix=named)


def write_private(folder: str | Path, name: str, data: bytes) -> Path:
    """``data`` as a new file ``name`` (0600) in a folder from ``private_folder``."""
    path = Path(folder) / name
    descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0), 0o600)
    with os.fdopen(descriptor, "wb") as file:
        file.write(data)
    return path


def sweep() -> int:
    """Remove the private folders a Hearth that is gone (a crash, a power cut) left with
    bytes in them; how many were removed."""
    from guard.sandbox import owner_gone

    removed = 0
    for place in {*_memory_places(), tempfile.gettempdir()}:
        try:
            entries = list(Path(place).iterdir())
        except OSError:
            continue
        for entry in entries:
            prefix = next((p for p in PRIVATE_PREFIXES if entry.name.startswith(p)), None)
            pid = entry.name[len(prefix):].split("-", 1)[0] if prefix else ""
            if pid.isdigit() and owner_gone(int(pid)) and entry.is_dir() and not entry.is_symlink():
                shutil.rmtree(entry, ignore_errors=True)
                removed += not entry.exists()
    return removed
