"""The search index as the items of its sealed file, and back (``index_file`` seals them).

An export writes each index's columns and postings as arrays, compacted to the live
passages whose row still has the nonces it had; a restore takes back only the passages
whose row is there as it was, so the text of a row written again or gone is never held.
Both reach into ``SearchIndex``'s columns (given as ``self``, or its class as ``cls``, so
that this module need not import it back): they are the index's own persistence, kept
apart from its search only for size.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from typing import Any

import numpy as np

from storage.documents.index_file import Item
from storage.documents.pages import ROLES
from storage.documents.store import StoredChunk

NO_PAGE = -(1 << 62)  # a passage without a page, in a sealed index file


def _texts(name: str, encoded: list[bytes]) -> list[Item]:
    """Strings as two items: their UTF-8 bytes one after another, and where each ends."""
    return [(f"{name}_ends", np.dtype(np.int64), (len(encoded),), [np.cumsum([len(e) for e in encoded], dtype=np.int64)]),
            (name, np.dtype(np.uint8), (sum(len(e) for e in encoded),), [b"".join(encoded)])]


def _strings(data: np.ndarray, ends: np.ndarray) -> list[str]:
    raw = data.tobytes()
    stops = ends.tolist()
    return [raw[a:b].decode() for a, b in zip([0, *stops][:len(stops)], stops, strict=True)]


def same_rows(ids: np.ndarray, nonces: np.ndarray, ids_now: np.ndarray, nonces_now: np.ndarray) -> np.ndarray:
    """Which of ``ids`` are rows now (``ids_now``, sorted) with the same nonces."""
    if not len(ids_now):
        return np.zeros(len(ids), dtype=bool)
    at = np.minimum(np.searchsorted(ids_now, ids), len(ids_now) - 1)
    return (ids_now[at] == ids) & (nonces_now[at] == nonces).all(axis=1)


def export(self: Any, prefix: str, nonces: Callable[[np.ndarray], tuple[np.ndarray, np.ndarray]],
           check: Callable[[], None] = lambda: None) -> tuple[dict[str, Any], list[Item]]:
    """This index as the items of a sealed file: its live passages whose row still has
    its nonces (``nonces(ids)``: a mask of those found and their 24 bytes), compacted,
    with their postings renumbered. Called on the thread that alone changes the index,
    so the columns stay as they are while the items are written."""
    with self._lock:
        n = len(self.chunks)
        ids = np.fromiter((c.id for c in self.chunks), dtype=np.int64, count=n)
        found, row_nonces = nonces(ids)
        keep = self._alive[:n] & found
        rows = np.flatnonzero(keep)
        renumber = np.cumsum(keep, dtype=np.int64) - 1
        chunks = [self.chunks[i] for i in rows]
        headings = sorted({c.heading for c in chunks if c.heading is not None})
        heading_ids = {text: i for i, text in enumerate(headings)}
        texts = [c.text.encode() for c in chunks]
        words = [*self._base, *(word for word in self._postings if word not in self._base)]
        counts = np.zeros(len(words), dtype=np.int64)
        everything = bool(keep.all())
        for w, word in enumerate(words):
            if w % 20_000 == 19_999:
                check()  # (on the thread that alone changes the index: searches only read)
            idx = self._word_postings(word)[0]
            counts[w] = len(idx) if everything else np.count_nonzero(keep[idx])
    m = len(rows)

    def column(values: list[Any], dtype: Any) -> list[np.ndarray]:
        return [np.asarray(values, dtype=dtype)]

    def blocks(array_: np.ndarray) -> Iterator[np.ndarray]:
        for start in range(0, m, 65536):
            yield array_[rows[start:start + 65536]]

    def kept_postings(part: int) -> Iterator[np.ndarray]:
        for word in words:
            idx, tf = self._word_postings(word)
            values = idx if part == 0 else tf
            if not everything:
                values = values[keep[idx]]
            yield renumber[values].astype(np.int32) if part == 0 and not everything else values

    def joined(parts: list[bytes]) -> Iterator[bytes]:
        for start in range(0, len(parts), 4096):
            yield b"".join(parts[start:start + 4096])

    word_blob = "\n".join(words).encode()  # a word is \w+: never a line break
    encoded_headings = [h.encode() for h in headings]
    dim = self._dim or 1
    items: list[Item] = [
        (f"{prefix}ids", np.dtype(np.int64), (m,), [ids[rows]]),
        (f"{prefix}nonces", np.dtype(np.uint8), (m, 24), [row_nonces[rows]]),
        (f"{prefix}collection", np.dtype(np.int64), (m,), column([c.collection_id for c in chunks], np.int64)),
        (f"{prefix}document", np.dtype(np.int64), (m,), column([c.document_id for c in chunks], np.int64)),
        (f"{prefix}page", np.dtype(np.int64), (m,),
         column([NO_PAGE if c.page is None else c.page for c in chunks], np.int64)),
        (f"{prefix}start", np.dtype(np.int64), (m,), column([c.start for c in chunks], np.int64)),
        (f"{prefix}end", np.dtype(np.int64), (m,), column([c.end for c in chunks], np.int64)),
        (f"{prefix}role", np.dtype(np.uint8), (m,),
         column([ROLES.index(c.role) if c.role in ROLES else 0 for c in chunks], np.uint8)),
        (f"{prefix}heading", np.dtype(np.int32), (m,),
         column([-1 if c.heading is None else heading_ids[c.heading] for c in chunks], np.int32)),
        *_texts(f"{prefix}headings", encoded_headings),
        (f"{prefix}text_ends", np.dtype(np.int64), (m,),
         [np.cumsum([len(t) for t in texts], dtype=np.int64)]),
        (f"{prefix}texts", np.dtype(np.uint8), (sum(len(t) for t in texts),), joined(texts)),
        (f"{prefix}vectors", np.dtype(np.float16), (m, dim), blocks(self._vectors[:n])),
        (f"{prefix}lengths", np.dtype(np.float64), (m,), blocks(self._lengths[:n])),
        (f"{prefix}weights", np.dtype(np.float64), (m,), blocks(self._weights[:n])),
        (f"{prefix}letters", np.dtype(np.int64), (m, 2), blocks(self._letters[:n])),
        (f"{prefix}words", np.dtype(np.uint8), (len(word_blob),), [word_blob]),
        (f"{prefix}counts", np.dtype(np.int64), (len(words),), [counts]),
        (f"{prefix}posting_rows", np.dtype(np.int32), (int(counts.sum()),), kept_postings(0)),
        (f"{prefix}posting_counts", np.dtype(np.uint16), (int(counts.sum()),), kept_postings(1)),
    ]
    # "texts": whether the passages' texts are in the file (not where the index reads them
    # from the vault: ``SearchIndex.texts``); a file without says they are (written before).
    return {"model": self.model, "min_cosine": self.min_cosine, "dimensions": self._dim, "passages": m,
            "texts": self.texts is None}, items



def restore(cls: Any, described: Mapping[str, Any], arrays: Mapping[str, np.ndarray], prefix: str,
            paths: Mapping[int, str], rows_now: tuple[np.ndarray, np.ndarray], texts: Any = None) -> Any:
    """An index from what ``export`` wrote, each passage given its document's path now.
    A passage whose row is gone, or was written again (other nonces: ``rows_now`` is
    the rows' sorted ids and their nonces), is left out: only the row tells what it is."""
    model = str(described["model"])
    if texts is None and not described.get("texts", True):
        raise ValueError("the file holds no passage's text, and this index keeps them")
    index = cls(int(described["dimensions"]), model, float(described["min_cosine"]), texts)

    def get(name: str) -> np.ndarray:
        return arrays[prefix + name]

    # Only the passages whose row is there as it was are taken (compacted, their
    # postings renumbered): the text of a row written again or gone is never held.
    stored_ids = get("ids")
    keep = same_rows(stored_ids, get("nonces"), *rows_now)
    rows = np.flatnonzero(keep)
    renumber = np.cumsum(keep, dtype=np.int64) - 1
    ids = stored_ids[rows]
    m = len(ids)
    headings = _strings(get("headings"), get("headings_ends"))
    all_ends = get("text_ends")
    ends = all_ends[rows]
    held, reads = get("texts").data, texts is not None  # the texts: here, or read for the hits
    starts = (np.concatenate([[0], all_ends[:-1]]) if len(all_ends) else all_ends)[rows]
    chunks = index.chunks
    roles = [ROLES[r] if r < len(ROLES) else "" for r in get("role")[rows].tolist()]
    for i, (row_id, collection, document, page, start, end, heading, a, b) in enumerate(zip(
            ids.tolist(), get("collection")[rows].tolist(), get("document")[rows].tolist(),
            get("page")[rows].tolist(), get("start")[rows].tolist(), get("end")[rows].tolist(),
            get("heading")[rows].tolist(), starts.tolist(), ends.tolist(), strict=True)):
        chunks.append(StoredChunk(row_id, collection, document, "" if reads else str(held[a:b], "utf-8"),
                                  paths.get(document, ""), None if page == NO_PAGE else page,
                                  None if heading < 0 else headings[heading], start, end, model, roles[i]))
        index._by_document[document].append(i)
        index._by_collection[collection].append(i)
    everything = m == len(stored_ids)

    def kept(array: np.ndarray) -> np.ndarray:
        return array if everything else array[rows]

    index._capacity = m
    if m:
        # float16 since 2026-12-06; a file saved before holds float32 (made float16 here).
        index._vectors = np.ascontiguousarray(
            kept(get("vectors").reshape(len(stored_ids), index._dim or 1)), dtype=np.float16)
    index._alive = np.ones(m, dtype=bool)
    index._owners = kept(get("collection"))
    index._lengths, index._weights, index._letters = kept(get("lengths")), kept(get("weights")), kept(get("letters"))
    index._recount()
    index.changes = len(stored_ids) - m  # left out: a save writes the index without them
    words = get("words").tobytes().decode().split("\n") if len(get("words")) else []
    sizes, posting_rows, posting_tf = get("counts"), get("posting_rows"), get("posting_counts")
    if len(words) != len(sizes) or int(sizes.sum()) != len(posting_rows) or len(posting_tf) != len(posting_rows):
        raise ValueError("the postings do not match their words")
    if len(posting_rows) and (posting_rows.min() < 0 or posting_rows.max() >= len(stored_ids)):
        raise ValueError("a posting of a passage the file does not hold")
    if not everything:
        word_of = np.repeat(np.arange(len(words), dtype=np.int64), sizes)
        held = keep[posting_rows]
        posting_rows = renumber[posting_rows[held]].astype(np.int32)
        posting_tf = posting_tf[held]
        sizes = np.bincount(word_of[held], minlength=len(words)).astype(np.int64)
    index._base = dict(zip(words, range(len(words)), strict=True))
    index._base_sizes = sizes
    index._base_starts = np.cumsum(sizes) - sizes
    index._base_rows, index._base_tf = posting_rows, posting_tf
    return index
