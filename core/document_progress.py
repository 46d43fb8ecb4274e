"""What a document job says and what it asks for: its progress, its report, its stop, and
the steps it needs from the thread that owns it (no Qt, no thread).

``Progress`` goes out while an import or a re-embedding runs (files, passages, and the
scanned pages of a file read by text recognition), ``TimeLeft`` turns its raw estimate into
the time shown, and ``Report`` says what one import did, file by file. ``Stopped`` ends a
job: a user's cancel, or the service closing. ``Steps`` is what the ingestion
(``core.documents``) and the re-embedding (``core.reembedding``) need from outside: the
worker's embeddings, the parser process, and ``check``, which answers searches meanwhile;
the document service gives them over its thread (``core.document_steps``). ``label`` names
a passage's place for the reader.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

import numpy as np

from i18n import translate
from storage.documents.parsers import Identity, Section
from storage.documents.store import StoredChunk


@dataclass(frozen=True)
class Progress:
    files_total: int = 0
    files_done: int = 0
    chunks_done: int = 0
    current: str = ""
    started: float = field(default_factory=time.monotonic)
    collection_id: int = 0
    reembedding: bool = False  # passages embedded again for a new embedding model
    # The scanned pages of the current file being read by text recognition (OCR).
    pages_done: int = 0
    pages_total: int = 0
    pages_started: float = 0.0

    @property
    def eta_seconds(self) -> float | None:
        if self.pages_total:  # a scan: seconds a page, which is what takes the time now
            if not self.pages_done:
                return None
            rate = (time.monotonic() - self.pages_started) / self.pages_done
            return rate * (self.pages_total - self.pages_done)
        if not self.files_done or self.files_done >= self.files_total:
            return None
        rate = (time.monotonic() - self.started) / self.files_done
        return rate * (self.files_total - self.files_done)


class TimeLeft:
    """An import's time left as shown: the raw estimate (``Progress.eta_seconds``) swings
    with each file's size ("about 5 s" for 15 s, then "about 35 s"). The shown value counts
    down with the clock and moves a share of the way to each new estimate, so it changes
    smoothly; a rise (a large file came) shows only once the estimates agree on it."""

    SHARE = 0.25  # of the gap between the countdown and a new estimate, taken per update

    def __init__(self) -> None:
        self._shown: float | None = None
        self._at = 0.0

    def update(self, estimate: float | None, now: float) -> float | None:
        if estimate is None:
            return None if self._shown is None else max(0.0, self._shown - (now - self._at))
        if self._shown is None:
            self._shown, self._at = estimate, now
            return estimate
        counted = max(0.0, self._shown - (now - self._at))
        self._shown = counted + self.SHARE * (estimate - counted)
        self._at = now
        return self._shown


@dataclass
class Report:
    """What one import did. Filled on the service thread, handed over when it is done."""

    indexed: list[str] = field(default_factory=list)
    skipped: list[tuple[str, str]] = field(default_factory=list)
    failed: list[tuple[str, str]] = field(default_factory=list)
    chunks: int = 0
    cancelled: bool = False
    collection_id: int = 0


class Stopped(Exception):
    """The job ends here: cancelled by the user (``closing`` False) or the service is
    closing (True: nothing more may be written, not even a note that it stopped)."""

    def __init__(self, closing: bool = False) -> None:
        super().__init__("closing" if closing else "cancelled")
        self.closing = closing


class Steps(Protocol):
    """What the ingestion needs from the thread that owns it."""

    def embed(self, texts: list[str], model: str) -> np.ndarray: ...

    def count_tokens(self, texts: list[str], model: str) -> list[int]: ...

    def digest(self, path: Path, identity: Identity) -> str:
        """The sha256 of the file with ``identity`` at ``path``; ParseError if it cannot be read."""

    def parse(self, path: Path, identity: Identity) -> tuple[list[Section], list[str], list[int]]:
        """Sections, notes, and the pages to read by text recognition (``recognise``)."""

    def recognise(self, path: Path, identity: Identity, page: int) -> str:
        """The text of a scanned page, by OCR; ParseError if it cannot be read."""

    def read_ahead(self, path: Path, identity: Identity) -> None:
        """Start hashing and parsing ``path`` beside what follows; the next ``digest`` and
        ``parse`` of it take the results. Only a hint: it may do nothing."""

    def check(self) -> None:
        """Raise Stopped if the job must end; answer waiting searches meanwhile."""

    def progress(self, state: Progress) -> None: ...


def label(chunk: StoredChunk) -> str:
    name = Path(chunk.path).name
    if chunk.page:
        return translate("core.documents", "{name}, page {page}").format(name=name, page=chunk.page)
    if chunk.heading:
        return translate("core.documents", "{name}, {section}").format(name=name, section=chunk.heading)
    return name
