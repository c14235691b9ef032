"""The atlas rows against an independent full solve on limping2.

The reference here is computed from the per-position rules engine alone: every
canonical position reachable from the empty board is enumerated with `Smallholder`
(not the array rules), solved by plain recursive minimax with memory (limping2 has no
repetition under any combination: the recursion fails loudly if it meets one), and each
figure of a row is recounted from that graph one position at a time.
"""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass
from functools import cache

import numpy as np
import pytest

from tablebase.games.base import DRAW, LOSS, WIN
from tablebase.games.smallholder import RULESETS, Rules, Smallholder, all_rules
from tablebase.solver.atlas import ROW_KEYS, atlas_row, sweep
from tablebase.solver.graph import longest_lines, reverse_edges
from tablebase.solver.smallholder_solve import solve_ruleset

BOARD = "limping2"
#: Every named ruleset and a spread of the other combinations (all 120: the slow test).
QUICK = list(RULESETS.values()) + all_rules()[1::17]


@dataclass(frozen=True)
class Reference:
    """A combination solved position by position with the rules engine."""

    values: dict[int, tuple[int, int]]  # canonical key -> (value for the side to move, remoteness)
    longest: dict[int, int]  # canonical key -> longest line of play from it
    moves: int
    with_capture: int
    first_moves: list[int]  # canonical key after each of Black's first moves (one per legal move)


@cache
def reference(rules: Rules) -> Reference:
    game = Smallholder(BOARD, rules)
    values: dict[int, tuple[int, int]] = {}
    longest: dict[int, int] = {}
    on_path: set[int] = set()
    counts = {"moves": 0, "with_capture": 0}

    def visit(pos):  # type: ignore[no-untyped-def]
        key = game.canonical_key(pos)
        if key in values:
            return values[key], longest[key]
        assert key not in on_path, f"a repetition under {rules.spec}: this reference needs acyclic play"
        on_path.add(key)
        children = game.children(pos)
        counts["moves"] += len(children)
        counts["with_capture"] += any(move.captures for move, _ in children)
        results = [visit(child) for _, child in children]
        on_path.discard(key)
        if not results:
            value = (LOSS, 0)
        elif any(v == LOSS for (v, _), _ in results):
            value = (WIN, 1 + min(r for (v, r), _ in results if v == LOSS))
        else:
            value = (LOSS, 1 + max(r for (_, r), _ in results))
        values[key] = value
        longest[key] = 1 + max((line for _, line in results), default=-1)
        return value, longest[key]

    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, 10_000))
    try:
        visit(game.start())
    finally:
        sys.setrecursionlimit(limit)
    first = [game.canonical_key(child) for _, child in game.children(game.start())]
    return Reference(values, longest, counts["moves"], counts["with_capture"], first)


def expected_row(rules: Rules) -> dict:
    ref = reference(rules)
    start_value, start_remoteness = ref.values[0]
    wins = [key for key in ref.first_moves if ref.values[key][0] == LOSS]
    return {
        "rules": rules.spec,
        "named": next((name for name, r in RULESETS.items() if r == rules), None),
        "start": {"value": {WIN: "win", LOSS: "loss", DRAW: "draw"}[start_value], "remoteness": start_remoteness},
        "positions": len(ref.values),
        "draws": 0,
        "cycles": False,
        "winning_first_moves": {"up_to_symmetry": len(set(wins)), "of_up_to_symmetry": len(set(ref.first_moves)),
                                "all": len(wins), "of_all": len(ref.first_moves)},
        "longest_game": ref.longest[0],
        "capture_share": ref.with_capture / len(ref.values),
        "mean_moves": ref.moves / len(ref.values),
    }


def assert_row_matches(rules: Rules) -> None:
    row = atlas_row(BOARD, rules)
    expected = expected_row(rules)
    assert list(row) == list(ROW_KEYS)
    for key in ROW_KEYS:
        if isinstance(expected[key], float):
            assert row[key] == pytest.approx(expected[key], rel=1e-12), key
        else:
            assert row[key] == expected[key], key


@pytest.mark.parametrize("rules", QUICK, ids=lambda r: r.name)
def test_atlas_row_matches_the_reference_solve(rules: Rules) -> None:
    assert_row_matches(rules)


@pytest.mark.slow
@pytest.mark.parametrize("rules", all_rules(), ids=lambda r: r.spec)
def test_every_combination_matches_the_reference_solve(rules: Rules) -> None:
    assert_row_matches(rules)


@pytest.mark.parametrize("rules", QUICK[:5], ids=lambda r: r.name)
def test_atlas_row_agrees_with_the_stored_solve(rules: Rules) -> None:
    """The start, positions and draws are those of the solve behind `tablebase solve`."""
    solved = solve_ruleset(BOARD, rules)
    row = atlas_row(BOARD, rules)
    value, remoteness = solved.start
    assert row["start"] == {"value": {WIN: "win", LOSS: "loss", DRAW: "draw"}[value], "remoteness": remoteness}
    assert row["positions"] == len(solved.keys)
    assert row["draws"] == int(np.count_nonzero(solved.values == DRAW))
    assert row["cycles"] == (solved.cyclic > 0)
    assert row["mean_moves"] == solved.moves / len(solved.keys)


def test_row_is_json_with_exactly_the_documented_keys() -> None:
    row = json.loads(json.dumps(atlas_row(BOARD, RULESETS["stymie"])))
    assert list(row) == ["rules", "named", "start", "positions", "draws", "cycles", "winning_first_moves",
                         "longest_game", "capture_share", "mean_moves"]
    assert row["rules"] == "groups=priority-create-if-one-live,adjacent=smallest,territory=gap,capture=groupwise-reentry"
    assert row["named"] == "stymie"
    assert set(row["start"]) == {"value", "remoteness"}
    assert set(row["winning_first_moves"]) == {"up_to_symmetry", "of_up_to_symmetry", "all", "of_all"}
    custom = atlas_row(BOARD, Rules("priority-create", "smallest-only", "hull", "groupwise"))
    assert custom["named"] is None


def _brute_longest(children: dict[int, list[int]], node: int, path: frozenset[int]) -> int:
    """The longest line from ``node`` by trying every path; -1 if one repeats a node."""
    if node in path:
        return -1
    best = 0
    for child in children[node]:
        line = _brute_longest(children, child, path | {node})
        if line < 0:
            return -1
        best = max(best, line + 1)
    return best


@pytest.mark.parametrize("seed", range(40))
def test_longest_lines_against_every_path(seed: int) -> None:
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 9))
    edges = int(rng.integers(0, 2 * n + 1))
    parent = rng.integers(0, n, size=edges)
    child = rng.integers(0, n, size=edges)
    if seed % 2:  # half the graphs acyclic: edges only to higher nodes
        keep = child > parent
        parent, child = parent[keep], child[keep]
    children = {v: child[parent == v].tolist() for v in range(n)}
    offsets, parents = reverse_edges(n, parent, child)
    found = longest_lines(offsets, parents)
    assert found.tolist() == [_brute_longest(children, v, frozenset()) for v in range(n)]


def test_sweep_resumes_with_the_rows_not_yet_stored() -> None:
    combos = list(RULESETS.values())
    saved: dict[str, dict] = {}

    def stored(rules: Rules) -> dict | None:
        return saved.get(rules.spec)

    def save(rules: Rules, row: dict, seconds: float) -> None:
        saved[rules.spec] = row

    class Killed(Exception):
        pass

    def killer(index: int, total: int, rules: Rules, stage: str, step: int, positions: int) -> None:
        if index == 3 and stage == "solve":
            raise Killed

    with pytest.raises(Killed):
        for _ in sweep(BOARD, combos, stored, save, killer):
            pass
    assert list(saved) == [r.spec for r in combos[:2]]
    steps = list(sweep(BOARD, combos, stored, save))
    assert [s.computed for s in steps] == [False, False, True, True, True]
    assert [s.row for s in steps] == [atlas_row(BOARD, r) for r in combos]
