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

import stat
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from i18n import translate
from inference.embedder import profile
from inference.protocol import ChatMessage
from inference.rag import Passage, user_turn
from storage.documents.chunking import MAX_TOKENS, Chunk, chunk_sections
from storage.documents.isolation import OCR_MEMORY_LIMIT, IsolatedParser
from storage.documents.reading import ParseError, Section, supported
from storage.documents.search import MIN_COSINE, SearchIndex
from storage.documents.store import StoredChunk

MAX_BYTES = 50 << 20  # one attachment
MAX_ATTACHMENTS = 10  # one message
OCR_PAGES = 20  # scanned pages read by text recognition, per attachment; the rest is said
WHOLE_CHARACTERS = 6000  # all attachments together this short: given whole
PASSAGES = 6  # otherwise: the best of them for the question


class AttachmentRefused(Exception):
    """Why a file cannot be attached, in the user's words."""


@dataclass(frozen=True)
class Attachment:
    name: str
    sections: tuple[Section, ...]
    notes: tuple[str, ...] = ()  # what was left out or read by text recognition


def _refused(name: str, why: str) -> AttachmentRefused:
    return AttachmentRefused(translate("core.attachments", "{name} cannot be attached: {why}").format(
        name=name, why=why))


def read(path: Path, parser: IsolatedParser, ocr: IsolatedParser) -> Attachment:
    """``path`` read in the isolated child (``ocr``: the one with text recognition's
    memory limit); AttachmentRefused says why it cannot be."""
    name = path.name
    try:
        info = path.stat()
    except OSError as exc:
        raise _refused(name, exc.strerror or str(exc)) from None
    if not stat.S_ISREG(info.st_mode):
        raise _refused(name, translate("core.attachments", "it is not a file."))
    if info.st_size > MAX_BYTES:
        raise _refused(name, translate("core.attachments", "it is larger than {limit} MB.").format(
            limit=MAX_BYTES >> 20))
    if not supported(path):
        raise _refused(name, translate("core.attachments", "Hearth does not read this kind of file."))
    try:
        sections, notes, scanned = parser.parse_document(path, (info.st_dev, info.st_ino))
        found = list(sections)
        for page in scanned[:OCR_PAGES]:
            text = ocr.recognise(path, page, (info.st_dev, info.st_ino))
            if text.strip():
                found.append(Section(text, page if path.suffix.lower() == ".pdf" else None))
    except ParseError as exc:
        raise _refused(name, str(exc)) from None
    notes = list(notes)
    if scanned:
        notes.append(translate("core.attachments", "{count} page(s) read by text recognition").format(
            count=min(len(scanned), OCR_PAGES)))
    if len(scanned) > OCR_PAGES:
        notes.append(translate("core.attachments", "{count} scanned page(s) left unread").format(
            count=len(scanned) - OCR_PAGES))
    if not any(s.text.strip() for s in found):
        raise _refused(name, translate("core.attachments", "no text was found in it."))
    found.sort(key=lambda s: s.page or 0)
    return Attachment(name, tuple(found), tuple(notes))


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
    vectors = (np.asarray(embed([shape.passage(c.text) for _i, c in chunks] + [shape.query(question)]),
                          dtype=np.float32) if embed is not None else None)
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


def read_all(paths: Sequence[Path]) -> list[Attachment]:
    """Each of ``paths`` read in one isolated parser child, in order; AttachmentRefused for
    the first that cannot be (nothing is attached then)."""
    if len(paths) > MAX_ATTACHMENTS:
        raise AttachmentRefused(translate("core.attachments", "At most {count} files can be attached to "
                                          "a message.").format(count=MAX_ATTACHMENTS))
    with IsolatedParser() as parser, IsolatedParser(memory_limit=OCR_MEMORY_LIMIT) as ocr:
        return [read(Path(path), parser, ocr) for path in paths]


def first_turn(question: str, given: Sequence[Passage]) -> ChatMessage:
    """The question as the model saw it, with the passages it was given: what the
    conversation keeps, so that a follow-up question still has them."""
    return user_turn(question, [p.as_dict() for p in given])
