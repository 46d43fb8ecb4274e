"""Rows in blocks: adding one never copies the rows held, and every row reads back."""

from __future__ import annotations

import numpy as np
import pytest

from storage.documents import blocks
from storage.documents.blocks import Blocks


def test_rows_read_back_in_order_across_many_blocks() -> None:
    held = Blocks(3, np.int16)
    rows = np.arange(3 * 5000, dtype=np.int16).reshape(5000, 3)
    for row in rows:
        held.append(row)
    assert len(held) == 5000
    parts = list(held.parts())
    assert len(parts) > 2 and parts[0][0] == 0
    assert np.array_equal(np.concatenate([part for _start, part in parts]), rows)
    assert all(part.flags.c_contiguous for _start, part in parts)
    chosen = np.array([4999, 0, 1023, 1024, 3071, 2500])
    assert np.array_equal(held.take(chosen), rows[chosen])
    assert held.take(np.zeros(0, dtype=np.int64)).shape == (0, 3)
    with pytest.raises(IndexError):
        held.take(np.array([5000]))


def test_rows_given_are_kept_where_they_are_and_added_ones_go_into_blocks_of_their_own() -> None:
    loaded = np.ones((10_000, 4), dtype=np.int8)
    held = Blocks(4, np.int8, loaded)
    for _ in range(3000):
        held.append(np.full(4, 2, dtype=np.int8))
    first = next(held.parts())[1]
    assert np.shares_memory(first, loaded) and len(first) == 10_000  # not copied
    assert [len(part) for _start, part in held.parts()] == [10_000, 3000]  # one block of 20,000 rows
    assert held.take(np.array([9_999, 10_000]))[:, 0].tolist() == [1, 2]
    with pytest.raises(ValueError):
        Blocks(4, np.int8, np.ones((3, 5), dtype=np.int8))



def test_blocks_double_from_the_first_up_to_the_largest() -> None:
    held = Blocks(1, np.uint8)
    for _ in range(300_000):
        held.append(np.zeros(1, dtype=np.uint8))
    sizes = [len(part) for _start, part in held.parts()]
    assert sizes[:3] == [blocks.FIRST_BLOCK, 2 * blocks.FIRST_BLOCK, 4 * blocks.FIRST_BLOCK]
    assert max(sizes) == blocks.LARGEST_BLOCK and sum(sizes) == 300_000
