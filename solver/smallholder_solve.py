"""Strong solution of a Smallholder ruleset on a small board (up to 31 cells).

1. `enumerate_graph` walks breadth-first from the empty board with the array rules
   (`solver/smallholder_arrays.py`): per ply, the children of the whole frontier at once,
   reduced to canonical keys, sorted, and the new ones kept. Each move is kept as an
   edge; at the end the edges become the reversed graph (CSR over the sorted keys).
2. `solve_ruleset` runs the counting retrograde of `solver/graph.py` on that graph:
   exact win / loss / draw and remoteness for every canonical reachable position.

Captures remove stones, so a position can come back and the graph may have cycles;
the retrograde handles them (infinite play is a draw, RULES.md 2.5).

Storage: the payload of a position is one ``uint16``: the remoteness in the low 14
bits, ``WIN_FLAG`` when the side to move wins, ``DRAW_FLAG`` for a draw (remoteness 0).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Callable

import numpy as np

from tablebase.games.base import DRAW, LOSS, WIN
from tablebase.games.smallholder.board import Board
from tablebase.games.smallholder.options import Rules
from tablebase.solver.graph import GraphSolution, csr_offsets, reaches_cycle, solve_reversed
from tablebase.solver.keys import sorted_unique
from tablebase.solver.smallholder_arrays import SmallholderArrays

U64 = np.uint64
#: The rules engine has no version constant of its own: bump this when its rules change.
RULES_VERSION = "smallholder-rules-1"
#: Bumped whenever the solver's results or the payload layout could change.
SOLVER_VERSION = "graph-1"
PAYLOAD_DTYPE = "u2"
REMOTENESS_MASK = 0x3FFF
WIN_FLAG = 0x4000
DRAW_FLAG = 0x8000

#: progress(stage, step, positions so far): stage "enumerate" (step = ply) or "solve" (step = level)
Progress = Callable[[str, int, int], None]


@dataclass(frozen=True)
class SolvedRuleset:
    """Exact results of every canonical position reachable from the empty board."""

    keys: np.ndarray  # uint64, sorted canonical keys
    values: np.ndarray  # int8: WIN, LOSS or DRAW for the side to move
    remoteness: np.ndarray  # int32; -1 for a draw
    moves: int  # edges of the graph (legal moves of all positions, symmetric ones apart)
    plies: int  # the deepest breadth-first ply (the longest shortest line from the start)
    cyclic: int  # positions from which a line of play can go on forever
    seconds: dict[str, float]  # per stage

    @property
    def start(self) -> tuple[int, int | None]:
        """(value, remoteness) of the empty board, Black to move (key 0, the smallest;
        meaningless when solved from other roots)."""
        value = int(self.values[0])
        return value, None if value == DRAW else int(self.remoteness[0])


def contains_sorted(haystack: np.ndarray, needles: np.ndarray) -> np.ndarray:
    """Whether each of the sorted ``needles`` is in the sorted ``haystack``.

    Sorted needles keep `np.searchsorted` cache-friendly: on random needles it is tens
    of times slower on large arrays.
    """
    if len(haystack) == 0:
        return np.zeros(len(needles), dtype=bool)
    at = np.minimum(np.searchsorted(haystack, needles), len(haystack) - 1)
    return haystack[at] == needles


def _bits_for(count: int) -> int:
    return max(1, int(count - 1).bit_length())


@dataclass(frozen=True)
class _Ply:
    """One breadth-first ply: its positions and their moves, sorted by child key."""

    keys: np.ndarray  # sorted canonical keys first reached at this ply
    edges: np.ndarray  # uint64: child key << parent_bits | index of the parent in ``keys``
    parent_bits: int


def enumerate_graph(arrays: SmallholderArrays, progress: Progress | None = None, roots: np.ndarray | None = None
                    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
    """Every canonical position reachable from the empty board (or from the ``roots``
    keys) and the reversed move graph.

    Returns (sorted keys, reversed-graph offsets, reversed-graph parents, plies): the
    positions with a move to ``keys[v]`` are ``parents[offsets[v]:offsets[v + 1]]``
    (indices into ``keys``; one entry per move, so two moves to symmetric children
    give two entries).
    """
    arrays.check_keys()
    key_bits = 2 * arrays.cells + 1
    frontier = sorted_unique(np.sort(arrays.canonical(np.zeros(1, dtype=U64) if roots is None else roots)))
    visited = frontier
    plies: list[_Ply] = []
    while len(frontier):
        parent_bits = _bits_for(len(frontier))
        if key_bits + parent_bits > 64:
            raise ValueError(f"{len(frontier):,} positions in one ply of {arrays.board.name}: too many to pack")
        parts = [arrays.canonical(child) << U64(parent_bits) | where.astype(U64)
                 for where, child in arrays.children(frontier)]
        edges = np.concatenate(parts) if parts else np.zeros(0, dtype=U64)
        del parts
        edges.sort()
        candidates = sorted_unique(edges >> U64(parent_bits))
        fresh = candidates[~contains_sorted(visited, candidates)]
        del candidates
        plies.append(_Ply(frontier, edges, parent_bits))
        if len(fresh):
            # timsort merges the two sorted runs in linear time
            visited = np.sort(np.concatenate([visited, fresh]), kind="stable")
        frontier = fresh
        if progress:
            progress("enumerate", len(plies), len(visited))
    depth = len(plies) - 1
    return (*_reverse(visited, plies), depth)


def _reverse(keys: np.ndarray, plies: list[_Ply]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The reversed graph over ``keys`` from the plies' edges (which are consumed)."""
    total = sum(len(p.edges) for p in plies)
    packed = np.empty(total, dtype=U64)
    at = 0
    while plies:
        ply = plies.pop(0)
        ranks = np.searchsorted(keys, ply.keys).astype(U64)  # sorted needles: fast
        child = np.searchsorted(keys, ply.edges >> U64(ply.parent_bits)).astype(U64)  # sorted too
        parent = ranks[(ply.edges & U64((1 << ply.parent_bits) - 1)).astype(np.intp)]
        packed[at:at + len(child)] = child << U64(32) | parent
        at += len(child)
    packed.sort()
    parents = (packed & U64(0xFFFFFFFF)).astype(np.int32)
    counts = np.bincount((packed >> U64(32)).astype(np.intp), minlength=len(keys))
    return keys, csr_offsets(counts), parents


def solve_ruleset(board: Board | str, rules: Rules | str, progress: Progress | None = None,
                  roots: np.ndarray | None = None) -> SolvedRuleset:
    """Exact value and remoteness of every canonical position reachable from the empty
    board, or from the ``roots`` keys (see the module doc)."""
    arrays = SmallholderArrays(board, rules)
    started = time.perf_counter()
    keys, rev_offsets, rev_parents, plies = enumerate_graph(arrays, progress, roots)
    enumerated = time.perf_counter()
    if progress:
        progress("solve", 0, len(keys))
    solution: GraphSolution = solve_reversed(rev_offsets, rev_parents)
    solved = time.perf_counter()
    if progress:
        progress("solve", solution.levels, len(keys))
    cyclic = int(np.count_nonzero(reaches_cycle(rev_offsets, rev_parents)))
    seconds = {"enumerate": enumerated - started, "retrograde": solved - enumerated,
               "cycles": time.perf_counter() - solved}
    return SolvedRuleset(keys, solution.values, solution.remoteness, len(rev_parents), plies, cyclic, seconds)


# -- payload ---------------------------------------------------------------------------


def pack_results(values: np.ndarray, remoteness: np.ndarray) -> np.ndarray:
    """The ``uint16`` payload of each position (see the module doc)."""
    if len(remoteness) and int(remoteness.max()) > REMOTENESS_MASK:
        raise ValueError(f"remoteness {int(remoteness.max())} does not fit the payload ({REMOTENESS_MASK} at most)")
    payload = np.where(values == DRAW, 0, remoteness).astype(np.uint16)
    payload |= np.where(values == WIN, WIN_FLAG, 0).astype(np.uint16)
    payload |= np.where(values == DRAW, DRAW_FLAG, 0).astype(np.uint16)
    return payload


def unpack_results(payload: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(values, remoteness with -1 for draws) of payload entries."""
    payload = np.asarray(payload, dtype=np.uint16)
    draw = (payload & DRAW_FLAG) != 0
    values = np.where(draw, DRAW, np.where(payload & WIN_FLAG, WIN, LOSS)).astype(np.int8)
    remoteness = np.where(draw, -1, (payload & REMOTENESS_MASK).astype(np.int32))
    return values, remoteness


def stone_counts(keys: np.ndarray, cells: int) -> np.ndarray:
    """The number of stones of each key: the tier it is stored under."""
    return np.bitwise_count(np.asarray(keys, dtype=U64) & U64((1 << 2 * cells) - 1)).astype(np.int64)
