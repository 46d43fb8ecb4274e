"""What the document service looks up for a reader: search hits, a passage's surroundings
and page pictures.

They are answered on the service's thread, which alone owns the indexes, between any two
steps of a job. A search or a surroundings asked before the index is loaded waits for it
(``loaded_now`` gives them back to be asked again). A page picture for the source viewer
is drawn in a parser child of its own (the import's may be busy), closed once it is drawn;
a file that cannot be drawn is said to the viewer alone (it shows the page's text
instead), never as a failed job.
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import Future
from pathlib import Path
from typing import Any

from core.document_protocol import PagePicture, Search, Surroundings
from storage.documents.condense import section_text
from storage.documents.isolation import IsolatedParser
from storage.documents.search import Indexes


class Lookups:
    """``answer`` runs a piece of work into a command's future (and says a failure)."""

    def __init__(self, indexes: Indexes, answer: Callable[[Future, Callable[[], Any]], bool]) -> None:
        self._indexes = indexes
        self._answer = answer
        # The source viewer's page pictures: a child of their own (the import's may be busy).
        self.pictures = IsolatedParser()
        self.loaded = False
        self.waiting: list[Search | Surroundings] = []  # asked before the index was loaded

    def take(self, command: Search | Surroundings | PagePicture) -> None:
        if isinstance(command, PagePicture):
            self._draw(command)
        elif not self.loaded:
            self.waiting.append(command)
        elif isinstance(command, Search):
            self._answer(command.future, lambda: self._indexes.search(
                command.question, command.vectors, list(command.collection_ids), command.k,
                command.mode))
        else:
            self._answer(command.future, lambda: section_text(
                self._indexes.section(command.path, command.page, command.heading)))

    def loaded_now(self) -> list[Search | Surroundings]:
        """The index is loaded: what waited for it, to be asked again."""
        self.loaded = True
        waiting, self.waiting = self.waiting, []
        return waiting

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
