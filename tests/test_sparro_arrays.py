"""The vectorised Sparro rules (solver fast path) against the reference engine."""

from __future__ import annotations

import random

import numpy as np
import pytest

from playouts import playout_positions

from tablebase.games.sparro import VARIANTS, Sparro, SparroPosition
from tablebase.solver.sparro_arrays import SparroArrays, canonical


def random_positions(game: Sparro, count: int, seed: int) -> list[SparroPosition]:
    """``count`` positions met along random games, every tier represented."""
    rng = random.Random(seed)
    found: list[SparroPosition] = []
    while len(found) < count:
        found += playout_positions(game, rng, 1)
    return found[:count]


@pytest.mark.parametrize("variant", VARIANTS)
def test_canonical_matches_engine(variant: str) -> None:
    game = Sparro(variant)
    positions = random_positions(game, 3000, seed=1)
    keys = np.array([game.key(p) for p in positions], dtype=np.uint64)
    expected = [game.canonical_key(p) for p in positions]
    assert canonical(keys).tolist() == expected


@pytest.mark.parametrize("variant", VARIANTS)
def test_children_and_terminal_match_engine(variant: str) -> None:
    game = Sparro(variant)
    arrays = SparroArrays(variant)
    positions = random_positions(game, 3000, seed=2)
    by_tier: dict[int, list[SparroPosition]] = {}
    for pos in positions:
        by_tier.setdefault(pos.marbles, []).append(pos)
    for tier, group in by_tier.items():
        keys = np.array([game.key(p) for p in group], dtype=np.uint64)
        over, values = arrays.terminal(keys, tier)
        assert [v if o else None for o, v in zip(over.tolist(), values.tolist())] == [
            game.terminal_value(p) for p in group]
        live = np.flatnonzero(~over)
        got: dict[int, set[int]] = {int(i): set() for i in live}
        for where, child in arrays.children(keys[live], tier):
            for i, key in zip(live[where].tolist(), child.tolist()):
                got[i].add(key)
        for i in live.tolist():
            pos = group[i]
            assert got[i] == {game.key(game.play(pos, m)) for m in game.legal_moves(pos)}
