"""The Smallholder graph solver on limping2: the tables equal an independent solve (the
per-position engine and the numpy retrograde of solver/graph.py), every stored value is
consistent with the values of its moves, the bounded local search (rules engine + its
own exploration) agrees with the tables, and tables survive the database round trip."""

from __future__ import annotations

import random
from functools import cache

import numpy as np
import pytest

from tablebase.db.store import TablebaseStore
from tablebase.games.base import DRAW, LOSS, WIN
from tablebase.games.smallholder import RULESETS, Rules, Smallholder, all_rules
from tablebase.solver.probe import Outcome
from tablebase.solver.smallholder_arrays import SmallholderArrays
from tablebase.solver.smallholder_search import ArrayLocalSearch, LocalSearch
from tablebase.solver.keys import stone_counts
from tablebase.solver.payload import decode, encode
from tablebase.solver.smallholder_solve import PAYLOAD_DTYPE, SolvedRuleset, solve_ruleset

BOARD = "limping2"
#: Every named ruleset and a spread of the 120 combinations (all of them: the bench).
SAMPLED = list(RULESETS.values()) + all_rules()[::6]
#: Start values on limping2, for Black (docs/smallholder.md, "Solved results").
LIMPING2_STARTS = {
    "gaps-original": (LOSS, 12),
    "nibbler": (WIN, 11),
    "offshore-gaps": (LOSS, 14),
    "stymie": (LOSS, 12),
    "hull-setbacks": (WIN, 11),
}


@cache
def solved(rules: Rules) -> SolvedRuleset:
    return solve_ruleset(BOARD, rules)


def lookup(table: SolvedRuleset, keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    at = np.searchsorted(table.keys, keys)
    assert np.array_equal(table.keys[np.minimum(at, len(table.keys) - 1)], keys), "a child is not in the table"
    return table.values[at], table.remoteness[at]


@pytest.mark.parametrize("name", RULESETS)
def test_start_values(name: str) -> None:
    assert solved(RULESETS[name]).start == Outcome(*LIMPING2_STARTS[name])


@pytest.mark.parametrize("rules", SAMPLED, ids=lambda r: r.name)
def test_every_value_follows_from_its_moves(rules: Rules) -> None:
    """Win: some move reaches a loss, the quickest one; loss: every move reaches a win,
    the slowest one; draw: no move reaches a loss and some move reaches a draw."""
    table = solved(rules)
    arrays = SmallholderArrays(BOARD, rules)
    n = len(table.keys)
    best_win = np.full(n, 1 << 30)  # quickest move to a child lost for its mover
    slowest_loss = np.full(n, -1)  # slowest move to a child won for its mover
    any_draw = np.zeros(n, dtype=bool)
    all_won = np.ones(n, dtype=bool)
    for where, child in arrays.children(table.keys):
        values, remoteness = lookup(table, arrays.canonical(child))
        np.minimum.at(best_win, where[values == LOSS], remoteness[values == LOSS] + 1)
        np.maximum.at(slowest_loss, where[values == WIN], remoteness[values == WIN] + 1)
        any_draw[where[values == DRAW]] = True
        all_won[where[values != WIN]] = False
    terminal = arrays.legal(table.keys) == 0
    wins, losses, draws = table.values == WIN, table.values == LOSS, table.values == DRAW
    assert np.array_equal(wins, best_win < (1 << 30))
    assert np.array_equal(table.remoteness[wins], best_win[wins])
    assert np.array_equal(losses, all_won)
    assert np.array_equal(table.remoteness[losses & terminal], np.zeros(np.count_nonzero(losses & terminal)))
    assert np.array_equal(table.remoteness[losses & ~terminal], slowest_loss[losses & ~terminal])
    assert np.array_equal(draws, ~wins & ~losses)
    assert not np.any(draws & ~any_draw)


@pytest.mark.slow
@pytest.mark.parametrize("rules", SAMPLED, ids=lambda r: r.name)
def test_search_agrees_with_the_table(rules: Rules) -> None:
    table = solved(rules)
    game = Smallholder(BOARD, rules)
    rng = np.random.default_rng(len(table.keys))
    checked = 0
    for index in rng.choice(len(table.keys), size=12, replace=False).tolist():
        search = LocalSearch(game, node_budget=2000)
        found = search.solve(game.from_key(int(table.keys[index])))
        if found is None:
            continue  # too early in the game for the test's budget
        value = int(table.values[index])
        assert found == Outcome(value, None if value == DRAW else int(table.remoteness[index]))
        checked += 1
    assert checked >= 3


def test_search_answers_unknown_past_its_budget() -> None:
    game = Smallholder(BOARD, "nibbler")
    search = LocalSearch(game, node_budget=50)
    assert search.solve(game.start()) is None
    assert search.nodes > 50


def test_search_time_budget() -> None:
    game = Smallholder("hex4", "nibbler")
    assert LocalSearch(game, node_budget=None, time_budget=0.2).solve(game.start()) is None


@pytest.mark.parametrize("budget", [{"node_budget": 1000}, {"node_budget": None, "time_budget": 0.2}])
def test_a_lookup_call_shares_one_budget(budget: dict) -> None:
    """A probe asks for a position and its moves' positions in one call: the budget holds
    for the call (as `--time` and `--budget` say), not for each key. The hex4 start's
    subgraph runs past either bound at once, so the other keys are not searched at all
    (each used to get the whole budget again: a probe of a hex6 position took 27 times
    its --time)."""
    game = Smallholder("hex4", "nibbler")
    search = LocalSearch(game, **budget)
    start = game.start()
    keys = [game.canonical_key(start)] + [game.canonical_key(child) for _, child in game.children(start)]
    explored = []
    explore = search._explore
    search._explore = lambda *args: explored.append(args[0]) or explore(*args)  # type: ignore[method-assign]
    assert search.outcomes(keys) == [None] * len(keys)
    assert explored == [start]


def test_payload_round_trip() -> None:
    values = np.array([WIN, LOSS, DRAW, WIN, LOSS], dtype=np.int8)
    remoteness = np.array([1, 0, 7, 16383, 200], dtype=np.int32)  # a draw's remoteness is not stored
    back = decode(encode(values, remoteness, PAYLOAD_DTYPE))
    assert back[0].tolist() == values.tolist() and back[1].tolist() == [1, 0, 0, 16383, 200]
    with pytest.raises(ValueError, match="does not fit"):
        encode(values[:1], np.array([16384]), PAYLOAD_DTYPE)


def test_store_round_trip(tmp_path) -> None:
    from tablebase.service.smallholder import solve_into, stored_lookup

    game = Smallholder(BOARD, "stymie")
    path = tmp_path / "t.sqlite"
    with TablebaseStore(path, create=True) as store:
        info = solve_into(store, BOARD, game.rules)
        table = solved(game.rules)
        assert info.positions == len(table.keys) and info.status == "complete"
        assert info.summary["start_value"] == "loss" and info.summary["start_remoteness"] == 12
        again = solve_into(store, BOARD, game.rules)
        assert again.checksum == info.checksum  # reused, not solved again
        sample = table.keys[:: max(1, len(table.keys) // 300)]
        outcomes = stored_lookup(store, game)(sample.tolist())
        for key, outcome in zip(sample.tolist(), outcomes):
            index = int(np.searchsorted(table.keys, key))
            assert outcome is not None and outcome.value == table.values[index]
        assert stone_counts(np.array([0b11 | 1 << 12 | 1 << 24], dtype=np.uint64), 12).tolist() == [3]


def test_interrupted_solve_restarts_from_scratch(tmp_path) -> None:
    from tablebase.service.smallholder import solve_into

    game = Smallholder(BOARD, "nibbler")
    with TablebaseStore(tmp_path / "t.sqlite", create=True) as store:
        from tablebase.solver.smallholder_solve import PAYLOAD_DTYPE, RULES_VERSION, SOLVER_VERSION

        half = store.begin_table("smallholder", game.rules_name, RULES_VERSION, SOLVER_VERSION, PAYLOAD_DTYPE)
        store.write_tier(half.id, 0, np.zeros(1, dtype=np.uint64), np.zeros(1, dtype=np.uint16), 0.0)
        info = solve_into(store, BOARD, game.rules)
        assert info.status == "complete" and info.positions == len(solved(game.rules).keys)
        assert info.summary["start_value"] == "win"


def test_random_playouts_stay_in_the_table() -> None:
    rules = RULESETS["hull-setbacks"]
    table = solved(rules)
    game = Smallholder(BOARD, rules)
    rng = random.Random(5)
    for _ in range(20):
        pos = game.start()
        while game.legal_moves(pos):
            key = game.canonical_key(pos)
            assert table.keys[np.searchsorted(table.keys, key)] == key
            pos = game.play(pos, rng.choice(game.legal_moves(pos)))


# -- cycles ------------------------------------------------------------------------------

#: No option combination has a reachable cycle on limping2; on hex3 this one does (found
#: by solving it from the empty board: 2,611 of its positions are draws).
CYCLIC_RULES = "groups=must-create-if-one,adjacent=smallest-playable,territory=hull,capture=piecewise"
# hex3, White to move. White's extension d3 captures Black's c4 (piecewise, hull), then
# Black's extension d2 captures d3: the board is back, up to a symmetry of the board.
#       W   W   B                      W   W   B
#     B   B   .   B                  B   B   .   B
#   B   .   W   B   W    d3, d2    B   .   W   .   W
#     W   .   .   W       ->         W   B   .   W
#       W   B   B                      W   B   B
REPEATING = "WWB/BB.B/B.WBW/W..W/WBB W"
#: Drawn positions of that ruleset, with 6 to 122 positions reachable from each.
DRAWN = (REPEATING, "WB./WBWW/B...W/BBWB/W.B W", ".WW/BW.B/WB.WB/W.BW/BB. W", "WWB/B.W./B.BBW/W..W/WBB B")


def test_a_position_comes_back() -> None:
    game = Smallholder("hex3", CYCLIC_RULES)
    pos = game.parse(REPEATING)
    again = game.play(game.play(pos, game.parse_move("d3")), game.parse_move("d2"))
    assert again != pos and game.canonical_key(again) == game.canonical_key(pos)


@pytest.mark.parametrize("text", DRAWN)
def test_cyclic_subgraphs_are_drawn_by_both_methods(text: str) -> None:
    """The array pipeline (solved from this root) and the search over the rules engine
    agree on every position below a drawn one, and both see the cycle as a draw."""
    game = Smallholder("hex3", CYCLIC_RULES)
    pos = game.parse(text)
    table = solve_ruleset("hex3", game.rules, roots=np.array([game.key(pos)], dtype=np.uint64))
    assert table.cyclic > 0 and np.count_nonzero(table.values == DRAW) > 0
    search = LocalSearch(game)
    assert search.solve(pos) == Outcome(DRAW, None)
    assert len(search.table) == len(table.keys)
    for key, value, remoteness in zip(table.keys.tolist(), table.values.tolist(), table.remoteness.tolist()):
        assert search.table[key] == Outcome(value, None if value == DRAW else remoteness)


def test_no_cycles_on_limping2_named_rulesets() -> None:
    assert all(solved(rules).cyclic == 0 for rules in RULESETS.values())


# -- the array search ------------------------------------------------------------------

#: a hex4 nibbler position from a random game, 13 empty cells, 2,991 positions below it
HEX4_ENDGAMES = ("BBWB/..WW./BBB.BB/BW...W./W.WWWB/BW..B/WW.. W",)


@pytest.mark.parametrize("text", HEX4_ENDGAMES)
def test_array_search_matches_the_engine_search_on_hex4(text: str) -> None:
    game = Smallholder("hex4", "nibbler")
    pos = game.parse(text)
    fast, slow = ArrayLocalSearch(game), LocalSearch(game)
    assert fast.solve(pos) == slow.solve(pos)
    assert fast.table == slow.table


@pytest.mark.parametrize("name", ["nibbler", "stymie"])
def test_array_search_agrees_with_the_table(name: str) -> None:
    rules = RULESETS[name]
    table = solved(rules)
    game = Smallholder(BOARD, rules)
    search = ArrayLocalSearch(game)
    assert search.solve(game.start()) == Outcome(*LIMPING2_STARTS[name])
    # one solve from the start covers every reachable position
    assert len(search.table) == len(table.keys)
    for key, value, remoteness in zip(table.keys.tolist(), table.values.tolist(), table.remoteness.tolist()):
        assert search.table[key] == Outcome(value, remoteness)


def test_array_search_budget() -> None:
    game = Smallholder("hex4", "nibbler")
    search = ArrayLocalSearch(game, node_budget=1000)
    assert search.solve(game.start()) is None and search.nodes > 1000


# -- the compiled solver against an independent reference ----------------------------


def reference_solve(board: str, rules: Rules) -> tuple[list[int], list[int], list[int], int, int]:
    """Breadth-first over the per-position engine, then the numpy counting retrograde of
    solver/graph.py: (sorted keys, values, remoteness, moves, positions reaching a cycle)."""
    from tablebase.solver.graph import reaches_cycle, reverse_edges, solve_graph

    game = Smallholder(board, rules)
    start = game.canonical_key(game.start())
    index = {start: 0}
    order = [start]
    parents: list[int] = []
    children: list[int] = []
    at = 0
    while at < len(order):
        pos = game.from_key(order[at])
        for _, child in game.children(pos):
            key = game.canonical_key(child)
            if key not in index:
                index[key] = len(order)
                order.append(key)
            parents.append(at)
            children.append(index[key])
        at += 1
    solution = solve_graph(len(order), np.array(parents), np.array(children))
    cyclic = reaches_cycle(*reverse_edges(len(order), np.array(parents), np.array(children)))
    rank = np.argsort(np.array(order, dtype=np.uint64))
    return (np.array(order, dtype=np.uint64)[rank].tolist(), solution.values[rank].tolist(),
            solution.remoteness[rank].tolist(), len(parents), int(np.count_nonzero(cyclic)))


def check_against_reference(board: str, rules: Rules) -> None:
    table = solve_ruleset(board, rules)
    keys, values, remoteness, moves, cyclic = reference_solve(board, rules)
    assert table.keys.tolist() == keys
    assert table.values.tolist() == values
    assert table.remoteness.tolist() == remoteness
    assert (table.moves, table.cyclic) == (moves, cyclic)


@pytest.mark.slow
@pytest.mark.parametrize("rules", [RULESETS["nibbler"], RULESETS["stymie"]], ids=lambda r: r.name)
def test_tables_equal_the_reference_solve(rules: Rules) -> None:
    check_against_reference(BOARD, rules)


@pytest.mark.exhaustive
@pytest.mark.parametrize("rules", all_rules(), ids=lambda r: r.spec)
def test_tables_equal_the_reference_solve_for_every_combination(rules: Rules) -> None:
    check_against_reference(BOARD, rules)


def test_cyclic_tables_equal_the_reference_solve() -> None:
    """A hex3 combination whose graph has cycles and draws, solved from a late root."""
    game = Smallholder("hex3", CYCLIC_RULES)
    pos = game.parse(DRAWN[0])
    table = solve_ruleset("hex3", game.rules, roots=np.array([game.key(pos)], dtype=np.uint64))
    assert table.cyclic > 0
    from tablebase.solver.graph import reaches_cycle, reverse_edges, solve_graph

    index = {int(k): i for i, k in enumerate(table.keys.tolist())}
    parents, children = [], []
    for i, key in enumerate(table.keys.tolist()):
        for _, child in game.children(game.from_key(key)):
            parents.append(i)
            children.append(index[game.canonical_key(child)])
    solution = solve_graph(len(index), np.array(parents), np.array(children))
    assert table.values.tolist() == solution.values.tolist()
    assert table.remoteness.tolist() == solution.remoteness.tolist()
    cyclic = reaches_cycle(*reverse_edges(len(index), np.array(parents), np.array(children)))
    assert table.cyclic == int(np.count_nonzero(cyclic))


@pytest.mark.parametrize("count, key_bits", [(0, 20), (1, 20), (1000, 11), (1000, 22), (5000, 33), (5000, 39), (5000, 44)])
@pytest.mark.parametrize("parallel", [False, True])
def test_the_enumeration_sort_is_numpys(count: int, key_bits: int, parallel: bool,
                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """The radix sort of a ply's packed children (``key << edge_bits | edge``, keys
    repeating, as the enumeration makes them) sorts by the keys alone and gives numpy's
    full sort; on one core and on two (the halves merged), over an odd and an even
    number of digits."""
    from tablebase.solver import smallholder_solve

    monkeypatch.setattr(smallholder_solve, "PARALLEL_SORT", 64 if parallel else 1 << 40)
    rng = np.random.default_rng(count + key_bits)
    edge_bits = max(1, (count - 1).bit_length())
    keys = rng.integers(0, 1 << key_bits, max(1, count // 3), dtype=np.uint64)
    packed = rng.choice(keys, count) << np.uint64(edge_bits) | np.arange(count, dtype=np.uint64)
    expected = np.sort(packed)
    smallholder_solve.sort_in_place(packed, edge_bits)
    assert packed.tolist() == expected.tolist()
