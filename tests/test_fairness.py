"""Fairness claims: each verdict on the real rules, and the opposite on altered rules."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from tablebase.cli.main import main
from tablebase.service.verify import StoredSmallholderTables, StoredSparroTables
from tablebase.db.store import TablebaseStore
from tablebase.games.base import DRAW, LOSS, WIN
from tablebase.games.smallholder import RULESETS, Smallholder
from tablebase.games.sparro import Sparro
from tablebase.games.sparro.rules import NO_COMPENSATION
from tablebase.solver.fairness import (
    FAILS,
    HOLDS,
    PARTLY,
    compensation_claim,
    first_move_rule_claim,
    first_player_claim,
    first_player_verdict,
    mirror_claim,
    rulesets_claim,
)
from tablebase.solver.probe import Outcome
from tablebase.solver.smallholder_search import LocalSearch


@pytest.fixture(scope="module")
def tables(sparro_db: Path, tmp_path_factory: pytest.TempPathFactory):
    """The session's solved Sparro tables plus the hypothetical no-compensation one, in a copy."""
    path = tmp_path_factory.mktemp("fairness") / "tb.sqlite"
    shutil.copy(sparro_db, path)
    with TablebaseStore(path) as store:
        yield StoredSparroTables(store, progress=False)


def replay(variant: str, line: list[int]):
    game = Sparro(variant)
    pos = game.start()
    for move in line[:-1]:
        pos = game.play(pos, move)
    return game, pos, line[-1]


def test_mirror_holds_without_first_move_rule(tables) -> None:
    claim = mirror_claim(tables)
    assert claim.verdict == HOLDS
    assert claim.evidence["mirror"]["counterexample"] is None
    assert claim.evidence["start"]["value"] == "loss"  # the table agrees: Red loses the start
    # only the 180-degree turn fixes no cell; every other symmetry has a counterexample
    others = claim.evidence["other_symmetries"]
    assert [name for name, check in others.items() if check["always_wins"]] == ["rotate-180"]


def test_mirror_fails_in_standard_with_a_counterexample(tables) -> None:
    claim = mirror_claim(tables, "standard")
    assert claim.verdict == FAILS
    line = claim.evidence["mirror"]["counterexample"]
    game, pos, last = replay("standard", line)
    final = game.play(pos, last)
    assert game.result(final).winner == "R"  # the counterexample really ends in a Red line


def test_first_move_rule_holds_and_fails_without_the_rule(tables) -> None:
    claim = first_move_rule_claim(tables)
    assert claim.verdict in (HOLDS, PARTLY)
    assert claim.evidence["mirror"]["always_wins"] is False
    game, pos, reply = replay("extended", claim.evidence["mirror"]["counterexample"])
    assert reply not in game.legal_moves(pos)  # the rule forbids the mirror reply
    if claim.verdict == HOLDS:
        assert claim.evidence["start"]["value"] != "loss"
    # every allowed Black reply is listed, and only allowed ones
    for first, info in claim.evidence["first_moves"].items():
        after = game.play(game.start(), game.parse_move(first))
        assert sorted(info["black_replies"]) == sorted(game.move_name(m) for m in game.legal_moves(after))
    altered = first_move_rule_claim(tables, "extended-unrestricted")
    assert altered.verdict == FAILS


def test_compensation_verdicts(tables) -> None:
    claim = compensation_claim(tables)
    start_changed = claim.evidence["with_rule"]["value"] != claim.evidence["without_rule"]["value"]
    assert claim.verdict == (HOLDS if start_changed else PARTLY)
    assert claim.evidence["positions_decided_by_rule"] > 0
    assert claim.evidence["full_boards_without_line"] > 0
    # a rule that changes nothing decides nothing
    assert compensation_claim(tables, real=NO_COMPENSATION).verdict == FAILS


def test_compensation_holds_where_the_rule_decides_the_game(tables) -> None:
    """From a position where the table says the rule turns a draw into Black's win."""
    game = Sparro("standard")
    real, hypothetical = tables.tier("standard", 20), tables.tier(NO_COMPENSATION, 20)
    # Red to move at 20 marbles: find a position lost for Red that would be drawn without the rule
    candidates = np.flatnonzero((real.values == -1) & (hypothetical.values == 0))
    assert len(candidates) > 0
    pos = game.from_key(int(real.keys[candidates[0]]))
    claim = compensation_claim(tables, position=pos)
    assert claim.verdict == HOLDS
    assert claim.evidence["with_rule"]["value"] == "loss" and claim.evidence["without_rule"]["value"] == "draw"


def test_verify_cli_json_and_markdown(tables, tmp_path: Path) -> None:
    markdown = tmp_path / "FAIRNESS.md"
    result = CliRunner().invoke(main, ["verify", "sparro", "--db", str(tables.store.path), "--json",
                                       "--markdown", str(markdown)])
    assert result.exit_code == 0, result.output
    claims = [json.loads(line) for line in result.stdout.splitlines()]  # one claim per line
    assert [c["id"] for c in claims] == ["sparro-compensation", "sparro-mirror", "sparro-first-move-rule"]
    assert all(set(c) == {"id", "claim", "verdict", "evidence", "summary"} for c in claims)
    assert all(c["verdict"] in (HOLDS, FAILS, PARTLY) for c in claims)
    text = markdown.read_text()
    assert all(f"`{c['id']}`" in text and c["verdict"] in text for c in claims)


def test_search_confirms_a_decided_position(tables) -> None:
    """The no-compensation table against the independent search on positions it decides."""
    from tablebase.solver.probe import outcome_of
    from tablebase.solver.search import Search

    real, hypothetical = tables.tier("standard", 18), tables.tier(NO_COMPENSATION, 18)
    game = Sparro(NO_COMPENSATION)
    search = Search(game)
    changed = np.flatnonzero(real.values != hypothetical.values)[:20]
    assert len(changed)
    for index in changed:
        result = search.solve(game.from_key(int(hypothetical.keys[index])))
        assert result.outcome == outcome_of(hypothetical.values[index], hypothetical.remoteness[index])


# -- The Smallholder (limping2 only: hex3 is for the generated docs) ------------------

LIMPING2 = "limping2"


@pytest.fixture(scope="module")
def smallholder_tables(tmp_path_factory: pytest.TempPathFactory):
    """The five named rulesets on limping2, solved into a fresh database (seconds)."""
    path = tmp_path_factory.mktemp("smallholder-fairness") / "tb.sqlite"
    with TablebaseStore(path, create=True) as store:
        yield StoredSmallholderTables(store, progress=False)


def _start_by_search(ruleset: str) -> Outcome:
    """The start's value from the bounded search, which shares no code with the tables."""
    game = Smallholder(LIMPING2, ruleset)
    outcome = LocalSearch(game, node_budget=None).solve(game.start())
    assert outcome is not None
    return outcome


@pytest.mark.slow
@pytest.mark.parametrize("ruleset, verdict", [("nibbler", HOLDS), ("stymie", FAILS)])
def test_first_player_verdict_follows_the_search(smallholder_tables, ruleset: str, verdict: str) -> None:
    """On limping2 Black wins nibbler and loses stymie: the same claim, opposite verdicts,
    each with the start's value confirmed by the search."""
    claim = first_player_claim(smallholder_tables, LIMPING2, ruleset)
    assert claim.id == f"smallholder-first-player:{ruleset}:{LIMPING2}"
    assert claim.verdict == verdict
    searched = _start_by_search(ruleset)
    assert claim.evidence["start"] == {"value": searched.name, "remoteness": searched.remoteness, "for": "B"}


def test_first_player_verdict_rule_handles_draws() -> None:
    assert first_player_verdict(Outcome(WIN, 11)) == HOLDS
    assert first_player_verdict(Outcome(LOSS, 12)) == FAILS
    assert first_player_verdict(Outcome(DRAW, None)) == PARTLY


@pytest.mark.parametrize("ruleset", ["nibbler", "hull-setbacks"])
def test_first_moves_cover_every_cell_once_by_symmetry_class(smallholder_tables, ruleset: str) -> None:
    claim = first_player_claim(smallholder_tables, LIMPING2, ruleset)
    game = Smallholder(LIMPING2, ruleset)
    moves = claim.evidence["first_moves"]
    covered = [name for m in moves for name in m["cells"]]
    assert sorted(covered) == sorted(game.move_name(c) for c in game.legal_moves(game.start()))
    assert sum(m["count"] for m in moves) == claim.evidence["first_moves_total"] == len(covered)
    for m in moves:
        assert m["name"] == m["cells"][0] == game.move_name(m["cell"])
        after = [game.play(game.start(), game.parse_move(name)) for name in m["cells"]]
        assert len({game.canonical_key(pos) for pos in after}) == 1  # one class, really symmetric
    assert len({m["cell"] for m in moves}) == len(moves)  # and the classes are distinct
    # the start is as good as Black's best first move (listed first)
    assert (claim.evidence["start"]["value"], claim.evidence["start"]["remoteness"]) == (
        moves[0]["value"], moves[0]["remoteness"])
    winning = sum(m["count"] for m in moves if m["value"] == "win")
    assert claim.evidence["first_moves_winning_for_black"] == winning
    # the summary counts the winning moves, then the winning classes of all the classes
    classes = sum(1 for m in moves if m["value"] == "win")
    assert claim.summary.endswith(f"; {winning} of {len(covered)} first moves win for Black "
                                  f"({classes} of {len(moves)} up to symmetry)")


@pytest.mark.slow
def test_ruleset_comparison_cross_checked_with_the_rules_engine(smallholder_tables) -> None:
    """Every figure of a row recomputed position by position with the per-position engine
    (stymie: groupwise capture with re-entry, the rules furthest from the default)."""
    claim = rulesets_claim(smallholder_tables, LIMPING2, ("stymie",))
    for row in claim.evidence["rulesets"]:
        game = Smallholder(LIMPING2, row["ruleset"])
        stored = smallholder_tables.positions(LIMPING2, row["ruleset"])
        moves = [game.moves(game.from_key(int(key))) for key in stored.keys]
        positions = len(moves)
        assert row["positions"] == positions and row["examined"] == positions and row["sampled"] is False
        legal = sum(len(m) for m in moves)
        assert row["average_legal_moves"] == row["examined_average_legal_moves"] == round(legal / positions, 3)
        assert row["finished_share"] == round(sum(not m for m in moves) / positions, 4)
        assert row["capture_possible_share"] == round(sum(any(x.captures for x in m) for m in moves) / positions, 4)
        start = first_player_claim(smallholder_tables, LIMPING2, row["ruleset"]).evidence["start"]
        assert (row["start_for_black"], row["optimal_game_length"]) == (start["value"], start["remoteness"])
        assert row["draws"] == 0 and row["cyclic_positions"] == 0  # limping2 is acyclic (docs/smallholder.md)


def test_ruleset_comparison_verdicts(smallholder_tables) -> None:
    """Black wins 2 of the 5 named rulesets on limping2: partly; a choice of only the
    rulesets Black wins holds, of only those Black loses fails."""
    assert rulesets_claim(smallholder_tables, LIMPING2).verdict == PARTLY
    assert rulesets_claim(smallholder_tables, LIMPING2, ("nibbler", "hull-setbacks")).verdict == HOLDS
    assert rulesets_claim(smallholder_tables, LIMPING2, ("gaps-original", "stymie")).verdict == FAILS


def test_ruleset_comparison_says_when_it_samples(smallholder_tables) -> None:
    claim = rulesets_claim(smallholder_tables, LIMPING2, ("nibbler",), full_pass_limit=1000, sample_size=500)
    row = claim.evidence["rulesets"][0]
    assert row["sampled"] is True and row["examined"] == 500 and row["positions"] == 18_428
    assert "sample" in claim.evidence["method"] and "sample" in claim.summary
    # exact figures stay exact: the sample only touches what needs move generation
    exact = rulesets_claim(smallholder_tables, LIMPING2, ("nibbler",)).evidence["rulesets"][0]
    assert row["average_legal_moves"] == exact["average_legal_moves"]
    assert abs(row["capture_possible_share"] - exact["capture_possible_share"]) < 0.08


def test_verify_smallholder_cli_json_ids_and_markdown(smallholder_tables, tmp_path: Path) -> None:
    markdown = tmp_path / "FAIRNESS.md"
    result = CliRunner().invoke(main, ["verify", "smallholder", "--board", LIMPING2, "--db",
                                       str(smallholder_tables.store.path), "--json", "--markdown", str(markdown)])
    assert result.exit_code == 0, result.output
    claims = [json.loads(line) for line in result.stdout.splitlines()]  # one claim per line
    assert [c["id"] for c in claims] == (
        [f"smallholder-first-player:{r}:{LIMPING2}" for r in RULESETS] + [f"smallholder-rulesets:{LIMPING2}"])
    assert all(set(c) == {"id", "claim", "verdict", "evidence", "summary"} for c in claims)
    verdicts = {c["id"].split(":")[1]: c["verdict"] for c in claims}
    assert verdicts == {"gaps-original": FAILS, "nibbler": HOLDS, "offshore-gaps": FAILS, "stymie": FAILS,
                        "hull-setbacks": HOLDS, LIMPING2: PARTLY}
    text = markdown.read_text()
    assert all(f"`{c['id']}`" in text for c in claims)
    assert "| ruleset | start_for_black |" in text  # the comparison rendered as a table


def test_verify_rejects_an_unknown_board(tmp_path: Path) -> None:
    result = CliRunner().invoke(main, ["verify", "smallholder", "--board", "hex4", "--db", str(tmp_path / "x.sqlite")])
    assert result.exit_code == 2 and "hex4" in result.output


# -- the first-player claim from a weak solution (a checked proof) ------------------------


def _weak_solution(tmp_path: Path, board: str, ruleset: str, root: str | None = None) -> Path:
    """A proof of ``board`` under ``ruleset`` by the weak solve, exported to a file (the
    master expands the positions with more than 9 empty cells itself, so the proof has
    that structure whatever the jobs' searches do within their budget)."""
    from tablebase.service.proof import export_proof, weak_solve_into

    rules = Smallholder(board, ruleset).rules
    with TablebaseStore(tmp_path / f"weak-{board}-{ruleset}.sqlite", create=True) as store:
        weak_solve_into(store, board, rules, root_text=root, node_budget=1_000, job_max_empty=9)
        path = tmp_path / f"{board}-{ruleset}.proof.tsv"
        path.write_text("\n".join(export_proof(store, board, rules, root)) + "\n")
    return path


@pytest.mark.slow
@pytest.mark.parametrize("ruleset, verdict", [("nibbler", HOLDS), ("stymie", FAILS)])
def test_a_checked_weak_solution_decides_the_first_player_claim_as_the_tables_do(
        smallholder_tables, tmp_path: Path, ruleset: str, verdict: str) -> None:
    """The proof's claim alone, then with the tables: the same verdict by two methods, and
    the proof's first move one the tables find winning."""
    from tablebase.service.errors import ServiceError
    from tablebase.service.verify import proof_claims, with_proofs

    proof = _weak_solution(tmp_path, LIMPING2, ruleset)
    [proved] = proof_claims(((proof, None),))
    table = first_player_claim(smallholder_tables, LIMPING2, ruleset)
    assert proved.id == table.id and proved.verdict == verdict
    start = proved.evidence["start"]
    assert start["value"] == table.evidence["start"]["value"]
    assert start["at_most_plies"] >= table.evidence["start"]["remoteness"]
    assert proved.evidence["proof"]["file"] == str(proof) and proved.evidence["proof"]["rows"] > 1
    if verdict == HOLDS:
        winning = {c for m in table.evidence["first_moves"] if m["value"] == "win" for c in m["cells"]}
        assert set(proved.evidence["first_move"]["cells"]) <= winning
    else:
        assert proved.evidence["first_moves_winning_for_black"] == 0
    [confirmed] = with_proofs([table], [proved])
    with pytest.raises(ServiceError, match=f"two proofs decide {proved.id}"):
        with_proofs([], [proved, proved])
    assert confirmed.verdict == verdict and confirmed.evidence["weak_solution"]["proof"]["file"] == str(proof)
    assert "a checked weak solution agrees" in confirmed.summary


def test_a_proof_whose_start_is_a_leaf_gives_the_exact_value_and_no_first_move(smallholder_tables,
                                                                              tmp_path: Path) -> None:
    from tablebase.service.verify import proof_claims
    from tablebase.solver.proof.certificate import proof_header

    game = Smallholder(LIMPING2, "nibbler")
    table = first_player_claim(smallholder_tables, LIMPING2, "nibbler")
    remoteness = table.evidence["start"]["remoteness"]
    proof = tmp_path / "leaf.proof.tsv"
    proof.write_text("\n".join(proof_header(game, game.start(), "B")
                                + [f"{game.format(game.start())}\tleaf\t\twin\t{remoteness}"]) + "\n")
    [proved] = proof_claims(((proof, None),))  # the check re-solves the leaf by the reference engine
    assert proved.verdict == HOLDS and "first_move" not in proved.evidence
    assert proved.summary.startswith(f"proved by a checked weak solution: Black wins in {remoteness} plies;")


def test_a_checked_draw_is_a_partly_first_player_claim() -> None:
    """The verdict rule on a draw's proof (no named ruleset's start is drawn on the solved
    boards, so the report is the check's of a draw: both strategies, no winner)."""
    from tablebase.solver.fairness import proved_first_player_claim
    from tablebase.solver.proof.certificate import CheckReport

    game = Smallholder(LIMPING2, "nibbler")
    report = CheckReport(game.rules_name, LIMPING2, game.format(game.start()), "", rows=40, draw=True, leaves=12,
                         spec=game.rules.spec)
    claim = proved_first_player_claim(report, "draw.proof.tsv")
    assert claim.verdict == PARTLY and claim.evidence["start"] == {"value": "draw", "for": "B", "at_most_plies": None}
    assert "first_move" not in claim.evidence and "a draw" in claim.summary


def test_a_weak_solution_that_disagrees_with_the_tables_is_an_error(smallholder_tables, tmp_path: Path) -> None:
    from dataclasses import replace

    from tablebase.service.errors import ServiceError
    from tablebase.service.verify import proof_claims, with_proofs

    proof = _weak_solution(tmp_path, LIMPING2, "nibbler")
    [proved] = proof_claims(((proof, None),))
    table = first_player_claim(smallholder_tables, LIMPING2, "nibbler")
    wrong = replace(table, verdict=FAILS, evidence={**table.evidence, "start": {"value": "loss", "remoteness": 12}})
    with pytest.raises(ServiceError, match="disagree on smallholder-first-player:nibbler:limping2"):
        with_proofs([wrong], [proved])
    # the proof's first move, lost by (made-up) tables
    first = proved.evidence["first_move"]["name"]
    moves = [dict(m, value="loss") if first in m["cells"] else m for m in table.evidence["first_moves"]]
    with pytest.raises(ServiceError, match=f"the first move {first} is loss"):
        with_proofs([replace(table, evidence={**table.evidence, "first_moves": moves})], [proved])


def test_a_proof_of_another_position_says_nothing_of_the_first_player(tmp_path: Path) -> None:
    from tablebase.service.errors import ServiceError
    from tablebase.service.verify import proof_claims

    game = Smallholder(LIMPING2, "nibbler")
    after_a_move = game.format(game.play(game.start(), game.legal_moves(game.start())[0]))
    proof = _weak_solution(tmp_path, LIMPING2, "nibbler", root=after_a_move)
    with pytest.raises(ServiceError, match="not of the empty board"):
        proof_claims(((proof, None),))


def test_verify_with_a_proof_takes_big_leaves_from_the_journal_and_searches_only_when_asked(tmp_path: Path) -> None:
    """A check that would search is refused (SolveNotAsked, naming the leaf); with the
    search allowed it re-solves and journals them; then the journal alone answers."""
    from tablebase.service.errors import SolveNotAsked
    from tablebase.service.verify import proof_claims

    proof = _weak_solution(tmp_path, LIMPING2, "nibbler")
    journal = tmp_path / "check.journal"
    with pytest.raises(SolveNotAsked, match=r"would re-solve a leaf by the search \(line \d+: .*give --solve"):
        proof_claims(((proof, journal),), search=False, check_budget=50)
    [searched] = proof_claims(((proof, journal),), search=True, check_budget=50)
    [recalled] = proof_claims(((proof, journal),), search=False, check_budget=50)
    assert recalled == searched and searched.verdict == HOLDS


def test_verify_cli_with_a_proof(smallholder_tables, tmp_path: Path) -> None:
    proof = _weak_solution(tmp_path, LIMPING2, "nibbler")
    markdown = tmp_path / "FAIRNESS.md"
    db = str(smallholder_tables.store.path)
    result = CliRunner().invoke(main, ["verify", "smallholder", "--board", LIMPING2, "--db", db, "--json", "--solve",
                                       "--proof", str(proof), "--markdown", str(markdown)])
    assert result.exit_code == 0, result.output
    claims = {c["id"]: c for c in map(json.loads, result.stdout.splitlines())}
    assert len(claims) == len(RULESETS) + 1  # the proof confirms a claim of the tables: no new id
    assert claims[f"smallholder-first-player:nibbler:{LIMPING2}"]["evidence"]["weak_solution"]["proof"]["rows"] > 1
    assert f"`tablebase verify smallholder --board {LIMPING2} --proof {proof} --markdown {markdown}`" in (
        markdown.read_text())
    # the proof alone: no --board, no table needed, no file opened (nor created)
    alone = CliRunner().invoke(main, ["verify", "smallholder", "--proof", str(proof), "--json",
                                      "--db", str(tmp_path / "fresh.sqlite")])
    assert alone.exit_code == 0, alone.output
    assert not (tmp_path / "fresh.sqlite").exists()
    [only] = [json.loads(line) for line in alone.stdout.splitlines()]
    assert only["id"] == f"smallholder-first-player:nibbler:{LIMPING2}" and "weak_solution" not in only["evidence"]
    on_limping2 = ["smallholder", "--board", LIMPING2]
    for args, message in [(on_limping2 + ["--journal", "j.journal"], "one for each in the same order"),
                          (on_limping2 + ["--proof", str(tmp_path / "none.tsv")], "no proof file at"),
                          (["sparro", "--proof", str(proof)], "--proof gives Smallholder weak solutions")]:
        result = CliRunner().invoke(main, ["verify", *args, "--db", db])
        assert result.exit_code != 0 and message in result.output, result.output
