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
