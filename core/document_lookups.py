"""What the document service looks up for a reader: search hits, a passage's surroundings
(its page's text for the source viewer; the passages just before and after it for the
model's ``read_around`` tool) and page pictures.

They are answered on the service's thread, which alone owns the indexes, between any two
steps of a job. A search or a surroundings asked before the index is loaded waits for it
(``loaded_now`` gives them back to be asked again), or is refused at once if it will not
load at this unlock (``unavailable``). A page picture for the source viewer
is drawn in a parser child of its own (the import's may be busy), closed once it is drawn;
a file that cannot be drawn is said to the viewer alone (it shows the page's text
instead), never as a failed job.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from concurrent.futures import Future
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from core.document_progress import label
from core.document_protocol import DocumentsUnavailable, PagePicture, Search, Surroundings
from inference.rag import Passage
from storage.documents.chunking import Chunk
from storage.documents.condense import section_text
from storage.documents.indexes import Indexes
from storage.documents.isolation import IsolatedParser
from storage.documents.store import DocumentStore, StoredChunk

AROUND_SIDE = 3  # passages each side of one, at most


@dataclass(frozen=True, eq=False)
class ReadAround:
    """The passages just before and after one a search gave (``text``, of the file at
    ``path``), in that file's reading order; only a document of ``collection_ids`` (the
    chat's) answers, never one outside them."""

    path: str
    page: int | None
    heading: str | None
    text: str
    collection_ids: tuple[int, ...]
    before: int
    after: int
    future: Future  # an Around; None where no document of those collections holds the passage


@dataclass(frozen=True)
class Around:
    before: tuple[Passage, ...]  # in reading order, the nearest last
    after: tuple[Passage, ...]  # in reading order, the nearest first
    more_before: int  # passages of the file before those given
    more_after: int  # and after them


def _place(chunks: Sequence[Chunk], page: int | None, heading: str | None, text: str) -> tuple[int, int] | None:
    """Where a passage a search gave sits among its document's chunks: the run of them it
    was made of (a search joins overlapping neighbours into one passage), around the
    longest (a short chunk may happen to be inside another passage's text)."""
    inside = [i for i, c in enumerate(chunks)
              if c.page == page and c.heading == heading and c.text and c.text in text]
    if not inside:
        return None
    first = last = max(inside, key=lambda i: len(chunks[i].text))
    while first - 1 in inside:
        first -= 1
    while last + 1 in inside:
        last += 1
    return first, last


def _passage(chunk: Chunk, path: str, collection_id: int, document_id: int, model: str) -> Passage:
    """A chunk as a passage the model is given: labelled with its file and page for citing."""
    stored = StoredChunk(0, collection_id, document_id, chunk.text, path, chunk.page, chunk.heading,
                         chunk.start, chunk.end, model, chunk.role)
    return Passage(0, label(stored), chunk.text, path, chunk.page, chunk.heading)


def _refuse(future: Future, why: str) -> None:
    if future.set_running_or_notify_cancel():
        future.set_exception(DocumentsUnavailable(why))


class Lookups:
    """``answer`` runs a piece of work into a command's future (and says a failure)."""

    def __init__(self, indexes: Indexes, answer: Callable[[Future, Callable[[], Any]], bool],
                 store: DocumentStore | None = None) -> None:
        self._indexes = indexes
        self._answer = answer
        self._store = store  # the passages around one are read from it (those of its model)
        # The source viewer's page pictures: a child of their own (the import's may be busy).
        self.pictures = IsolatedParser(background=False)  # the user waits for it
        self.loaded = False
        self.waiting: list[Search | Surroundings | ReadAround] = []  # asked before the index was loaded
        self.refused = ""  # why the index will not load at this unlock (the user's words)

    def take(self, command: Search | Surroundings | ReadAround | PagePicture) -> None:
        if isinstance(command, PagePicture):
            self._draw(command)
        elif self.refused:
            _refuse(command.future, self.refused)
        elif not self.loaded:
            self.waiting.append(command)
        elif isinstance(command, Search):
            self._answer(command.future, lambda: self._indexes.search(
                command.question, command.vectors, list(command.collection_ids), command.k,
                command.mode))
        elif isinstance(command, ReadAround):
            self._answer(command.future, lambda: self._around(command))
        else:
            self._answer(command.future, lambda: section_text(
                self._indexes.section(command.path, command.page, command.heading)))

    def loaded_now(self) -> list[Search | Surroundings | ReadAround]:
        """The index is loaded: what waited for it, to be asked again."""
        self.loaded = True
        waiting, self.waiting = self.waiting, []
        return waiting

    def unavailable(self, why: str) -> None:
        """The index will not load at this unlock: what waited for it, and whatever is
        asked from now on, is refused at once with ``why``."""
        self.refused = why
        waiting, self.waiting = self.waiting, []
        for command in waiting:
            _refuse(command.future, why)

    def _around(self, command: ReadAround) -> Around | None:
        """The passages around one, from the first document of the chat's collections that
        holds it: the vault's chunks of that document, in their order, as the model that
        answers for its collection made them (those the search gave)."""
        if self._store is None:
            return None
        before, after = (max(0, min(AROUND_SIDE, n)) for n in (command.before, command.after))
        for collection_id in dict.fromkeys(command.collection_ids):
            model = self._indexes.models.get(collection_id)
            if model is None:
                continue
            for document in self._store.documents(collection_id):
                if document.path != command.path:
                    continue
                chunks = self._store.document_chunks(document.id, model)
                found = _place(chunks, command.page, command.heading, command.text)
                if found is None:
                    continue
                first, last = found
                low, high = max(0, first - before), min(len(chunks), last + 1 + after)
                given = [_passage(c, command.path, collection_id, document.id, model) for c in chunks[low:high]]
                return Around(tuple(given[:first - low]), tuple(given[last + 1 - low:]), low, len(chunks) - high)
        return None

    def _draw(self, command: PagePicture) -> None:
        """A page picture for the viewer; a file that cannot be drawn is said to the viewer
        alone (it shows the page's text instead), never as a failed job."""
        if not command.future.set_running_or_notify_cancel():
            return
        try:
            command.future.set_result(self.pictures.page_picture(Path(command.path), command.page,
                                                                 command.passage))
        except Exception as exc:
            command.future.set_exception(exc)
        finally:
            self.pictures.close()  # no idle child kept for it
