"""Collections, documents and chunks in the vault, every payload and vector encrypted.

Each chunk records the embedding model (its sha256) that made its vector, inside the
encrypted payload (no schema change: rows written before this count as made by their
collection's recorded ``embedding_model``), and its PDF page's role ("nav", "front" or "":
rows written before roles have none). A collection's recorded model is the one whose
vectors answer; a re-embedding writes the new model's rows beside the old ones and
``switch_model`` makes them the answer, dropping the others, in one transaction.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np
from sqlalchemy import delete, func, insert, select, update

from i18n import translate
from storage import schema
from storage.crypto import NONCE_BYTES, Binding, DamagedVault
from storage.db import VaultClosed, inserted_id, snapshot
from storage.documents import index_file
from storage.documents.chunking import Chunk
from storage.documents.pages import ROLES
from storage.documents.reading import say_again
from storage.vault import Vault
from storage.versions import Root, RowVersions

INDEXED, PENDING, SKIPPED, FAILED = "indexed", "pending", "skipped", "failed"
READ_BATCH = 2000  # chunk rows read at a time by ``iter_chunks``
ID_BATCH = 500  # rows named at a time when ``iter_chunks`` reads some by id


@dataclass(frozen=True)
class Collection:
    id: int
    name: str
    sources: list[str] = field(default_factory=list)
    embedding_model: str = ""  # sha256 of the model that built the vectors
    created_at: float = 0.0
    # Files the user removed that a folder among the sources still holds: not added again.
    excluded: list[str] = field(default_factory=list)
    caught_up: float = 0.0  # when its sources were last checked for changes, all the way
    # The model the user chose for this collection alone (an intranet engine's, named as
    # ``inference.remote_embed.identity`` names it); "": the app's embedding model.
    embedder: str = ""

    def model_for(self, app_model: str) -> str:
        """The model its vectors are to be made with, the app's being ``app_model``."""
        return self.embedder or app_model

    def behind(self, app_model: str) -> bool:
        """Whether the app's re-embedding is due for it: it follows the app's model
        (``app_model``) and its vectors are another's. One with a model of its own is moved
        only by its own choice (``EmbedWith``)."""
        return not self.embedder and self.embedding_model != app_model


@dataclass(frozen=True)
class Document:
    id: int
    collection_id: int
    path: str
    status: str
    reason: str = ""
    size: int = 0
    mtime: float = 0.0
    sha256: str = ""
    chunks: int = 0
    notes: list[str] = field(default_factory=list)
    reader: int = 0  # the READER_VERSION (storage.documents.parsers) that read it; 0: before
    # The reason and notes as data ({"reason": [kind, values], "notes": [...]}, reading.said_of):
    # said again in the interface's language when read (``documents``).
    said: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)  # slots: 48 bytes less each (48 MB a million passages)
class StoredChunk:
    id: int
    collection_id: int
    document_id: int
    text: str
    path: str
    page: int | None
    heading: str | None
    start: int
    end: int
    model: str = ""  # sha256 of the embedding model that made this chunk's vector
    role: str = ""  # its PDF page's role ("nav", "front": ``pages``); "" in rows from before


@dataclass(frozen=True)
class Hit:
    """A passage a search found: its fused score, and the cosine and BM25 it had."""
    chunk: StoredChunk
    score: float
    cosine: float
    bm25: float


def _role(value: object) -> str:
    """A stored chunk's role: "" for a row written before roles were, or one not known."""
    return value if isinstance(value, str) and value in ROLES else ""


def _said_now(document: Document) -> Document:
    """A record's reason and notes in the interface's language now (from their kinds)."""
    said = document.said
    if not said:
        return document
    found = said.get("notes")
    notes: list[Any] = found if isinstance(found, list) else []
    return replace(document, reason=say_again(said.get("reason"), document.reason),
                   notes=[say_again(notes[i] if i < len(notes) else None, text)
                          for i, text in enumerate(document.notes)])


class DocumentStore:
    """Each call is its own transaction. The document service's thread alone uses it."""

    def __init__(self, vault: Vault) -> None:
        self.vault = vault
        self._engine = vault.engine
        self._cipher = vault.cipher
        # Collections and documents carry versions listed in the vault's root record: one
        # put back from a backup reads as damaged (storage.versions).
        self._versions = RowVersions(vault.cipher)

    def _seal(self, table: str, column: str, row_id: int, data: Any, bind: Binding = ()) -> bytes:
        """``bind``: a document's collection; a chunk's collection and document."""
        raw = data if isinstance(data, bytes) else json.dumps(data, ensure_ascii=False).encode()
        return self._cipher.encrypt(raw, table, column, row_id, bind)

    def _open(self, table: str, column: str, row_id: int, blob: bytes, bind: Binding = ()) -> Any:
        return json.loads(self._cipher.decrypt(blob, table, column, row_id, bind))

    def _record(self, root: Root, table: str, row_id: int, blob: bytes, bind: Binding = ()) -> dict[str, Any]:
        """A collection's or document's payload; DamagedVault when it does not decrypt or is
        not the version the root record lists."""
        return self._versions.checked(root, table, row_id, self._open(table, "payload", row_id, blob, bind))

    # Collections ------------------------------------------------------------------
    def create_collection(self, name: str) -> Collection:
        created = time.time()
        data = {"name": name, "sources": [], "embedding_model": "", "created_at": created}
        with self.vault.transaction() as conn:
            row_id = inserted_id(conn.execute(insert(schema.collections).values(payload=b"")))
            conn.execute(update(schema.collections).where(schema.collections.c.id == row_id)
                         .values(payload=self._versions.seal(conn, "collections", row_id, data)))
        return Collection(row_id, name, [], "", created)

    def collections(self) -> list[Collection]:
        with snapshot(self._engine) as conn:
            rows = conn.execute(select(schema.collections.c.id, schema.collections.c.payload)).all()
            root = self._versions.load(conn, ("collections",))
        found = []
        for row_id, blob in rows:
            try:
                data = self._record(root, "collections", row_id, blob)
                found.append(Collection(row_id, data["name"], data["sources"], data["embedding_model"],
                                        data["created_at"], list(data.get("excluded") or []),
                                        float(data.get("caught_up") or 0.0), str(data.get("embedder") or "")))
            except DamagedVault:
                found.append(Collection(row_id, translate("storage.documents.store", "⚠ Damaged collection")))
        return sorted(found, key=lambda c: c.name.casefold())

    def get_collection(self, collection_id: int) -> Collection | None:
        return next((c for c in self.collections() if c.id == collection_id), None)

    def find_collection(self, name: str) -> Collection | None:
        """The collection of that name, matched as a user would (case and spaces aside)."""
        wanted = " ".join(name.split()).casefold()
        return next((c for c in self.collections() if " ".join(c.name.split()).casefold() == wanted), None)

    def update_collection(self, collection: Collection) -> None:
        with self.vault.transaction() as conn:
            self._write_collection(conn, collection)

    def _write_collection(self, conn: Any, collection: Collection) -> None:
        data = {"name": collection.name, "sources": collection.sources,
                "embedding_model": collection.embedding_model, "created_at": collection.created_at,
                "excluded": collection.excluded, "caught_up": collection.caught_up,
                **({"embedder": collection.embedder} if collection.embedder else {})}
        conn.execute(update(schema.collections).where(schema.collections.c.id == collection.id)
                     .values(payload=self._versions.seal(conn, "collections", collection.id, data)))

    def delete_collection(self, collection_id: int) -> None:
        with self.vault.transaction() as conn:
            conn.execute(delete(schema.chunks).where(schema.chunks.c.collection_id == collection_id))
            self._versions.delete(conn, "documents", schema.documents.c.collection_id == collection_id)
            self._versions.delete(conn, "collections", schema.collections.c.id == collection_id)

    # Documents --------------------------------------------------------------------
    def documents(self, collection_id: int) -> list[Document]:
        d = schema.documents.c
        with snapshot(self._engine) as conn:
            rows = conn.execute(select(d.id, d.payload).where(d.collection_id == collection_id)).all()
            root = self._versions.load(conn, ("documents",), [row[0] for row in rows])
        found = []
        for row_id, blob in rows:
            try:
                found.append(_said_now(Document(row_id, collection_id,
                                                **self._record(root, "documents", row_id, blob, (collection_id,)))))
            except DamagedVault:
                found.append(Document(row_id, collection_id, "", FAILED,
                                      translate("storage.documents.store", "damaged in the vault")))
        return sorted(found, key=lambda doc: doc.path)

    def save_document(self, document: Document) -> Document:
        """Insert (id 0) or update a document's record."""
        data = {k: v for k, v in document.__dict__.items() if k not in ("id", "collection_id")}
        with self.vault.transaction() as conn:
            row_id = document.id
            if not row_id:
                row_id = inserted_id(conn.execute(insert(schema.documents).values(
                    collection_id=document.collection_id, payload=b"")))
            conn.execute(update(schema.documents).where(schema.documents.c.id == row_id)
                         .values(payload=self._versions.seal(conn, "documents", row_id, data,
                                                             (document.collection_id,))))
        return Document(row_id, document.collection_id, **data)

    def delete_document(self, document_id: int) -> None:
        with self.vault.transaction() as conn:
            conn.execute(delete(schema.chunks).where(schema.chunks.c.document_id == document_id))
            self._versions.delete(conn, "documents", schema.documents.c.id == document_id)

    # Chunks -----------------------------------------------------------------------
    def replace_chunks(self, document: Document, chunks: list[Chunk], vectors: np.ndarray,
                       model: str, only_model: bool = False) -> list[int]:
        """Store a document's chunks with their vectors (made by ``model``) in one transaction.

        The document's old chunks go: all of them, or with ``only_model`` those of
        ``model`` alone (a re-embedding keeps the answering model's rows until the switch).
        """
        if len(chunks) != len(vectors):
            raise ValueError(f"{len(chunks)} passages and {len(vectors)} vectors")
        c = schema.chunks.c
        with self.vault.transaction() as conn:
            if only_model:
                recorded = self._recorded_models(conn).get(document.collection_id, "")
                rows = conn.execute(select(c.id, c.collection_id, c.document_id, c.payload)
                                    .where(c.document_id == document.id)).all()
                stale = [row_id for row_id, *bind, blob in rows
                         if self._chunk_model(row_id, blob, recorded, tuple(bind)) == model]
                for start in range(0, max(1, len(stale)), ID_BATCH):  # (none: still a write)
                    conn.execute(delete(schema.chunks).where(c.id.in_(stale[start:start + ID_BATCH])))
            else:
                conn.execute(delete(schema.chunks).where(c.document_id == document.id))
            # The rows' ids, chosen as AUTOINCREMENT would (past every id ever given), in this
            # write transaction (the delete began it): each row sealed to its id and
            # inserted whole, one statement a batch, not an insert and an update each.
            first = 1 + max(conn.exec_driver_sql("SELECT seq FROM sqlite_sequence WHERE name = 'chunks'").scalar() or 0,
                            conn.scalar(select(func.max(c.id))) or 0)
            ids = list(range(first, first + len(chunks)))
            bind = (document.collection_id, document.id)
            for start in range(0, len(chunks), ID_BATCH):  # a batch sealed at a time, not the whole file
                conn.execute(insert(schema.chunks), [
                    {"id": row_id, "collection_id": document.collection_id, "document_id": document.id,
                     "payload": self._seal("chunks", "payload", row_id, {
                         "text": chunk.text, "page": chunk.page, "heading": chunk.heading,
                         "start": chunk.start, "end": chunk.end, "section": chunk.section, "model": model,
                         "role": chunk.role}, bind),
                     "vector": self._seal("chunks", "vector", row_id,
                                          np.asarray(vector, dtype=np.float32).tobytes(), bind)}
                    for row_id, chunk, vector in zip(ids[start:start + ID_BATCH], chunks[start:start + ID_BATCH],
                                                     vectors[start:start + ID_BATCH], strict=True)])
        return ids

    def _recorded_models(self, conn: Any, root: Root | None = None) -> dict[int, str]:
        """Each collection's recorded embedding model: the one that untagged rows came from."""
        found = {}
        root = root if root is not None else self._versions.load(conn, ("collections",))
        for row_id, blob in conn.execute(select(schema.collections.c.id,
                                                schema.collections.c.payload)).all():
            try:
                found[row_id] = self._record(root, "collections", row_id, blob)["embedding_model"]
            except DamagedVault:
                found[row_id] = ""
        return found

    def _chunk_model(self, row_id: int, blob: bytes, recorded: str, bind: Binding) -> str | None:
        """The model of a chunk row (None when its payload is damaged)."""
        try:
            return self._open("chunks", "payload", row_id, blob, bind).get("model") or recorded
        except DamagedVault:
            return None

    def chunk_models(self, collection_id: int) -> dict[int, set[str]]:
        """For each document of the collection, the models its stored chunks were made by."""
        c = schema.chunks.c
        found: dict[int, set[str]] = {}
        with self._engine.connect() as conn:
            recorded = self._recorded_models(conn).get(collection_id, "")
            rows = conn.execute(select(c.id, c.document_id, c.payload)
                                .where(c.collection_id == collection_id)).all()
        for row_id, document_id, blob in rows:
            model = self._chunk_model(row_id, blob, recorded, (collection_id, document_id))
            if model is not None:
                found.setdefault(document_id, set()).add(model)
        return found

    def document_chunks(self, document_id: int, model: str) -> list[Chunk]:
        """The chunks ``model`` made for a document, in their order, without vectors."""
        c = schema.chunks.c
        with self._engine.connect() as conn:
            collection_id = conn.scalar(select(schema.documents.c.collection_id)
                                        .where(schema.documents.c.id == document_id))
            recorded = self._recorded_models(conn).get(collection_id or 0, "")
            rows = conn.execute(select(c.id, c.collection_id, c.payload).where(c.document_id == document_id)
                                .order_by(c.id)).all()
        found = []
        for row_id, chunk_collection, blob in rows:
            try:
                data = self._open("chunks", "payload", row_id, blob, (chunk_collection, document_id))
            except DamagedVault:
                continue
            if (data.get("model") or recorded) == model:
                found.append(Chunk(data["text"], data.get("section", 0), data["page"],
                                   data["heading"], data["start"], data["end"],
                                   _role(data.get("role"))))
        return found

    def switch_model(self, collection: Collection, model: str) -> Collection:
        """Make ``model``'s vectors the collection's answer: in one transaction, record the
        model and delete every chunk another model made. A crash before the commit leaves
        the old model in charge, with all its rows.

        A row that does not decrypt (damaged on disk, or moved to another document) is not
        another model's: it stays, for the vault check to report and the user to decide
        on. A background job never deletes the evidence."""
        c = schema.chunks.c
        switched = replace(collection, embedding_model=model)
        with self.vault.transaction() as conn:
            recorded = self._recorded_models(conn).get(collection.id, "")
            rows = conn.execute(select(c.id, c.document_id, c.payload)
                                .where(c.collection_id == collection.id)).all()
            models = {row_id: self._chunk_model(row_id, blob, recorded, (collection.id, document_id))
                      for row_id, document_id, blob in rows}
            other = [row_id for row_id, made_by in models.items() if made_by not in (None, model)]
            for start in range(0, len(other), 500):
                conn.execute(delete(schema.chunks).where(c.id.in_(other[start:start + 500])))
            self._write_collection(conn, switched)
        return switched

    def _paths(self, conn: Any, root: Root) -> dict[int, str]:
        paths: dict[int, str] = {}
        d = schema.documents.c
        for row_id, document_collection, blob in conn.execute(select(d.id, d.collection_id, d.payload)).all():
            try:
                paths[row_id] = self._record(root, "documents", row_id, blob, (document_collection,))["path"]
            except DamagedVault:
                paths[row_id] = ""
        return paths

    def document_paths(self) -> dict[int, str]:
        """Each document's path ("" where its record does not decrypt)."""
        with snapshot(self._engine) as conn:
            return self._paths(conn, self._versions.load(conn))

    def chunk_count(self) -> int:
        """How many chunk rows there are (of every model): what an unlock reads at most."""
        with self._engine.connect() as conn:
            return int(conn.exec_driver_sql("SELECT count(*) FROM chunks").scalar_one())

    def chunk_nonces(self, check: Callable[[], None] = lambda: None) -> tuple[np.ndarray, np.ndarray]:
        """Every chunk row's id (ascending) and the nonces of its payload and vector (24
        bytes): a row written again has other nonces (``index_file``). ``check`` is called
        between batches (searches are answered meanwhile; it may raise to stop)."""
        ids: list[int] = []
        nonces = bytearray()
        with snapshot(self._engine) as conn:
            cursor = conn.exec_driver_sql(
                f"SELECT id, substr(payload, 2, {NONCE_BYTES}), substr(vector, 2, {NONCE_BYTES}) "
                "FROM chunks ORDER BY id")
            while rows := cursor.fetchmany(20_000):
                check()
                for row_id, payload, vector in rows:
                    if len(payload) == len(vector) == NONCE_BYTES:  # else not a ciphertext: never kept
                        ids.append(row_id)
                        nonces += payload
                        nonces += vector
        return (np.asarray(ids, dtype=np.int64),
                np.frombuffer(bytes(nonces), dtype=np.uint8).reshape(len(ids), 2 * NONCE_BYTES))

    def saved_index(self) -> tuple[dict[str, Any], dict[str, np.ndarray]]:
        """What the sealed index file holds (``index_file.UnusableIndexFile`` if nothing usable)."""
        return index_file.read(self.vault.path, self._cipher)

    def drop_saved_index(self) -> None:
        """Delete an index file that does not open here (another key, damage): nothing can
        use it, and one sealed with a retired key must not stay until the next save."""
        index_file.remove(self.vault.path)

    def sealing_key(self) -> int:
        """The vault's key now, as a token (a passphrase change makes a new one)."""
        try:
            return self._cipher.sealing_key()
        except RuntimeError as exc:  # the key is gone: the vault was closed
            raise VaultClosed() from exc

    def save_index(self, header: dict[str, Any], items: list[index_file.Item],
                   check: Callable[[], None] = lambda: None, key: int | None = None) -> int:
        """Seal the index into its file beside the vault; its size. ``key``: the
        ``sealing_key`` when the rows' nonces were read (``index_file.write``)."""
        return index_file.write(self.vault.path, self._cipher, header, items, check, key)

    def _sealed(self, ids: Sequence[int], column: str) -> Iterator[tuple[int, Any]]:
        """Each of ``ids``'s rows' ``column`` decrypted ("payload": its data, "vector": its
        bytes), a batch of rows at a time; a row gone or that does not decrypt is skipped."""
        c = schema.chunks.c
        wanted = sorted(set(ids))
        with self._engine.connect() as conn:
            for start in range(0, len(wanted), ID_BATCH):
                rows = conn.execute(select(c.id, c.collection_id, c.document_id, c[column])
                                    .where(c.id.in_(wanted[start:start + ID_BATCH]))).all()
                for row_id, collection_id, document_id, sealed in rows:
                    bind = (collection_id, document_id)
                    try:
                        opened = (self._open("chunks", column, row_id, sealed, bind) if column == "payload"
                                  else self._cipher.decrypt(sealed, "chunks", column, row_id, bind))
                    except DamagedVault:
                        continue
                    yield row_id, opened

    def chunk_texts(self, ids: Sequence[int]) -> dict[int, str]:
        """The text of each of ``ids`` (the hits of a search), decrypted from its row: the
        index holds no passage's text (a million passages' are over a gigabyte). A row gone
        or that does not decrypt is not in the answer."""
        return {row_id: data["text"] for row_id, data in self._sealed(ids, "payload")
                if isinstance(data.get("text"), str)}

    def chunk_vectors(self, ids: Sequence[int]) -> dict[int, np.ndarray]:
        """The exact vector of each of ``ids`` (a search's nearest candidates), decrypted
        from its row: the index holds only their int8 codes (``cosine``), and orders its
        nearest by these. A row gone or that does not decrypt is not in the answer."""
        return {row_id: np.frombuffer(raw, dtype=np.float32) for row_id, raw in self._sealed(ids, "vector")
                if len(raw) and len(raw) % 4 == 0}

    def iter_chunks(self, collection_ids: list[int] | None = None, ids: list[int] | None = None,
                    paths: Mapping[int, str] | None = None) -> Iterator[tuple[StoredChunk, np.ndarray]]:
        """Every chunk with its vector (or those of ``ids``), decrypted, for building the
        in-memory index.

        Each carries its model; a row without one counts as its collection's recorded
        model. Rows of every model come out: the caller keeps those it wants. ``paths``:
        each document's path, where the caller has read the documents already (an unlock:
        each record is decrypted once).
        """
        if ids is not None and not ids:
            return  # none wanted (a saved index held them all): nothing to read
        c = schema.chunks.c
        query = select(c.id, c.collection_id, c.document_id, c.payload, c.vector)
        if collection_ids is not None:
            query = query.where(c.collection_id.in_(collection_ids))
        with snapshot(self._engine) as conn:
            root = self._versions.load(conn)
            recorded = self._recorded_models(conn, root)
            if paths is None:
                paths = self._paths(conn, root)
        # The rows a batch at a time, by id: a million passages' ciphertexts are never all
        # in memory at once (2.5 GB), and no read transaction stays open while the caller
        # indexes them.
        # One copy of each model's name and each heading, not one per passage (a million
        # copies of a 64-character digest are 110 MB).
        same: dict[str, str] = {}
        last = 0
        wanted = sorted(ids) if ids is not None else None
        while True:
            with self._engine.connect() as conn:
                if wanted is None:
                    rows = conn.execute(query.where(c.id > last).order_by(c.id).limit(READ_BATCH)).all()
                else:
                    batch, wanted = wanted[:ID_BATCH], wanted[ID_BATCH:]
                    rows = conn.execute(query.where(c.id.in_(batch)).order_by(c.id)).all() if batch else []
            if not rows:
                if wanted:
                    continue  # a batch of rows deleted meanwhile
                return
            last = rows[-1][0]
            for row_id, collection_id, document_id, payload, vector in rows:
                bind = (collection_id, document_id)
                try:
                    data = self._open("chunks", "payload", row_id, payload, bind)
                    raw = self._cipher.decrypt(vector, "chunks", "vector", row_id, bind)
                except DamagedVault:
                    continue
                heading, model = data["heading"], data.get("model") or recorded.get(collection_id, "")
                yield (StoredChunk(row_id, collection_id, document_id, data["text"],
                                   paths.get(document_id, ""), data["page"],
                                   same.setdefault(heading, heading) if isinstance(heading, str) else heading,
                                   data["start"], data["end"], same.setdefault(model, model),
                                   _role(data.get("role"))),
                       np.frombuffer(raw, dtype=np.float32))
