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
side can force an end, so play goes on forever (RULES.md 2.5). The results are exact.
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
    remoteness: np.ndarray  # int32: plies to the end with best play; -1 for a draw
    levels: int  # how many levels the counting took (the largest remoteness + 1)

    @property
    def draws(self) -> int:
        return int(np.count_nonzero(self.values == DRAW))


def index_dtype(count: int) -> type[np.signedinteger]:
    """The narrowest signed integer type that indexes ``count`` items."""
    return np.int32 if count < 2**31 else np.int64


def reverse_edges(num_positions: int, edge_parent: np.ndarray, edge_child: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """CSR of the reversed graph: (offsets, parents); the parents of ``v`` are
    ``parents[offsets[v]:offsets[v + 1]]`` (with one entry per move, duplicates kept)."""
    order = np.argsort(edge_child, kind="stable")
    parents = edge_parent[order]
    del order
    offsets = np.zeros(num_positions + 1, dtype=np.int64)
    np.cumsum(np.bincount(edge_child, minlength=num_positions), out=offsets[1:])
    return offsets, parents


def _segments(offsets: np.ndarray, nodes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(edge indices of the CSR rows ``nodes``, how many each row has)."""
    starts = offsets[nodes]
    counts = offsets[nodes + 1] - starts
    total = int(counts.sum())
    # position within the concatenation, shifted back to each row's start
    shift = np.repeat(starts - (np.cumsum(counts) - counts), counts)
    return shift + np.arange(total, dtype=np.int64), counts


def solve_graph(num_positions: int, edge_parent: np.ndarray, edge_child: np.ndarray,
                terminal_values: np.ndarray | None = None) -> GraphSolution:
    """Exact value and remoteness of every position (draws for genuine infinite play).

    ``terminal_values[v]`` is WIN, LOSS or DRAW for a finished game and NOT_TERMINAL
    otherwise; the moves out of a terminal position are ignored. A position that is
    not terminal but has no moves is lost for the side to move (RULES.md 2.5), which is
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
            degree = np.bincount(edge_parent, minlength=num_positions)
    rev_offsets, rev_parents = reverse_edges(num_positions, edge_parent, edge_child)
    del edge_parent, edge_child
    # moves whose outcome is not yet known to be a loss for the mover, per position
    undecided_moves = degree.astype(np.int32)
    del degree

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
        winners = np.unique(parents[open_parent & (child_values == LOSS)])
        beaten, times = np.unique(parents[open_parent & (child_values == WIN)], return_counts=True)
        del parents, child_values, open_parent
        undecided_moves[beaten] -= times.astype(np.int32)
        values[winners] = WIN
        losers = beaten[(undecided_moves[beaten] == 0) & (values[beaten] == _UNDECIDED)]
        values[losers] = LOSS
        level += 1
        frontier = np.concatenate([winners, losers])
        remoteness[frontier] = level
    values[values == _UNDECIDED] = DRAW
    return GraphSolution(values, remoteness, level)


def solve_csr(offsets: np.ndarray, children: np.ndarray, terminal_values: np.ndarray | None = None) -> GraphSolution:
    """`solve_graph` for a graph in CSR form: the children of ``v`` are
    ``children[offsets[v]:offsets[v + 1]]``."""
    offsets = np.asarray(offsets, dtype=np.int64)
    num_positions = len(offsets) - 1
    parents = np.repeat(np.arange(num_positions, dtype=index_dtype(num_positions)), np.diff(offsets))
    return solve_graph(num_positions, parents, np.asarray(children), terminal_values)
