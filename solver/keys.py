"""Small whole-array helpers on sorted arrays of position keys, shared by the solvers."""

from __future__ import annotations

import numpy as np


def sorted_unique(keys: np.ndarray) -> np.ndarray:
    """The distinct values of already sorted ``keys`` (np.unique without its sort and
    hashing overhead, which dominates on tens of millions of keys)."""
    if len(keys) == 0:
        return keys
    keep = np.empty(len(keys), dtype=bool)
    keep[0] = True
    np.not_equal(keys[1:], keys[:-1], out=keep[1:])
    return keys[keep]


def stone_counts(keys: np.ndarray, cells: int) -> np.ndarray:
    """The tier of each key of a board of ``cells`` cells: its number of stones (or
    marbles), the set bits of the two colour masks in the key's low ``2 * cells`` bits.
    Both games' tables are stored by this tier."""
    return np.bitwise_count(np.asarray(keys, dtype=np.uint64) & np.uint64((1 << 2 * cells) - 1)).astype(np.int64)
