"""Sparro rules on whole numpy arrays of position keys (the retrograde solver's fast path).

A key is ``red | black << 24 | red_has_token << 48`` as in `games/sparro/rules.py`, held in
``uint64`` arrays. Every function here works on a whole array at once; the loops run
over the 24 cells, the 24 lines or the 8 symmetries, never over positions. The
per-position engine in `games/sparro` is the reference: tests check this module
against it.
"""

from __future__ import annotations

import functools
from typing import Iterator

import numpy as np

from tablebase.games.sparro.geometry import (
    CORNER_CELLS,
    EDGE_CENTRE_CELLS,
    FULL_MASK,
    LINE_MASKS,
    LINES_THROUGH,
    NUM_CELLS,
    PLATFORM_MASKS,
    SYMMETRIES,
)
from tablebase.games.bits import chunk_tables, permutation_images
from tablebase.games.sparro.rules import Sparro

U64 = np.uint64
BOARD_MASK = U64(FULL_MASK)
TOKEN_BIT = U64(1 << 2 * NUM_CELLS)
BOARD_BITS = TOKEN_BIT - U64(1)
CHUNK_BITS = 12  # a key's 48 board bits are permuted 12 at a time through lookup tables
CHUNKS = 2 * NUM_CELLS // CHUNK_BITS
SLICE = 1 << 22  # positions canonicalised at once, to bound temporary memory
LINES = [U64(line) for line in LINE_MASKS]


def _chunk_tables() -> np.ndarray:
    """tables[s, j, v]: the key bits that chunk j of a key with value v becomes under symmetry s
    (a key permutes as two 24-bit colour masks)."""
    return np.array([chunk_tables(permutation_images(perm, masks=2), CHUNK_BITS) for perm in SYMMETRIES], dtype=U64)


@functools.cache
def _tables() -> np.ndarray:
    return _chunk_tables()  # built on first use: ~0.3 s that a quick probe does not need


def canonical(keys: np.ndarray) -> np.ndarray:
    """The smallest key over the 8 symmetry images, for every key of the array."""
    tables = _tables()
    out = np.empty_like(keys)
    for start in range(0, len(keys), SLICE):
        part = keys[start:start + SLICE]
        chunks = [((part >> U64(j * CHUNK_BITS)) & U64((1 << CHUNK_BITS) - 1)).astype(np.intp)
                  for j in range(CHUNKS)]
        best = part & BOARD_BITS  # symmetry 0 is the identity; the token bit is added back below
        for s in range(1, len(SYMMETRIES)):
            image = tables[s, 0][chunks[0]]
            for j in range(1, CHUNKS):
                image |= tables[s, j][chunks[j]]
            np.minimum(best, image, out=best)
        out[start:start + SLICE] = best | (part & TOKEN_BIT)
    return out


def red_of(keys: np.ndarray) -> np.ndarray:
    return keys & BOARD_MASK


def black_of(keys: np.ndarray) -> np.ndarray:
    return (keys >> U64(NUM_CELLS)) & BOARD_MASK


def has_line(masks: np.ndarray) -> np.ndarray:
    """Whether each colour mask contains a complete line."""
    found = np.zeros(len(masks), dtype=bool)
    for line in LINES:
        found |= (masks & line) == line
    return found


def count_lines(masks: np.ndarray) -> np.ndarray:
    """How many complete lines each colour mask contains."""
    count = np.zeros(len(masks), dtype=np.int8)
    for line in LINES:
        count += (masks & line) == line
    return count


class SparroArrays:
    """The rules of one variant over arrays of keys that all hold ``tier`` marbles."""

    def __init__(self, variant: str) -> None:
        self.rules = Sparro(variant)

    def mover_shift(self, tier: int) -> U64:
        """Bit offset of the mover's colour in a key (Red moves on even tiers)."""
        return U64(0 if tier % 2 == 0 else NUM_CELLS)

    def terminal(self, keys: np.ndarray, tier: int) -> tuple[np.ndarray, np.ndarray]:
        """(is over, value for the side to move: +1 win / 0 draw / -1 loss) for each key of the tier."""
        red, black = red_of(keys), black_of(keys)
        red_to_move = tier % 2 == 0
        drawn = np.zeros(len(keys), dtype=bool)
        if not self.rules.extended:
            last_mover = black if red_to_move else red
            line = has_line(last_mover)
            over = line | (tier == NUM_CELLS)
            # the last mover's line wins for them; a full board with no line is Black's
            red_wins = np.zeros(len(keys), dtype=bool) if red_to_move else line
            if self.rules.full_board_winner is None:
                drawn = over & ~line
        else:
            over = np.full(len(keys), tier == NUM_CELLS)
            red_lines, black_lines = count_lines(red), count_lines(black)
            red_has_token = (keys & TOKEN_BIT) != 0
            red_wins = (red_lines > black_lines) | ((red_lines == black_lines) & red_has_token)
        mover_wins = red_wins if red_to_move else ~red_wins
        return over, np.where(drawn, 0, np.where(mover_wins, 1, -1)).astype(np.int8)

    def children(self, keys: np.ndarray, tier: int) -> Iterator[tuple[np.ndarray, np.ndarray]]:
        """For each cell: (indices of the keys where it is a legal move, the child keys).

        Child keys are not canonicalised. ``keys`` must hold non-terminal positions.
        """
        occupied = red_of(keys) | black_of(keys)
        shift = self.mover_shift(tier)
        first_reply = self.rules.first_move_rule and tier == 1
        if first_reply:
            red_on_corner = (keys & U64(sum(1 << c for c in CORNER_CELLS))) != 0
        for cell in range(NUM_CELLS):
            bit = U64(1 << cell)
            platform = U64(PLATFORM_MASKS[cell])
            free = ((occupied & bit) == 0) & ((occupied & platform) == platform)
            if first_reply:  # the extended first-move rule (docs/sparro.md, Variants)
                if cell in EDGE_CENTRE_CELLS:
                    free &= red_on_corner
                elif cell in CORNER_CELLS:
                    free &= ~red_on_corner
                else:
                    continue
            where = np.flatnonzero(free)
            if len(where) == 0:
                continue
            child = keys[where] | (bit << shift)
            if self.rules.extended:
                mover = (child >> shift) & BOARD_MASK
                made = np.zeros(len(child), dtype=bool)
                for line in LINES_THROUGH[cell]:
                    made |= (mover & U64(line)) == U64(line)
                child = np.where(made, (child | TOKEN_BIT) if shift == 0 else (child & ~TOKEN_BIT), child)
            yield where, child
