"""Tiered retrograde analysis for Sparro: marbles are never removed, so tier n (the
positions with n marbles) only leads to tier n + 1.

`enumerate_tiers` walks forward from the start and returns, per tier, the sorted
canonical keys of every reachable position. `solve_tier` then runs backward: given the
solved next tier it returns the exact value (+1 win / 0 draw / -1 loss for the side to
move) and the exact remoteness (plies to the end; the winner hurries, the loser delays;
0 for draws) of every position of a tier. Both work on whole arrays.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Callable

import numpy as np

from tablebase.games.sparro.geometry import NUM_CELLS
from tablebase.solver.keys import sorted_unique
from tablebase.solver.payload import PAYLOAD_DTYPES, decode, encode
from tablebase.solver.sparro_arrays import SparroArrays, canonical

U64 = np.uint64
TIERS = NUM_CELLS + 1
#: Scores order a child's outcome from the parent's side: a child lost for its mover is a
#: win for the parent (the sooner the better), a child won is a loss (the later the better).
WIN_SCORE = 1000


class TableMismatch(ValueError):
    """Stored tiers that do not fit the positions this solver enumerates."""


@dataclass(frozen=True)
class SolvedTier:
    """Exact results of one tier: sorted canonical keys, values and remoteness."""

    tier: int
    keys: np.ndarray  # uint64, sorted, canonical
    values: np.ndarray  # int8: +1 the side to move wins, 0 draw, -1 it loses
    remoteness: np.ndarray  # plies to the end under optimal play (0 for a draw: see `solver.probe.outcomes`)


def enumerate_tiers(arrays: SparroArrays, progress: Callable[[int, int], None] | None = None) -> list[np.ndarray]:
    """Sorted canonical keys of every position reachable from the start, tier by tier."""
    tiers = [np.zeros(1, dtype=U64)]
    for tier in range(NUM_CELLS):
        keys = tiers[tier]
        over, _ = arrays.terminal(keys, tier)
        live = keys[~over]
        parts = [canonical(child) for _, child in arrays.children(live, tier)]
        tiers.append(sorted_unique(np.sort(np.concatenate(parts))) if parts else np.zeros(0, dtype=U64))
        if progress:
            progress(tier + 1, len(tiers[-1]))
    return tiers


def solve_tier(arrays: SparroArrays, tier: int, keys: np.ndarray, after: SolvedTier | None) -> SolvedTier:
    """Exact values and remoteness of the tier's positions from the solved next tier."""
    over, values = arrays.terminal(keys, tier)
    remoteness = np.zeros(len(keys), dtype=np.uint8)
    live = np.flatnonzero(~over)
    if len(live):
        if after is None:
            raise ValueError(f"tier {tier} has unfinished positions but no solved tier {tier + 1}")
        best = np.full(len(live), -2 * WIN_SCORE, dtype=np.int16)
        for where, child in arrays.children(keys[live], tier):
            child = canonical(child)
            index = np.searchsorted(after.keys, child)
            if not np.array_equal(after.keys[np.minimum(index, len(after.keys) - 1)], child):
                raise TableMismatch(f"tier {tier + 1} lacks children of tier {tier}: tables do not match")
            child_remoteness = after.remoteness[index].astype(np.int16)
            child_value = after.values[index]
            score = np.where(child_value < 0, WIN_SCORE - child_remoteness,
                             np.where(child_value > 0, child_remoteness - WIN_SCORE, 0))
            best[where] = np.maximum(best[where], score)  # a cell's moves have distinct parents
        wins, losses = best > 0, best < 0
        values[live] = np.where(wins, 1, np.where(losses, -1, 0))
        remoteness[live] = np.where(wins, WIN_SCORE + 1 - best, np.where(losses, best + WIN_SCORE + 1, 0))
    return SolvedTier(tier, keys, values, remoteness)



#: Bumped whenever the solver's results or payload layout could change (tiered-2: the
#: payload layout of `solver/payload.py`, shared with the Smallholder; tiered-1 had the
#: win and draw bits the other way round).
SOLVER_VERSION = "tiered-2"
PAYLOAD_DTYPE = PAYLOAD_DTYPES["sparro"]


def pack_results(solved: SolvedTier) -> np.ndarray:
    """The stored payload of a solved tier (`solver/payload.py`)."""
    return encode(solved.values, solved.remoteness, PAYLOAD_DTYPE)


def unpack_results(tier: int, keys: np.ndarray, payload: np.ndarray) -> SolvedTier:
    """A solved tier from its stored keys and payload."""
    return SolvedTier(tier, keys, *decode(payload))


def solve_variant(
    arrays: SparroArrays,
    stored: dict[int, Callable[[], SolvedTier]],
    save: Callable[[SolvedTier, float], None],
    progress: Callable[[str, int], None] | None = None,
) -> SolvedTier:
    """Solve every reachable position of a variant; return the solved start tier.

    ``stored`` maps tiers already solved (by an interrupted earlier run) to loaders;
    solving resumes below the lowest of the top run of stored tiers. ``save`` is called
    with each newly solved tier and its solve time, from the full board down.
    """
    report = progress or (lambda stage, tier: None)
    tiers = enumerate_tiers(arrays, lambda tier, count: report("enumerate", tier))
    resume_from = TIERS
    while resume_from - 1 in stored:
        resume_from -= 1
    after: SolvedTier | None = None
    if resume_from < TIERS:
        after = stored[resume_from]()
        if not np.array_equal(after.keys, tiers[resume_from]):
            raise TableMismatch(f"stored tier {resume_from} does not hold the reachable positions")
    for tier in range(resume_from - 1, -1, -1):
        started = time.perf_counter()
        after = solve_tier(arrays, tier, tiers[tier], after)
        save(after, time.perf_counter() - started)
        report("solve", tier)
    assert after is not None
    return after
