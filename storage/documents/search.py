"""In-memory hybrid search: BM25 over chunk text plus cosine similarity over vectors,
fused by reciprocal rank fusion. Built from the vault after unlock, or loaded from the
sealed file of the last save (``index_file``; the index's items for it are
``search_file``'s). Safe to search from one thread while
another adds documents.

One index holds the vectors of one embedding model: it takes its dimension from the
first vector (or its constructor) and refuses any other with ValueError, at the door,
rather than failing later in ``np.vstack`` or, with an equal size, ranking by nonsense.
``Indexes`` (``indexes``) keeps one per model, and knows which model answers for each
collection.
"""

from __future__ import annotations

import threading
from array import array
from collections import Counter, defaultdict
from collections.abc import Callable, Mapping
from dataclasses import replace
from typing import Any

import numpy as np

from storage.documents import lexicon, search_file
from storage.documents.blocks import Blocks
from storage.documents.cosine import coded, cosines
from storage.documents.index_file import Item
from storage.documents.page_choice import choose_pages, page_candidates
from storage.documents.ranking import fuse, rarity, top, top_among
from storage.documents.records import NO_HEADING, NO_PAGE, Records
from storage.documents.store import Hit, StoredChunk
from storage.documents.words import CJK_RUN, in_other_language, letters, terms

K1, B = 1.5, 0.75
CANDIDATES = 50
# The nearest passages by the int8 codes whose cosines are taken again from their exact
# vectors, before the vector side's CANDIDATES are chosen: at a million clustered vectors,
# the codes' first 100 hold the exact first 50 (docs/performance.md).
RESCORED = 100
CACHED_POSTINGS = 4_000_000  # postings kept as numpy arrays between searches (6 bytes each)
MIN_COSINE = 0.2  # below this, and without a shared word, a passage is not relevant
# A keyword match is evidence of relevance only if it covers this share of the question's
# weight (idf): a passage that shares one common word with the question is none. A hit of
# hybrid search must have that, or a cosine above the model's floor.
MIN_COVERAGE = 0.5
# In the ranking, every keyword match counts (a paraphrased question shares a word or two
# with its passage, and in a real collection those rank it), except in two cases where
# only covering matches do:
# - fewer passages than SMALL_COLLECTION: the words' rarity (idf) among a few dozen
#   passages is no guide ("new" in one of twenty is "rare");
# - a question in a script the collection hardly holds (a Chinese question over English
#   documents: its few Latin words, "Debian", "vim", match everywhere). A question is CJK
#   when at least CJK_QUESTION of its letters are, a collection when CJK_COLLECTION of
#   its passages' letters are (Chinese technical writing is full of Latin commands).
SMALL_COLLECTION = 300
CJK_QUESTION, CJK_COLLECTION = 0.5, 0.3
# A question in the other language than the chunks is also searched by its words'
# translations (``lexicon``), as a third ranking. An English question with a few Chinese
# words (a Chinese question naming many commands reads as English by its letters) is
# left alone: most of its words are names that match as they are.
TRANSLATE_MIXED = 0.1
# A PDF page's role weighs its chunks' fused score (``pages``): a contents or an index page,
# and front matter (a summary naming every topic), match a question about any topic nearly
# as well as the page that answers it, and citing them sends the reader to the wrong page.
# Weighed down, not dropped: a question about the contents still finds them.
ROLE_WEIGHTS = {"nav": 0.5, "front": 0.5}


Texts = Callable[[list[int]], Mapping[int, str]]  # row ids -> their passages' texts
Vectors = Callable[[list[int]], Mapping[int, np.ndarray]]  # row ids -> their exact vectors


def nonces_of(ids: np.ndarray, ids_now: np.ndarray, nonces_now: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """For each of ``ids``: whether it is a row now, and its nonces (zero where not)."""
    found = np.zeros(len(ids), dtype=bool)
    out = np.zeros((len(ids), 24), dtype=np.uint8)
    if len(ids_now):
        at = np.minimum(np.searchsorted(ids_now, ids), len(ids_now) - 1)
        found = ids_now[at] == ids
        out[found] = nonces_now[at[found]]
    return found, out


class SearchIndex:
    """Columns of numpy arrays that grow by doubling (a row written in place per passage, a
    view of the filled rows per search: nothing is copied or rebuilt when a passage comes or
    goes), and postings per word as packed arrays (six bytes a posting, where a dict of
    dicts took about fifty)."""

    def __init__(self, dimensions: int = 0, model: str = "", min_cosine: float = MIN_COSINE,
                 texts: Texts | None = None, vectors: Vectors | None = None) -> None:
        self.model = model  # the embedding model's sha256, for messages
        # Where the passages' texts are read (the vault's rows: ``DocumentStore.chunk_texts``),
        # for the hits alone: the index then holds none (each passage's StoredChunk has
        # text ""). Without it (an index of its own, in a test or a benchmark) each
        # passage's text is kept here.
        self.texts = texts
        # Where the exact vectors of a search's nearest candidates are read (the vault's
        # rows: ``DocumentStore.chunk_vectors``): the index holds int8 codes. Without it,
        # they are kept here as well, as float16.
        self.vectors = vectors
        # Below this, and without a shared word, a passage is not relevant: the model's own
        # (multilingual-e5 puts every pair of texts above 0.65, all-MiniLM-L6-v2 near 0).
        self.min_cosine = min_cosine
        self._lock = threading.RLock()
        self.chunks = Records(keeps_texts=texts is None)  # the passages, as columns
        self._dim = dimensions
        self._capacity = 0
        # Normalised, one row each, as int8 codes and a scale (``cosine``): a quarter of
        # float32's memory (0.39 GB for a million passages of 384 dimensions), in blocks
        # (``blocks``: adding a passage never copies them). The nearest RESCORED are taken
        # again from the exact vectors (``vectors``, or ``_exact``).
        self._codes = Blocks(dimensions or 1, np.int8)
        self._scales = np.zeros(0, dtype=np.float32)
        self._exact: Blocks | None = None if vectors is not None else Blocks(dimensions or 1, np.float16)
        self._alive = np.zeros(0, dtype=bool)
        self._owners = np.zeros(0, dtype=np.int64)  # each chunk's collection
        self._lengths = np.zeros(0, dtype=np.float64)  # its words, for BM25
        self._weights = np.zeros(0, dtype=np.float64)  # its page role's weight
        self._letters = np.zeros((0, 2), dtype=np.int64)  # its (CJK characters, all letters)
        # word -> (chunk indices, term frequencies), appended in place; numpy copies of those
        # a search used, dropped for a word when a chunk holding it comes.
        self._postings: dict[str, tuple[array, array]] = {}
        # The postings an index loaded from its file came with, as one array of rows and one
        # of frequencies (a word's are a slice: ``_base[word]`` is its slot), where a pair of
        # arrays for each of millions of words would take seconds to make; the words'
        # postings added since go into ``_postings`` as above.
        self._base: dict[str, int] = {}
        self._base_starts = np.zeros(0, dtype=np.int64)
        self._base_sizes = np.zeros(0, dtype=np.int64)
        self._base_rows = np.zeros(0, dtype=np.int32)
        self._base_tf = np.zeros(0, dtype=np.uint16)
        self._posting_arrays: dict[str, tuple[np.ndarray, np.ndarray]] = {}
        self._cached = 0  # postings in that cache
        # Where each document's and collection's chunks sit, so removing one is not a scan
        # of the whole index (an import replaces documents one by one).
        # (Packed arrays: a list holds a pointer and an int object, 40 bytes, for each.)
        self._by_document: dict[int, array[int]] = defaultdict(lambda: array("q"))
        self._by_collection: dict[int, array[int]] = defaultdict(lambda: array("q"))
        self.changes = 0  # passages added and taken out since it was made (when to save it)
        # Of those, the live passages taken out (a file removed or read again, a collection
        # deleted, or left out at a restore): any makes a save due, whatever the amount, as
        # the saved file still holds their words, headings and vectors.
        self.removed = 0
        # Per collection, over its live passages: CJK characters, letters, words, passages
        # (what a search would otherwise sum over every passage each time).
        self._stats: dict[int, np.ndarray] = {}

    def __len__(self) -> int:
        with self._lock:
            return int(self._alive[:len(self.chunks)].sum())

    def count(self, collection_id: int) -> int:
        """Live chunks of one collection."""
        with self._lock:
            held = self._by_collection.get(collection_id)
            return int(self._alive[np.frombuffer(held, dtype=np.int64)].sum()) if held else 0

    @property
    def dimensions(self) -> int:
        """The vector size of this index's model (0 until the first vector)."""
        return self._dim

    def _check(self, vector: np.ndarray) -> np.ndarray:
        v = np.asarray(vector, dtype=np.float32)
        if v.ndim != 1 or not v.shape[0] or (self._dim and v.shape[0] != self._dim):
            model = f" of model {self.model[:12]}" if self.model else ""
            raise ValueError(f"a vector of shape {v.shape} does not fit this index{model}, "
                             f"whose vectors have {self._dim} dimensions")
        return v

    def _grow(self) -> None:
        """Room for one more row: the small columns doubled (np.empty: pages not yet written
        cost no memory), the filled rows copied once (the codes grow by blocks)."""
        if len(self.chunks) < self._capacity:
            return
        capacity = max(1024, self._capacity * 2)
        n = len(self.chunks)

        def grown(old: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
            new = np.empty(shape, dtype=old.dtype)
            new[:n] = old[:n]
            return new

        self._scales = grown(self._scales, (capacity,))
        self._alive = grown(self._alive, (capacity,))
        self._owners = grown(self._owners, (capacity,))
        self._lengths = grown(self._lengths, (capacity,))
        self._weights = grown(self._weights, (capacity,))
        self._letters = grown(self._letters, (capacity, 2))
        self._capacity = capacity

    def add(self, chunk: StoredChunk, vector: np.ndarray) -> None:
        with self._lock:
            v = self._check(vector)
            # Everything that can fail before anything is written: a passage is in every
            # column and posting, or in none.
            norm = float(np.linalg.norm(v)) or 1.0
            words = terms(chunk.text + " " + (chunk.heading or ""))
            counts = Counter(words)
            if len(words) > 65535:  # a term frequency is kept in two bytes
                counts = Counter({word: min(count, 65535) for word, count in counts.items()})
            found_letters = letters(chunk.text)
            if not self._dim:  # the first vector gives the index its size
                self._dim = v.shape[0]
                self._codes = Blocks(self._dim, np.int8)
                if self._exact is not None:
                    self._exact = Blocks(self._dim, np.float16)
            self._grow()
            self._codes.make_room()
            if self._exact is not None:
                self._exact.make_room()
            index = len(self.chunks)
            unit = v / norm
            code, self._scales[index] = coded(unit)
            self._codes.append(code)
            if self._exact is not None:
                self._exact.append(unit)
            self._lengths[index] = len(words)
            self._letters[index] = found_letters
            self._owners[index] = chunk.collection_id
            self._weights[index] = ROLE_WEIGHTS.get(chunk.role, 1.0)
            self._alive[index] = True
            self._count(chunk.collection_id, found_letters[0], found_letters[1], len(words), 1)
            self.chunks.append(chunk)
            self.changes += 1
            self._by_document[chunk.document_id].append(index)
            self._by_collection[chunk.collection_id].append(index)
            postings = self._postings
            for word, count in counts.items():
                posting = postings.get(word)
                if posting is None:
                    postings[word] = (array("i", (index,)), array("H", (count,)))
                else:
                    posting[0].append(index)
                    posting[1].append(count)
            if self._posting_arrays:  # a search cached some: those of these words are stale
                for word in counts.keys() & self._posting_arrays.keys():
                    self._cached -= self._posting_arrays.pop(word)[0].size

    # Kept sealed between unlocks (``storage.documents.index_file``) ---------------------
    def live(self) -> list[StoredChunk]:
        """The passages that answer (not those taken out), in the index's order (without
        their texts where ``texts`` reads them: ``with_texts``)."""
        with self._lock:
            return [self.chunks[i] for i in np.flatnonzero(self._alive[:len(self.chunks)])]

    def ids(self) -> np.ndarray:
        """The row ids of the live passages, in the index's order."""
        with self._lock:
            return self.chunks.column("ids")[self._alive[:len(self.chunks)]]

    def export(self, prefix: str, nonces: Callable[[np.ndarray], tuple[np.ndarray, np.ndarray]],
               check: Callable[[], None] = lambda: None) -> tuple[dict[str, Any], list[Item]]:
        """This index as the items of a sealed file (``search_file.export``)."""
        return search_file.export(self, prefix, nonces, check)

    @classmethod
    def restore(cls, described: Mapping[str, Any], arrays: Mapping[str, np.ndarray], prefix: str,
                paths: Mapping[int, str], rows_now: tuple[np.ndarray, np.ndarray],
                texts: Texts | None = None, vectors: Vectors | None = None) -> SearchIndex:
        """An index from what ``export`` wrote (``search_file.restore``)."""
        return search_file.restore(cls, described, arrays, prefix, paths, rows_now, texts, vectors)

    def with_texts(self, chunks: list[StoredChunk]) -> list[StoredChunk]:
        """``chunks`` with their texts: as they are where the index keeps them, else read
        (``texts``); one whose row is gone meanwhile is left out."""
        if self.texts is None or not chunks:
            return chunks
        found = self.texts([c.id for c in chunks])
        return [replace(c, text=found[c.id]) for c in chunks if c.id in found]

    def on_page(self, path: str, page: int | None, heading: str | None) -> list[StoredChunk]:
        """The live passages of the file at ``path`` on one page (or section), without
        their texts where ``texts`` reads them."""
        with self._lock:
            records = self.chunks
            heading_code = NO_HEADING if heading is None else records.held_heading(heading)
            page_code = NO_PAGE if page is None else page
            if heading_code is None:
                return []
            return [records[i] for document, at in records.paths.items() if at == path
                    for i in self._by_document.get(document, ())
                    if self._alive[i] and records.pages[i] == page_code and records.headings[i] == heading_code]

    def move_document(self, document_id: int, path: str) -> None:
        """A file renamed or moved: its passages stay, and say where it is now."""
        with self._lock:
            if document_id in self.chunks.paths:
                self.chunks.paths[document_id] = path

    def remove_document(self, document_id: int) -> None:
        with self._lock:
            held = self._by_document.pop(document_id, array("q"))
            self.changes += len(held)
            for index in held:
                if self._alive[index]:
                    self.removed += 1
                    cjk, total = self._letters[index]
                    self._count(int(self._owners[index]), -cjk, -total, -self._lengths[index], -1)
                self._alive[index] = False

    def remove_collection(self, collection_id: int) -> None:
        with self._lock:
            held = self._by_collection.pop(collection_id, array("q"))
            self._stats.pop(collection_id, None)
            self.changes += len(held)
            if held:
                rows = np.frombuffer(held, dtype=np.int64)
                self.removed += int(self._alive[rows].sum())
                self._alive[rows] = False

    def _arrays_now(self) -> dict[str, np.ndarray]:
        """Views of the filled rows of each column."""
        n = len(self.chunks)
        return {"alive": self._alive[:n], "owners": self._owners[:n], "lengths": self._lengths[:n],
                "weights": self._weights[:n], "letters": self._letters[:n]}

    def _word_postings(self, word: str) -> tuple[np.ndarray, np.ndarray]:
        """A word's postings (rows int32, frequencies uint16): those it was loaded with and
        those added since, copied out of the arrays that grow."""
        rows, tfs = [], []
        slot = self._base.get(word)
        if slot is not None:
            start = int(self._base_starts[slot])
            end = start + int(self._base_sizes[slot])
            rows.append(self._base_rows[start:end])
            tfs.append(self._base_tf[start:end])
        posting = self._postings.get(word)
        if posting:
            rows.append(np.frombuffer(posting[0], dtype=np.int32).copy())
            tfs.append(np.frombuffer(posting[1], dtype=np.uint16).copy())
        if len(rows) == 1:
            return rows[0], tfs[0]
        if not rows:
            return np.zeros(0, dtype=np.int32), np.zeros(0, dtype=np.uint16)
        return np.concatenate(rows), np.concatenate(tfs)

    def _posting(self, word: str) -> tuple[np.ndarray, np.ndarray] | None:
        """A word's postings as numpy arrays (int32 indices, uint16 frequencies), kept for the
        next search up to CACHED_POSTINGS in all (then the cache starts again)."""
        cached = self._posting_arrays.get(word)
        if cached is None:
            cached = self._word_postings(word)
            if not len(cached[0]):
                return None
            if self._cached + cached[0].size > CACHED_POSTINGS:
                self._posting_arrays.clear()
                self._cached = 0
            self._posting_arrays[word] = cached
            self._cached += cached[0].size
        return cached

    def _cosines(self, unit: np.ndarray, mask: np.ndarray, also: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Every passage's cosine with the question (-1 outside ``mask``) by the int8 codes,
        and the rows to take again from their exact vectors: the nearest RESCORED and the
        rows ``also``. Where the index keeps its exact vectors they are taken here (and no
        rows are left to take); else ``_exact_cosines`` reads them from the vault, outside
        the index's lock."""
        n = len(self.chunks)
        cosine = np.empty(n, dtype=np.float32)
        for start, part in self._codes.parts():
            cosine[start:start + len(part)] = cosines(part, self._scales[start:start + len(part)], unit)
        cosine[~mask[:n]] = -1.0
        nearest = np.union1d(top(cosine, RESCORED), also)
        nearest = nearest[mask[nearest]]
        if len(nearest) and self._exact is not None:
            cosine[nearest] = np.einsum("ij,j->i", self._exact.take(nearest).astype(np.float32), unit)
            nearest = nearest[:0]
        return cosine, nearest

    def _exact_cosines(self, cosine: np.ndarray, rows: np.ndarray, ids: list[int], unit: np.ndarray) -> None:
        """``cosine`` at ``rows`` from the exact vectors of the passages ``ids`` (one read of
        the vault; a row whose vector cannot be read keeps its code's). Called without the
        index's lock: rows are only ever appended or marked dead, so ``rows`` stay where
        they are while an import goes on."""
        if not ids:
            return
        assert self.vectors is not None
        found = self.vectors(ids)
        for i, row_id in zip(rows.tolist(), ids, strict=True):
            exact = found.get(row_id)
            if exact is not None and exact.shape == unit.shape:
                cosine[i] = float(exact @ unit) / (float(np.linalg.norm(exact)) or 1.0)

    def _count(self, collection_id: int, cjk: float, total: float, words: float, passages: int) -> None:
        stats = self._stats.get(collection_id)
        if stats is None:
            stats = self._stats[collection_id] = np.zeros(4, dtype=np.float64)
        stats += (cjk, total, words, passages)

    def _recount(self) -> None:
        """The per-collection sums from the columns (after a load)."""
        n = len(self.chunks)
        alive = self._alive[:n]
        owners = self._owners[:n][alive]
        self._stats = {}
        if not len(owners):
            return
        found, at = np.unique(owners, return_inverse=True)
        sums = np.zeros((len(found), 4), dtype=np.float64)
        np.add.at(sums, at, np.column_stack([self._letters[:n][alive], self._lengths[:n][alive], np.ones(len(owners))]))
        self._stats = {int(cid): sums[i] for i, cid in enumerate(found.tolist())}

    def _sums(self, collection_ids: list[int] | None) -> np.ndarray:
        """CJK characters, letters, words and passages of the searched collections."""
        chosen = self._stats.values() if collection_ids is None else \
            [self._stats[c] for c in set(collection_ids) if c in self._stats]
        return np.sum(list(chosen), axis=0) if chosen else np.zeros(4)

    def _mask(self, collection_ids: list[int] | None) -> np.ndarray:
        arrays = self._arrays_now()
        if collection_ids is None or not set(self._by_collection) - set(collection_ids):
            return arrays["alive"]
        return arrays["alive"] & np.isin(arrays["owners"], np.array(collection_ids, dtype=np.int64))

    def _bm25(self, query: str | Mapping[str, float], mask: np.ndarray, sums: np.ndarray
              ) -> tuple[np.ndarray, np.ndarray]:
        """BM25 scores, and how much of the question's idf weight each chunk matches.
        ``query`` is the question, or keywords with their weights (``translated``).

        A CJK pair that no chunk of the searched collections holds does not count in the
        question's weight: most such pairs straddle two words (「垃圾每天几点收」 gives
        「圾每」 and 「天几」), and counting them would fail the coverage rule for the very
        passage that holds every real word. An unknown Latin word still counts."""
        n = len(self.chunks)
        scores = np.zeros(n, dtype=np.float64)
        covered = np.zeros(n, dtype=np.float64)
        if not n:
            return scores, covered
        weighted = query if isinstance(query, Mapping) else dict.fromkeys(set(terms(query)), 1.0)
        lengths = self._arrays_now()["lengths"]
        live = max(1, int(sums[3]))
        average = float(sums[2] / sums[3]) if sums[3] else 1.0
        unseen = rarity(live, 0)
        total = 0.0
        for word, weight in weighted.items():
            posting = self._posting(word)
            if posting is not None:
                idx, tf = posting
                keep = mask[idx]
                idx, tf = idx[keep], tf[keep]
            if posting is None or not len(idx):
                if not CJK_RUN.fullmatch(word):
                    total += weight * unseen
                continue
            idf = weight * rarity(live, len(idx))
            total += idf
            norm = tf + K1 * (1 - B + B * lengths[idx] / max(average, 1e-9))
            scores[idx] += idf * tf * (K1 + 1) / norm
            covered[idx] += idf
        return scores, covered / total if total else covered

    @staticmethod
    def _scripts(query: str, sums: np.ndarray) -> tuple[bool, bool, float]:
        """(the question is CJK, the searched chunks are, the question's share of CJK letters)."""
        cjk, total = letters(query)
        share = cjk / total if total else 0.0
        counts = sums[:2]
        return share >= CJK_QUESTION, bool(counts[1] > 0 and counts[0] / counts[1] >= CJK_COLLECTION), share

    @classmethod
    def _cross_script(cls, query: str, sums: np.ndarray) -> bool:
        """Whether the question is written in a script the searched chunks hardly hold."""
        question, collection, _share = cls._scripts(query, sums)
        return question != collection

    @classmethod
    def _translates(cls, query: str, sums: np.ndarray) -> bool:
        """Whether the question is searched in the other language too: a Chinese question
        over English chunks, or an English one (no more than TRANSLATE_MIXED of its letters
        Chinese) over Chinese chunks."""
        question, collection, share = cls._scripts(query, sums)
        return question != collection and (question or share <= TRANSLATE_MIXED)

    @classmethod
    def _translated(cls, query: str, sums: np.ndarray) -> dict[str, float]:
        """The question's words in the searched chunks' language, with weights
        (``in_other_language``); {} where it is not translated (``_translates``), and
        without the dictionary (not read, or missing)."""
        if not cls._translates(query, sums):
            return {}
        found = lexicon.ready()
        collection_cjk = cls._scripts(query, sums)[1]
        return in_other_language(found, query, to_chinese=collection_cjk) if found is not None else {}

    def _wait_for_the_dictionary(self, query: str, collection_ids: list[int] | None) -> None:
        """A question to translate, asked while the dictionary is still being read (the
        second after an unlock, or a terminal command's one search): it waits for that
        reading, outside the index's lock (other searches go on), LOAD_WAIT at most and
        only once (``lexicon.lexicon``)."""
        if lexicon.is_read():
            return
        with self._lock:
            translates = bool(self.chunks) and self._translates(query, self._sums(collection_ids))
        if translates:
            lexicon.lexicon()

    def search(self, query: str, vector: np.ndarray | None, k: int = 5,
               collection_ids: list[int] | None = None, mode: str = "hybrid") -> list[Hit]:
        """Top ``k`` relevant chunks; mode "bm25", "vector" or "hybrid" (rank fusion)."""
        if mode == "hybrid":
            self._wait_for_the_dictionary(query, collection_ids)
        unit: np.ndarray | None = None
        with self._lock:
            if vector is not None:
                vector = self._check(vector)
            if not self.chunks:
                return []
            mask = self._mask(collection_ids)
            sums = self._sums(collection_ids)
            if mode in ("bm25", "hybrid"):
                bm25, coverage = self._bm25(query, mask, sums)
            else:
                bm25 = coverage = np.zeros(len(self.chunks))
            # Rank fusion over the candidates alone (150 at most), not over every passage:
            # at a million passages each pass over all of them costs milliseconds.
            rankings: list[np.ndarray] = []
            if mode in ("bm25", "hybrid"):
                order = top_among(bm25, np.flatnonzero(bm25), CANDIDATES)
                if mode == "hybrid" and (int(sums[3]) < SMALL_COLLECTION
                                         or self._cross_script(query, sums)):
                    order = order[coverage[order] >= MIN_COVERAGE]
                rankings.append(order)
                translated = self._translated(query, sums) if mode == "hybrid" else {}
                if translated:  # a third ranking: the question's words in the chunks' language
                    by_translation, _coverage = self._bm25(translated, mask, sums)
                    rankings.append(top_among(by_translation, np.flatnonzero(by_translation), CANDIDATES))
            rows = np.zeros(0, dtype=np.int64)
            if vector is not None and mode in ("vector", "hybrid"):
                unit = np.asarray(vector, dtype=np.float32)
                unit = unit / (float(np.linalg.norm(unit)) or 1.0)
                # The keyword side's candidates get their exact cosine too: it decides
                # whether one without covering words is relevant (the model's floor).
                cosine, rows = self._cosines(unit, mask, np.concatenate([np.zeros(0, dtype=np.int64), *rankings]))
            else:
                cosine = np.full(len(self.chunks), -1.0, dtype=np.float32)
            ids = [self.chunks.ids[i] for i in rows.tolist()]
        if unit is not None:  # the vault read (milliseconds) holds no import or other search up
            self._exact_cosines(cosine, rows, ids, unit)
        with self._lock:
            if mode in ("vector", "hybrid"):
                order = top(cosine, CANDIDATES)
                rankings.append(order[cosine[order] >= self.min_cosine])
            found, fused = fuse(rankings)
            arrays = self._arrays_now()
            fused *= arrays["weights"][found]
            relevant = (fused > 0) & arrays["alive"][found]  # not one taken out meanwhile
            if mode == "hybrid":
                relevant &= (coverage[found] >= MIN_COVERAGE) | (cosine[found] >= self.min_cosine)
            found, fused = found[relevant], fused[relevant]
            ranked = [(int(found[i]), float(fused[i])) for i in top(fused, k)]
            hits = [Hit(self.chunks[i], score, float(cosine[i]), float(bm25[i])) for i, score in ranked]
            # Each paged document's first passages, for the choice of its page (hybrid only).
            pages = page_candidates(self.chunks, found[top(fused, len(fused))], ranked) if mode == "hybrid" else {}
            candidates = {i: Hit(self.chunks[i], 0.0, float(cosine[i]), float(bm25[i]))
                          for rows in pages.values() for i in rows}
            weights = self._idf(query, mask, sums) if pages else {}
        # The texts read outside the lock: an import goes on meanwhile.
        wanted = {h.chunk.id: h.chunk for h in [*hits, *candidates.values()]}
        chunks = {c.id: c for c in self.with_texts(list(wanted.values()))}
        hits = [replace(h, chunk=chunks[h.chunk.id]) for h in hits if h.chunk.id in chunks]
        if pages:
            hits = choose_pages(hits, pages, candidates, chunks, weights)
        return hits

    def _idf(self, query: str, mask: np.ndarray, sums: np.ndarray) -> dict[str, float]:
        """The question's distinct words that the searched passages hold, each with its
        BM25 rarity among them."""
        live = max(1, int(sums[3]))
        weights: dict[str, float] = {}
        for word in set(terms(query)):
            posting = self._posting(word)
            rows = posting[0][posting[0] < len(mask)] if posting is not None else np.zeros(0, dtype=np.int64)
            held = int(mask[rows].sum())  # (of the passages this search saw: an import adds more)
            if held:
                weights[word] = rarity(live, held)
        return weights
