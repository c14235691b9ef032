"""Smallholder rules on whole numpy arrays of positions, over the compiled rules.

A key is ``black | white << n | white_to_move << 2n`` as in `games/smallholder/rules.py`
(``n`` cells), held in ``uint64`` arrays, so keys need ``n <= 31`` (``limping2``: 12
cells, ``hex3``: 19); the move functions take colour masks on any board of up to 64
cells. The work per position runs in the compiled kernels of
`games/smallholder/compiled.py` (loaded at the first `SmallholderArrays`, so importing
this module never loads numba); this module splits and joins keys and groups moves by
cell. The per-position engine in `games/smallholder` is the reference: the tests check
both against it on all 120 option combinations.
"""

from __future__ import annotations

from typing import Any, Iterator, Sequence

import numpy as np

from tablebase.games.bits import chunk_tables
from tablebase.games.smallholder.board import Board, get_board
from tablebase.games.smallholder.options import Rules, parse_rules

U64 = np.uint64
#: Largest board whose keys fit in 64 bits (two colour masks and the side bit).
MAX_KEY_CELLS = 31
#: Largest board whose one-colour bitboards fit a uint64 (what the array rules work on).
MAX_MASK_CELLS = 64
#: Largest chunk of a bitboard looked up at once (tables of 2**11 entries stay in cache).
MAX_CHUNK_BITS = 11
#: Positions analysed at once, to bound the temporary arrays.
SLICE = 1 << 18


class MaskMap:
    """A map of bitboards that is the union of per-bit images, as chunked lookup tables."""

    def __init__(self, images: Sequence[int], max_chunk_bits: int = MAX_CHUNK_BITS) -> None:
        bits = len(images)
        chunks = max(1, -(-bits // max_chunk_bits))
        self.chunk_bits = -(-bits // chunks)
        self.mask = U64((1 << self.chunk_bits) - 1)
        self.tables = np.array(chunk_tables(images, self.chunk_bits), dtype=U64)

    def __call__(self, masks: np.ndarray) -> np.ndarray:
        out = self.tables[0][(masks & self.mask).astype(np.intp)]
        for j in range(1, len(self.tables)):
            out |= self.tables[j][((masks >> U64(j * self.chunk_bits)) & self.mask).astype(np.intp)]
        return out


class SmallholderArrays:
    """The rules of one ruleset on one board, over arrays of keys (or colour masks)."""

    def __init__(self, board: str | Board, rules: str | Rules) -> None:
        from tablebase.games.smallholder.compiled import tables

        self.board = board if isinstance(board, Board) else get_board(board)
        self.rules = rules if isinstance(rules, Rules) else parse_rules(rules)
        n = self.board.size
        if n > MAX_MASK_CELLS:
            raise ValueError(f"{self.board.name} has {n} cells; the array rules handle at most {MAX_MASK_CELLS}")
        self.cells = n
        self.full = U64(self.board.full)
        # keys exist only on boards of up to MAX_KEY_CELLS cells (see check_keys)
        self.side_bit = U64(1 << 2 * n if n <= MAX_KEY_CELLS else 0)
        self.tables: Any = tables(self.board, self.rules)

    # -- keys ------------------------------------------------------------------------

    def check_keys(self) -> None:
        if self.cells > MAX_KEY_CELLS:
            raise ValueError(f"{self.board.name} has {self.cells} cells; keys hold at most {MAX_KEY_CELLS}")

    def split(self, keys: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(stones of the side to move, stones of the other side, white to move) per key."""
        n = U64(self.cells)
        black = keys & self.full
        white = (keys >> n) & self.full
        white_to_move = (keys & self.side_bit) != 0
        return np.where(white_to_move, white, black), np.where(white_to_move, black, white), white_to_move

    def join(self, mover: np.ndarray, waiter: np.ndarray, white_to_move: np.ndarray) -> np.ndarray:
        """Keys of the positions with these stones after a move (the other side to move)."""
        n = U64(self.cells)
        black = np.where(white_to_move, waiter, mover)
        white = np.where(white_to_move, mover, waiter)
        return black | (white << n) | np.where(white_to_move, U64(0), self.side_bit)

    def canonical(self, keys: np.ndarray) -> np.ndarray:
        """The smallest key over the board's symmetries, for every key (exact)."""
        from tablebase.games.smallholder.compiled import canonical_keys

        self.check_keys()
        return canonical_keys(np.asarray(keys, dtype=U64), self.tables)

    # -- moves -------------------------------------------------------------------------

    def moves(self, mover: np.ndarray, waiter: np.ndarray) -> Iterator[tuple[int, np.ndarray, np.ndarray, np.ndarray]]:
        """For each cell with a legal move somewhere: (cell, indices of the positions where
        it is legal, the mover's and the waiter's stones after it); ascending cells."""
        from tablebase.games.smallholder.compiled import expand

        parent, cell, after_mover, after_waiter = expand(np.asarray(mover, dtype=U64), np.asarray(waiter, dtype=U64),
                                                         self.tables)
        order = np.argsort(cell, kind="stable")  # by cell, each cell's positions in order
        cells = cell[order]
        bounds = np.flatnonzero(np.diff(cells)) + 1
        for group in np.split(order, bounds) if len(order) else []:
            yield int(cell[group[0]]), parent[group], after_mover[group], after_waiter[group]

    def children(self, keys: np.ndarray) -> Iterator[tuple[np.ndarray, np.ndarray]]:
        """(indices into ``keys``, child keys) for every move, a cell at a time; the child
        keys are not canonical. Positions are analysed a slice at a time."""
        self.check_keys()
        for start in range(0, len(keys), SLICE):
            part = keys[start:start + SLICE]
            mover, waiter, white_to_move = self.split(part)
            for _, where, after_mover, after_waiter in self.moves(mover, waiter):
                yield where + start, self.join(after_mover, after_waiter, white_to_move[where])

    def legal(self, keys: np.ndarray) -> np.ndarray:
        """The bitboard of legal moves of each key (0: the side to move has lost)."""
        from tablebase.games.smallholder.compiled import legal_of_keys

        self.check_keys()
        return legal_of_keys(np.asarray(keys, dtype=U64), self.tables)
