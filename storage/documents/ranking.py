"""Ranking helpers of hybrid search: the first ``count`` of a score, and reciprocal rank
fusion of several rankings (``search``)."""

from __future__ import annotations

import math

import numpy as np

RRF_K = 60


def rarity(live: int, held: int) -> float:
    """BM25's idf of a word that ``held`` of ``live`` passages hold."""
    return math.log(1 + (live - held + 0.5) / (held + 0.5))


def top(values: np.ndarray, count: int) -> np.ndarray:
    """Indices of the ``count`` largest values, largest first (partial sort: O(n)); equal
    values in the order of their indices, so that the same passages rank the same however
    the index was put together (built at once, or loaded and caught up)."""
    n = len(values)
    if count <= 0:
        return np.zeros(0, dtype=np.int64)
    if n <= count:
        return np.argsort(-values, kind="stable")
    if np.isnan(values).any():  # a vector gone wrong: NaN ranks last (partition puts it first)
        values = np.nan_to_num(values, nan=-np.inf)
    threshold = np.partition(values, n - count)[n - count]  # the count-th largest
    above = np.flatnonzero(values > threshold)
    part = np.concatenate([above, np.flatnonzero(values == threshold)[:count - len(above)]])
    return part[np.argsort(-values[part], kind="stable")]


def top_among(values: np.ndarray, among: np.ndarray, count: int) -> np.ndarray:
    """``top`` of ``values`` at the indices ``among`` (ascending: ties keep index order)."""
    return among[top(values[among], count)]


def fuse(rankings: list[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """Reciprocal rank fusion: the indices ranked by any (ascending) and the sum of
    1 / (RRF_K + rank) over the rankings, added in the rankings' order."""
    if not rankings:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.float64)
    ranked = np.concatenate(rankings).astype(np.int64)
    shares = np.concatenate([1.0 / (RRF_K + np.arange(1, len(r) + 1)) for r in rankings])
    found, at = np.unique(ranked, return_inverse=True)
    return found, np.bincount(at, weights=shares, minlength=len(found)).astype(np.float64)
