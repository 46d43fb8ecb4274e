"""The search index as the items of its sealed file, and back (``index_file`` seals them).

An export writes each index's columns and postings as arrays, compacted to the live
passages whose row still has the nonces it had; a restore takes back only the passages
whose row is there as it was, so the text of a row written again or gone is never held.
Both reach into ``SearchIndex``'s columns (given as ``self``, or its class as ``cls``, so
that this module need not import it back): they are the index's own persistence, kept
apart from its search only for size.
"""

from __future__ import annotations

from array import array
from collections.abc import Callable, Iterator, Mapping
from typing import Any

import numpy as np

from storage.documents.blocks import Blocks
from storage.documents.cosine import coded
from storage.documents.index_file import Item
from storage.documents.records import NO_HEADING


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
        records = self.chunks
        n = len(records)
        ids = records.column("ids")
        found, row_nonces = nonces(ids)
        keep = self._alive[:n] & found
        rows = np.flatnonzero(keep)
        renumber = np.cumsum(keep, dtype=np.int64) - 1
        columns = {name: records.column(name)[rows] for name in
                   ("collections", "documents", "pages", "starts", "ends", "roles", "headings")}
        # Only the headings of the passages written (not those of a file taken out).
        used = np.unique(columns["headings"][columns["headings"] >= 0])
        headings = [records.heading_texts[h] for h in used.tolist()]
        table = np.full(len(records.heading_texts) + 1, NO_HEADING, dtype=np.int32)
        table[used] = np.arange(len(used), dtype=np.int32)
        columns["headings"] = table[columns["headings"]]  # (NO_HEADING, -1, takes the last: itself)
        texts = ([records.texts[i].encode() for i in rows.tolist()] if records.texts is not None
                 else [b""] * len(rows))
        words = [*self._base, *(word for word in self._postings if word not in self._base)]
        counts = np.zeros(len(words), dtype=np.int64)
        everything = bool(keep.all())
        for w, word in enumerate(words):
            if w % 20_000 == 19_999:
                check()  # (on the thread that alone changes the index: searches only read)
            idx = self._word_postings(word)[0]
            counts[w] = len(idx) if everything else np.count_nonzero(keep[idx])
        # Only the words of the passages written: a word whose passages were all taken out
        # (a removed file's names) is not written with a count of 0, nor kept for ever.
        held = np.flatnonzero(counts)
        if len(held) < len(words):
            words = [words[w] for w in held.tolist()]
            counts = counts[held]
    m = len(rows)

    def blocks(array_: np.ndarray | Blocks) -> Iterator[np.ndarray]:
        for start in range(0, m, 65536):
            wanted = rows[start:start + 65536]
            yield array_.take(wanted) if isinstance(array_, Blocks) else array_[wanted]

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
        (f"{prefix}collection", np.dtype(np.int64), (m,), [columns["collections"]]),
        (f"{prefix}document", np.dtype(np.int64), (m,), [columns["documents"]]),
        (f"{prefix}page", np.dtype(np.int64), (m,), [columns["pages"]]),
        (f"{prefix}start", np.dtype(np.int64), (m,), [columns["starts"]]),
        (f"{prefix}end", np.dtype(np.int64), (m,), [columns["ends"]]),
        (f"{prefix}role", np.dtype(np.uint8), (m,), [columns["roles"]]),
        (f"{prefix}heading", np.dtype(np.int32), (m,), [columns["headings"]]),
        *_texts(f"{prefix}headings", encoded_headings),
        (f"{prefix}text_ends", np.dtype(np.int64), (m,),
         [np.cumsum([len(t) for t in texts], dtype=np.int64)]),
        (f"{prefix}texts", np.dtype(np.uint8), (sum(len(t) for t in texts),), joined(texts)),
        (f"{prefix}codes", np.dtype(np.int8), (m, dim), blocks(self._codes)),
        (f"{prefix}scales", np.dtype(np.float32), (m,), blocks(self._scales[:n])),
        *([(f"{prefix}vectors", np.dtype(np.float16), (m, dim), blocks(self._exact))]
          if self._exact is not None else []),
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
    # "vectors": whether the exact vectors are in the file beside their int8 codes (not
    # where the index reads them from the vault: ``SearchIndex.vectors``).
    return {"model": self.model, "min_cosine": self.min_cosine, "dimensions": self._dim, "passages": m,
            "texts": self.texts is None, "vectors": self._exact is not None}, items



def restore(cls: Any, described: Mapping[str, Any], arrays: Mapping[str, np.ndarray], prefix: str,
            paths: Mapping[int, str], rows_now: tuple[np.ndarray, np.ndarray], texts: Any = None,
            vectors: Any = None) -> Any:
    """An index from what ``export`` wrote, each passage given its document's path now.
    A passage whose row is gone, or was written again (other nonces: ``rows_now`` is
    the rows' sorted ids and their nonces), is left out: only the row tells what it is."""
    model = str(described["model"])
    if texts is None and not described.get("texts", True):
        raise ValueError("the file holds no passage's text, and this index keeps them")
    if vectors is None and f"{prefix}vectors" not in arrays:
        raise ValueError("the file holds no exact vectors, and this index keeps them")
    index = cls(int(described["dimensions"]), model, float(described["min_cosine"]), texts, vectors)

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
    given = get("heading")[rows]
    if len(given) and (given.max() >= len(headings) or given.min() < NO_HEADING):
        raise ValueError("a passage's heading the file does not hold")
    chunk_texts = None
    if texts is None:  # the texts: here, or read for the hits
        all_ends = get("text_ends")
        held = get("texts").data
        starts = (np.concatenate([[0], all_ends[:-1]]) if len(all_ends) else all_ends)[rows]
        chunk_texts = [str(held[a:b], "utf-8") for a, b in zip(starts.tolist(), all_ends[rows].tolist(), strict=True)]
    documents = get("document")[rows]
    index.chunks.extend({"ids": ids, "collections": get("collection")[rows], "documents": documents,
                         "pages": get("page")[rows], "starts": get("start")[rows], "ends": get("end")[rows],
                         "roles": get("role")[rows], "headings": given}, headings, model, paths, chunk_texts)
    # Each document's and collection's rows, in the index's order (grouped, not a loop).
    for owners, by in ((documents, index._by_document), (get("collection")[rows], index._by_collection)):
        if not len(owners):  # an index of nothing (every collection deleted): no groups
            continue
        order = np.argsort(owners, kind="stable")
        keys, firsts = np.unique(owners[order], return_index=True)
        for key, part in zip(keys.tolist(), np.split(order.astype(np.int64), firsts[1:]), strict=True):
            by[key] = array("q", part.tobytes())
    everything = m == len(stored_ids)

    def kept(array: np.ndarray) -> np.ndarray:
        return array if everything else array[rows]

    index._capacity = m
    dim = index._dim or 1
    if f"{prefix}codes" in arrays:
        index._codes = Blocks(dim, np.int8, np.ascontiguousarray(kept(get("codes").reshape(len(stored_ids), dim))))
        index._scales = np.ascontiguousarray(kept(get("scales")), dtype=np.float32)
        if len(index._codes) != m or len(index._scales) != m:
            raise ValueError("the vectors' codes do not match their passages")
    if f"{prefix}vectors" in arrays:
        # Exact vectors: float16 since 2026-12-06, float32 before; a file saved before
        # 2026-12-07 holds no codes (made here).
        exact = kept(get("vectors").reshape(len(stored_ids), dim))
        if f"{prefix}codes" not in arrays:
            codes, index._scales = coded(np.asarray(exact, dtype=np.float32))
            index._codes = Blocks(dim, np.int8, codes)
        if index._exact is not None:
            index._exact = Blocks(dim, np.float16, np.ascontiguousarray(exact, dtype=np.float16))
    if len(index._codes) != m:  # neither codes nor vectors: nothing to rank by
        raise ValueError("the file holds no vector of its passages")
    index._alive = np.ones(m, dtype=bool)
    index._owners = kept(get("collection"))
    index._lengths, index._weights, index._letters = kept(get("lengths")), kept(get("weights")), kept(get("letters"))
    index._recount()
    index.changes = index.removed = len(stored_ids) - m  # left out: a save writes the index without them
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
    starts = np.cumsum(sizes) - sizes
    present = np.flatnonzero(sizes)
    if len(present) < len(words):  # the words of passages left out alone: not kept to be written again
        words = [words[w] for w in present.tolist()]
        sizes, starts = sizes[present], starts[present]
    index._base = dict(zip(words, range(len(words)), strict=True))
    index._base_sizes = sizes
    index._base_starts = starts
    index._base_rows, index._base_tf = posting_rows, posting_tf
    return index
