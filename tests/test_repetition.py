"""The search for repetitions (solver/repetition.py, `tablebase cycle smallholder`): the
lines it finds are played again by the reference engine, it finds the cycles the docs
show, and it finds none where the whole graph is known to have none."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

import tablebase
from tablebase.cli.main import main
from tablebase.games.smallholder import BOARD_ROWS, Smallholder, all_rules, parse_rules
from tablebase.service.errors import ServiceError
from tablebase.solver.repetition import Repetition, confirm, find_cycle, repetition_from, search_repetition

#: The 8-ply cycle of docs/smallholder.md ("Cycles and draws", hex4 nibbler).
HEX4_CYCLE = "BWBB/WBWWW/WBBBWB/.BB.B.B/WB..WB/WBW.B/BWWW W"
#: The hex3 repetition of the same section: d3 and d2 come back to an image of the position.
HEX3_SYMMETRIC = "WWB/BB.B/B.WBW/W..W/WBB W"
HEX3_SYMMETRIC_RULES = "groups=must-create-if-one,territory=hull"
HULL_PIECEWISE = [r for r in all_rules() if r.territory == "hull" and r.capture == "piecewise"]
#: Two of them with the most positions that reach a cycle on hex3 (docs/smallholder.md).
MOST_CYCLIC = [parse_rules("groups=must-create-if-one,adjacent=smallest,territory=hull,capture=piecewise"),
               parse_rules("groups=priority-create-if-one,adjacent=smallest-playable,territory=hull,capture=piecewise")]


def play(game: Smallholder, pos, moves):  # type: ignore[no-untyped-def]
    for move in moves:
        assert move in game.legal_moves(pos), game.move_name(move)
        pos = game.play(pos, move)
    return pos


def test_the_docs_hex4_cycle_is_found_from_its_position() -> None:
    game = Smallholder("hex4", "nibbler")
    pos = game.parse(HEX4_CYCLE)
    lead, cycle = find_cycle(game, pos)
    assert lead == () and len(cycle) == 8
    assert play(game, pos, cycle) == pos  # the reference engine, move by move
    assert [game.move_name(m) for m in cycle] == [game.move_name(c) for c in (20, 25, 18, 31, 24, 19, 26, 12)]


@pytest.mark.parametrize("ruleset", ["gaps-original", "offshore-gaps"])
def test_the_docs_hex4_cycle_is_legal_under_the_other_piecewise_rulesets(ruleset: str) -> None:
    """docs/smallholder.md: the same eight moves return to the position under all three."""
    nibbler, game = Smallholder("hex4", "nibbler"), Smallholder("hex4", ruleset)
    pos = game.parse(HEX4_CYCLE)
    _, cycle = find_cycle(nibbler, nibbler.parse(HEX4_CYCLE))
    assert play(game, pos, cycle) == pos


def test_a_return_to_a_symmetric_image_is_completed_into_a_cycle() -> None:
    game = Smallholder("hex3", parse_rules(HEX3_SYMMETRIC_RULES))
    pos = game.parse(HEX3_SYMMETRIC)
    lead, cycle = find_cycle(game, pos)
    assert lead == ()
    assert [game.move_name(m) for m in cycle[:2]] == ["d3", "d2"]
    after_two = play(game, pos, cycle[:2])
    assert after_two != pos and game.canonical_key(after_two) == game.canonical_key(pos)
    assert len(cycle) in (4, 6, 8, 12) and play(game, pos, cycle) == pos
    assert all(play(game, pos, cycle[:k]) != pos for k in range(2, len(cycle), 2))  # the first return


def test_no_line_within_the_slack_is_no_answer() -> None:
    game = Smallholder("hex4", "nibbler")
    assert find_cycle(game, game.parse(HEX4_CYCLE), slack=0) is None  # the cycle adds a stone before capturing
    assert find_cycle(game, game.parse(HEX4_CYCLE), plies=6) is None


@pytest.mark.slow
@pytest.mark.parametrize("rules", MOST_CYCLIC, ids=lambda r: r.spec)
def test_random_games_find_the_hex3_cycles_the_tables_count(rules) -> None:  # type: ignore[no-untyped-def]
    """docs/smallholder.md's table: these combinations have positions that reach a cycle
    on hex3 (found by solving the whole graph); play from the empty board shows one."""
    game = Smallholder("hex3", rules)
    search = search_repetition(game, games=200)
    found = search.found
    assert found is not None and found.start == game.start()
    assert play(game, game.start(), found.lead) == found.position
    assert play(game, found.position, found.cycle) == found.position
    assert len(found.cycle) % 2 == 0 and search.games <= 200


@pytest.mark.parametrize("rules", HULL_PIECEWISE, ids=lambda r: r.spec)
def test_no_repetition_where_the_whole_graph_has_none(rules) -> None:  # type: ignore[no-untyped-def]
    """limping2: every combination's graph is acyclic (its atlas row says so, docs/ATLAS.md);
    these are the ones that cycle on hex3."""
    search = search_repetition(Smallholder("limping2", rules), games=20)
    assert search.found is None and search.games == 20 and search.positions > 0


def test_confirm_refuses_a_line_that_does_not_return() -> None:
    game = Smallholder("hex4", "nibbler")
    pos = game.parse(HEX4_CYCLE)
    found = repetition_from(game, pos)
    assert found is not None
    confirm(game, found)
    with pytest.raises(ValueError, match="not back"):
        confirm(game, Repetition(pos, (), pos, found.cycle[:-2]))
    with pytest.raises(ValueError, match="not legal"):
        confirm(game, Repetition(pos, (), pos, (found.cycle[0],) * 2))
    with pytest.raises(ValueError, match="reaches"):
        confirm(game, Repetition(pos, found.cycle[:2], pos, found.cycle))


def run(*args: str):  # type: ignore[no-untyped-def]
    return CliRunner().invoke(main, ["cycle", "smallholder", *args], prog_name="tablebase")


def test_the_command_prints_the_line_as_json_and_text() -> None:
    result = run("--board", "hex3", "--rules", "territory=hull,capture=piecewise", "--json", "-s")
    assert result.exit_code == 0, result.output
    answer = json.loads(result.stdout)
    assert answer["found"] and answer["from"] == ".../..../...../..../... B" and answer["games"] >= 1
    game = Smallholder("hex3", parse_rules("territory=hull,capture=piecewise"))
    reached = play(game, game.start(), [game.parse_move(m) for m in answer["moves_to_position"]])
    assert game.format(reached) == answer["position"]
    assert play(game, reached, [game.parse_move(m) for m in answer["cycle"]]) == reached
    assert answer == tablebase.find_repetition(board="hex3", rules="territory=hull,capture=piecewise")
    text = run("--board", "hex3", "--rules", "territory=hull,capture=piecewise", "-s").stdout
    assert "play can repeat" in text and answer["position"] in text and " ".join(answer["cycle"]) in text


def test_none_found_says_that_it_proves_nothing() -> None:
    result = run("--board", "limping2", "--games", "5", "-s")
    assert result.exit_code == 0
    assert "no repetition found in 5 random games" in result.stdout and "does not prove" in result.stdout
    answer = json.loads(run("--board", "limping2", "--games", "5", "-s", "--json").stdout)
    assert answer["found"] is False and answer["cycle"] is None and answer["games"] == 5


def test_from_a_position_the_text_does_not_claim_more_than_the_checks() -> None:
    result = run(HEX4_CYCLE, "-s")
    assert result.exit_code == 0
    assert "comes back to itself" in result.stdout and "do not prove" in result.stdout
    answer = json.loads(run(HEX4_CYCLE, "-s", "--json").stdout)
    assert answer["games"] is None and answer["from"] == HEX4_CYCLE == answer["position"]
    assert answer["moves_to_position"] == [] and len(answer["cycle"]) == 8


@pytest.mark.parametrize("args, words", [
    (("--board", "hex6"), "hex6 has 91 cells"),
    (("--games", "0"), "'--games'"),
    (("--plies", "1"), "'--plies'"),
    (("--ruleset", "nope"), "'nope'"),
    (("BBB/..../...../..../... B",), "cannot arise in play"),
])
def test_bad_input_is_one_line(args, words) -> None:  # type: ignore[no-untyped-def]
    result = run(*args, "-s")
    assert result.exit_code in (1, 2) and result.stdout == ""
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and words in lines[0]


def test_the_api_checks_its_settings() -> None:
    with pytest.raises(ServiceError, match="plies"):
        tablebase.find_repetition(board="hex3", plies=100)
    with pytest.raises(ServiceError, match="games"):
        tablebase.find_repetition(board="hex3", games=True)


REPETITION_FILES = sorted((Path(__file__).resolve().parent.parent / "positions" / "smallholder").glob(
    "repetitions-*.jsonl"))


@pytest.mark.parametrize("path", REPETITION_FILES, ids=lambda p: p.name)
def test_every_repetition_of_the_positions_folder_plays_again(path: Path) -> None:
    """positions/smallholder/find-repetitions.sh's answers, which docs/smallholder.md sums
    up (one per combination), and the single runs with longer lines it names: each line found legal move by move from the empty board
    under the reference engine and back to its position."""
    answers = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    name = path.stem.removeprefix("repetitions-")
    if name in BOARD_ROWS:  # a run of the script over one board; else single runs (longer lines)
        assert {a["rules"].rpartition("@")[2] for a in answers} == {name}
        specs = [parse_rules(a["rules"].rpartition("@")[0]).spec for a in answers]
        assert sorted(specs) == sorted(r.spec for r in all_rules())
    for answer in (a for a in answers if a["found"]):
        spec, _, board = answer["rules"].rpartition("@")
        game = Smallholder(board, parse_rules(spec))
        reached = play(game, game.start(), [game.parse_move(m) for m in answer["moves_to_position"]])
        assert game.format(reached) == answer["position"]
        assert play(game, reached, [game.parse_move(m) for m in answer["cycle"]]) == reached
