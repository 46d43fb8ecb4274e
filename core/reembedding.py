"""Re-embedding: a collection's stored passages made into vectors by another embedding
model, and the switch to them (no Qt, no thread).

Every vector is made by a named embedding model, and a collection answers from its
recorded model's vectors only. When the model changes, the passages already in the vault
are embedded again beside the old vectors (the files need not be there any more), and the
collection switches to the new ones in one step, in the vault and in the in-memory index
alike; until then, and after a stop midway, the old model answers. The embedding of
passages in batches on the worker (``embed_chunks``) serves the import too
(``core.documents``).
"""

from __future__ import annotations

import logging
from dataclasses import replace
from pathlib import Path

import numpy as np

from core.document_progress import Progress, Steps
from i18n import translate
from inference.embedder import profile
from inference.embedding_ids import is_remote, shown
from inference.remote_embed import EngineEmbedderUnavailable
from storage.documents.chunking import Chunk
from storage.documents.indexes import Indexes
from storage.documents.store import Collection, DocumentStore

log = logging.getLogger(__name__)
EMBED_BATCH = 32
CHECK_EVERY = 500  # rows decrypted between two checks while an index is loaded


def embed_text(chunk: Chunk) -> str:
    """What is embedded for a chunk, before the model's passage prefix: its heading and text."""
    return (chunk.heading + "\n" if chunk.heading else "") + chunk.text


def embed_chunks(steps: Steps, chunks: list[Chunk], model: str) -> np.ndarray:
    """The vectors of ``chunks`` by ``model``, in batches on the worker, checking between them."""
    shape = profile(model)
    vectors = []
    for start in range(0, len(chunks), EMBED_BATCH):
        steps.check()
        batch = chunks[start:start + EMBED_BATCH]
        vectors.append(steps.embed([shape.passage(embed_text(c)) for c in batch], model))
    return np.vstack(vectors) if vectors else np.zeros((0, 1), dtype=np.float32)


def other_size(model: str, size: int, expected: int) -> Exception:
    """Vectors of another size than the model's others here: never put beside them. From an
    engine, a different model behind the same name, said as the engine's fault."""
    if is_remote(model):
        return EngineEmbedderUnavailable(model, translate(
            "core.reembedding", "{model} now gives vectors of {size} numbers where this collection's "
            "have {expected}: it is not the model the collection was embedded with. Embed the "
            "collection again.").format(model=shown(model), size=size, expected=expected))
    return ValueError(f"vectors of {size} numbers for model {model[:12]}…, which has {expected}")


def reembed(store: DocumentStore, indexes: Indexes, steps: Steps, collection: Collection,
            model: str) -> Collection:
    """Embed the collection's stored passages with ``model`` beside the old vectors,
    then switch to them in one step. Searches answer from the old vectors until then;
    a stop midway leaves the old model in charge, and the next run skips the documents
    that are done. (The passages are not cut again: the files need not be there.)"""
    old = collection.embedding_model
    done = store.chunk_models(collection.id)
    todo = [d for d in store.documents(collection.id) if old in done.get(d.id, set())]
    state = Progress(files_total=len(todo), collection_id=collection.id, reembedding=True)
    for document in todo:
        steps.progress(replace(state, current=Path(document.path).name))
        if model not in done.get(document.id, set()):
            chunks = store.document_chunks(document.id, old)
            vectors = embed_chunks(steps, chunks, model)
            steps.check()
            store.replace_chunks(document, chunks, vectors, model, only_model=True)
            state = replace(state, chunks_done=state.chunks_done + len(chunks))
        state = replace(state, files_done=state.files_done + 1)
        steps.progress(state)
    fresh = []
    for n, (chunk, vector) in enumerate(store.iter_chunks([collection.id]), start=1):
        if n % CHECK_EVERY == 0:
            steps.check()
        if chunk.model == model:
            fresh.append((chunk, vector))
    sizes = {len(v) for _, v in fresh} | ({indexes.index(model).dimensions} - {0})
    if len(sizes) > 1:  # refused here, before the switch, rather than halfway through it
        raise ValueError(f"vectors of several sizes {sorted(sizes)} for model {model[:12]}…")
    steps.check()
    switched = store.switch_model(collection, model)
    # The in-memory switch, with no check (and so no search) in between.
    indexes.remove_collection(collection.id)
    for chunk, vector in fresh:
        indexes.add(chunk, vector)
    indexes.models[collection.id] = model
    log.info("collection %d now answers with embedding model %s…", collection.id, model[:12])
    return switched
