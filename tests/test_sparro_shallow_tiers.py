"""Tiers 0-10 of standard Sparro (the start included), solved a second way.

The tables come from the array rules (solver/sparro_arrays.py) and the tiered
retrograde (solver/tiered.py). Here a plain retrograde written against the reference
rules engine (games/sparro) alone re-derives every position of tiers 10 down to 0
from the stored tier 11, one position at a time, and re-enumerates which positions
each tier holds: both must equal the stored tiers exactly.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tablebase.db.store import TablebaseStore
from tablebase.games.base import DRAW
from tablebase.games.sparro import Sparro
from tablebase.service.sparro import read_tier
from tablebase.solver.probe import Outcome

DEEPEST = 10


@pytest.mark.slow
def test_tiers_0_to_10_by_a_second_retrograde(sparro_db: Path) -> None:
    game = Sparro("standard")
    with TablebaseStore(sparro_db, readonly=True) as store:
        table = store.table("sparro", "standard")
        assert table is not None
        stored = {tier: read_tier(store, table, tier) for tier in range(DEEPEST + 2)}

    def outcomes(tier: int) -> dict[int, Outcome]:
        solved = stored[tier]
        return {key: Outcome(value, None if value == DRAW else plies)
                for key, value, plies in zip(solved.keys.tolist(), solved.values.tolist(), solved.remoteness.tolist())}

    known = outcomes(DEEPEST + 1)  # the input: the stored tier 11
    for tier in range(DEEPEST, -1, -1):
        mine: dict[int, Outcome] = {}
        reached: set[int] = set()
        for key in stored[tier].keys.tolist():
            pos = game.from_key(key)
            terminal = game.terminal_value(pos)
            if terminal is not None:
                mine[key] = Outcome(terminal, 0)
                continue
            results = []
            for move in game.legal_moves(pos):
                child = game.play(pos, move)
                over = game.terminal_value(child)
                child_key = game.canonical_key(child)
                reached.add(child_key)
                results.append((Outcome(over, 0) if over is not None else known[child_key]).for_mover())
            mine[key] = min(results, key=Outcome.preference)
        # the positions of tier t + 1 are exactly those reached from tier t
        assert reached == set(stored[tier + 1].keys.tolist()), f"tier {tier + 1} holds other positions"
        assert mine == outcomes(tier), f"tier {tier} differs from the second retrograde"
        known = mine
    assert set(known) == {game.canonical_key(game.start())}  # tier 0 is the start alone
