"""Which of a paged document's passages stands for it in the hits (#35: the cited page).

A PDF's passages are about half a page each, and a question's right page is often the
document's second or third passage in the fused ranking, not its first: the whole
passage's cosine and BM25 prefer a neighbouring section as often as the right one. What
the fused order misses is *where* the question's words sit: the right passage holds them
close together, in a sentence or two; a neighbour holds a few of them spread over its
half page. So, for each document with pages among the hits, its first PAGE_CANDIDATES
passages in the fused ranking are ranked again by their best window of PAGE_WINDOW words
(the question's distinct words found in it, each weighed by its rarity in the searched
collections), and that ranking is fused with their fused order (reciprocal rank fusion,
RRF_K); the winner takes the document's first place among the hits.

Measured on the frozen set (docs/retrieval-evaluation.md): page accuracy up in English
and across languages on the tuning part and on the held-out part, no recall figure
changes (the documents found and their order are the same). It needs only the texts of a
few passages, read for the hits anyway: no embedding, no memory per passage.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace

import numpy as np

from storage.documents.ranking import RRF_K
from storage.documents.records import NO_PAGE, Records
from storage.documents.store import Hit, StoredChunk
from storage.documents.words import terms

PAGE_CANDIDATES = 5  # a paged document's first passages in the fused ranking
PAGE_WINDOW = 40  # words in a window (the words ``terms`` makes: CJK pairs count as words)


def best_window(words: Sequence[str], weights: Mapping[str, float], width: int = PAGE_WINDOW) -> float:
    """The largest sum of ``weights`` of the distinct weighed words that one window of
    ``width`` consecutive words holds (windows half a width apart, the last one ending at
    the last word)."""
    if not words or not weights:
        return 0.0
    step = max(1, width // 2)
    last = max(0, len(words) - width)
    starts = list(range(0, last + 1, step))
    if starts[-1] != last:
        starts.append(last)
    best = 0.0
    for start in starts:
        held = set(words[start:start + width])
        best = max(best, sum(weight for word, weight in weights.items() if word in held))
    return best


def chosen(window_scores: Sequence[float]) -> int:
    """Of a document's passages in their fused order, the one whose fused order and window
    rank together come first (ties: the earlier in the fused order)."""
    if len(window_scores) < 2:
        return 0
    by_window = sorted(range(len(window_scores)), key=lambda i: (-window_scores[i], i))
    rank = {passage: place for place, passage in enumerate(by_window)}
    fused = [1.0 / (RRF_K + i) + 1.0 / (RRF_K + rank[i]) for i in range(len(window_scores))]
    return max(range(len(fused)), key=lambda i: (fused[i], -i))


def page_candidates(records: Records, order: np.ndarray, ranked: list[tuple[int, float]]) -> dict[int, list[int]]:
    """For each document with pages among the hits (``ranked``: rows and scores), its first
    PAGE_CANDIDATES passages in the fused ``order`` (rows), where it has two or more."""
    wanted: dict[int, list[int]] = {records.documents[i]: [] for i, _score in ranked
                                    if records.pages[i] != NO_PAGE}
    if not wanted:
        return {}
    for i in order.tolist():
        rows = wanted.get(records.documents[i])
        if rows is not None and len(rows) < PAGE_CANDIDATES and records.pages[i] != NO_PAGE:
            rows.append(i)
    return {document: rows for document, rows in wanted.items() if len(rows) > 1}


def choose_pages(hits: list[Hit], pages: Mapping[int, list[int]], candidates: Mapping[int, Hit],
                 chunks: Mapping[int, StoredChunk], weights: Mapping[str, float]) -> list[Hit]:
    """Each paged document's first place among ``hits`` given to the passage this module
    prefers among its first passages (``pages``: rows; ``candidates``: their hits by row;
    ``chunks``: the texts read, by id); its other passages among the hits follow in their
    order (the last drops out where the chosen one was not among them). A place keeps its
    score: it ranks the document."""
    out = list(hits)
    for document, rows in pages.items():
        held = [replace(candidates[i], chunk=chunks[candidates[i].chunk.id]) for i in rows
                if candidates[i].chunk.id in chunks]
        if len(held) < 2:
            continue
        best = chosen([best_window(terms(h.chunk.text), weights) for h in held])
        places = [n for n, h in enumerate(out) if h.chunk.document_id == document]
        if best == 0 or not places:
            continue
        first = held[best]
        others = [out[n] for n in places if out[n].chunk.id != first.chunk.id]
        for n, passage in zip(places, [first, *others], strict=False):
            out[n] = replace(passage, score=out[n].score)
    return out
