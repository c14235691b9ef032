"""Retrograde analysis of a general game graph, cycles included.

The graph is given as numpy arrays: one entry per move, ``edge_parent[i] -> edge_child[i]``
(position indices ``0 .. num_positions - 1``), plus optional terminal values. Values are
for the side to move in each position, as in `tablebase.games.base`.

`solve_graph` is the standard counting algorithm, run level by level on whole arrays:

* level 0: the terminal positions (by default: no moves, the side to move loses);
* level r + 1, from the positions decided at level r: a parent with a child *lost* at
  level r is *won* in r + 1 (the first such level is the winner's fastest); a parent
  whose counter of undecided moves drops to zero because its last child was decided
  *won* at level r is *lost* in r + 1 (the last such child is the loser's slowest).

Whatever is undecided when a level decides nothing is a **draw**: from there neither
side can force an end, so play goes on forever (docs/smallholder.md, Decisions). The results are exact.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from tablebase.games.base import DRAW, LOSS, WIN

#: ``terminal_values`` entry of a position whose game is not over.
NOT_TERMINAL = -128
#: Internal marker of a position not yet decided.
_UNDECIDED = 2


@dataclass(frozen=True)
class GraphSolution:
    """Exact results of every position of a graph."""

    values: np.ndarray  # int8: WIN, LOSS or DRAW for the side to move
    remoteness: np.ndarray  # int32: plies to the end with best play; 0 for a draw (see `solver.probe.outcomes`)
    levels: int  # how many levels the counting took (the largest remoteness + 1)

    @property
    def draws(self) -> int:
        return int(np.count_nonzero(self.values == DRAW))


def index_dtype(count: int) -> type[np.signedinteger]:
    """The narrowest signed integer type that indexes ``count`` items."""
    return np.int32 if count < 2**31 else np.int64


def reverse_edges(num_positions: int, edge_parent: np.ndarray, edge_child: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """CSR of the reversed graph: (offsets, parents); the parents of ``v`` are
    ``parents[offsets[v]:offsets[v + 1]]`` (one entry per move, duplicates kept)."""
    if num_positions >= 2**32:
        raise ValueError(f"{num_positions} positions: more than this solver indexes (2**32)")
    # one sort of (child, parent) packed in 64 bits: far faster than an argsort
    packed = np.asarray(edge_child).astype(np.uint64) << np.uint64(32)
    packed |= np.asarray(edge_parent).astype(np.uint64)
    packed.sort()
    parents = (packed & np.uint64(0xFFFFFFFF)).astype(index_dtype(num_positions))
    counts = np.bincount((packed >> np.uint64(32)).astype(np.int64), minlength=num_positions)
    del packed
    return csr_offsets(counts), parents


def csr_offsets(counts: np.ndarray) -> np.ndarray:
    """Row offsets (length ``len(counts) + 1``) of CSR rows with these lengths."""
    offsets = np.zeros(len(counts) + 1, dtype=np.int64)
    np.cumsum(counts, out=offsets[1:])
    return offsets


def _segments(offsets: np.ndarray, nodes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(edge indices of the CSR rows ``nodes``, how many each row has)."""
    starts = offsets[nodes]
    counts = offsets[nodes + 1] - starts
    total = int(counts.sum())
    # position within the concatenation, shifted back to each row's start
    shift = np.repeat(starts - (np.cumsum(counts) - counts), counts)
    return shift + np.arange(total, dtype=np.int64), counts


def _tally(items: np.ndarray, size: int) -> tuple[np.ndarray, np.ndarray]:
    """(distinct values of ``items``, ascending; how often each occurs); values < ``size``.

    A sort for few items, a histogram over all ``size`` values for many: on large
    levels the histogram is several times faster than sorting.
    """
    if len(items) * 8 < size:
        return np.unique(items, return_counts=True)
    counts = np.bincount(items, minlength=size)
    found = np.flatnonzero(counts)
    return found, counts[found]


def solve_graph(num_positions: int, edge_parent: np.ndarray, edge_child: np.ndarray,
                terminal_values: np.ndarray | None = None) -> GraphSolution:
    """Exact value and remoteness of every position (draws for genuine infinite play).

    ``terminal_values[v]`` is WIN, LOSS or DRAW for a finished game and NOT_TERMINAL
    otherwise; the moves out of a terminal position are ignored. A position that is
    not terminal but has no moves is lost for the side to move (docs/smallholder.md), which is
    also the rule for every position when ``terminal_values`` is None. Duplicate moves
    (two moves to the same child) are fine.
    """
    if len(edge_parent) != len(edge_child):
        raise ValueError(f"{len(edge_parent)} edge parents but {len(edge_child)} edge children")
    dtype = index_dtype(num_positions)
    edge_parent = np.asarray(edge_parent, dtype=dtype)
    edge_child = np.asarray(edge_child, dtype=dtype)
    if len(edge_parent) and (min(edge_parent.min(), edge_child.min()) < 0
                             or max(edge_parent.max(), edge_child.max()) >= num_positions):
        raise ValueError(f"edge endpoints must lie in 0..{num_positions - 1}")
    degree = np.bincount(edge_parent, minlength=num_positions)
    if terminal_values is None:
        terminal = degree == 0
        term_value = np.full(num_positions, LOSS, dtype=np.int8)
    else:
        term_value = np.asarray(terminal_values).astype(np.int16)
        if len(term_value) != num_positions:
            raise ValueError(f"{len(term_value)} terminal values for {num_positions} positions")
        terminal = (term_value != NOT_TERMINAL) | (degree == 0)
        term_value = np.where(term_value == NOT_TERMINAL, LOSS, term_value).astype(np.int8)
        if terminal[edge_parent].any():
            keep = ~terminal[edge_parent]
            edge_parent, edge_child = edge_parent[keep], edge_child[keep]
    rev_offsets, rev_parents = reverse_edges(num_positions, edge_parent, edge_child)
    del edge_parent, edge_child
    return solve_reversed(rev_offsets, rev_parents, terminal, term_value)


def solve_reversed(rev_offsets: np.ndarray, rev_parents: np.ndarray, terminal: np.ndarray | None = None,
                   term_value: np.ndarray | None = None) -> GraphSolution:
    """`solve_graph` on the reversed graph in CSR form (see `reverse_edges`).

    ``terminal`` (bool) marks finished games, whose values are in ``term_value`` (int8
    WIN/LOSS/DRAW; LOSS when None); their parents must not be listed as their moves'
    sources, i.e. a terminal position appears in no ``rev_parents`` row. By default the
    terminal positions are those without moves, lost for the side to move.
    """
    num_positions = len(rev_offsets) - 1
    # moves whose outcome is not yet known to be a win for the opponent, per position
    undecided_moves = np.bincount(rev_parents, minlength=num_positions).astype(np.int32)
    if terminal is None:
        terminal = undecided_moves == 0
    if term_value is None:
        term_value = np.full(num_positions, LOSS, dtype=np.int8)
    values = np.full(num_positions, _UNDECIDED, dtype=np.int8)
    remoteness = np.full(num_positions, -1, dtype=np.int32)
    ends = np.flatnonzero(terminal)
    values[ends] = term_value[ends]
    del term_value, terminal
    # a terminal draw is final but starts no level: it never makes a parent's counter drop
    frontier = ends[values[ends] != DRAW]
    remoteness[frontier] = 0
    level = 0
    while len(frontier):
        edges, counts = _segments(rev_offsets, frontier)
        parents = rev_parents[edges]
        child_values = np.repeat(values[frontier], counts)
        del edges, counts
        open_parent = values[parents] == _UNDECIDED
        winners, _ = _tally(parents[open_parent & (child_values == LOSS)], num_positions)
        beaten, times = _tally(parents[open_parent & (child_values == WIN)], num_positions)
        del parents, child_values, open_parent
        undecided_moves[beaten] -= times.astype(np.int32)
        values[winners] = WIN
        losers = beaten[(undecided_moves[beaten] == 0) & (values[beaten] == _UNDECIDED)]
        values[losers] = LOSS
        level += 1
        frontier = np.concatenate([winners, losers])
        remoteness[frontier] = level
    values[values == _UNDECIDED] = DRAW
    remoteness[values == DRAW] = 0  # the solvers' array convention, terminal draws included
    return GraphSolution(values, remoteness, level)


def solve_csr(offsets: np.ndarray, children: np.ndarray, terminal_values: np.ndarray | None = None) -> GraphSolution:
    """`solve_graph` for a graph in CSR form: the children of ``v`` are
    ``children[offsets[v]:offsets[v + 1]]``."""
    offsets = np.asarray(offsets, dtype=np.int64)
    num_positions = len(offsets) - 1
    parents = np.repeat(np.arange(num_positions, dtype=index_dtype(num_positions)), np.diff(offsets))
    return solve_graph(num_positions, parents, np.asarray(children), terminal_values)


def reaches_cycle(rev_offsets: np.ndarray, rev_parents: np.ndarray) -> np.ndarray:
    """Per position, whether some line of play from it can go on forever (exact).

    A draw needs such a position; such a position need not be a draw.
    """
    return longest_lines(rev_offsets, rev_parents) < 0


def longest_lines(rev_offsets: np.ndarray, rev_parents: np.ndarray) -> np.ndarray:
    """Per position, the most plies any line of play from it can last, whoever plays
    what (exact; int32); -1 where a line can go on forever (it reaches a cycle).

    Positions are peeled off level by level once all their moves lead to peeled
    positions (Kahn's algorithm on the reversed graph): a position is peeled at level
    ``L`` when its longest move leads to one peeled at ``L - 1``, so ``L`` is its
    longest line. What is never peeled reaches a cycle.
    """
    num_positions = len(rev_offsets) - 1
    unpeeled_moves = np.bincount(rev_parents, minlength=num_positions).astype(np.int32)
    longest = np.full(num_positions, -1, dtype=np.int32)
    frontier = np.flatnonzero(unpeeled_moves == 0)
    level = 0
    while len(frontier):
        longest[frontier] = level
        edges, _ = _segments(rev_offsets, frontier)
        parents, times = _tally(rev_parents[edges], num_positions)
        unpeeled_moves[parents] -= times.astype(np.int32)
        frontier = parents[unpeeled_moves[parents] == 0]
        level += 1
    return longest

