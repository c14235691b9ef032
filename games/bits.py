"""Lookup tables that move the bits of a bitboard: the one bit-permutation helper.

A symmetry of a board sends cell ``i`` to cell ``perm[i]``; applied to a bitboard (or
to a position key made of several colour masks) it is the union, over the set bits
``j`` of the mask, of the image of bit ``j``. Both games and their array solvers apply
it through tables built here: the mask is cut into chunks of a few bits and each chunk's
value indexes a table holding the union of that chunk's bit images.
"""

from __future__ import annotations

from typing import Sequence


def union_table(images: Sequence[int]) -> list[int]:
    """``table[value]``: the union of ``images[j]`` over the set bits ``j`` of ``value``
    (``2 ** len(images)`` entries)."""
    table = [0] * (1 << len(images))
    for value in range(1, len(table)):
        low = value & -value
        # each entry is a smaller one plus the image of one more bit
        table[value] = table[value ^ low] | images[low.bit_length() - 1]
    return table


def chunk_tables(images: Sequence[int], chunk_bits: int) -> list[list[int]]:
    """One `union_table` per chunk of ``chunk_bits`` bits of a mask of ``len(images)``
    bits (the last chunk padded with bits whose image is empty): the image of a mask is
    the union of ``tables[c][(mask >> c * chunk_bits) & (2 ** chunk_bits - 1)]``."""
    chunks = max(1, -(-len(images) // chunk_bits)) if chunk_bits else 1
    padded = list(images) + [0] * (chunks * chunk_bits - len(images))
    return [union_table(padded[c * chunk_bits:(c + 1) * chunk_bits]) for c in range(chunks)]


def permutation_images(perm: Sequence[int], masks: int = 1) -> list[int]:
    """The bit images of a cell permutation applied to ``masks`` consecutive masks of
    ``len(perm)`` bits each (a key of two colour masks: ``masks=2``)."""
    n = len(perm)
    return [1 << (perm[i] + m * n) for m in range(masks) for i in range(n)]
