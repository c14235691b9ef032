"""The weak solve (job-level proof-number search): against the strong tables, on Dask,
across a kill, with cycles; and the proof files it exports, checked and tampered with."""

from __future__ import annotations

import gzip
import json
import logging
import os
import re
import shutil
import signal
import socket
import sqlite3
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import numpy as np
import pytest

from tablebase.db.proofs import ProofStore
from tablebase.db.store import TablebaseStore
from tablebase.games.base import DRAW, LOSS, WIN
from tablebase.games.smallholder import RULESETS, Position, Smallholder, parse_rules
from tablebase.solver.proof import certificate
from tablebase.solver.proof.certificate import ProofError, check_proof, proof_header, proof_rows, format_rows
from tablebase.solver.proof.driver import ProofSearch, SearchSettings, WeakResult, weak_solve
from tablebase.solver.probe import VALUE_NAMES
from tablebase.solver.proof.executors import InlineExecutor, open_executor
from tablebase.solver.smallholder_solve import solve_ruleset

#: A drawn position (RULES/docs: White's d3 and Black's d2 repeat it, up to symmetry).
CYCLE_RULES = "groups=must-create-if-one,territory=hull"
CYCLE_POSITION = "WWB/BB.B/B.WBW/W..W/WBB W"
#: Moves from CYCLE_POSITION that return to it exactly.
CYCLE_MOVES = [14, 13, 5, 10, 8, 4]


def play(game: Smallholder, names: str) -> Position:
    pos = game.start()
    for name in names.split():
        pos = game.play(pos, game.parse_move(name))
    return pos


def table_answer(game: Smallholder, root: Position) -> tuple[int, set[str]]:
    """(value of ``root`` for its side to move, its winning moves) from a strong solve."""
    root_key = game.canonical_key(root)
    solved = solve_ruleset(game.board, game.rules, roots=np.array([root_key], dtype=np.uint64))

    def value(pos: Position) -> int:
        at = int(np.searchsorted(solved.keys, game.canonical_key(pos)))
        assert solved.keys[at] == game.canonical_key(pos)
        return int(solved.values[at])

    winning = {game.move_name(move.cell) for move, child in game.children(root) if value(child) == LOSS}
    return value(root), winning


def weak_answer(result: WeakResult) -> tuple[int | None, set[str]]:
    if result.value != WIN:
        return result.value, set()
    return result.value, {move for move, state in result.goals[0].first_moves.items() if state == "win"}


@pytest.fixture(scope="module")
def cluster():
    with open_executor(workers=2) as (executor, slots):
        yield executor, slots


@pytest.mark.slow
def test_a_local_clusters_workers_print_only_what_stops_them(cluster):
    # a heartbeat meeting the scheduler closed as a run ends printed a traceback
    executor, slots = cluster
    level_there = logging.getLogger("distributed.worker").getEffectiveLevel  # run in the worker
    levels = {executor.submit(level_there).result() for _ in range(4 * slots)}
    assert levels == {logging.CRITICAL}



@pytest.mark.slow
def test_a_worker_a_local_cluster_starts_again_after_a_crash_prints_as_little():
    import dask
    from distributed import KilledWorker

    level_there = logging.getLogger("distributed.worker").getEffectiveLevel  # run in the worker
    with dask.config.set({"distributed.scheduler.allowed-failures": 0}):
        with open_executor(workers=1) as (executor, _):
            with pytest.raises(KilledWorker):
                executor.submit(os._exit, 1).result(timeout=120)  # the worker's process dies
            assert executor.submit(level_there).result(timeout=120) == logging.CRITICAL

def solve_both(game: Smallholder, root: Position, executor, slots, budget: int) -> None:
    expected = table_answer(game, root)
    result = weak_solve(game, root, executor, slots, SearchSettings(node_budget=budget, first_moves=True))
    assert weak_answer(result) == expected
    assert all(state != "open" for state in result.goals[0].first_moves.values())


@pytest.mark.slow
@pytest.mark.parametrize("ruleset", ["nibbler", pytest.param("stymie", marks=pytest.mark.exhaustive)])
def test_limping2_on_a_local_cluster_matches_the_tables(cluster, ruleset):
    game = Smallholder("limping2", ruleset)
    solve_both(game, game.start(), *cluster, budget=2_000)


@pytest.mark.exhaustive
@pytest.mark.parametrize("ruleset", [r for r in RULESETS if r not in ("nibbler", "stymie")])
def test_limping2_other_rulesets_on_a_local_cluster(cluster, ruleset):
    game = Smallholder("limping2", ruleset)
    solve_both(game, game.start(), *cluster, budget=2_000)


@pytest.mark.slow
def test_hex3_subproblem_on_a_local_cluster_matches_the_table(cluster):
    game = Smallholder("hex3", "nibbler")
    solve_both(game, play(game, "c3 c4 c5 c2 c1 d1 b4 a1"), *cluster, budget=20_000)


@pytest.mark.exhaustive
@pytest.mark.parametrize("ruleset", ["hull-setbacks", "gaps-original"])
def test_hex3_deeper_subproblems_on_a_local_cluster(cluster, ruleset):
    game = Smallholder("hex3", ruleset)
    solve_both(game, play(game, "c3 c4 c5 c2 c1 d1"), *cluster, budget=50_000)


@pytest.mark.exhaustive
def test_in_process_and_cluster_prove_the_same_value(cluster):
    game = Smallholder("limping2", "hull-setbacks")
    inline = weak_solve(game, game.start(), InlineExecutor(), 1, SearchSettings(node_budget=500))
    spread = weak_solve(game, game.start(), *cluster, SearchSettings(node_budget=500))
    assert inline.value == spread.value == WIN


@pytest.mark.slow
@pytest.mark.parametrize("solver", ["exact", "value"])
@pytest.mark.parametrize("ruleset", ["nibbler", "gaps-original"])
def test_the_compiled_leaf_solvers_give_the_same_answers(ruleset, solver):
    game = Smallholder("limping2", ruleset)
    expected = table_answer(game, game.start())
    result = weak_solve(game, game.start(), InlineExecutor(), 1,
                        SearchSettings(node_budget=5_000, solver=solver, first_moves=True))
    assert weak_answer(result) == expected
    # a proof on leaves whose value alone is known claims no length
    assert (result.goals[-1].proof_length is None) == (solver == "value")


@pytest.mark.slow
def test_value_leaves_export_with_their_remoteness_and_check(tmp_path):
    """A proof whose leaves have their value alone: the export finds each leaf's exact
    remoteness, works the rows' lengths out from them, and the file passes the check; the
    remoteness found is stored (unless the file is read-only) for the next export."""
    from tablebase.service import proof as service_proof
    from tablebase.service.proof import export_proof

    db = tmp_path / "tb.sqlite"
    game = Smallholder("hex3", "nibbler")
    root = play(game, "c3 c4 c5 c2 c1 d1 b4 a1")
    with TablebaseStore(db, create=True) as store:
        result = weak_solve(game, root, InlineExecutor(), 1, SearchSettings(node_budget=2_000, solver="value"),
                            ProofStore(store))
    assert result.value == table_answer(game, root)[0] == WIN
    with TablebaseStore(db) as store:
        proofs = ProofStore(store)
        leaves = proofs.leaves("smallholder", game.rules_name)
        assert any(value != DRAW and remoteness is None for value, remoteness in leaves.values())
        run = proofs.find_run("smallholder", game.rules_name, game.canonical_key(root), root.to_move)
        with pytest.raises(ProofError, match="no remoteness"):
            list(proof_rows(game, root, root.to_move, proofs.settled(run.id), leaves))
    shutil.copyfile(db, tmp_path / "cluster.sqlite")  # for the export on a cluster, below
    with TablebaseStore(db, readonly=True) as store:  # a read-only file: found, not stored
        lines = list(export_proof(store, "hex3", game.rules, game.format(root)))
        assert ProofStore(store).leaves("smallholder", game.rules_name) == leaves
    with TablebaseStore(db) as store:
        events: list = []
        assert list(export_proof(store, "hex3", game.rules, game.format(root), events.append)) == lines
        found = ProofStore(store).leaves("smallholder", game.rules_name)
    # first how many leaves need a search, then one event per leaf, counted
    announced, searched = events[0], events[1:]
    assert announced.text == f"{len(searched)} leaves to give a remoteness by the exact search", announced
    assert searched and all((e.done, e.total) == (i, len(searched)) and "remoteness" in e.text and "min left" in e.text
                            for i, e in enumerate(searched, start=1)), searched
    # the remoteness found is stored: a second export searches nothing and writes the same
    assert sum(r is None and v != DRAW for v, r in found.values()) == \
        sum(r is None and v != DRAW for v, r in leaves.values()) - len(searched)
    def no_search(game):  # noqa: ARG001
        raise AssertionError("the export searched a leaf whose remoteness is stored")

    with TablebaseStore(db) as store, pytest.MonkeyPatch.context() as patch:
        patch.setattr(service_proof, "exact_search", no_search)
        assert list(export_proof(store, "hex3", game.rules, game.format(root))) == lines
    # on a local cluster: the leaves' searches on its workers, the same file, the same stored
    with TablebaseStore(tmp_path / "cluster.sqlite") as store:
        events = []
        assert list(export_proof(store, "hex3", game.rules, game.format(root), events.append, workers=2)) == lines
        assert ProofStore(store).leaves("smallholder", game.rules_name) == found
    assert events[0].text.endswith("by the exact search (local Dask cluster of 2 workers)")
    assert sorted(e.done for e in events[1:]) == list(range(1, len(searched) + 1))
    report = check_proof(lines)
    assert report.leaves > report.terminal_leaves
    solved = solve_ruleset(game.board, game.rules, roots=np.array([game.canonical_key(root)], dtype=np.uint64))
    assert report.depth >= int(solved.remoteness[np.searchsorted(solved.keys, game.canonical_key(root))])


def test_export_rejects_a_strategy_that_loops():
    """The lengths of a proof's rows are worked out from its leaves; a stored strategy
    that comes back to a row of its own is refused, not looped over."""
    from tablebase.solver.proof.certificate import Row, _strategy_lengths

    rows = {1: (Row("a", "winner", "x", "win", 0), [2]), 2: (Row("b", "loser", "", "loss", 0), [3, 4]),
            3: (Row("c", "leaf", "", "win", 5), []), 4: (Row("d", "winner", "y", "win", 0), [2])}
    with pytest.raises(ProofError, match="loops: it comes back to 'b'"):
        _strategy_lengths(rows, 1)
    rows[4] = (Row("d", "leaf", "", "win", 7), [])
    assert _strategy_lengths(rows, 1) == {3: 5, 4: 7, 2: 8, 1: 9}


# -- cycles ------------------------------------------------------------------------------


def test_the_cycle_is_a_real_repetition():
    game = Smallholder("hex3", CYCLE_RULES)
    pos = start = game.parse(CYCLE_POSITION)
    for cell in CYCLE_MOVES:
        pos = game.play(pos, cell)
    assert pos == start


def test_a_loop_is_never_a_win_and_never_a_stored_disproof():
    game = Smallholder("hex3", CYCLE_RULES)
    root = game.parse(CYCLE_POSITION)
    # the master graph alone (no leaf jobs) meets the repetition: it must not decide
    for attacker in "BW":
        search = ProofSearch(game, root, attacker, InlineExecutor(), 1, SearchSettings(job_max_empty=0))
        result = search.run()
        assert search.graph.loop_edges >= 1
        assert result.status == "unknown"
    # the exact leaves solve the cycle as a whole: a draw
    assert weak_solve(game, root, InlineExecutor()).value == DRAW
    assert weak_solve(game, root, InlineExecutor(), settings=SearchSettings(job_max_empty=0)).value is None


# -- store, export, check --------------------------------------------------------------


def export(db: Path, game: Smallholder, root: Position, winner: str) -> list[str]:
    with TablebaseStore(db) as store:
        proofs = ProofStore(store)
        run = proofs.find_run("smallholder", game.rules_name, game.canonical_key(root), winner)
        assert run is not None and run.status == "proved"
        rows = proof_rows(game, root, winner, proofs.settled(run.id), proofs.leaves("smallholder", game.rules_name))
        return proof_header(game, root, winner) + list(format_rows(rows))


def solve_into(db: Path, game: Smallholder, budget: int) -> WeakResult:
    with TablebaseStore(db, create=True) as store:
        return weak_solve(game, game.start(), InlineExecutor(), 1, SearchSettings(node_budget=budget),
                          ProofStore(store))


# -- a job out of budget runs again with more before the master expands its position -------


def _stingy_solver(monkeypatch, needed: int, calls: list[tuple[int, int]]) -> None:
    """Register a leaf solver ``stingy``: the compiled exact search, but "unknown" for any
    budget below ``needed``; every call's (key, budget) goes to ``calls``."""
    from tablebase.solver.proof import jobs

    def stingy(game, pos, node_budget, threads=1, table_bytes=jobs.EXACT_TABLE_BYTES):
        calls.append((game.canonical_key(pos), node_budget))
        if node_budget < needed:
            return None, node_budget
        return jobs.exact_leaf(game, pos, 10**9, 1)

    monkeypatch.setitem(jobs.LEAF_SOLVERS, "stingy", stingy)


@pytest.mark.parametrize("retries, jobs, expanded", [(0, None, True), (1, [1_000, 4_000], False),
                                                       (2, [1_000, 4_000], False)])
def test_a_job_out_of_budget_runs_again_with_four_times_the_budget(monkeypatch, retries, jobs, expanded):
    """With retries the start's job runs again at 4x its budget, proving the start by
    itself; without, the master expands the start and proves it from its children. The
    value is the table's either way."""
    game = Smallholder("limping2", "nibbler")
    calls: list[tuple[int, int]] = []
    _stingy_solver(monkeypatch, 4_000, calls)
    settings = SearchSettings(node_budget=1_000, job_retries=retries, solver="stingy")
    result = weak_solve(game, game.start(), InlineExecutor(), 1, settings)
    assert result.value == table_answer(game, game.start())[0]
    root = game.canonical_key(game.start())
    assert [budget for key, budget in calls if key == root][:3] == (jobs or [1_000])
    assert (result.goals[0].nodes > 1) == expanded
    assert max(budget for _, budget in calls) <= 1_000 * 4 ** retries


def test_the_job_table_size_reaches_the_leaf_search(monkeypatch):
    """`SearchSettings.job_table_bytes` is the size limit of the table the jobs' compiled
    search keeps (one search per size), and the value is the table's with a tiny table too."""
    from tablebase.solver.proof import jobs

    jobs._exact_search.cache_clear()
    game = Smallholder("limping2", "stymie")
    for table_bytes in (1 << 16, 1 << 24):
        settings = SearchSettings(node_budget=10**7, solver="value", job_table_bytes=table_bytes)
        result = weak_solve(game, game.start(), InlineExecutor(), 1, settings)
        assert result.value == table_answer(game, game.start())[0]
    # the worker keeps one search, the latest settings': its table the largest power of
    # two of 24-byte entries that fits; the earlier table size's search was let go
    assert jobs._exact_search.cache_info().currsize == 1
    hits = jobs._exact_search.cache_info().hits
    assert jobs._exact_search("limping2", game.rules.spec, 1, 1 << 24).table_entries == 1 << 19
    assert jobs._exact_search.cache_info().hits == hits + 1
    assert jobs._exact_search("limping2", game.rules.spec, 1, 1 << 16).table_entries == 1 << 11


def test_a_resumed_run_retries_a_position_with_the_grown_budget(monkeypatch, tmp_path):
    """A run stopped after a job ran out of budget on the start stored that budget; the
    same command then starts the start's next job at 4x, not from the first budget again,
    and a start stored as out of the largest budget is expanded at once."""
    game = Smallholder("limping2", "nibbler")
    start = game.start()
    root = game.canonical_key(start)
    for stored, first_job in ((1_000, (root, 4_000)), (4_000, None)):
        calls: list[tuple[int, int]] = []
        _stingy_solver(monkeypatch, 4_000, calls)
        db = tmp_path / f"tb{stored}.sqlite"
        with TablebaseStore(db, create=True) as store:  # what the stopped run left
            proofs = ProofStore(store)
            run = proofs.open_run("smallholder", game.rules_name, game.format(start), root, "B", "stingy", 1_000)
            proofs.commit(run, "smallholder", game.rules_name, "stingy", [], [(root, stored, stored, 0.01)], [],
                          1, 0.01, "running", {})
            assert proofs.job_costs("smallholder", game.rules_name) == ({}, {root: (stored, 0.01)})
        with TablebaseStore(db) as store:
            settings = SearchSettings(node_budget=1_000, job_retries=1, solver="stingy")
            result = ProofSearch(game, start, "B", InlineExecutor(), 1, settings, ProofStore(store)).run()
        assert result.status == "proved"
        if first_job is None:  # out of the largest budget before: expanded, no job on the start
            assert root not in {key for key, _ in calls} and result.nodes > 1
        else:
            assert calls[0] == first_job and result.nodes == 1


@pytest.fixture(scope="module")
def limping2_proof(tmp_path_factory) -> list[str]:
    db = tmp_path_factory.mktemp("proof") / "tb.sqlite"
    game = Smallholder("limping2", "nibbler")
    assert solve_into(db, game, 1_000).value == WIN
    return export(db, game, game.start(), "B")


@pytest.mark.slow
def test_export_then_check_round_trip(limping2_proof):
    assert limping2_proof[-1].count("\t") == 4
    report = check_proof(limping2_proof)
    assert report.winner == "B" and report.rules == "nibbler@limping2"
    assert report.rows == len(limping2_proof) - 6
    assert report.leaves == (report.terminal_leaves + report.resolved_leaves + report.reproved_leaves
                             + report.image_leaves) > 0
    assert report.image_leaves > 0  # limping2's mirror: a leaf and its image are solved once
    assert report.depth == 11  # the strong table's remoteness of the start: the proof is as short


@pytest.mark.slow
def test_check_re_solves_leaves_too_big_for_the_reference_engine(limping2_proof):
    report = check_proof(limping2_proof, check_budget=50)
    assert report.searched_leaves > 0 and report.reproved_leaves == 0
    assert report.leaves == report.terminal_leaves + report.resolved_leaves + report.searched_leaves + report.image_leaves
    heard: list[str] = []
    report = check_proof(limping2_proof, check_budget=50, progress=heard.append, leaf_check="reference")
    assert report.reproved_leaves > 0 and report.searched_leaves == 0
    # each re-proof is heard of as it goes, as each re-solve is with the search
    reproving = [line for line in heard if line.startswith("re-proving leaf ")]
    assert len(reproving) >= report.reproved_leaves
    assert re.fullmatch(r"re-proving leaf [\d,]+ of [\d,]+ \(line \d+\): [\d,]+ positions settled, [\d,]+ nodes, "
                        r"\d+ s", reproving[0]), reproving[0]


@pytest.mark.slow
def test_a_title_naming_other_rules_is_refused(limping2_proof):
    """The title's rules (what a reader sees first) must be the rules the proof is checked
    under: a title changed to stymie@limping2 passed, checked and reported as nibbler."""
    assert limping2_proof[0] == "# tablebase proof: The Smallholder, nibbler@limping2"
    with pytest.raises(ProofError, match="the title names other rules than the '# rules:' and '# board:' lines "
                                         r"\(nibbler@limping2\): 'The Smallholder, stymie@limping2'"):
        check_proof(["# tablebase proof: The Smallholder, stymie@limping2"] + limping2_proof[1:])


@pytest.mark.slow
def test_a_length_only_claimed_is_reported_so(limping2_proof):
    """With --leaf-check reference a big leaf's value is re-proved, not its remoteness: the
    report says the length is the proof's claim (a proof shortened throughout passed, and
    its length read as checked); a leaf claiming a finished game is the rules' to judge."""
    checked = check_proof(limping2_proof, check_budget=50)
    assert checked.remoteness_checked and checked.as_json()["remoteness_checked"] is True
    assert f"in at most {checked.depth} plies:" in checked.text()
    claimed = check_proof(limping2_proof, check_budget=50, leaf_check="reference")
    assert not claimed.remoteness_checked and claimed.as_json()["remoteness_checked"] is False
    assert f"(in at most {claimed.depth} plies as the proof claims: the lengths of its" in claimed.text()
    # a winner's move whose leaf (a loss in 8 for the side to move) claims a finished game
    rows = limping2_proof

    def fields(i: int) -> list[str]:  # (comment and header lines have no five fields)
        found = rows[i].split("\t")
        return found if len(found) == 5 and found[1] in ("winner", "loser", "leaf") else ["", "", "", "", ""]

    at = next(i for i in range(len(rows) - 1) if fields(i)[1] == "winner" and fields(i + 1)[1] == "leaf"
              and fields(i + 1)[3] == "loss" and int(fields(i + 1)[4]) > 0)
    position, _, move, _, _ = fields(at)
    tampered = rows[:at] + [f"{position}\twinner\t{move}\twin\t1", f"{fields(at + 1)[0]}\tleaf\t\tloss\t0"] + rows[at + 2:]
    with pytest.raises(ProofError, match="the leaf claims a finished game .* but the side to move has legal moves"):
        check_proof(tampered, check_budget=1, leaf_check="reference")


@pytest.mark.slow
def test_check_progress_says_how_long_the_leaves_left_take_at_the_pace_so_far(limping2_proof, monkeypatch):
    class Clock:  # a minute passes at every reading: every leaf takes as many minutes
        now = 0.0

        @classmethod
        def perf_counter(cls) -> float:
            cls.now += 60
            return cls.now

    monkeypatch.setattr(certificate, "time", Clock)
    messages: list[str] = []
    report = check_proof(limping2_proof, progress=messages.append)
    leaves = report.leaves
    # no time left once only images of leaves checked are left (they cost nothing)
    paced = [re.fullmatch(rf"checked {done} of {leaves} leaves( \(about (\d+) min left at the pace so far\))?",
                          message) for done, message in enumerate(messages[:-1], start=1)]
    assert len(messages) == leaves and messages[-1] == f"checked {leaves} of {leaves} leaves" and all(paced)
    assert int(paced[0][2]) > 0


#: an 18-empty hex3 nibbler position, a loss in 18 for White (the table's), too big for the
#: reference re-solve: the first move of Black's win from the start
BIG_LEAF = ".../..../..B../..../... W"


def _leaf_proof(remoteness: int) -> list[str]:
    game = Smallholder("hex3", "nibbler")
    return proof_header(game, game.parse(BIG_LEAF), "B") + [f"{BIG_LEAF}\tleaf\t\tloss\t{remoteness}"]


def test_check_re_solves_a_big_leaf_exactly_by_the_compiled_search():
    report = check_proof(_leaf_proof(18), check_budget=1_000)
    assert (report.searched_leaves, report.resolved_leaves, report.reproved_leaves) == (1, 0, 0)
    assert report.depth == 18
    # the remoteness of a big leaf is checked too, not only its value
    with pytest.raises(ProofError, match="line 7: the leaf is a loss in 18, not a loss in 20"):
        check_proof(_leaf_proof(20), check_budget=1_000)
    with pytest.raises(ValueError, match="leaf_check must be one of"):
        check_proof(_leaf_proof(18), leaf_check="guess")


def test_a_check_journal_keeps_big_leaves_for_the_next_check(tmp_path):
    from tablebase.service.errors import ServiceError
    from tablebase.service.proof import check_proof_lines

    journal = tmp_path / "check.journal"
    first = check_proof_lines(_leaf_proof(18), "<proof>", 1_000, journal=journal)
    assert (first.searched_leaves, first.journal_leaves) == (1, 0)
    lines = journal.read_text().splitlines()
    assert lines == ["# tablebase check journal: rules " + Smallholder("hex3", "nibbler").rules.spec
                     + ", board hex3, leaf check search", f"{BIG_LEAF}\tvalue and remoteness\ta loss in 18"]
    second = check_proof_lines(_leaf_proof(18), "<proof>", 1_000, journal=journal)
    assert (second.searched_leaves, second.journal_leaves, second.depth) == (0, 1, 18)
    assert "1 as the check journal holds them" in second.text() and second.as_json()["journal_leaves"] == 1
    # what the journal holds is compared with the proof's claim like a fresh re-solve
    with pytest.raises(ServiceError, match="an earlier check found 'value and remoteness' of the leaf to be "
                                           "'a loss in 18', not 'a loss in 20'"):
        check_proof_lines(_leaf_proof(20), "<proof>", 1_000, journal=journal)
    # a finding the journal got wrong (here: edited by hand) is caught the same way
    journal.write_text(lines[0] + "\n" + lines[1].replace("18", "16") + "\n")
    with pytest.raises(ServiceError, match="to be 'a loss in 16', not 'a loss in 18'"):
        check_proof_lines(_leaf_proof(18), "<proof>", 1_000, journal=journal)


def test_a_check_journal_cut_short_by_a_kill_drops_its_last_line(tmp_path):
    from tablebase.service.proof import check_proof_lines

    journal = tmp_path / "check.journal"
    check_proof_lines(_leaf_proof(18), "<proof>", 1_000, journal=journal)
    whole = journal.read_text()
    journal.write_text(whole + "../..B./... W\tvalue and rem")  # killed while writing a line
    again = check_proof_lines(_leaf_proof(18), "<proof>", 1_000, journal=journal)
    assert again.journal_leaves == 1 and journal.read_text() == whole


def test_a_check_journal_of_another_check_or_no_journal_is_refused_and_left_alone(tmp_path):
    from tablebase.service.errors import ServiceError
    from tablebase.service.proof import check_proof_file, check_proof_lines

    journal = tmp_path / "check.journal"
    check_proof_lines(_leaf_proof(18), "<proof>", 1_000, journal=journal)
    before = journal.read_bytes()
    with pytest.raises(ServiceError, match="belongs to another check .*leaf check search.*leaf check reference"):
        check_proof_lines(_leaf_proof(18), "<proof>", 1_000, None, "reference", journal)
    other = tmp_path / "notes.txt"
    other.write_text("my notes\n")
    with pytest.raises(ServiceError, match="is not a check journal .*'my notes'"):
        check_proof_lines(_leaf_proof(18), "<proof>", 1_000, journal=other)
    proof = tmp_path / "leaf.tsv"
    proof.write_text("\n".join(_leaf_proof(18)) + "\n")
    with pytest.raises(ServiceError, match="cannot be the proof file itself"):
        check_proof_file(proof, 1_000, journal=proof)
    broken = tmp_path / "broken.journal"
    broken.write_text(before.decode().splitlines()[0] + "\nno tabs here\n")
    with pytest.raises(ServiceError, match="line 2 of the check journal .* is not 'position<tab>question<tab>answer'"):
        check_proof_lines(_leaf_proof(18), "<proof>", 1_000, journal=broken)
    assert journal.read_bytes() == before and other.read_text() == "my notes\n"
    assert proof.read_text().startswith("#") and broken.read_text().endswith("no tabs here\n")


@pytest.mark.slow
def test_a_check_journal_keeps_re_proved_leaves_too(limping2_proof, tmp_path):
    journal = tmp_path / "check.journal"
    first = check_proof(limping2_proof, check_budget=50, leaf_check="reference", journal=_journal(journal))
    assert first.reproved_leaves > 0 and first.journal_leaves == 0
    answers = [line.split("\t")[1:] for line in journal.read_text().splitlines()[1:]]
    assert answers and all(answer == ["a win for black?", "yes"] for answer in answers)  # Black's win
    second = check_proof(limping2_proof, check_budget=50, leaf_check="reference", journal=_journal(journal))
    assert (second.reproved_leaves, second.journal_leaves) == (0, len(answers))


@pytest.mark.slow
def test_a_check_on_a_local_cluster_re_solves_the_big_leaves_on_its_workers(limping2_proof, cluster, tmp_path):
    executor, slots = cluster
    alone = check_proof(limping2_proof, check_budget=50)
    journal = tmp_path / "check.journal"
    spread = check_proof(limping2_proof, check_budget=50, journal=_journal(journal), executor=executor, slots=slots)
    counts = ("leaves", "terminal_leaves", "resolved_leaves", "searched_leaves", "reproved_leaves", "depth")
    assert [getattr(spread, name) for name in counts] == [getattr(alone, name) for name in counts]
    assert spread.searched_leaves > 0 and len(journal.read_text().splitlines()) == 1 + spread.searched_leaves
    # the re-solves ran in the workers' processes: this one never built the check's search
    assert certificate._recheck_search.cache_info().currsize == 0
    # a wrong leaf is found wrong by a worker's re-solve as by this process's
    with pytest.raises(ProofError, match="the leaf is a loss in 18, not a loss in 20"):
        check_proof(_leaf_proof(20), check_budget=1_000, executor=executor, slots=slots)


def test_a_leaf_and_its_image_under_a_symmetry_are_solved_once_and_must_claim_the_same():
    from tablebase.solver.proof.certificate import CheckReport, Row, _check_leaves
    from tablebase.solver.smallholder_exact import ExactSearch

    game = Smallholder("hex3", "nibbler")
    pos = game.parse("BB./.W../W.B../..W./.B. W")  # 12 empty cells
    image = next(game.symmetric(pos, s) for s in range(1, len(game.board.symmetries)) if game.symmetric(pos, s) != pos)
    truth = ExactSearch(game, threads=1).solve(pos)
    assert truth is not None
    value, remoteness = truth.value, truth.remoteness
    name = VALUE_NAMES[value]

    def leaves(claims: list[int]) -> list:
        return [(line, Row(game.format(p), "leaf", "", name, r), p, "B", value == LOSS)
                for line, (p, r) in enumerate(zip([pos, image], claims), start=7)]

    report = CheckReport(game.rules_name, "hex3", game.format(pos), "B")
    _check_leaves(game, leaves([remoteness, remoteness]), 50, "search", report, None, None)
    assert (report.searched_leaves, report.image_leaves) == (1, 1)
    with pytest.raises(ProofError, match="line 8: the leaf claims .* an image under a symmetry of the board of the "
                                         "leaf of line 7"):
        _check_leaves(game, leaves([remoteness, remoteness + 2]), 50, "search", report, None, None)


def _journal(path: Path):  # noqa: ANN202 (db's journal file)
    from tablebase.db.check_journal import CheckJournal

    return CheckJournal(path)


def _rows(lines: list[str]) -> tuple[list[str], list[list[str]]]:
    head = [line for line in lines if line.startswith("#") or line.startswith("position\t")]
    return head, [line.split("\t") for line in lines[len(head):]]


def test_check_rejects_a_missing_reply(limping2_proof):
    head, rows = _rows(limping2_proof)
    # drop a row that a loser's reply reaches (any non-root row is reached that way or by a winner move)
    victim = next(i for i, row in enumerate(rows) if i > 0 and rows[i - 1][1] == "loser")
    broken = head + ["\t".join(row) for i, row in enumerate(rows) if i != victim]
    with pytest.raises(ProofError, match="has no row"):
        check_proof(broken)


def test_check_rejects_an_illegal_move(limping2_proof):
    head, rows = _rows(limping2_proof)
    game = Smallholder("limping2", "nibbler")
    at = next(i for i, row in enumerate(rows) if row[1] == "winner" and i > 0)
    pos = game.parse(rows[at][0])
    occupied = next(c for c in range(game.board.size) if (pos.black | pos.white) >> c & 1)
    rows[at][2] = game.move_name(occupied)
    with pytest.raises(ProofError, match="illegal move"):
        check_proof(head + ["\t".join(row) for row in rows])


def test_check_rejects_a_wrong_leaf_value(limping2_proof):
    head, rows = _rows(limping2_proof)
    at = next(i for i, row in enumerate(rows) if row[1] == "leaf" and row[4] != "0")
    rows[at][4] = str(int(rows[at][4]) + 2)
    with pytest.raises(ProofError):
        check_proof(head + ["\t".join(row) for row in rows])


def test_check_rejects_malformed_files(limping2_proof):
    with pytest.raises(ProofError, match="header"):
        check_proof(["# nothing here"])
    head, rows = _rows(limping2_proof)
    with pytest.raises(ProofError, match="tab-separated"):
        check_proof(head + ["../.../..../... B\twinner\tb1"])
    with pytest.raises(ProofError, match="unknown role"):
        check_proof(head + ["../.../..../... B\tboss\tb1\twin\t11"])


#: a draw in the hex3 table of these (cycling) rules, 8 empty cells, White to move
DRAWN_RULES = "groups=priority-create,adjacent=smallest,territory=hull,capture=piecewise"
DRAWN_ROOT = "WWB/BB../..WBW/W.../.BB W"


@pytest.fixture(scope="module")
def draw_proof(tmp_path_factory) -> list[str]:
    from tablebase.service.proof import export_proof, weak_solve_into

    db = tmp_path_factory.mktemp("draw") / "tb.sqlite"
    rules = parse_rules(DRAWN_RULES)
    with TablebaseStore(db, create=True) as store:
        # the master expands the root and its moves itself, so the proof has structure
        report = weak_solve_into(store, "hex3", rules, root_text=DRAWN_ROOT, node_budget=20_000, solver="exact",
                                 job_max_empty=6)
        assert report.value == "draw"
        return list(export_proof(store, "hex3", rules, DRAWN_ROOT))


def test_a_draw_exports_both_drawing_strategies_and_checks(draw_proof):
    from tablebase.solver.smallholder_exact import ExactSearch

    game = Smallholder("hex3", parse_rules(DRAWN_RULES))
    assert ExactSearch(game, threads=1).value(game.parse(DRAWN_ROOT)) == DRAW  # another method agrees
    assert "# claim: a draw: neither side can force a win (draw)" in draw_proof
    strategies = [line for line in draw_proof if line.startswith("# strategy:")]
    assert strategies == ["# strategy: white does not lose (holder W)", "# strategy: black does not lose (holder B)"]
    report = check_proof(draw_proof)
    assert report.draw and report.winner == ""
    assert report.holder_rows > 0 and report.opponent_rows > 0 and report.terminal_leaves > 0
    assert report.leaves == report.terminal_leaves + report.resolved_leaves + report.searched_leaves + report.image_leaves
    assert report.rows == len([line for line in draw_proof if "\t" in line and not line.startswith("position\t")])
    assert report.as_json()["winner"] is None and report.as_json()["remoteness"] is None
    assert "is a draw under" in report.text()


def test_check_rejects_a_draw_with_one_strategy(draw_proof):
    second = draw_proof.index("# strategy: black does not lose (holder B)")
    with pytest.raises(ProofError, match="a draw's proof holds two strategies"):
        check_proof(draw_proof[:second])


def test_check_rejects_a_drawing_move_that_leaves_the_strategy(draw_proof):
    game = Smallholder("hex3", parse_rules(DRAWN_RULES))
    lines = list(draw_proof)
    texts = {line.split("\t")[0] for line in lines if "\t" in line}
    for at, line in enumerate(lines):
        fields = line.split("\t")
        if len(fields) == 5 and fields[1] == "holder":
            pos = game.parse(fields[0])
            other = [c for c in game.legal_moves(pos) if game.format(game.play(pos, c)) not in texts]
            if other:
                fields[2] = game.move_name(other[0])
                lines[at] = "\t".join(fields)
                break
    else:
        pytest.fail("no holder row with a move out of the strategy")
    with pytest.raises(ProofError, match="which has no row"):
        check_proof(lines)


def test_check_rejects_a_drawing_leaf_that_is_not_what_it_claims(draw_proof):
    lines = list(draw_proof)
    at = next(i for i, line in enumerate(lines) if line.split("\t")[1:2] == ["leaf"] and line.endswith("\tdraw\t"))
    position = lines[at].split("\t")[0]
    holder_to_move = lines[:at][::-1]  # the leaf's strategy: the nearest strategy line above it
    holder = next(line for line in holder_to_move if line.startswith("# strategy:"))[-2]
    claimed = "win" if position.endswith(holder) else "loss"  # not lost for the holder, yet not a draw
    lines[at] = f"{position}\tleaf\t\t{claimed}\t3"
    with pytest.raises(ProofError, match="the leaf is a draw, not a (win|loss) in 3"):
        check_proof(lines)
    lines[at] = f"{position}\tleaf\t\tdraw\t3"
    with pytest.raises(ProofError, match="a leaf has a remoteness unless it is a draw"):
        check_proof(lines)


def test_check_rejects_a_strategy_line_in_a_win(limping2_proof):
    head, rows = _rows(limping2_proof)
    broken = head[:-1] + ["# strategy: black does not lose (holder B)"] + [head[-1]] + ["\t".join(r) for r in rows]
    with pytest.raises(ProofError, match="unknown role \\(expected holder, opponent or leaf\\): 'winner'"):
        check_proof(broken)
    # and a draw's claim on a win's single strategy
    claim = next(i for i, line in enumerate(head) if line.startswith("# claim:"))
    head[claim] = "# claim: a draw: neither side can force a win (draw)"
    with pytest.raises(ProofError, match="a draw's proof holds two strategies"):
        check_proof(head + ["\t".join(r) for r in rows])


def test_check_rejects_a_loop():
    """A "proof" whose winner walks round the cycle for ever wins nothing."""
    game = Smallholder("hex3", CYCLE_RULES)
    winner = "W"
    pos = game.parse(CYCLE_POSITION)
    lines, seen = [], set()
    for cell in CYCLE_MOVES:
        text = game.format(pos)
        seen.add(text)
        if pos.to_move == winner:
            lines.append(f"{text}\twinner\t{game.move_name(cell)}\twin\t9")
        else:
            lines.append(f"{text}\tloser\t\tloss\t8")
            for _, child in game.children(pos):
                if game.format(child) not in seen and game.play(pos, cell) != child:
                    lines.append(f"{game.format(child)}\tleaf\t\twin\t1")
        pos = game.play(pos, cell)
    head = proof_header(game, game.parse(CYCLE_POSITION), winner)
    with pytest.raises(ProofError, match="loops"):
        check_proof(head + lines)


# -- kill and resume ----------------------------------------------------------------------

_CHILD = textwrap.dedent("""
    import sys
    from tablebase.db.proofs import ProofStore
    from tablebase.db.store import TablebaseStore
    from tablebase.games.smallholder import Smallholder
    from tablebase.solver.proof.driver import SearchSettings, weak_solve
    from tablebase.solver.proof.executors import InlineExecutor
    game = Smallholder("limping2", "nibbler")
    with TablebaseStore(sys.argv[1], create=True) as store:
        weak_solve(game, game.start(), InlineExecutor(), 1, SearchSettings(node_budget=int(sys.argv[2])),
                   ProofStore(store))
""")


def _settled_rows(db: Path) -> int:
    try:
        with sqlite3.connect(db, timeout=1) as conn:
            return conn.execute("SELECT count(*) FROM proof_nodes").fetchone()[0]
    except sqlite3.Error:
        return 0


@pytest.mark.exhaustive
def test_a_killed_run_resumes_and_ends_with_the_same_proof(tmp_path):
    game = Smallholder("limping2", "nibbler")
    budget = 200
    whole = tmp_path / "whole.sqlite"
    uninterrupted = solve_into(whole, game, budget)
    expected = export(whole, game, game.start(), "B")

    killed = tmp_path / "killed.sqlite"
    child = subprocess.Popen([sys.executable, "-c", _CHILD, str(killed), str(budget)])
    try:
        deadline = time.monotonic() + 120
        while _settled_rows(killed) < 20 and child.poll() is None and time.monotonic() < deadline:
            time.sleep(0.05)
        assert child.poll() is None, "the run finished before it could be killed"
        os.kill(child.pid, signal.SIGKILL)
        child.wait(timeout=30)
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
    before = _settled_rows(killed)
    assert before >= 20
    resumed = solve_into(killed, game, budget)
    assert resumed.value == WIN
    assert resumed.goals[0].jobs < uninterrupted.goals[0].jobs  # it went on, it did not start again
    assert export(killed, game, game.start(), "B") == expected


# -- a real cluster: dask scheduler and dask worker processes ------------------------------


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.mark.exhaustive
def test_through_a_dask_scheduler_and_two_dask_workers(tmp_path):
    port = _free_port()
    address = f"tcp://127.0.0.1:{port}"
    quiet = {"stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL}
    processes = [subprocess.Popen([sys.executable, "-m", "distributed.cli.dask_scheduler", "--host", "127.0.0.1",
                                   "--port", str(port), "--no-dashboard"], **quiet)]
    try:
        for _ in range(2):
            processes.append(subprocess.Popen([sys.executable, "-m", "distributed.cli.dask_worker", address,
                                               "--nthreads", "1", "--no-dashboard", "--host", "127.0.0.1"], **quiet))
        from distributed import Client

        deadline = time.monotonic() + 60
        while True:  # the scheduler takes a moment to listen
            try:
                with Client(address, timeout=5) as client:
                    client.wait_for_workers(2, timeout=60)
                break
            except (OSError, TimeoutError):
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.5)
        game = Smallholder("limping2", "nibbler")
        db = str(tmp_path / "tb.sqlite")
        solved = cli("solve", "smallholder", "--board", "limping2", "--weak", "--first-moves", "--scheduler",
                     address, "--leaf-solver", "subgraph", "--job-budget", "2000", "--db", db, "--json")
        assert solved.exit_code == 0, solved.output
        answer = json.loads(solved.stdout)
        assert answer["executor"] == f"Dask cluster at {address}"
        winning = {move for move, state in answer["first_moves"].items() if state == "win"}
        assert (WIN, winning) == table_answer(game, game.start())
    finally:
        for process in reversed(processes):
            process.terminate()
        for process in processes:
            try:
                process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


# -- the commands ----------------------------------------------------------------------------


def cli(*args: str):  # noqa: ANN201 (click's Result)
    return cli_input(None, *args)


def cli_input(stdin: str | None, *args: str):  # noqa: ANN201 (click's Result)
    from click.testing import CliRunner

    from tablebase.cli.main import main

    return CliRunner().invoke(main, list(args), input=stdin)


def test_check_with_a_journal_through_the_command(tmp_path):
    proof, journal = tmp_path / "leaf.tsv", tmp_path / "check.journal"
    proof.write_text("\n".join(_leaf_proof(18)) + "\n")
    runs = [cli("check", "--proof", str(proof), "--leaf-budget", "1000", "--journal", str(journal), "--json", "-s")
            for _ in range(2)]
    assert all(run.exit_code == 0 for run in runs), [run.output for run in runs]
    first, second = (json.loads(run.stdout) for run in runs)
    assert (first["searched_leaves"], first["journal_leaves"]) == (1, 0)
    assert (second["searched_leaves"], second["journal_leaves"]) == (0, 1)
    alone = cli("check", "--journal", str(journal))
    assert alone.exit_code == 2 and "--journal is for --proof FILE" in alone.output
    refused = cli("check", "--proof", str(proof), "--leaf-check", "reference", "--journal", str(journal))
    assert refused.exit_code == 1 and "belongs to another check" in refused.stderr
    assert "Traceback" not in refused.output


@pytest.mark.slow
def test_check_on_workers_through_the_command(tmp_path):
    proof = tmp_path / "leaf.tsv"
    proof.write_text("\n".join(_leaf_proof(18)) + "\n")
    spread = cli("check", "--proof", str(proof), "--leaf-budget", "1000", "--workers", "2", "--json", "-s")
    assert spread.exit_code == 0, spread.output
    answer = json.loads(spread.stdout)
    assert (answer["searched_leaves"], answer["remoteness"]) == (1, 18)
    alone = cli("check", "--workers", "2")
    assert alone.exit_code == 2 and "--workers is for --proof FILE" in alone.output
    reference = cli("check", "--proof", str(proof), "--leaf-check", "reference", "--workers", "2")
    assert reference.exit_code == 1 and "not the leaf check 'reference'" in reference.stderr
    unreachable = cli("check", "--proof", str(proof), "--scheduler", "localhost:1")
    assert unreachable.exit_code == 1 and "tcp://HOST:PORT" in unreachable.stderr
    assert "Traceback" not in reference.output + unreachable.output


def test_a_draw_through_the_commands(tmp_path):
    db = str(tmp_path / "tb.sqlite")
    root = ["--board", "hex3", "--rules", DRAWN_RULES, "--position", DRAWN_ROOT, "--db", db]
    solved = cli("solve", "smallholder", "--weak", "--job-max-empty", "6", "--json", "-s", *root)
    assert solved.exit_code == 0, solved.output
    assert json.loads(solved.stdout)["value"] == "draw"
    proof = tmp_path / "draw.tsv"
    exported = cli("proof", "export", "smallholder", "--output", str(proof), *root)
    assert exported.exit_code == 0, exported.output
    checked = cli("check", "--proof", str(proof), "--json", "-s")
    assert checked.exit_code == 0, checked.output
    answer = json.loads(checked.stdout)
    assert answer["draw"] is True and answer["winner"] is None and answer["holder_rows"] > 0
    piped = cli_input(exported_text := proof.read_text(), "check", "--proof", "-", "--json", "-s")
    assert piped.exit_code == 0 and json.loads(piped.stdout)["rows"] == answer["rows"], piped.output
    broken = cli_input(exported_text.replace("\tholder\t", "\twinner\t", 1), "check", "--proof", "-")
    assert broken.exit_code == 1 and "'<stdin>' is not a valid proof: line" in broken.output
    misplaced = cli("solve", "smallholder", "--board", "hex3", "--position", DRAWN_ROOT, "--db", db)
    assert misplaced.exit_code == 2 and "--position belongs to --weak" in misplaced.output
    retries = cli("solve", "smallholder", "--board", "hex3", "--job-retries", "2", "--db", db)
    assert retries.exit_code == 2 and "--job-retries belongs to --weak" in retries.output
    table = cli("solve", "smallholder", "--board", "hex3", "--job-table-mb", "64", "--db", db)
    assert table.exit_code == 2 and "--job-table-mb belongs to --weak" in table.output
    no_table = cli("solve", "smallholder", "--board", "hex3", "--weak", "--job-table-mb", "0", "--db", db)
    assert no_table.exit_code == 2 and "'--job-table-mb': 0 is not in the range" in no_table.output


@pytest.mark.slow
def test_weak_solve_export_and_check_commands(tmp_path):
    db = str(tmp_path / "tb.sqlite")
    solved = cli("solve", "smallholder", "--board", "limping2", "--ruleset", "stymie", "--weak", "--first-moves",
                 "--leaf-solver", "subgraph", "--job-budget", "2000", "--db", db, "--json")
    assert solved.exit_code == 0, solved.output
    answer = json.loads(solved.stdout)
    assert answer["value"] == "loss" and answer["winner"] == "W"
    assert answer["goals"][0]["status"] == "disproved" and answer["goals"][1]["status"] == "proved"
    proof = tmp_path / "stymie.tsv.gz"
    exported = cli("proof", "export", "smallholder", "--board", "limping2", "--ruleset", "stymie", "--db", db,
                   "--output", str(proof))
    assert exported.exit_code == 0, exported.output
    with gzip.open(proof, "rt") as handle:
        assert "position\trole\tmove\tvalue\tremoteness\n" in handle.read()
    checked = cli("check", "--proof", str(proof), "--json")
    assert checked.exit_code == 0, checked.output
    report = json.loads(checked.stdout)
    assert report["ok"] and report["winner"] == "W" and report["rules"] == "stymie@limping2"
    assert report["remoteness"] >= 12  # the table's remoteness of the start; the proof is no shorter


def test_proof_status_says_where_the_stored_runs_stand(tmp_path):
    """`proof status` reads the stored runs without running them: the run's status and
    each first move's (--first-moves settles them all) as the tables have them, and the
    counts of the positions after each move as the rules give them."""
    db = str(tmp_path / "tb.sqlite")
    missing = cli("proof", "status", "--db", db)
    assert missing.exit_code == 1 and "no tablebase" in missing.stderr
    solved = cli("solve", "smallholder", "--board", "limping2", "--ruleset", "nibbler", "--weak", "--first-moves",
                 "--leaf-solver", "subgraph", "--job-budget", "2000", "--db", db, "-s")
    assert solved.exit_code == 0, solved.output
    shown = cli("proof", "status", "--db", db, "--json")
    assert shown.exit_code == 0, shown.output
    [run] = [json.loads(line) for line in shown.stdout.splitlines()]
    game = Smallholder("limping2", "nibbler")
    start = game.start()
    _, winning = table_answer(game, start)
    assert (run["status"], run["goal"], run["from_start"], run["root_pn"]) == ("proved", "B", True, 0)
    proved: set[str] = set()
    named: list[str] = []
    for move in run["moves"]:
        names = [move["move"], *move["images"]]
        named += names
        assert move["status"] in ("proved", "disproved")  # all settled by --first-moves
        if move["status"] == "proved":
            proved |= set(names)
        after = game.play(start, game.parse_move(move["move"]))
        assert move["next_positions"] == len({game.canonical_key(child) for _, child in game.children(after)})
        assert move["proved"] + move["disproved"] <= move["next_positions"]
        if move["status"] == "proved":  # a proof through the first move has every reply proved
            assert move["proved"] == move["next_positions"]
    assert proved == winning and sorted(named) == sorted(game.move_name(m.cell) for m in game.moves(start))
    text = cli("proof", "status", "--db", db).stdout
    with sqlite3.connect(db) as conn:
        started, updated = conn.execute("SELECT started, updated FROM proof_runs").fetchone()
    assert (run["started"], run["updated"]) == (started, updated) and started <= updated
    minute = updated.replace("T", " ")[:16]  # the text gives the last commit to the minute
    assert text.startswith(f"nibbler@limping2, Black wins from the empty board? proved (last commit {minute} UTC): ")
    assert len(text.splitlines()) == 3 + len(run["moves"])  # the run, its proof, its leaf jobs, its moves
    with sqlite3.connect(db) as conn:  # what the leaf jobs cost, as the file has it
        solved = dict(conn.execute("SELECT key, seconds FROM proof_leaves").fetchall())
        ran_out = dict(conn.execute("SELECT key, seconds FROM proof_attempts WHERE nodes > 0").fetchall())
    assert solved and run["leaf_jobs"] == {
        "solved": len(solved), "solved_seconds": round(sum(solved.values()), 1), "ran_out": len(ran_out),
        "ran_out_seconds": round(sum(ran_out.values()), 1), "ran_out_then_solved": len(ran_out.keys() & solved.keys())}
    assert text.splitlines()[2] == (f"  leaf jobs of these rules in the file: {len(solved):,} positions solved "
                                    f"({run['leaf_jobs']['solved_seconds']:,.0f} s); {len(ran_out):,} ran out of a budget "
                                    f"({run['leaf_jobs']['ran_out_seconds']:,.0f} s, the last attempt of each), "
                                    f"{run['leaf_jobs']['ran_out_then_solved']:,} of them solved by a retry")
    # the proof as the export writes it; subgraph leaves carry their remoteness
    exported = cli("proof", "export", "smallholder", "--board", "limping2", "--db", db, "-s")
    assert exported.exit_code == 0, exported.output
    rows = [line.split("\t") for line in exported.stdout.splitlines() if not line.startswith("#")][1:]
    leaves = [game.parse(row[0]) for row in rows if row[1] == "leaf"]
    assert run["proof"] == {"positions": len(rows), "leaves": len(leaves),
                            "distinct_leaves": len({game.canonical_key(leaf) for leaf in leaves}),
                            "leaves_without_remoteness": 0}
    assert text.splitlines()[1] == (f"  proof: {len(rows):,} positions, {len(leaves):,} leaves "
                                    f"({run['proof']['distinct_leaves']:,} up to symmetry); each with its "
                                    "remoteness ('proof export' searches nothing)")
    with sqlite3.connect(db) as conn:  # as a run killed while it ran leaves it
        conn.execute("UPDATE proof_runs SET status = 'running', updated = '2026-12-04T06:23:09Z'")
    killed = cli("proof", "status", "--db", db).stdout  # nobody holds the file's solve lock: it was killed
    assert killed.startswith("nibbler@limping2, Black wins from the empty board? unfinished "
                             "(last commit 2026-12-04 06:23 UTC): ")
    refused = cli("proof", "export", "smallholder", "--board", "limping2", "--db", db, "-s")  # and the export says so
    assert refused.exit_code == 1 and "black wins? unfinished" in refused.output and "running" not in refused.output
    with TablebaseStore(db) as writer, writer.solve_lock():  # as the run's own process holds it while it runs
        running = cli("proof", "status", "--db", db).stdout
        [live] = [json.loads(line) for line in cli("proof", "status", "--db", db, "--json").stdout.splitlines()]
    assert running.startswith(f"nibbler@limping2, Black wins from the empty board? running (pid {os.getpid()}, "
                              "last commit 2026-12-04 06:23 UTC): ")
    assert (live["status"], live["pid"]) == ("running", str(os.getpid()))
    assert json.loads(cli("proof", "status", "--db", db, "--json").stdout)["pid"] is None  # the lock let go
    with sqlite3.connect(db) as conn:
        conn.execute("UPDATE proof_runs SET root = 'xx'")
    damaged = cli("proof", "status", "--db", db)
    assert damaged.exit_code == 1 and "damaged" in damaged.stderr and "'xx'" in damaged.stderr
    assert len(damaged.stderr.strip().splitlines()) == 1


def test_a_weak_solve_is_the_files_one_writer(tmp_path):
    """A weak solve holds the file's solve lock: a second solve into the file is refused
    while it runs (one line, naming the holder), and one that holds it knows that a run
    still marked running in the file was killed, and marks it unfinished."""
    db = str(tmp_path / "tb.sqlite")
    args = ["solve", "smallholder", "--board", "limping2", "--weak", "--leaf-solver", "subgraph",
            "--job-budget", "2000", "--db", db, "-s"]
    with TablebaseStore(db, create=True) as holder, holder.solve_lock():
        refused = cli(*args)
    assert refused.exit_code == 1, refused.output
    assert refused.stderr == (f"Error: another solve (pid {os.getpid()}) is writing to {db!r}; wait for it to finish "
                              "(two solves into one file are never interleaved)\n")
    assert json.loads(cli("proof", "status", "--db", db, "--json").stdout or "null") is None  # nothing was started
    stymie = Smallholder("limping2", "stymie")
    with TablebaseStore(db) as store:  # a run of other rules, left marked running by a killed process
        ProofStore(store).open_run("smallholder", stymie.rules_name, stymie.format(stymie.start()),
                                   stymie.canonical_key(stymie.start()), "B", "subgraph", 2000)
    with sqlite3.connect(db) as conn:
        assert conn.execute("SELECT status FROM proof_runs").fetchall() == [("running",)]
    solved = cli(*args)
    assert solved.exit_code == 0, solved.output
    with sqlite3.connect(db) as conn:
        statuses = dict(conn.execute("SELECT rules, status FROM proof_runs").fetchall())
    assert statuses == {stymie.rules_name: "unfinished", Smallholder("limping2", "nibbler").rules_name: "proved"}


def test_proof_status_counts_the_leaves_an_export_must_search(tmp_path):
    """A proof with value-only leaves: `proof status` counts those the export still has to
    give a remoteness (all of them, up to symmetry, that are not finished games), and none
    once an export has stored them; runs that are not proved have no proof."""
    db = str(tmp_path / "tb.sqlite")
    solved = cli("solve", "smallholder", "--board", "limping2", "--weak", "--leaf-solver", "value",
                 "--job-budget", "2000", "--db", db, "-s")
    assert solved.exit_code == 0, solved.output
    [before] = [json.loads(line) for line in cli("proof", "status", "--db", db, "--json").stdout.splitlines()]
    assert before["status"] == "proved"
    game = Smallholder("limping2", "nibbler")
    with sqlite3.connect(db) as conn:
        value_only = {int(key, 16) for key, in conn.execute("SELECT key FROM proof_leaves WHERE remoteness IS NULL")}
    exported = cli("proof", "export", "smallholder", "--board", "limping2", "--db", db, "-s")
    assert exported.exit_code == 0, exported.output
    rows = [line.split("\t") for line in exported.stdout.splitlines() if not line.startswith("#")][1:]
    searched = {game.canonical_key(game.parse(row[0])) for row in rows if row[1] == "leaf"} & value_only
    assert before["proof"]["leaves_without_remoteness"] == len(searched) > 0
    text = cli("proof", "status", "--db", db).stdout.splitlines()[1]
    assert text.endswith("each with its remoteness ('proof export' searches nothing)")
    [after] = [json.loads(line) for line in cli("proof", "status", "--db", db, "--json").stdout.splitlines()]
    assert after["proof"] == {**before["proof"], "leaves_without_remoteness": 0}
    with sqlite3.connect(db) as conn:  # a damaged file: what the proof stands on lost
        nodes = conn.execute("SELECT * FROM proof_nodes").fetchall()
        leaf_rows = conn.execute("SELECT * FROM proof_leaves").fetchall()
        conn.execute("DELETE FROM proof_nodes")
        conn.execute("DELETE FROM proof_leaves")
    damaged = cli("proof", "status", "--db", db)
    assert damaged.exit_code == 0, damaged.output
    assert damaged.stdout.splitlines()[1].startswith("  proof: none can be exported: ")
    [lost] = [json.loads(line) for line in cli("proof", "status", "--db", db, "--json").stdout.splitlines()]
    assert list(lost["proof"]) == ["error"] and "no proof" in lost["proof"]["error"]
    with sqlite3.connect(db) as conn:
        conn.executemany(f"INSERT INTO proof_nodes VALUES ({', '.join('?' * len(nodes[0]))})", nodes)
        conn.executemany(f"INSERT INTO proof_leaves VALUES ({', '.join('?' * len(leaf_rows[0]))})", leaf_rows)
    [again] = [json.loads(line) for line in cli("proof", "status", "--db", db, "--json").stdout.splitlines()]
    assert again["proof"] == after["proof"]
    with sqlite3.connect(db) as conn:
        conn.execute("UPDATE proof_runs SET status = 'unfinished'")
    [unfinished] = [json.loads(line) for line in cli("proof", "status", "--db", db, "--json").stdout.splitlines()]
    assert unfinished["proof"] is None


def test_proof_copy_keeps_a_run_file_whole_while_it_is_written(tmp_path):
    """`proof copy` gives the file as it was committed (not what a writer has not
    committed yet), compressed when asked, the same bytes for the same file; the copy
    holds the same run and reads as the source does; a failed copy leaves the output as
    it was; bad paths are one line, and a compressed file says to gunzip it."""
    db = tmp_path / "run.sqlite"
    solved = cli("solve", "smallholder", "--board", "limping2", "--weak", "--leaf-solver", "value",
                 "--job-budget", "2000", "--db", str(db), "-s")
    assert solved.exit_code == 0, solved.output
    source = cli("proof", "status", "--db", str(db), "--json").stdout
    writer = sqlite3.connect(db, isolation_level=None)  # a run's commit in progress
    writer.execute("BEGIN IMMEDIATE")
    writer.execute("UPDATE proof_runs SET jobs = jobs + 1000")
    packed = tmp_path / "copy.sqlite.gz"
    copied = cli("proof", "copy", "--db", str(db), str(packed), "--json")
    writer.execute("ROLLBACK")
    writer.close()
    assert copied.exit_code == 0, copied.output
    report = json.loads(copied.stdout)
    assert report["bytes"] == packed.stat().st_size and report["output"] == str(packed)
    assert [json.dumps(run) for run in report["runs"]] == source.splitlines()  # not the uncommitted jobs
    plain = tmp_path / "copy.sqlite"
    plain.write_bytes(gzip.decompress(packed.read_bytes()))
    assert cli("proof", "status", "--db", str(plain), "--json").stdout == source
    with sqlite3.connect(db) as a, sqlite3.connect(plain) as b:
        for table in ("proof_runs", "proof_nodes", "proof_leaves", "proof_attempts", "meta"):
            query = f"SELECT * FROM {table} ORDER BY 1, 2"
            assert a.execute(query).fetchall() == b.execute(query).fetchall(), table
    first = packed.read_bytes()
    packed.write_bytes(b"an older copy")
    refused = cli("proof", "copy", "--db", str(db), str(packed))  # an existing copy only with --force
    assert refused.exit_code == 1 and refused.stderr == (f"Error: cannot write {str(packed)!r}: it exists; give "
                                                         "--force to replace it\n")
    assert packed.read_bytes() == b"an older copy"
    assert cli("proof", "copy", "--db", str(db), str(packed), "--force").exit_code == 0  # a refresh replaces it
    assert packed.read_bytes() == first
    text = cli("proof", "copy", "--db", str(db), str(tmp_path / "copy2.sqlite")).stdout
    assert text.startswith(f"copied {db} to {tmp_path / 'copy2.sqlite'} (") and "nibbler@limping2" in text
    damaged = tmp_path / "damaged.sqlite"
    damaged.write_bytes(b"not a tablebase" * 100)
    before = packed.read_bytes()
    for args, message in (([str(damaged), str(packed)], "damaged"),
                          ([str(db), str(tmp_path / "no" / "copy.gz")], "does not exist"),
                          ([str(db), str(db)], "onto itself"),
                          ([str(packed), str(tmp_path / "x.gz")], "gunzip -k"),
                          ([str(tmp_path / "missing.sqlite"), str(tmp_path / "x.gz")], "no tablebase")):
        failed = cli("proof", "copy", "--db", args[0], args[1], "--force")
        assert failed.exit_code == 1 and message in failed.stderr, (args, failed.output)
        assert len(failed.stderr.strip().splitlines()) == 1 and "Traceback" not in failed.output
    assert packed.read_bytes() == before and not (tmp_path / "x.gz").exists()
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]  # no work files left


def test_export_on_workers_through_the_command(tmp_path):
    db = tmp_path / "tb.sqlite"
    solved = cli("solve", "smallholder", "--board", "limping2", "--weak", "--leaf-solver", "value",
                 "--job-budget", "2000", "--db", str(db), "-s")
    assert solved.exit_code == 0, solved.output
    for name in ("alone.sqlite", "unreachable.sqlite"):
        shutil.copyfile(db, tmp_path / name)
    export = ["proof", "export", "smallholder", "--board", "limping2", "-s", "--db"]
    spread = cli(*export, str(db), "--workers", "2")
    alone = cli(*export, str(tmp_path / "alone.sqlite"))
    assert spread.exit_code == alone.exit_code == 0, spread.output + alone.output
    assert spread.stdout == alone.stdout and "\tleaf\t" in spread.stdout
    unreachable = cli(*export, str(tmp_path / "unreachable.sqlite"), "--scheduler", "localhost:1")
    assert unreachable.exit_code == 1 and "tcp://HOST:PORT" in unreachable.stderr
    assert "Traceback" not in unreachable.output


def test_commands_fail_with_one_line(tmp_path):
    db = str(tmp_path / "tb.sqlite")
    missing = cli("proof", "export", "smallholder", "--board", "limping2", "--db", db)
    assert missing.exit_code == 1 and "no tablebase" in missing.output
    unknown = cli("proof", "export", "smallholder", "--board", "hex9", "--db", db)  # the board first
    assert unknown.exit_code != 0 and "hex9" in unknown.output and "no tablebase" not in unknown.output
    cli("solve", "smallholder", "--board", "limping2", "--weak", "--time-limit", "0", "--db", db, "-s")
    unproved = cli("proof", "export", "smallholder", "--board", "limping2", "--db", db)
    assert unproved.exit_code == 1 and "no proof" in unproved.output and "unfinished" in unproved.output
    bad = tmp_path / "bad.tsv"
    bad.write_text("hello\n")
    rejected = cli("check", "--proof", str(bad))
    assert rejected.exit_code == 1 and "header" in rejected.output and "Traceback" not in rejected.output
    assert cli("solve", "smallholder", "--board", "limping2", "--workers", "2").exit_code == 2
    wrong = cli("solve", "smallholder", "--board", "limping2", "--weak", "--scheduler", "localhost:1", "--db", db)
    assert wrong.exit_code == 1 and "tcp://" in wrong.output


def _stopped_by(signum: int, command: list[str], lines: int, wait: float = 0.0, group: bool = False,
                **popen) -> tuple[list[str], str, int]:
    """Run ``command`` (the CLI), send ``signum`` after its first ``lines`` progress lines
    (and ``wait`` seconds more): those lines, the rest of stderr and the exit status. With
    ``group`` the command runs in a process group of its own and the signal goes to the
    whole group, as a terminal sends Ctrl-C."""
    # SIGUSR1 makes the command print every thread's stack: what a command that does not stop waits for
    program = ("import faulthandler, signal; faulthandler.register(signal.SIGUSR1, all_threads=True); "
               "from tablebase.cli.main import main; main()")
    child = subprocess.Popen([sys.executable, "-c", program, *command],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=group,
                             **popen)
    try:
        assert child.stderr is not None
        seen = [child.stderr.readline() for _ in range(lines)]
        assert all("weak solve" in line for line in seen), seen
        time.sleep(wait)
        if group:
            os.killpg(child.pid, signum)
        else:
            child.send_signal(signum)
        try:
            _, err = child.communicate(timeout=60)
        except subprocess.TimeoutExpired:
            child.send_signal(signal.SIGUSR1)
            time.sleep(2)
            child.kill()
            _, err = child.communicate()
            pytest.fail(f"the command did not stop within 60 s of the signal; its threads:\n{err}")
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
    return seen, err, child.returncode


@pytest.mark.slow
def test_ctrl_c_stops_a_weak_solve(tmp_path):
    """SIGINT ends the command (click's "Aborted!", status 1) within seconds. The run
    spends nearly all its time in compiled leaf searches, where an interrupt used to be
    taken for a failed job and the job run again."""
    # after the first progress line the first leaf job is running
    _, err, status = _stopped_by(signal.SIGINT, ["solve", "smallholder", "--board", "limping3", "--weak", "--db",
                                                 str(tmp_path / "w.sqlite")], 1, wait=3.0,
                                 preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    assert status == 1
    assert "Aborted" in err and "Traceback" not in err, err


@pytest.mark.slow
def test_sigterm_stops_a_weak_solve_on_workers_cleanly(tmp_path):
    """kill (SIGTERM) of a run on a local cluster: exit status 143 within seconds, the work
    done committed, the cluster closed (no warning of leaked semaphores). It once hung
    here: the signal, raised inside a wait for the jobs, left a job's lock held, on which
    the Dask client's thread then blocked (test_executors.py)."""
    db = tmp_path / "w.sqlite"
    lines, err, status = _stopped_by(signal.SIGTERM, ["solve", "smallholder", "--board", "limping3", "--weak",
                                                      "--workers", "2", "--job-budget", "1000000", "--log-every", "2",
                                                      "--db", str(db)], 4)
    assert status == 143
    assert "leaked semaphore" not in err and "Traceback" not in err, err
    shown = int(re.search(r"([\d,]+) jobs \(", lines[-1]).group(1).replace(",", ""))
    with sqlite3.connect(db) as conn:
        [(stored, run_status)] = conn.execute("SELECT jobs, status FROM proof_runs").fetchall()
    assert shown > 0 and stored >= shown and run_status == "unfinished"  # what it had done when killed; no claim


@pytest.mark.slow
def test_ctrl_c_stops_a_weak_solve_on_workers_cleanly(tmp_path):
    """Ctrl-C in a terminal reaches the local cluster's worker processes too (one process
    group): the command stops within seconds with click's "Aborted!" and no traceback (the
    workers printed one each, and the command waited for ever for the jobs they had been
    running), the work done committed and the run marked unfinished."""
    db = tmp_path / "w.sqlite"
    lines, err, status = _stopped_by(signal.SIGINT, ["solve", "smallholder", "--board", "limping3", "--weak",
                                                     "--workers", "2", "--job-budget", "1000000", "--log-every", "2",
                                                     "--db", str(db)],
                                     4, group=True, preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    assert status == 1  # within the 60 s _stopped_by waits (it timed out on the old code)
    assert "Aborted" in err and "Traceback" not in err and "KeyboardInterrupt" not in err, err
    shown = int(re.search(r"([\d,]+) jobs \(", lines[-1]).group(1).replace(",", ""))
    with sqlite3.connect(db) as conn:
        [(stored, run_status)] = conn.execute("SELECT jobs, status FROM proof_runs").fetchall()
    assert shown > 0 and stored >= shown and run_status == "unfinished"


def test_progress_tells_how_far_the_lines_first_moves_are(monkeypatch):
    """A progress report says how far the most-proving line's first two moves are: how many
    of the positions after each (up to symmetry) are proved and disproved; the command's
    progress line prints it. The line plays from the start, also while the search settles
    the first moves one by one (`first_moves`)."""
    from tablebase.service.proof import _progress_event
    from tablebase.solver.proof import driver

    monkeypatch.setattr(driver, "PROGRESS_INTERVAL", 0.0)  # a report at every commit
    game = Smallholder("limping2", "nibbler")
    seen: list = []
    result = weak_solve(game, game.start(), InlineExecutor(), 1, SearchSettings(node_budget=300, first_moves=True),
                        progress=seen.append)
    assert "no win" in result.goals[0].first_moves.values()  # the first moves were settled after the start
    for p in seen:
        pos = game.start()
        for name in p.line:  # every move legal in turn
            pos = game.play(pos, game.parse_move(name))
    reports = [p for p in seen if p.after_moves]
    assert reports and any(p.after_moves[0][1] for p in reports)  # some report has a proved one
    assert any(len(p.after_moves) == 2 for p in reports)
    example = None
    for p in reports:
        assert len(p.line) >= len(p.after_moves), p  # the counts come with the line's moves
        after = game.start()
        for name, (children, proved, disproved) in zip(p.line, p.after_moves):
            after = game.play(after, game.parse_move(name))
            assert children == len({game.canonical_key(child) for _, child in game.children(after)})
            assert proved + disproved <= children
        if len(p.after_moves) == 2:
            example = example or p
    printed: list = []
    _progress_event(game, printed.append)(example)
    (children, proved, disproved), (children_2, proved_2, disproved_2) = example.after_moves
    assert (f"most-proving line: {' '.join(example.line)} (after {example.line[0]}: {proved} of its {children} next "
            f"positions up to symmetry proved, {disproved} disproved; after {' '.join(example.line[:2])}: {proved_2} "
            f"of its {children_2} next positions proved, {disproved_2} disproved)") in printed[0].text
