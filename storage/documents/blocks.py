"""Rows of a fixed width kept in blocks, so adding one never copies those already held.

The index's int8 codes are 384 bytes a passage: 0.39 GB at a million. Held as one array,
the first passage added after an unlock (the array loaded from the index file has no room
to spare) copied all of them into one twice as large: a second's pause and 0.4 GB more
resident memory until the old array was freed, for one passage. Held as blocks, the
loaded rows stay where they were read, and added rows go into blocks of their own, each
twice the last (1,024 rows first, 65,536 at most; ``np.empty``: rows not yet written take
no memory). Rows are never taken out here: the index marks a passage gone, and the index
file written at the next save holds only the live ones.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

FIRST_BLOCK = 1024
LARGEST_BLOCK = 65536


class Blocks:
    """Rows of ``width`` values of ``dtype``: appended, read by index, or block by block."""

    def __init__(self, width: int, dtype: np.dtype | type, rows: np.ndarray | None = None) -> None:
        self.width = width
        self.dtype = np.dtype(dtype)
        self._parts: list[np.ndarray] = []
        self._starts: list[int] = []  # the index of each block's first row
        self._count = 0
        if rows is not None and len(rows):
            if rows.ndim != 2 or rows.shape[1] != width or rows.dtype != self.dtype:
                raise ValueError(f"rows of shape {rows.shape} and type {rows.dtype} are not "
                                 f"{width} values of {self.dtype}")
            self._parts.append(rows)
            self._starts.append(0)
            self._count = len(rows)

    def __len__(self) -> int:
        return self._count

    def make_room(self) -> None:
        """A block with room for the next row (what can fail, memory, fails here: a caller
        keeping rows of several Blocks in line makes room in each before appending to any)."""
        if not self._parts or self._count == self._starts[-1] + len(self._parts[-1]):
            size = FIRST_BLOCK if not self._parts else min(LARGEST_BLOCK, max(FIRST_BLOCK, 2 * len(self._parts[-1])))
            self._parts.append(np.empty((size, self.width), dtype=self.dtype))
            self._starts.append(self._count)

    def append(self, row: np.ndarray) -> None:
        self.make_room()
        self._parts[-1][self._count - self._starts[-1]] = row
        self._count += 1

    def parts(self) -> Iterator[tuple[int, np.ndarray]]:
        """(index of its first row, its filled rows) for each block, in order: contiguous
        views, not copies."""
        for start, part in zip(self._starts, self._parts, strict=True):
            filled = min(len(part), self._count - start)
            if filled > 0:
                yield start, part[:filled]

    def take(self, indices: np.ndarray) -> np.ndarray:
        """The rows at ``indices`` (in that order), as one new array."""
        wanted = np.asarray(indices, dtype=np.int64).reshape(-1)
        if len(wanted) and (wanted.min() < 0 or wanted.max() >= self._count):
            raise IndexError("a row this does not hold")
        out = np.empty((len(wanted), self.width), dtype=self.dtype)
        if not len(wanted):
            return out
        which = np.searchsorted(np.asarray(self._starts, dtype=np.int64), wanted, side="right") - 1
        for part in np.unique(which).tolist():
            chosen = which == part
            out[chosen] = self._parts[part][wanted[chosen] - self._starts[part]]
        return out
