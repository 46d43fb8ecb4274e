"""The document service's jobs: what one import, check for changes or re-embedding does
with the collections, and the snapshot of them the window is sent after each.

Each runs on the service's thread (``core.document_service``), which picks them off its
queue one after another; the ``Job`` it keeps for the one under way says which collection
it is busy with, so that a delete of that collection cancels it (and a check for changes
or a re-embedding is queued again after the delete). The steps themselves are
``core.documents``'s; here they are run over the collections and their outcome is sent
as events.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from typing import Any

from core.document_progress import Report
from core.document_protocol import AddPaths, CollectionsChanged, EmbedWith, Finished, Reembed
from core.documents import Ingestion
from i18n import translate
from storage.documents.store import Collection, Document, DocumentStore


@dataclass
class Job:
    """A job under way: its command, the model it works for, and how it stands."""

    command: Any
    model: str
    collection_id: int | None = None  # the collection it is busy with now
    cancelled: bool = False
    again: bool = False  # interrupted by a delete: queued again after it

    @property
    def reembedding(self) -> bool:
        return isinstance(self.command, Reembed)


class Jobs:
    """The job bodies over the owner's store and ingestion; ``emit`` sends an event."""

    def __init__(self, store: DocumentStore, ingestion: Ingestion,
                 emit: Callable[[object], None]) -> None:
        self._store = store
        self._ingestion = ingestion
        self._emit = emit

    def snapshot(self, documents: Mapping[int, tuple[Document, ...]] | None = None) -> CollectionsChanged:
        """The collections as they are now, with their documents; ``documents``: those of
        each collection read already (read here for a collection they lack)."""
        known = documents or {}
        collections = tuple(self._store.collections())
        return CollectionsChanged(collections, {
            c.id: known[c.id] if c.id in known else tuple(self._store.documents(c.id)) for c in collections})

    def add(self, job: Job, command: AddPaths) -> Report:
        job.collection_id = command.collection_id
        collection = self._store.get_collection(command.collection_id)
        if collection is None:
            report = Report(collection_id=command.collection_id,
                            failed=[(str(p), translate("core.document_service",
                                                       "its collection was deleted"))
                                    for p in command.paths])
        else:
            report = self._ingestion.add(collection, list(command.paths), collection.model_for(job.model))
        self._emit(Finished(report))
        self._emit(self.snapshot())
        return report

    def refresh(self, job: Job, only: int = 0) -> list[Report]:
        """Every collection caught up with its sources, or the one ``only`` names."""
        reports = []
        for collection in self._store.collections():
            if not collection.sources or (only and collection.id != only):
                continue
            job.collection_id = collection.id
            report = self._ingestion.refresh(collection, collection.model_for(job.model))
            reports.append(report)
            self._emit(Finished(report))
            if report.cancelled:
                break
        self._emit(self.snapshot())
        return reports

    def reembed(self, job: Job) -> int:
        """Every collection to the current model, one at a time; the count switched. A
        collection embedded by a model of its own (an engine's) is left to ``embed_with``:
        an engine that is away must not hold up the rest, nor be asked at every start."""
        switched = 0
        for collection in self._store.collections():
            if not collection.behind(job.model):
                continue
            job.collection_id = collection.id
            self._ingestion.reembed(collection, job.model)
            switched += 1
            self._emit(self.snapshot())
        return switched

    def embed_with(self, job: Job, command: EmbedWith) -> Collection:
        """One collection's own embedding model chosen (an engine's, or "" for the app's),
        and the collection re-embedded with it. The choice is kept first: a stop midway
        resumes with it, while the old vectors answer until the switch."""
        job.collection_id = command.collection_id
        collection = self._store.get_collection(command.collection_id)
        if collection is None:
            raise LookupError(translate("core.document_service", "its collection was deleted"))
        if collection.embedder != command.embedder:
            collection = replace(collection, embedder=command.embedder)
            self._store.update_collection(collection)
            self._emit(self.snapshot())
        model = collection.model_for(job.model)
        if collection.embedding_model != model:
            collection = self._ingestion.reembed(collection, model)
            self._emit(self.snapshot())
        return collection
