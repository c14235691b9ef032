"""Smallholder rules on whole numpy arrays of positions (the graph solver's fast path).

A key is ``black | white << n | white_to_move << 2n`` as in `games/smallholder/rules.py`
(``n`` cells), held in ``uint64`` arrays, so keys need ``n <= 31`` (``limping2``: 12
cells, ``hex3``: 19). Every function works on a whole array at once; the loops run over
cells, directions, groups or symmetries, never over positions. The per-position engine
in `games/smallholder` is the reference: the tests check this module against it on all
120 option combinations.

Bitboard maps that are a union of per-cell images (the neighbours of a set of cells,
the cells that see a set of cells in one direction, a symmetry) are applied through
lookup tables indexed by chunks of the bitboard, one gather per chunk.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Iterator, Sequence

import numpy as np

from tablebase.games.smallholder.board import AXES, Board, get_board
from tablebase.games.smallholder.options import Rules, parse_rules

U64 = np.uint64
#: Largest board whose keys fit in 64 bits (two colour masks and the side bit).
MAX_KEY_CELLS = 31
#: Largest board whose one-colour bitboards fit a uint64 (what the array rules work on).
MAX_MASK_CELLS = 63
#: Largest chunk of a bitboard looked up at once (tables of 2**11 entries stay in cache).
MAX_CHUNK_BITS = 11
#: Chunk size for the symmetries of whole keys: fewer, larger tables (still in L2) make
#: fewer gathers, the main cost of canonical keys.
KEY_CHUNK_BITS = 13
#: Boards up to this many cells get lookup tables over every bitboard for groups and
#: holdings (2**n entries of 4 bytes each: 2 MB for hex3), replacing flood fills.
TABLE_CELLS = 22
#: Positions analysed at once, to bound the temporary arrays (about 40 per position).
SLICE = 1 << 18
#: Direction pairs whose lines of sight must both meet a group, per territory (RULES.md 2.2).
SIGHT_PAIRS = {"gap": AXES, "hull": tuple((d, (d + 2) % 6) for d in range(6))}


class MaskMap:
    """A map of bitboards that is the union of per-bit images, as chunked lookup tables."""

    def __init__(self, images: Sequence[int], max_chunk_bits: int = MAX_CHUNK_BITS) -> None:
        bits = len(images)
        chunks = max(1, -(-bits // max_chunk_bits))
        self.chunk_bits = -(-bits // chunks)
        self.mask = U64((1 << self.chunk_bits) - 1)
        tables = np.zeros((chunks, 1 << self.chunk_bits), dtype=U64)
        for j in range(chunks):
            table = [0] * (1 << self.chunk_bits)
            for value in range(1, 1 << self.chunk_bits):
                low = value & -value
                bit = j * self.chunk_bits + low.bit_length() - 1
                # each entry is a smaller one plus the image of one more bit
                table[value] = table[value ^ low] | (images[bit] if bit < bits else 0)
            tables[j] = table
        self.tables = tables

    def __call__(self, masks: np.ndarray) -> np.ndarray:
        out = self.tables[0][(masks & self.mask).astype(np.intp)]
        for j in range(1, len(self.tables)):
            out |= self.tables[j][((masks >> U64(j * self.chunk_bits)) & self.mask).astype(np.intp)]
        return out


def lowest_bit(masks: np.ndarray) -> np.ndarray:
    """The lowest set bit of each mask (0 for 0): ``x & -x`` in unsigned arithmetic."""
    return masks & (~masks + U64(1))


@functools.cache
def _key_symmetry_maps(board: Board) -> list[MaskMap]:
    """Each symmetry but the identity as a map of keys without the side bit (built once
    per board: the tables take a moment to fill)."""
    n = board.size
    # a key permutes as two colour masks; the side bit is kept apart
    return [MaskMap([1 << perm[i] for i in range(n)] + [1 << (perm[i] + n) for i in range(n)], KEY_CHUNK_BITS)
            for perm in board.symmetries[1:]]


def flood(neighbours: MaskMap, seeds: np.ndarray, within: np.ndarray) -> np.ndarray:
    """The cells of ``within`` connected to ``seeds`` (a subset of it), per position."""
    grown = seeds.copy()
    active = np.arange(len(seeds))
    current, space = seeds, within
    while len(active):
        bigger = (neighbours(current) | current) & space
        changed = bigger != current
        grown[active] = bigger
        active, current, space = active[changed], bigger[changed], space[changed]
    return grown


def holdings_by_sight(sight: Sequence[MaskMap], pairs: Sequence[tuple[int, int]], stones: np.ndarray) -> np.ndarray:
    """The cells held by each mask taken as one group, from its lines of sight."""
    seen = {d: sight[d](stones) for d in sorted({d for pair in pairs for d in pair})}
    held = np.zeros(len(stones), dtype=U64)
    for a, b in pairs:
        held |= seen[a] & seen[b]
    return held


def _sight_maps(board: Board) -> list[MaskMap]:
    """sight[d](stones): the cells whose line of sight in direction d meets a stone."""
    return [MaskMap(board.rays[(d + 3) % 6]) for d in range(6)]


@functools.cache
def _group_table(board: Board) -> np.ndarray:
    """table[mask]: the group of the lowest stone of ``mask`` (uint32), for every mask."""
    masks = np.arange(1 << board.size, dtype=U64)
    return flood(MaskMap(board.neighbour_mask), lowest_bit(masks), masks).astype(np.uint32)


@functools.cache
def _holdings_table(board: Board, territory: str) -> np.ndarray:
    """table[mask]: the cells held by ``mask`` taken as one group (uint32), for every mask."""
    masks = np.arange(1 << board.size, dtype=U64)
    return holdings_by_sight(_sight_maps(board), SIGHT_PAIRS[territory], masks).astype(np.uint32)


@dataclass(frozen=True)
class Groups:
    """The groups of one colour in each position: ``stones[k]`` is the k-th group of
    each position (0 where there are fewer), with its holdings."""

    stones: list[np.ndarray]
    holdings: list[np.ndarray]

    def union_holdings(self, length: int) -> np.ndarray:
        out = np.zeros(length, dtype=U64)
        for held in self.holdings:
            out |= held
        return out


class SmallholderArrays:
    """The rules of one ruleset on one board, over arrays of keys (or colour masks)."""

    def __init__(self, board: str | Board, rules: str | Rules) -> None:
        self.board = board if isinstance(board, Board) else get_board(board)
        self.rules = rules if isinstance(rules, Rules) else parse_rules(rules)
        n = self.board.size
        if n > MAX_MASK_CELLS:
            raise ValueError(f"{self.board.name} has {n} cells; the array rules handle at most {MAX_MASK_CELLS}")
        self.cells = n
        self.full = U64(self.board.full)
        # keys exist only on boards of up to MAX_KEY_CELLS cells (see check_keys)
        self.side_bit = U64(1 << 2 * n if n <= MAX_KEY_CELLS else 0)
        self.neighbours = MaskMap(self.board.neighbour_mask)
        self.sight = _sight_maps(self.board)
        self.pairs = SIGHT_PAIRS[self.rules.territory]
        self._group_table: np.ndarray | None = None
        self._holdings_table: np.ndarray | None = None
        if n <= TABLE_CELLS:
            self._group_table = _group_table(self.board)
            self._holdings_table = _holdings_table(self.board, self.rules.territory)

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

    @property
    def _symmetry_maps(self) -> list[MaskMap]:
        return _key_symmetry_maps(self.board)

    def canonical(self, keys: np.ndarray) -> np.ndarray:
        """The smallest key over the board's symmetries, for every key (exact)."""
        self.check_keys()
        board_bits = self.side_bit - U64(1)
        maps = self._symmetry_maps
        out = np.empty_like(keys)
        if not maps:
            return keys.copy()
        # every symmetry map splits a key the same way: find the chunks once per slice
        chunk_bits, mask, chunks = maps[0].chunk_bits, maps[0].mask, len(maps[0].tables)
        for start in range(0, len(keys), SLICE):
            part = keys[start:start + SLICE]
            stones = part & board_bits
            index = [((stones >> U64(j * chunk_bits)) & mask).astype(np.intp) for j in range(chunks)]
            best = stones
            image = np.empty_like(stones)
            piece = np.empty_like(stones)
            for symmetry in maps:
                np.take(symmetry.tables[0], index[0], out=image)
                for j in range(1, chunks):
                    np.take(symmetry.tables[j], index[j], out=piece)
                    image |= piece
                np.minimum(best, image, out=best)
            out[start:start + SLICE] = best | (part & self.side_bit)
        return out

    # -- groups and holdings -----------------------------------------------------------

    def holdings(self, stones: np.ndarray) -> np.ndarray:
        """The cells held by each mask taken as one group."""
        if self._holdings_table is not None:
            return self._holdings_table[stones.astype(np.intp)].astype(U64)
        return holdings_by_sight(self.sight, self.pairs, stones)

    def flood(self, seeds: np.ndarray, within: np.ndarray) -> np.ndarray:
        """The cells of ``within`` connected to ``seeds`` (a subset of it), per position."""
        return flood(self.neighbours, seeds, within)

    def groups(self, stones: np.ndarray) -> Groups:
        """Every group of each mask, peeled off one at a time from the lowest stone."""
        rest = stones.copy()
        found, held = [], []
        active = np.flatnonzero(rest)
        while len(active):
            left = rest[active]
            if self._group_table is not None:
                group = self._group_table[left.astype(np.intp)].astype(U64)
            else:
                group = self.flood(lowest_bit(left), left)
            stones_k = np.zeros(len(stones), dtype=U64)
            stones_k[active] = group
            held_k = np.zeros(len(stones), dtype=U64)
            held_k[active] = self.holdings(group)
            found.append(stones_k)
            held.append(held_k)
            rest[active] = left ^ group
            active = active[left != group]
        return Groups(found, held)

    # -- moves -------------------------------------------------------------------------

    def analyse(self, mover: np.ndarray, waiter: np.ndarray) -> Analysis:
        """The legal moves of each position (bitboards), and what captures need."""
        rules = self.rules
        length = len(mover)
        empty = self.full & ~(mover | waiter)
        own, enemy = self.groups(mover), self.groups(waiter)
        next_to_own = self.neighbours(mover)
        playable = empty & ~enemy.union_holdings(length)
        if rules.reentry:
            playable |= empty & next_to_own
        big = np.full(length, 255, dtype=np.uint8)
        smallest_live, smallest_any = big.copy(), big.copy()
        live_count = np.zeros(length, dtype=np.int8)
        group_count = np.zeros(length, dtype=np.int8)
        sizes = []
        for stones in own.stones:
            exists = stones != 0
            size = np.bitwise_count(stones)
            live = (self.neighbours(stones) & playable) != 0
            np.minimum(smallest_any, np.where(exists, size, 255), out=smallest_any)
            np.minimum(smallest_live, np.where(live, size, 255), out=smallest_live)
            live_count += live
            group_count += exists
            sizes.append(size)
        # m or m' of RULES.md 2.3; a group next to a playable cell is live, so "<= m" is "== m"
        smallest = smallest_live if rules.adjacent.startswith("smallest-playable") else smallest_any
        of_smallest = np.zeros(length, dtype=U64)
        for stones, size in zip(own.stones, sizes):
            of_smallest |= np.where(size == smallest, stones, U64(0))
        creates = playable & ~next_to_own
        extensions = playable & next_to_own
        if rules.adjacent.endswith("-only"):
            extensions &= ~self.neighbours(mover & ~of_smallest)
        else:
            extensions &= self.neighbours(of_smallest)
        count = live_count if rules.groups.endswith("-live") else group_count
        if rules.groups == "priority-create":
            allowed = creates == 0
        elif rules.groups.startswith("must-create"):
            allowed = count >= 2
        else:
            allowed = (count >= 2) | (creates == 0)
        extensions = np.where(allowed, extensions, U64(0))
        return Analysis(mover, waiter, creates | extensions, extensions, own, enemy)

    def captured(self, analysis: Analysis, cell: int, where: np.ndarray) -> np.ndarray:
        """The enemy stones removed by the extension at ``cell`` in positions ``where``."""
        bit = U64(1 << cell)
        near = U64(self.board.neighbour_mask[cell])
        merged = np.full(len(where), bit, dtype=U64)
        held = np.zeros(len(where), dtype=U64)
        for stones, group_held in zip(analysis.own.stones, analysis.own.holdings):
            stones = stones[where]
            touching = (stones & near) != 0
            merged |= np.where(touching, stones, U64(0))
            held |= np.where(touching, U64(0), group_held[where])
        # the mover's holdings after the move: the merged group's and every other group's
        held |= self.holdings(merged)
        if self.rules.capture == "piecewise":
            return analysis.waiter[where] & held
        taken = np.zeros(len(where), dtype=U64)
        for stones in analysis.enemy.stones:
            stones = stones[where]
            taken |= np.where((stones & ~held) == 0, stones, U64(0))
        return taken

    def moves(self, mover: np.ndarray, waiter: np.ndarray) -> Iterator[tuple[int, np.ndarray, np.ndarray, np.ndarray]]:
        """For each cell: (cell, indices of the positions where it is legal, the mover's
        and the waiter's stones after it)."""
        analysis = self.analyse(mover, waiter)
        for cell in range(self.cells):
            bit = U64(1 << cell)
            where = np.flatnonzero(analysis.legal & bit)
            if len(where) == 0:
                continue
            after_waiter = waiter[where]
            extending = np.flatnonzero(analysis.extensions[where] & bit)
            if len(extending):
                after_waiter[extending] &= ~self.captured(analysis, cell, where[extending])
            yield cell, where, mover[where] | bit, after_waiter

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
        self.check_keys()
        out = np.empty(len(keys), dtype=U64)
        for start in range(0, len(keys), SLICE):
            mover, waiter, _ = self.split(keys[start:start + SLICE])
            out[start:start + SLICE] = self.analyse(mover, waiter).legal
        return out


@dataclass(frozen=True)
class Analysis:
    """Move generation state of an array of positions (see `SmallholderArrays.analyse`)."""

    mover: np.ndarray
    waiter: np.ndarray
    legal: np.ndarray  # bitboard of legal moves
    extensions: np.ndarray  # bitboard of the legal moves that extend a group
    own: Groups
    enemy: Groups
