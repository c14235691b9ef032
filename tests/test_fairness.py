"""Fairness claims: each verdict on the real rules, and the opposite on altered rules."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from tablebase.cli.main import main
from tablebase.cli.verify import StoredSparroTables
from tablebase.db.store import TablebaseStore
from tablebase.games.sparro import Sparro
from tablebase.games.sparro.rules import NO_COMPENSATION
from tablebase.solver.fairness import (
    FAILS,
    HOLDS,
    PARTLY,
    compensation_claim,
    first_move_rule_claim,
    mirror_claim,
)


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
    claims = json.loads(result.stdout)
    assert [c["id"] for c in claims] == ["sparro-compensation", "sparro-mirror", "sparro-first-move-rule"]
    assert all(set(c) == {"id", "claim", "verdict", "evidence", "summary"} for c in claims)
    assert all(c["verdict"] in (HOLDS, FAILS, PARTLY) for c in claims)
    text = markdown.read_text()
    assert all(f"`{c['id']}`" in text and c["verdict"] in text for c in claims)


def test_search_confirms_a_decided_position(tables) -> None:
    """The no-compensation table against the independent search on positions it decides."""
    from tablebase.solver.search import Search

    real, hypothetical = tables.tier("standard", 18), tables.tier(NO_COMPENSATION, 18)
    game = Sparro(NO_COMPENSATION)
    search = Search(game)
    changed = np.flatnonzero(real.values != hypothetical.values)[:20]
    assert len(changed)
    for index in changed:
        result = search.solve(game.from_key(int(hypothetical.keys[index])))
        assert result.value == hypothetical.values[index]
        if result.value != 0:
            assert result.remoteness == hypothetical.remoteness[index]
