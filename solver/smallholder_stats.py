"""Whole-table statistics of a solved Smallholder ruleset, on arrays of keys.

`move_statistics` runs the array rules (`solver/smallholder_arrays.py`) over every given
key a slice at a time: how many legal moves each position has and whether one of them
captures. The positions are the table's canonical keys (one per symmetry class, side to
move kept), so averages are per canonical position, not per raw board.

`sample_keys` draws a uniform random sample without replacement when a table is too
large for a full pass in the time a report may take; the result says so, so that a
sample is never presented as exhaustive.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from tablebase.solver.smallholder_arrays import SLICE, SmallholderArrays

#: Seed of the sample, so that a regenerated report shows the same figures.
SAMPLE_SEED = 20240601


@dataclass(frozen=True)
class MoveStatistics:
    """Counts over a set of positions (exact for that set)."""

    positions: int  # positions examined
    legal_moves: int  # legal moves summed over them
    terminal: int  # positions whose side to move has no legal move (and has lost)
    with_capture: int  # positions where at least one legal move captures

    @property
    def average_moves(self) -> float:
        """Legal moves per position, terminal positions counted with none."""
        return self.legal_moves / self.positions if self.positions else 0.0

    @property
    def capture_share(self) -> float:
        return self.with_capture / self.positions if self.positions else 0.0


def move_statistics(arrays: SmallholderArrays, keys: np.ndarray) -> MoveStatistics:
    """Legal moves and capture possibilities of every position in ``keys`` (exact)."""
    keys = np.asarray(keys, dtype=np.uint64)
    legal_moves = terminal = with_capture = 0
    for start in range(0, len(keys), SLICE):
        mover, waiter, _ = arrays.split(keys[start:start + SLICE])
        moves = np.zeros(len(mover), dtype=np.int32)
        captures = np.zeros(len(mover), dtype=bool)
        # `moves` yields the stones after each legal move: a capture is a move after
        # which the opponent has fewer stones, so no capture logic is repeated here
        for _, where, _, after_waiter in arrays.moves(mover, waiter):
            moves[where] += 1
            captures[where[after_waiter != waiter[where]]] = True
        legal_moves += int(moves.sum())
        terminal += int(np.count_nonzero(moves == 0))
        with_capture += int(np.count_nonzero(captures))
    return MoveStatistics(len(keys), legal_moves, terminal, with_capture)


def sample_keys(keys: np.ndarray, size: int, seed: int = SAMPLE_SEED) -> np.ndarray:
    """A uniform random sample of ``size`` keys without replacement (sorted), or all
    keys when there are no more than ``size``."""
    if len(keys) <= size:
        return keys
    chosen = np.random.default_rng(seed).choice(len(keys), size=size, replace=False)
    return keys[np.sort(chosen)]
