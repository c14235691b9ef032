"""The exact search (solver/smallholder_exact.py) against independent methods: the
retrograde tables (limping2 in the quick set, hex3 in the exhaustive one) and the subgraph
method (`ArrayLocalSearch`, exploration + counting retrograde) on hex3 and hex4 endgames,
cyclic rulesets and draws included; and its budgets answer "unknown", never a guess."""

from __future__ import annotations

import random
import signal
import subprocess
import sys
from functools import cache

import numpy as np
import pytest

from playouts import playout_positions
from tablebase.games.base import DRAW
from tablebase.games.smallholder import RULESETS, Rules, Smallholder, all_rules
from tablebase.solver.probe import Outcome
from tablebase.solver.smallholder_exact import MTD_CREEP, Budget, ExactSearch, outcome_of_score, score_of_outcome
from tablebase.solver.smallholder_search import ArrayLocalSearch
from tablebase.solver.smallholder_solve import SolvedRuleset, solve_ruleset

TABLE = 1 << 22  # a small in-memory table: the tests also exercise replacement
#: Custom combinations whose graphs have cycles on hex3 and limping2 (hull + piecewise).
CYCLIC = [r for r in all_rules() if r.territory == "hull" and r.capture == "piecewise"]
#: The 8-ply cycle of docs/smallholder.md ("Cycles and draws", hex4 nibbler):
#: cells 20 25 18 31 24 19 26 12 return here.
HEX4_CYCLE = "BWBB/WBWWW/WBBBWB/.BB.B.B/WB..WB/WBW.B/BWWW W"


def empty_cells(game: Smallholder, pos) -> int:  # type: ignore[no-untyped-def]
    return (game.board.full & ~(pos.black | pos.white)).bit_count()


@cache
def table(board: str, rules: Rules) -> SolvedRuleset:
    return solve_ruleset(board, rules)


def table_outcome(game: Smallholder, solved: SolvedRuleset, pos) -> Outcome:  # type: ignore[no-untyped-def]
    key = game.canonical_key(pos)
    at = int(np.searchsorted(solved.keys, key))
    assert solved.keys[at] == key
    value, remoteness = int(solved.values[at]), int(solved.remoteness[at])
    return Outcome(value, None if value == DRAW else remoteness)


def check_against(game: Smallholder, positions: list, reference) -> int:  # type: ignore[no-untyped-def]
    """Every position's analysis equals ``reference`` on it and on each child, and so does
    the value alone (`ExactSearch.value`, in searches of their own so that no exact score
    found by an analysis answers it: on one thread with the weak solve's jobs' fewer table
    look-ups of children, and split over two from every position), and so does the exact
    result of the position alone searched split over two threads (MTD(f) on the split);
    the number of draws met. A first guess for MTD(f), the true outcome or a wrong one,
    changes no answer. A null-window search ("a win?", "a loss?") bounds the true score
    from the side its result says."""
    from tablebase.solver.proof.jobs import JOB_ETC_EMPTY

    search = ExactSearch(game, table_bytes=TABLE)
    values = ExactSearch(game, table_bytes=TABLE, threads=1, etc_empty=JOB_ETC_EMPTY)
    split_values = ExactSearch(game, table_bytes=TABLE, threads=2, split_empty=0)
    split_exact = ExactSearch(game, table_bytes=TABLE, threads=2, split_empty=0)
    guessed = ExactSearch(game, table_bytes=TABLE)
    bounds = ExactSearch(game, table_bytes=TABLE, threads=1, etc_empty=JOB_ETC_EMPTY)
    rng = random.Random(len(positions))
    draws = 0
    for pos in positions:
        truth = reference(pos)
        wrong = [Outcome(DRAW, None), Outcome(-truth.value, 1), Outcome(truth.value, (truth.remoteness or 0) + 3)]
        assert guessed.solve(pos, guess=rng.choice([truth] + wrong)) == truth, game.format(pos)
        for probed in [pos] + [child for _, child in game.children(pos)]:
            assert values.value(probed) == reference(probed).value, game.format(probed)
            assert split_values.value(probed) == reference(probed).value, game.format(probed)
        assert split_exact.solve(pos) == reference(pos), game.format(pos)
        score = score_of_outcome(truth)
        for t in (1, 0):
            g = bounds.null_window(pos, t)
            assert g is not None and (score >= g if g >= t else score <= g), (game.format(pos), t, g, score)
        analysis = search.analyse(pos)
        assert analysis.exact
        assert analysis.outcome == reference(pos), game.format(pos)
        moves = {m.cell: m.outcome for m in analysis.moves or []}
        expected = {move.cell: reference(child).for_mover() for move, child in game.children(pos)}
        assert moves == expected, game.format(pos)
        draws += analysis.outcome is not None and analysis.outcome.value == DRAW
        draws += sum(o.value == DRAW for o in moves.values())
    return draws


@pytest.mark.parametrize("rules", list(RULESETS.values()) + all_rules()[::7], ids=lambda r: r.name)
def test_agrees_with_limping2_tables(rules: Rules) -> None:
    game = Smallholder("limping2", rules)
    solved = table("limping2", rules)
    positions = random.Random(rules.spec).sample(playout_positions(game, random.Random(3), 12), 20)
    check_against(game, positions + [game.start()], lambda p: table_outcome(game, solved, p))


@pytest.mark.slow
def test_cyclic_hex3_table_draws() -> None:
    """A hull + piecewise combination that cycles on hex3: positions the tables call
    draws (sampled from the table) and random ones, against the tables."""
    rules = Rules("priority-create", "smallest", "hull", "piecewise")
    game = Smallholder("hex3", rules)
    solved = table("hex3", rules)
    draw_keys = solved.keys[solved.values == DRAW]
    assert len(draw_keys)
    rng = random.Random(9)
    positions = [game.from_key(int(k)) for k in rng.sample(list(draw_keys), 6)]
    positions += rng.sample(playout_positions(game, random.Random(10), 4), 8)
    assert check_against(game, positions, lambda p: table_outcome(game, solved, p)) >= 6


def subgraph_reference(game: Smallholder):  # type: ignore[no-untyped-def]
    local = ArrayLocalSearch(game, node_budget=2_000_000)

    def outcome(pos) -> Outcome:  # type: ignore[no-untyped-def]
        found = local.solve(pos)
        assert found is not None, "the subgraph method ran out of budget"
        return found

    return outcome


@pytest.mark.slow
@pytest.mark.parametrize("rules", list(RULESETS.values()) + CYCLIC[::4], ids=lambda r: r.name)
def test_agrees_with_subgraph_on_hex3(rules: Rules) -> None:
    game = Smallholder("hex3", rules)
    found = [p for p in playout_positions(game, random.Random(7), 10) if 3 <= empty_cells(game, p) <= 9]
    positions = random.Random(1).sample(found, min(8, len(found)))
    check_against(game, positions, subgraph_reference(game))


@pytest.mark.slow
def test_hex4_cycle_and_endgames() -> None:
    """The hex4 nibbler position with an 8-ply cycle, and positions from random games
    with up to 11 empty cells, against the subgraph method."""
    game = Smallholder("hex4", "nibbler")
    cycle = game.parse(HEX4_CYCLE)
    pos = cycle
    for cell in (20, 25, 18, 31, 24, 19, 26, 12):
        pos = game.play(pos, cell)
    assert game.canonical_key(pos) == game.canonical_key(cycle)
    found = [p for p in playout_positions(game, random.Random(11), 6) if 6 <= empty_cells(game, p) <= 11]
    positions = [cycle] + random.Random(2).sample(found, 5)
    check_against(game, positions, subgraph_reference(game))


def table_pv_reference(game: Smallholder, solved: SolvedRuleset):  # type: ignore[no-untyped-def]
    """The principal variation the tables give (the probe's walk over a table lookup)."""
    from tablebase.service.probing import principal_variations

    def lookup(keys):  # type: ignore[no-untyped-def]
        return [table_outcome(game, solved, game.from_key(int(k))) for k in keys]

    return lambda pos: principal_variations(game, [pos], lookup)[0]


@pytest.mark.slow
def test_a_creeping_bound_is_settled_by_a_value_test() -> None:
    """The moves of this position (hex4 nibbler, 20 empty cells, one thread) searched in
    cell order, each from its sibling's score with the table its siblings left: the
    position after d2 (Black to move loses in 16) is searched from the outcome after c3
    (Black wins in 17), and each "a win within r?" test fails just one cycle of 8 plies
    lower, thousands of tests on the way down to a loss. After `MTD_CREEP` failing tests
    in a row MTD(f) tests the value itself; same answers."""
    game = Smallholder("hex4", "nibbler")
    pos = game.parse("WW../...B./W...WB/B.BB.WB/B...W./WW.../B.B. W")
    found = []
    for creep in (10**9, MTD_CREEP):
        search = ExactSearch(game, threads=1, mtd_creep=creep)
        search._start(Budget(), None)  # one run over the moves in cell order, as `_outcomes` without its order
        children = game.children(pos)
        scores = search._scores([child for _, child in children])
        found.append((search.tests, {game.move_name(move.cell): outcome_of_score(score)
                                     for (move, _), score in zip(children, scores)}))
    (creeping, outcomes), (guarded, guarded_outcomes) = found
    assert creeping > 1000 and guarded < 100
    assert guarded_outcomes == outcomes and outcomes["d2"] == Outcome(-1, 16) and outcomes["c3"] == Outcome(1, 17)


@pytest.mark.parametrize("rules", [RULESETS["nibbler"], RULESETS["stymie"], CYCLIC[0]], ids=lambda r: r.name)
def test_principal_variation_is_the_tables(rules: Rules) -> None:
    """The search's own principal variation (one null-window test per move tried) is
    move for move the one the tables' probes walk."""
    game = Smallholder("limping2", rules)
    reference = table_pv_reference(game, table("limping2", rules))
    search = ExactSearch(game, table_bytes=TABLE)
    positions = random.Random(rules.spec).sample(playout_positions(game, random.Random(5), 10), 12)
    for pos in positions + [game.start()]:
        assert [game.move_name(c) for c in search.principal_variation(pos)] == reference(pos), game.format(pos)


@pytest.mark.parametrize("rules", [RULESETS["nibbler"], CYCLIC[0]], ids=lambda r: r.name)
def test_principal_variation_in_the_probed_orientation(rules: Rules) -> None:
    """A probe searches a position in the orientation of its canonical key, and its line
    follows there (`SearchLookup.line`, `symmetry`): the same line as the tables', cells
    and tie-breaks in the position's own orientation."""
    from tablebase.solver.probe import probe_many
    from tablebase.solver.smallholder_exact import search_lookup

    game = Smallholder("limping2", rules)
    reference = table_pv_reference(game, table("limping2", rules))
    rng = random.Random(rules.spec)
    turned = [pos for pos in playout_positions(game, random.Random(6), 10)
              if game.from_key(game.canonical_key(pos)) != pos]
    for pos in rng.sample(turned, 8):
        lookup = search_lookup(ExactSearch(game, table_bytes=TABLE), Budget())
        probe_many(game, [pos], lookup)
        assert [game.move_name(c) for c in lookup.line(pos)] == reference(pos), game.format(pos)
        symmetry = rng.randrange(len(game.board.symmetries))
        line = ExactSearch(game, table_bytes=TABLE).principal_variation(pos, symmetry=symmetry)
        assert [game.move_name(c) for c in line] == reference(pos), (game.format(pos), symmetry)


@pytest.mark.slow
def test_principal_variation_of_draws_is_the_tables() -> None:
    """Drawn lines (they stop where a position comes back) on the cyclic hex3 rules."""
    rules = Rules("priority-create", "smallest", "hull", "piecewise")
    game = Smallholder("hex3", rules)
    solved = table("hex3", rules)
    reference = table_pv_reference(game, solved)
    search = ExactSearch(game, table_bytes=TABLE)
    rng = random.Random(12)
    for key in rng.sample(list(solved.keys[solved.values == DRAW]), 4):
        pos = game.from_key(int(key))
        line = [game.move_name(c) for c in search.principal_variation(pos)]
        assert line and line == reference(pos), game.format(pos)


def test_principal_variation_past_the_budget_stops() -> None:
    game = Smallholder("hex4", "nibbler")
    line = ExactSearch(game, table_bytes=TABLE).principal_variation(game.start(), Budget(nodes=5000))
    assert line == []


def test_progress_reports_the_favoured_line() -> None:
    """Progress carries the line the table favours, in the position's own orientation:
    legal move after legal move from the position searched."""
    game = Smallholder("hex4", "nibbler")
    pos = next(p for p in playout_positions(game, random.Random(21), 4) if empty_cells(game, p) == 14)
    search = ExactSearch(game, table_bytes=TABLE)
    assert search.analyse(pos).exact and search.solve(pos) is not None  # the moves, then the position itself
    for image in [pos] + [game.play(pos, m.cell) for m in search.analyse(pos).moves[:3]]:  # type: ignore[union-attr]
        line = search.favoured_line(image)
        assert line
        for cell in line:
            assert cell in game.legal_moves(image)
            image = game.play(image, cell)


def test_budgets_answer_unknown() -> None:
    game = Smallholder("hex4", "nibbler")
    search = ExactSearch(game, table_bytes=TABLE)
    start = game.start()
    assert search.analyse(start, Budget(nodes=5000)).outcome is None
    assert search.solve(start, Budget(seconds=0.05)) is None
    answer = search.analyse(start, Budget(seconds=0.05))
    assert answer.outcome is None and answer.moves is None and not answer.exact


#: A search of the hex4 start with no budget at all (it would run for hours), interrupted
#: by SIGINT half a second in; prints how long after its start it stopped. With "dask" it
#: runs under the signal handler of a Dask run (executors.py), as in a check on workers.
INTERRUPTED_SEARCH = """
import contextlib, os, signal, sys, threading, time
from tablebase.games.smallholder import Smallholder
from tablebase.solver.proof import executors
from tablebase.solver.smallholder_exact import Budget, ExactSearch
game = Smallholder("hex4", "nibbler")
search = ExactSearch(game, table_bytes=1 << 22, threads=int(sys.argv[1]))
search.value(game.start(), Budget(nodes=1))  # compiled (or loaded from the cache) before the clock starts
handler = executors._stop_signals_deferred() if sys.argv[2] == "dask" else contextlib.nullcontext()
with handler:
    threading.Timer(0.5, os.kill, (os.getpid(), signal.SIGINT)).start()
    started = time.perf_counter()
    try:
        search.value(game.start())
    except KeyboardInterrupt:
        print("stopped after", time.perf_counter() - started)
"""


@pytest.mark.parametrize("threads, handler", [(1, "python"), (2, "python"), (1, "dask")])
def test_ctrl_c_stops_a_search_with_no_time_limit(threads: int, handler: str) -> None:
    """Ctrl-C stops a search at its next look at the clock, also with no time limit (a
    weak solve's leaf jobs have a node budget only; such a search used to run to its end,
    minutes, before the interrupt was raised), whether Python's handler or a Dask run's
    is in place."""
    done = subprocess.run([sys.executable, "-c", INTERRUPTED_SEARCH, str(threads), handler], capture_output=True,
                          text=True, timeout=120, preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    assert done.returncode == 0 and done.stdout.startswith("stopped after"), done.stderr
    assert float(done.stdout.split()[-1]) < 10


@pytest.mark.parametrize("seconds, nodes, message", [
    (float("nan"), None, "a time budget is a number of seconds, at least 0: nan"),  # would never run out
    (-1.0, None, "a time budget .* -1.0"),
    ("10", None, "a time budget .* '10'"),
    (None, -5, "a node budget is a whole number of positions, at least 0: -5"),
    (None, 2.5, "a node budget .* 2.5"),
])
def test_a_budget_that_bounds_nothing_is_refused(seconds: object, nodes: object, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        Budget(seconds, nodes)  # type: ignore[arg-type]


def test_node_budget_is_shared_by_the_threads() -> None:
    """Two threads spend one budget between them (to within a clock interval each)."""
    from tablebase.solver.smallholder_exact_kernel import CLOCK_EVERY

    game = Smallholder("hex4", "nibbler")
    search = ExactSearch(game, table_bytes=TABLE, threads=2)
    answer = search.analyse(game.start(), Budget(nodes=200_000))
    assert answer.outcome is None
    assert 200_000 <= answer.nodes <= 200_000 + 2 * (CLOCK_EVERY + 1)


def test_threads_give_the_same_answers() -> None:
    """One thread and two threads sharing the table: the same analysis of hex4
    middlegame positions (the moves' values and remoteness, the order)."""
    game = Smallholder("hex4", "nibbler")
    found = [p for p in playout_positions(game, random.Random(21), 12) if empty_cells(game, p) == 14]
    for pos in found[:4]:
        one = ExactSearch(game, table_bytes=TABLE, threads=1).analyse(pos)
        two = ExactSearch(game, table_bytes=TABLE, threads=2).analyse(pos)
        assert one.exact and two.exact
        assert one.as_json()["moves"] == two.as_json()["moves"], game.format(pos)


def test_one_search_shared_by_threads() -> None:
    """Two threads analysing different positions with one ExactSearch (a service keeps
    one per rules) get the answers each would get alone."""
    import threading

    game = Smallholder("hex4", "nibbler")
    found = [p for p in playout_positions(game, random.Random(23), 12) if empty_cells(game, p) == 13][:4]
    alone = [ExactSearch(game, table_bytes=TABLE).analyse(pos).as_json()["moves"] for pos in found]
    shared = ExactSearch(game, table_bytes=TABLE)
    answers: dict[int, object] = {}

    def analyse(i: int) -> None:
        for _ in range(3):
            answers[i] = shared.analyse(found[i]).as_json()["moves"]

    threads = [threading.Thread(target=analyse, args=(i,)) for i in range(len(found))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert [answers[i] for i in range(len(found))] == alone


def test_torn_table_entry_reads_as_missing() -> None:
    """Threads share the table without locks: an entry whose words come from two writes
    (one thread reading while another writes) must not match, whichever word is stale."""
    from tablebase.solver import smallholder_exact_kernel as kernel

    search = ExactSearch(Smallholder("hex4", "nibbler"), table_bytes=TABLE)
    state = np.zeros(kernel.STATE_SLOTS, np.int64)
    row_log = kernel.new_row_log(0, 0)
    m, w = np.uint64(0b1011), np.uint64(0b110000)
    kernel.tt_store(search.tt, m, w, -5, 7, 3, 2, state, row_log)
    entry, data = kernel.tt_find(search.tt, m, w)
    assert entry >= 0 and (kernel.data_lo(data), kernel.data_hi(data), kernel.data_move(data)) == (-5, 7, 3)
    before = search.tt[entry].copy()
    kernel.tt_store(search.tt, m, w, 1, 5, 4, 2, state, row_log)  # the same entry, tightened
    after = search.tt[entry].copy()
    assert after[2] != before[2]
    for stale in range(3):
        torn = after.copy()
        torn[stale] = before[stale]
        search.tt[entry] = torn
        assert kernel.tt_find(search.tt, m, w)[0] == -1, stale
    search.tt[entry] = after
    assert kernel.tt_find(search.tt, m, w)[0] == entry


def test_search_buffers_are_checked() -> None:
    """The kernel reads its arrays by address, so `kernel.buffers` refuses any array whose
    shape, type or layout is not the one the kernel reads it with."""
    from tablebase.solver import smallholder_exact_kernel as kernel

    search = ExactSearch(Smallholder("hex4", "nibbler"), table_bytes=TABLE)
    arrays = list(search._workers[0].arrays)
    assert kernel.buffers(search.rules_tables, *arrays)[1][0] == search.tt.ctypes.data
    for k, bad in [(2, np.zeros(kernel.MAX_PLY - 1, np.uint64)), (9, np.zeros(64, np.int32)),
                   (4, np.zeros((kernel.MAX_MOVES, kernel.MAX_PLY), np.int64).T)]:
        wrong = arrays[:k] + [bad] + arrays[k + 1:]
        with pytest.raises(ValueError, match="search buffer"):
            kernel.buffers(search.rules_tables, *wrong)
    turned = search.rules_tables._replace(sight=np.asfortranarray(search.rules_tables.sight))
    with pytest.raises(ValueError, match="sight must be C-contiguous"):
        kernel.buffers(turned, *arrays)


def test_table_growth_keeps_every_entry() -> None:
    """The table doubles its rows in use as it fills; every entry stays findable with
    its bounds, and the rows stop at the size limit."""
    from tablebase.solver import smallholder_exact_kernel as kernel

    search = ExactSearch(Smallholder("hex4", "nibbler"), table_bytes=TABLE)
    state = np.zeros(kernel.STATE_SLOTS, np.int64)
    row_log = kernel.new_row_log(0, 0)
    rng = np.random.default_rng(5)
    first = search.table_rows()
    assert first < search.table_entries
    pairs = {(int(m), int(w)) for m, w in rng.integers(1, 1 << 37, size=(first // 32, 2))}  # few enough to fit their buckets
    for k, (m, w) in enumerate(pairs):
        kernel.tt_store(search.tt, np.uint64(m), np.uint64(w), -(k % 90), k % 70, k % 37, k % 50, state, row_log)
    stored = {pair: kernel.tt_find(search.tt, np.uint64(pair[0]), np.uint64(pair[1]))[1] for pair in pairs}
    assert all(data != 0 for data in stored.values())
    while kernel.tt_grow(search.tt):
        for (m, w), data in stored.items():
            assert kernel.tt_find(search.tt, np.uint64(m), np.uint64(w))[1] == data
    assert search.table_rows() == search.table_entries
    assert kernel.tt_fill(search.tt) < kernel.TABLE_GROW_AT


def test_fewer_table_look_ups_of_children_give_the_same_values() -> None:
    """`etc_empty` changes which positions look their children up in the table first
    (so the positions searched), never a value."""
    game = Smallholder("limping3", "hull-setbacks")
    positions = [p for p in playout_positions(game, random.Random(21), 3) if empty_cells(game, p) in range(9, 15)]
    assert len(positions) >= 4
    counts = []
    for etc_empty in (4, 8, 30):
        search = ExactSearch(game, table_bytes=TABLE, threads=1, etc_empty=etc_empty)
        values = []
        searched = 0
        for pos in positions[:6]:
            values.append(search.value(pos))
            searched += search.searched()
        counts.append(searched)
        if etc_empty == 4:
            expected = values
        assert values == expected
    assert len(set(counts)) == 3  # the setting is live: each searched a different number


def test_short_search_uses_a_small_table() -> None:
    """A search touches only the rows it needs: a quick analysis leaves the table at its
    first size, a longer one makes it grow (not to its limit), and the answers are those
    of a search whose table uses every row from the start."""
    from tablebase.solver import smallholder_exact_kernel as kernel
    from tablebase.solver.smallholder_exact import FIRST_TABLE_ENTRIES

    game = Smallholder("hex4", "nibbler")
    found = {empty_cells(game, p): p for p in playout_positions(game, random.Random(8), 30)}
    search = ExactSearch(game, table_bytes=1 << 30)
    assert search.analyse(found[10]).exact and search.table_rows() == FIRST_TABLE_ENTRIES
    answer = search.analyse(found[20])
    assert answer.exact and FIRST_TABLE_ENTRIES < search.table_rows() < search.table_entries
    whole = ExactSearch(game, table_bytes=TABLE)
    while kernel.tt_grow(whole.tt):
        pass
    assert whole.table_rows() == whole.table_entries
    for pos in (found[10], found[20]):
        assert whole.analyse(pos).as_json()["moves"] == ExactSearch(game).analyse(pos).as_json()["moves"]


@pytest.mark.exhaustive
@pytest.mark.parametrize("name", RULESETS)
def test_agrees_with_hex3_tables(name: str) -> None:
    """Random hex3 positions, early ones included, against the full tables."""
    rules = RULESETS[name]
    game = Smallholder("hex3", rules)
    solved = table("hex3", rules)
    everything = playout_positions(game, random.Random(13), 20)
    early = [p for p in everything if empty_cells(game, p) >= 14]
    positions = random.Random(4).sample(everything, 12) + random.Random(5).sample(early, 4)
    check_against(game, positions, lambda p: table_outcome(game, solved, p))


@pytest.mark.exhaustive
def test_agrees_with_hex3_cyclic_tables() -> None:
    """Random positions and, where the table has draws, drawn ones (random games seldom
    meet a draw) of a sample of the cyclic combinations, against the full tables."""
    draws = 0
    for rules in CYCLIC[::5]:
        game = Smallholder("hex3", rules)
        solved = table("hex3", rules)
        rng = random.Random(6)
        positions = rng.sample(playout_positions(game, random.Random(8), 6), 10)
        drawn = list(solved.keys[solved.values == DRAW])
        positions += [game.from_key(int(k)) for k in rng.sample(drawn, min(3, len(drawn)))]
        draws += check_against(game, positions, lambda p: table_outcome(game, solved, p))
    assert draws > 0


def test_a_probe_out_of_budget_keeps_the_moves_it_settled() -> None:
    """A searched probe that runs out of its node budget before it settles every move
    answers "unknown", but gives the moves it settled first, best first, each exactly as
    the search without a budget has it; the others follow in cell order. One thread and a
    fresh table, so what a budget (counted in steps of 4,096 positions) settles is the
    same on every run; the budget is the first of 4,096 times 1, 2, 4, ... that settles
    some of the 8 moves but not all (at the kernel of 2026-12-07: 4,096 settles 2), so
    that a change to the search's tree changes the budget, not the test."""
    from tablebase.service.probing import ProbeAnswers
    from tablebase.solver.smallholder_exact import search_lookup

    game = Smallholder("hex4", "nibbler")
    text = "BWW./BWBB./B..W../B.B..B./W..W.B/W.WBB/WW.. W"

    def answer(nodes: int | None) -> dict:
        search = ExactSearch(game, table_bytes=1 << 22, threads=1)
        lookup = search_lookup(search, Budget(nodes=nodes))
        return ProbeAnswers(lambda t: (game, game.parse(t)), lambda g: lookup, answer_unknown=True, pv=False).one(text)

    full = answer(None)
    assert (full["value"], full["remoteness"]) == ("win", 7) and len(full["moves"]) == 8
    for budget in (4096 << k for k in range(12)):
        cut = answer(budget)
        settled = [m for m in cut["moves"] if m["value"] != "unknown"]
        if settled and cut["value"] == "unknown":
            break
    assert (cut["value"], cut["remoteness"], cut["pv"]) == ("unknown", None, [])
    assert 0 < len(settled) < 8 and cut["moves"][:len(settled)] == settled  # the settled ones first
    assert settled == [m for m in full["moves"] if m["cell"] in {s["cell"] for s in settled}]  # exact, best first
    rest = cut["moves"][len(settled):]
    assert rest == [{"cell": m["cell"], "name": m["name"], "value": "unknown", "remoteness": None}
                    for m in sorted(full["moves"], key=lambda m: m["cell"]) if m not in settled]
    # what they prove: the position is at least as good as the best of them
    assert cut["at_least"] == {"value": settled[0]["value"], "remoteness": settled[0]["remoteness"]}
    assert "at_least" not in full


def test_a_batch_answered_by_a_search_gives_each_position_its_own_budget() -> None:
    """`probe -` on rules no table holds (every hex4 ruleset): each position of the batch
    gets the whole node budget, as with --search, not a share of one. One thread, so the
    positions each takes are the same on every run: about 232 k and 168 k here, each
    within the 300 k budget, together beyond it."""
    from tablebase.service.probing import ProbeAnswers
    from tablebase.solver.smallholder_exact import search_lookup

    game = Smallholder("hex4", "nibbler")
    texts = [".WB./.W.W./B...W./.BW.BW./WWB.B./B.BB./.BWW B", "WB../W...B/W.W.BB/B.W..WW/BB.BW./..B../.WWB B"]

    def answers() -> ProbeAnswers:
        lookup = search_lookup(ExactSearch(game, table_bytes=1 << 22, threads=1), Budget(nodes=300_000))
        return ProbeAnswers(lambda text: (game, game.parse(text)), lambda g: lookup, source="search", pv=False)

    alone = [answers().one(text) for text in texts]
    assert [(a["value"], a["remoteness"]) for a in alone] == [("win", 15), ("win", 15)]
    assert answers().many(texts) == alone


def test_the_proved_entries_are_those_a_whole_array_reading_of_the_table_finds() -> None:
    """`ExactSearch.proved` (a compiled pass over the table) gives exactly the entries that
    reading the table's words as whole numpy arrays gives: exact (lower bound = upper
    bound), of at least the asked work, not preloaded, in canonical form, each once (a
    call at a lower work floor gives those the calls before left out); after searches
    that leave entries of every kind (bounds, exact, preloaded)."""
    from tablebase.solver import smallholder_exact_kernel as kernel
    from tablebase.solver.smallholder_exact import PRELOADED_WORK

    game = Smallholder("hex4", "nibbler")
    search = ExactSearch(game, table_bytes=1 << 24, threads=1)
    positions = random.Random(3).sample(playout_positions(game, random.Random(4), 40), 4)
    for pos in positions:
        search.analyse(pos, Budget(nodes=300_000))
    first = game.children(positions[0])[0][1]
    search.preload(*[np.array([x]) for x in search.canonical_pair(first)], np.array([7], np.int16))

    rows = search.tt[:search.table_rows()]
    data = rows[:, 2]
    waiters = rows[:, 1] ^ data
    lo = (data & np.uint64(0xFFFF)).astype(np.int64) - 32768
    hi = ((data >> np.uint64(16)) & np.uint64(0xFFFF)).astype(np.int64) - 32768
    work = ((data >> np.uint64(40)) & np.uint64(0xFF)).astype(np.int64)
    used = (waiters & kernel.USED) != 0
    assert used.sum() > 1000 and (used & (lo != hi)).any() and (used & (work == PRELOADED_WORK)).any()
    below = PRELOADED_WORK
    for floor in (9, 6, 3, 0):  # each entry is given once: each call gives those the ones before did not
        exact = used & (lo == hi) & (work >= floor) & (work < below)
        below = floor
        movers, canonical_waiters = kernel.canonical_pairs(rows[exact, 0] ^ data[exact],
                                                           waiters[exact] & ~kernel.USED, search.rules_tables)
        expected = sorted(zip(movers.tolist(), canonical_waiters.tolist(), lo[exact].tolist(), work[exact].tolist()))
        got = search.proved(floor)
        assert [a.dtype for a in got] == [np.uint64, np.uint64, np.int16, np.int8]
        assert sorted(zip(*(a.tolist() for a in got))) == expected, floor
        assert expected, floor
    assert len(search.proved(0)[0]) == 0


def test_proved_entries_read_through_the_row_logs_are_those_a_scan_finds(monkeypatch: pytest.MonkeyPatch) -> None:
    """Once the table has stopped growing, `ExactSearch.proved` reads only the rows the
    threads' row logs noted; it must still give every exact entry a scan of the whole
    table finds (of at least its work floor, not preloaded), after `preload` marked the
    ones it gave before (as a save does), and after a row log overflowed."""
    from tablebase.solver import smallholder_exact as exact
    from tablebase.solver import smallholder_exact_kernel as kernel

    game = Smallholder("hex4", "nibbler")
    search = ExactSearch(game, table_bytes=1 << 22, threads=2)
    while kernel.tt_grow(search.tt):  # the table at its full size: searches no longer move entries
        pass
    positions = random.Random(5).sample(playout_positions(game, random.Random(6), 40), 6)
    scan = kernel.tt_proved

    def expected(floor: int) -> list[tuple[int, ...]]:
        movers, waiters, scores, work, _ = scan(search.tt, search.table_rows(), floor, exact.PRELOADED_WORK,
                                                1 << 20)  # taking none
        movers, waiters = kernel.canonical_pairs(movers, waiters, search.rules_tables)
        return sorted(zip(movers.tolist(), waiters.tolist(), scores.tolist(), work.tolist()))

    def scan_refused(*args: object) -> None:
        raise AssertionError("proved scanned the whole table")

    search.proved(exact.ROW_LOG_MIN_WORK)  # the first call scans: the table grew since it was made
    saves = 0
    for k, pos in enumerate(positions):
        search.analyse(pos, Budget(nodes=200_000))
        want = expected(9)
        if k == 2:  # a row log that overflows: the next call must scan again
            search._workers[1].row_log[kernel.LOG_COUNT] = kernel.ROW_LOG_ROWS + 1
            got = search.proved(9)
        else:
            monkeypatch.setattr(kernel, "tt_proved", scan_refused)
            got = search.proved(9)
            monkeypatch.setattr(kernel, "tt_proved", scan)
        assert sorted(zip(*(a.tolist() for a in got))) == want, k
        assert len(want) > 0 or k != 2
        saves += len(want) > 0
        assert expected(9) == []  # each entry is given once
        search.preload(*got[:3])  # as a save does
    assert saves >= 3
