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
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from functools import cache

import numpy as np
import pytest

from tablebase.games.base import DRAW, LOSS, WIN
from tablebase.games.smallholder import RULESETS, Rules, Smallholder, all_rules
from tablebase.games.sparro import Sparro
from tablebase.games.sparro.rules import NO_COMPENSATION
from tablebase.render.atlas import compare_text, game_lengths_svg, option_grid_svg
from tablebase.solver.atlas import (
    ROW_KEYS, atlas_row, compare_probes, sparro_legal_moves, sparro_row, sweep)
from tablebase.solver.probe import Outcome, probe
from tablebase.solver.sparro_arrays import SparroArrays
from tablebase.solver.tiered import SolvedTier, solve_variant
from tablebase.solver.graph import longest_lines, reverse_edges
from tablebase.solver.smallholder_kernels import UNDECIDED, longest_lines_forward
from tablebase.solver.smallholder_solve import solve_ruleset

BOARD = "limping2"
#: Every named ruleset and a spread of the other combinations (all 120: the exhaustive test).
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
    named = next((name for name, r in RULESETS.items() if r == rules), None)
    return {
        "rules": f"{named or rules.spec}@{BOARD}",
        "spec": rules.spec,
        "named": named,
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


@pytest.mark.slow
@pytest.mark.parametrize("rules", QUICK, ids=lambda r: r.name)
def test_atlas_row_matches_the_reference_solve(rules: Rules) -> None:
    assert_row_matches(rules)


@pytest.mark.exhaustive
@pytest.mark.parametrize("rules", all_rules(), ids=lambda r: r.spec)
def test_every_combination_matches_the_reference_solve(rules: Rules) -> None:
    assert_row_matches(rules)


@pytest.mark.parametrize("rules", QUICK[:5], ids=lambda r: r.name)
def test_atlas_row_agrees_with_the_stored_solve(rules: Rules) -> None:
    """The start, positions and draws are those of the solve behind `tablebase solve`."""
    solved = solve_ruleset(BOARD, rules)
    row = atlas_row(BOARD, rules)
    assert row["start"] == {"value": solved.start.name, "remoteness": solved.start.remoteness}
    assert row["positions"] == len(solved.keys)
    assert row["draws"] == int(np.count_nonzero(solved.values == DRAW))
    assert row["cycles"] == (solved.cyclic > 0)
    assert row["mean_moves"] == solved.moves / len(solved.keys)


def test_row_is_json_with_exactly_the_documented_keys() -> None:
    row = json.loads(json.dumps(atlas_row(BOARD, RULESETS["stymie"])))
    assert list(row) == ["rules", "spec", "named", "start", "positions", "draws", "cycles", "winning_first_moves",
                         "longest_game", "capture_share", "mean_moves"]
    assert row["rules"] == f"stymie@{BOARD}"
    assert row["spec"] == "groups=priority-create-if-one-live,adjacent=smallest,territory=gap,capture=groupwise-reentry"
    assert row["named"] == "stymie"
    assert set(row["start"]) == {"value", "remoteness"}
    assert set(row["winning_first_moves"]) == {"up_to_symmetry", "of_up_to_symmetry", "all", "of_all"}
    custom = atlas_row(BOARD, Rules("priority-create", "smallest-only", "hull", "groupwise"))
    assert custom["named"] is None
    # a combination no ruleset names is labelled by its spec and the board, as its table is
    assert custom["rules"] == f"{custom['spec']}@{BOARD}" == Smallholder(BOARD, custom["spec"]).rules_name


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


@pytest.mark.parametrize("seed", range(200))
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
    expected = [_brute_longest(children, v, frozenset()) for v in range(n)]
    assert longest_lines(offsets, parents).tolist() == expected
    order = np.argsort(parent, kind="stable")
    forward_offsets = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(np.bincount(parent, minlength=n), out=forward_offsets[1:])
    assert longest_lines_forward(forward_offsets, child[order].astype(np.int32)).tolist() == expected


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


# -- Sparro rows -------------------------------------------------------------------------


@pytest.fixture(scope="module")
def sparro_tiers() -> dict[str, dict[int, SolvedTier]]:
    """Both standard variants solved in memory (a few seconds each)."""
    solved: dict[str, dict[int, SolvedTier]] = {}
    for variant in ("standard", NO_COMPENSATION):
        tiers: dict[int, SolvedTier] = {}
        solve_variant(SparroArrays(variant), {}, lambda tier, seconds: tiers.__setitem__(tier.tier, tier))
        solved[variant] = tiers
    return solved


@pytest.mark.slow
@pytest.mark.parametrize("variant", ["standard", NO_COMPENSATION])
def test_sparro_row_against_the_rules_engine(variant: str, sparro_tiers) -> None:
    tiers = sparro_tiers[variant]
    row = sparro_row(variant, tiers.__getitem__)
    assert list(row) == list(ROW_KEYS)
    game = Sparro(variant)

    def lookup(keys):  # type: ignore[no-untyped-def]
        out = []
        for key in keys:
            tier = tiers[game.from_key(key).marbles]
            at = int(np.searchsorted(tier.keys, key))
            value = int(tier.values[at])
            out.append(Outcome(value, None if value == DRAW else int(tier.remoteness[at])))
        return out

    start = probe(game, game.start(), lookup)
    assert row["start"] == {"value": start.outcome.name, "remoteness": start.outcome.remoteness}
    first = {m.cell: m.outcome for m in start.moves}
    classes = {game.canonical_key(game.play(game.start(), cell)): first[cell] for cell in first}
    assert row["winning_first_moves"] == {
        "up_to_symmetry": sum(o.value == WIN for o in classes.values()), "of_up_to_symmetry": len(classes),
        "all": sum(o.value == WIN for o in first.values()), "of_all": len(first)}
    assert row["positions"] == sum(len(t.keys) for t in tiers.values())
    assert row["draws"] == sum(int(np.count_nonzero(t.values == DRAW)) for t in tiers.values())
    assert row["longest_game"] == 24 and len(tiers[24].keys) > 0
    # legal moves per tier by the per-position engine, on the tiers small enough to walk
    arrays = SparroArrays(variant)
    for n in range(6):
        engine = sum(len(game.legal_moves(game.from_key(int(k)))) for k in tiers[n].keys)
        assert sparro_legal_moves(arrays, tiers[n].keys, n) == engine


def test_the_compensation_rule_only_turns_full_boards_into_draws(sparro_tiers) -> None:
    with_rule = sparro_row("standard", sparro_tiers["standard"].__getitem__)
    without = sparro_row(NO_COMPENSATION, sparro_tiers[NO_COMPENSATION].__getitem__)
    assert with_rule["draws"] == 0 and without["draws"] > 0
    assert {k: v for k, v in with_rule.items() if k not in ("rules", "named", "draws")} == \
        {k: v for k, v in without.items() if k not in ("rules", "named", "draws")}


# -- comparison and pictures ---------------------------------------------------------------


def _table_lookup(rules: Rules):  # type: ignore[no-untyped-def]
    solved = solve_ruleset(BOARD, rules)

    def lookup(keys):  # type: ignore[no-untyped-def]
        at = np.searchsorted(solved.keys, np.array(keys, dtype=np.uint64))
        return [Outcome(int(solved.values[i]), None if solved.values[i] == DRAW else int(solved.remoteness[i]))
                for i in at]

    return lookup


@pytest.mark.slow
def test_compare_marks_exactly_the_moves_whose_values_differ() -> None:
    combos = [RULESETS["nibbler"], RULESETS["gaps-original"], RULESETS["hull-setbacks"]]
    answers = []
    for rules in combos:
        game = Smallholder(BOARD, rules)
        answers.append((rules.spec, probe(game, game.start(), _table_lookup(rules))))
    comparison = compare_probes(answers)
    assert comparison["rules"] == [r.spec for r in combos]
    assert comparison["differ"]  # nibbler: Black wins, gaps-original: White wins
    ref = {r.spec: reference(r) for r in combos}
    game = Smallholder(BOARD)
    for move in comparison["moves"]:
        child = game.canonical_key(game.play(game.start(), move["cell"]))
        seen = set()
        for spec in comparison["rules"]:
            value, remoteness = ref[spec].values[child]  # for White; the move's value is for Black
            expected = {"value": {WIN: "loss", LOSS: "win"}[value], "remoteness": remoteness + 1}
            assert move["values"][spec] == expected
            seen.add((expected["value"], expected["remoteness"]))
        assert move["differ"] == (len(seen) > 1)
    assert comparison["differing_moves"] == [m["name"] for m in comparison["moves"] if m["differ"]]
    text = compare_text(comparison)
    assert f"{len(comparison['differing_moves'])} of 12 moves differ" in text


def test_compare_refuses_different_positions() -> None:
    game = Smallholder(BOARD)
    lookup = _table_lookup(game.rules)
    after = game.play(game.start(), 0)
    with pytest.raises(ValueError, match="different positions"):
        compare_probes([("a", probe(game, game.start(), lookup)), ("b", probe(game, after, lookup))])


def test_option_grid_has_one_cell_per_combination_with_its_result() -> None:
    rows = [atlas_row(BOARD, r) for r in all_rules()[:40]]
    svg = ET.fromstring(option_grid_svg(BOARD, rows))
    cells = [e for e in svg.iter("{http://www.w3.org/2000/svg}rect") if "combination" in e.get("class", "")]
    assert len(cells) == 120
    by_rules = {row["spec"]: row for row in rows}
    for cell in cells:
        row = by_rules.get(cell.get("data-rules"))
        if row is None:
            assert cell.get("data-value") == "missing"
        else:
            assert cell.get("data-value") == row["start"]["value"]
            assert cell.get("data-remoteness") == str(row["start"]["remoteness"])
    named = {c.get("data-rules") for c in cells if "named" in c.get("class", "")}
    assert named == {r.spec for r in RULESETS.values() if r.spec in by_rules}


def test_game_lengths_bars_count_every_row() -> None:
    rows = [atlas_row(BOARD, r) for r in all_rules()[::4]]
    svg = ET.fromstring(game_lengths_svg(BOARD, rows))
    bars = [e for e in svg.iter("{http://www.w3.org/2000/svg}rect") if "bar" in e.get("class", "").split()]
    counted: dict[tuple[str, str], int] = {(b.get("data-plies"), b.get("data-value")): int(b.get("data-count"))
                                           for b in bars}
    expected: dict[tuple[str, str], int] = {}
    for row in rows:
        key = (str(row["start"]["remoteness"]), row["start"]["value"])
        expected[key] = expected.get(key, 0) + 1
    assert counted == expected


def test_the_drawn_state_is_the_solver_kernels() -> None:
    from tablebase.solver import atlas

    assert atlas.UNDECIDED == UNDECIDED
