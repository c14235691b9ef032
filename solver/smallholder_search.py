"""Exact Smallholder results beyond the stored tables: a bounded local solve.

`LocalSearch.solve(pos)` explores every position reachable from ``pos`` with the
per-position rules engine (`games/smallholder`, so it shares no move-generation code
with the tables), keyed by canonical key in a transposition table of indices, and then
solves that subgraph with the counting retrograde of `solver/graph.py`. Its answers
are exact (value and remoteness; a draw is proved infinite play), or None ("unknown")
when the subgraph has more positions than the node budget or the time budget runs out.

Why not alpha-beta as for Sparro (`solver/search.py`)? Captures make the Smallholder
graph cyclic under some options, and a depth-first search that meets a repetition
cannot store what it found in a table without the graph-history interaction problem:
a value proved "on this path" is not a value of the position. Solving the explored
subgraph as a whole needs no such care, and the remoteness of every move comes for
free. The cost is that nothing is pruned, which suits endgames: on ``hex4`` a position
with a dozen empty cells has a few thousand reachable positions (about a second).
"""

from __future__ import annotations

import functools
import time

import numpy as np

from tablebase.games.smallholder import Board, Position, Smallholder
from tablebase.solver.graph import solve_graph
from tablebase.solver.probe import Outcome, outcomes
from tablebase.solver.smallholder_arrays import MaskMap, SmallholderArrays

#: Default number of positions one solve may explore (about 4,000 per second).
DEFAULT_NODE_BUDGET = 200_000


class LocalSearch:
    """Exact results of one ruleset from the rules engine; proved results are kept
    between calls (canonical key -> Outcome), so probing a position's moves after the
    position itself costs nothing."""

    def __init__(self, game: Smallholder, node_budget: int | None = DEFAULT_NODE_BUDGET,
                 time_budget: float | None = None) -> None:
        self.game = game
        self.node_budget = node_budget
        self.time_budget = time_budget
        self.table: dict[int, Outcome] = {}
        #: positions explored by the last call of `solve`
        self.nodes = 0

    def solve(self, pos: Position) -> Outcome | None:
        """The exact outcome of ``pos`` for the side to move, or None if a budget ran out."""
        return self._solve(pos, self._deadline(), self.node_budget)

    def outcomes(self, keys: list[int]) -> list[Outcome | None]:
        """`solve` for canonical keys (the `solver.probe.Lookup` signature) within one budget
        for them all, as the exact search does: a probe asks for a position and its moves'
        positions at once, and ``time_budget`` and ``node_budget`` bound the probe."""
        deadline, left = self._deadline(), self.node_budget
        found: list[Outcome | None] = []
        for key in keys:
            if (deadline is not None and time.perf_counter() > deadline) or (left is not None and left <= 0):
                found.append(self.table.get(key))  # past the budget, only what is proved already
                continue
            found.append(self._solve(self.game.from_key(key), deadline, left))
            if left is not None:
                left -= self.nodes
        return found

    def _deadline(self) -> float | None:
        return None if self.time_budget is None else time.perf_counter() + self.time_budget

    def _solve(self, pos: Position, deadline: float | None, node_budget: int | None) -> Outcome | None:
        key = self.game.canonical_key(pos)
        known = self.table.get(key)
        if known is not None:
            self.nodes = 0
            return known
        explored = self._explore(pos, key, deadline, node_budget)
        if explored is None:
            return None
        keys, parents, children = explored
        solution = solve_graph(len(keys), np.array(parents, dtype=np.int64), np.array(children, dtype=np.int64))
        self.table.update(zip(keys, outcomes(solution.values, solution.remoteness)))
        return self.table[key]

    def _explore(self, root: Position, root_key: int, deadline: float | None,
                 node_budget: int | None) -> tuple[list[int], list[int], list[int]] | None:
        """(keys, edge parents, edge children) of the subgraph below ``root``, or None when
        it has more than ``node_budget`` positions or the clock passes ``deadline``."""
        game = self.game
        index = {root_key: 0}
        keys, stack = [root_key], [root]
        parents: list[int] = []
        children: list[int] = []
        # depth-first: the stack holds positions whose moves are not listed yet; position
        # number i is stack-ordered, so the parent of each move is the popped position's index
        order = [0]
        while stack:
            pos, here = stack.pop(), order.pop()
            for _, child in game.children(pos):
                child_key = game.canonical_key(child)
                there = index.get(child_key)
                if there is None:
                    there = index[child_key] = len(keys)
                    keys.append(child_key)
                    if node_budget is not None and len(keys) > node_budget:
                        self.nodes = len(keys)
                        return None
                    stack.append(child)
                    order.append(there)
                parents.append(here)
                children.append(there)
            if deadline is not None and time.perf_counter() > deadline:
                self.nodes = len(keys)
                return None
        self.nodes = len(keys)
        return keys, parents, children


@functools.cache
def _colour_symmetry_maps(board: Board) -> list[MaskMap]:
    """Every symmetry (identity included) as a map of one colour's bitboard."""
    return [MaskMap([1 << perm[i] for i in range(board.size)]) for perm in board.symmetries]


class ArrayLocalSearch(LocalSearch):
    """`LocalSearch` exploring with the array rules (`solver/smallholder_arrays.py`), a
    whole breadth-first ply at a time: tens of times faster, for any board up to 63
    cells (hex4 included). Same results; `LocalSearch` stays the independent check."""

    def __init__(self, game: Smallholder, node_budget: int | None = DEFAULT_NODE_BUDGET,
                 time_budget: float | None = None) -> None:
        super().__init__(game, node_budget, time_budget)
        self.arrays = SmallholderArrays(game.board, game.rules)

    def canonical_pairs(self, black: np.ndarray, white: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The (black, white) image with the smallest key over the symmetries (exact):
        white holds the higher key bits, so it is compared first."""
        best_black, best_white = black, white
        for symmetry in _colour_symmetry_maps(self.game.board)[1:]:
            image_black, image_white = symmetry(black), symmetry(white)
            better = (image_white < best_white) | ((image_white == best_white) & (image_black < best_black))
            best_black = np.where(better, image_black, best_black)
            best_white = np.where(better, image_white, best_white)
        return best_black, best_white

    def _explore(self, root: Position, root_key: int, deadline: float | None,
                 node_budget: int | None) -> tuple[list[int], list[int], list[int]] | None:
        n = self.game.board.size
        full = self.game.board.full
        index = {root_key: 0}
        keys = [root_key]
        frontier = [root_key]
        parents: list[int] = []
        children: list[int] = []
        while frontier:
            black = np.array([k & full for k in frontier], dtype=np.uint64)
            white = np.array([k >> n & full for k in frontier], dtype=np.uint64)
            white_to_move = np.array([k >> 2 * n for k in frontier], dtype=bool)
            ids = np.array([index[k] for k in frontier], dtype=np.int64)
            mover = np.where(white_to_move, white, black)
            waiter = np.where(white_to_move, black, white)
            fresh: list[int] = []
            for _, where, after_mover, after_waiter in self.arrays.moves(mover, waiter):
                parent_white = white_to_move[where]
                child_black, child_white = self.canonical_pairs(np.where(parent_white, after_waiter, after_mover),
                                                                np.where(parent_white, after_mover, after_waiter))
                side = 0 if parent_white.all() else 1 << 2 * n  # a ply has one side to move
                for parent, b, w in zip(ids[where].tolist(), child_black.tolist(), child_white.tolist()):
                    child_key = b | w << n | side
                    there = index.get(child_key)
                    if there is None:
                        there = index[child_key] = len(keys)
                        keys.append(child_key)
                        fresh.append(child_key)
                    parents.append(parent)
                    children.append(there)
            self.nodes = len(keys)
            if node_budget is not None and len(keys) > node_budget:
                return None
            if deadline is not None and time.perf_counter() > deadline:
                return None
            frontier = fresh
        return keys, parents, children
