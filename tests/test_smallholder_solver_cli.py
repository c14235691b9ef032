"""`tablebase solve smallholder` and `tablebase probe smallholder` through CliRunner."""

from __future__ import annotations

import json
import subprocess
import re
from dataclasses import replace
from pathlib import Path

import pytest
from click.testing import CliRunner

from tablebase.cli.app import probe, solve
from tablebase.cli.main import main
from tablebase.db.store import TablebaseStore
from tablebase.games.smallholder import parse_rules
from tablebase.service.smallholder import solve_into

START = "../.../..../... B"
# limping2, nibbler: Black's a1 and White's b2; Black to move wins in 9 plies
MIDDLE = "B./.W./..../... B"
MIDDLE_TEXT = ("B./.W./..../... B: B to move, win in 9; moves: c4 win 9, d2 win 9, d1 win 11, d3 win 11, "
               "b3 loss 10, c1 loss 10, c2 loss 10, c3 loss 8\n")


def run(*args: str, stdin: str | None = None):  # noqa: ANN201 (click's Result)
    return CliRunner().invoke(main, list(args), input=stdin)


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("smallholder") / "t.sqlite"
    result = run("solve", "smallholder", "--board", "limping2", "--all-rulesets", "--db", str(path), "-s")
    assert result.exit_code == 0, result.output
    return path


def test_solve_text_summary(db: Path) -> None:
    result = run("solve", "smallholder", "--board", "limping2", "--ruleset", "nibbler", "--db", str(db))
    assert result.exit_code == 0, result.output
    assert result.stdout.startswith("smallholder nibbler@limping2: start is a win for Black in 11 plies; "
                                    "18,428 positions, 0 draws, already solved (in ")  # the fixture solved it
    assert result.stdout.endswith(" s, when it was made)\n")


def test_a_reused_table_says_it_was_already_solved(tmp_path: Path) -> None:
    """A complete table is reused, not solved again: --json says "reused" (the seconds
    are the first solve's), and the text line says 'already solved', not 'solved in'."""
    db = str(tmp_path / "r.sqlite")
    solve = ["solve", "smallholder", "--board", "limping2", "--ruleset", "nibbler", "--db", db, "--json", "-s"]
    first, again, forced = (json.loads(run(*solve, *extra).stdout) for extra in ((), (), ("--force",)))
    assert (first["reused"], again["reused"], forced["reused"]) == (False, True, False)
    assert again["seconds"] == first["seconds"] and again["checksum"] == first["checksum"] == forced["checksum"]
    with TablebaseStore(db) as store:
        made = solve_into(store, "limping2", parse_rules("nibbler"))
    assert made.reused and made.solved_text() == f"already solved (in {made.seconds:.1f} s, when it was made)"
    assert replace(made, reused=False).solved_text() == f"solved in {made.seconds:.1f} s"


def test_a_solve_logs_its_progress_to_a_file_unless_silenced(tmp_path: Path) -> None:
    """stderr is not a terminal here: a timestamped log line, and none with -s."""
    logged = run("solve", "smallholder", "--board", "limping2", "--ruleset", "nibbler", "--db", str(tmp_path / "a"))
    silent = run("solve", "smallholder", "--board", "limping2", "--ruleset", "nibbler", "--db", str(tmp_path / "b"),
                 "-s")
    assert logged.exit_code == 0 and silent.exit_code == 0
    assert re.match(r"\[\d\d:\d\d:\d\d\] smallholder nibbler@limping2: ", logged.stderr), logged.stderr
    assert silent.stderr == ""


def test_solve_json(db: Path) -> None:
    result = run("solve", "smallholder", "--board", "limping2", "--ruleset", "stymie", "--db", str(db), "--json")
    assert result.exit_code == 0, result.output
    summary = json.loads(result.stdout)
    assert summary["rules"] == "stymie@limping2"
    assert (summary["start"], summary["positions"]) == ({"value": "loss", "remoteness": 12}, 21001)
    assert "start_value" not in summary and "start_remoteness" not in summary  # one way to say it
    assert summary["draws"] == 0 and summary["cyclic_positions"] == 0


def test_solve_custom_rules(tmp_path: Path) -> None:
    result = run("solve", "smallholder", "--board", "limping2", "--rules", "territory=hull,capture=piecewise",
                 "--db", str(tmp_path / "c.sqlite"), "--json")
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["rules"] == (
        "groups=must-create-if-one-live,adjacent=smallest-playable,territory=hull,capture=piecewise@limping2")


def test_solve_refuses_big_boards_and_mixed_choices(tmp_path: Path) -> None:
    result = run("solve", "smallholder", "--board", "hex4", "--db", str(tmp_path / "x.sqlite"))
    assert result.exit_code == 1 and not (tmp_path / "x.sqlite").exists()  # refused before the file is made
    assert "hex4 has 37 cells" in result.output
    # limping3's keys fit 64 bits but not the solve's packed edges: a one-line error before any work
    result = run("solve", "smallholder", "--board", "limping3", "--db", str(tmp_path / "l.sqlite"))
    assert result.exit_code == 1 and result.stdout == "" and not (tmp_path / "l.sqlite").exists()
    assert result.stderr == ("Error: limping3 has 27 cells: a table (strong solve) is made for boards of up to 20 "
                             "cells only: limping2, hex3 (give --board); for limping3 use 'solve smallholder --weak' "
                             "or 'probe smallholder --search'\n")
    result = run("solve", "smallholder", "--ruleset", "nibbler", "--all-rulesets", "--db", str(tmp_path / "x.sqlite"))
    assert result.exit_code == 2
    result = run("solve", "smallholder", "--board", "hex9", "--db", str(tmp_path / "x.sqlite"))
    assert result.exit_code == 2 and "Invalid value for '--board': unknown board" in result.output


def test_probe_text(db: Path) -> None:
    result = run("probe", "smallholder", MIDDLE, "--db", str(db))
    assert result.exit_code == 0, result.output
    assert result.stdout == MIDDLE_TEXT


def test_probe_start_of_the_board(db: Path) -> None:
    result = run("probe", "smallholder", "--board", "limping2", "--ruleset", "gaps-original", "--db", str(db), "--json")
    assert result.exit_code == 0, result.output
    answer = json.loads(result.stdout)
    assert (answer["position"], answer["value"], answer["remoteness"]) == (START, "loss", 12)
    assert len(answer["moves"]) == 12


def test_probe_json_shape_and_best_move_first(db: Path) -> None:
    result = run("probe", "smallholder", MIDDLE, "--db", str(db), "--json")
    answer = json.loads(result.stdout)
    assert list(answer) == ["position", "to_move", "rules", "source", "value", "remoteness", "moves", "pv"]
    assert answer["moves"][0] == {"cell": 8, "name": "c4", "value": "win", "remoteness": 9}


def test_probe_search_agrees_with_the_table(db: Path) -> None:
    result = run("probe", "smallholder", MIDDLE, "--search")
    assert result.exit_code == 0, result.output
    assert result.stdout == MIDDLE_TEXT


def test_probe_search_out_of_budget_is_unknown() -> None:
    result = run("probe", "smallholder", "--search", "--budget", "10", "--json")
    assert result.exit_code == 0, result.output
    answer = json.loads(result.stdout)
    assert (answer["value"], answer["remoteness"]) == ("unknown", None)
    assert answer["moves"][0] == {"cell": 0, "name": "a1", "value": "unknown", "remoteness": None}


def test_probe_search_on_a_hex4_endgame() -> None:
    # a dozen empty cells, White to move: a handful of thousand positions to explore
    result = run("probe", "smallholder", "WB.W/WBW.B/BBWBB./..B.B.W/.W.W../BWW.W/W.BB W", "--search", "--json")
    assert result.exit_code == 0, result.output
    answer = json.loads(result.stdout)
    assert (answer["value"], answer["remoteness"]) == ("win", 9)
    assert answer["moves"][0]["value"] == "win"


def test_probe_batch(db: Path) -> None:
    stdin = f"{MIDDLE}\nnot a position\n{START}\n"
    result = run("probe", "smallholder", "-", "--db", str(db), "--json", stdin=stdin)
    assert result.exit_code == 1
    lines = [json.loads(line) for line in result.stdout.splitlines()]
    assert [line.get("value") for line in lines] == ["win", None, "win"]
    assert "error" in lines[1] and lines[1]["position"] == "not a position"


@pytest.mark.slow
def test_probe_without_a_table_searches(db: Path) -> None:
    """Rules the file does not hold (an unsolved combination, any hex4 ruleset) are
    answered by the exact search, which says so; past --time the answer is unknown."""
    result = run("probe", "smallholder", START, "--rules", "territory=hull", "--db", str(db), "--json")
    assert result.exit_code == 0, result.output
    answer = json.loads(result.stdout)
    assert answer["source"] == "search" and answer["value"] in ("win", "loss")
    forced = json.loads(run("probe", "smallholder", START, "--rules", "territory=hull", "--search", "--json").stdout)
    assert forced == answer
    result = run("probe", "smallholder", "--db", str(db), "--time", "0.2", "--json")
    assert result.exit_code == 0, result.output
    answer = json.loads(result.stdout)
    assert (answer["source"], answer["value"], answer["remoteness"]) == ("search", "unknown", None)


def test_every_command_has_help_with_an_example() -> None:
    for group in (solve, probe):
        command = group.commands["smallholder"]
        result = run(group.name, "smallholder", "--help")
        assert result.exit_code == 0
        assert command.help and "Example:" in result.stdout
        assert "Example:" in result.stdout.split("Options:")[-1]  # the help ends with it


def test_probe_search_finds_a_draw() -> None:
    # hex3 under hull territory and piecewise capture: d3 and d2 capture each other's
    # stones and bring the position back; White's only alternative loses
    result = run("probe", "smallholder", "WWB/BB.B/B.WBW/W..W/WBB W", "--search",
                 "--rules", "groups=must-create-if-one,territory=hull")
    assert result.exit_code == 0, result.output
    assert result.stdout == "WWB/BB.B/B.WBW/W..W/WBB W: W to move, draw; moves: d3 draw, d2 loss 2\n"


def test_probe_time_0_means_no_time_bound() -> None:
    """--time 0 bounds the search by --budget alone (as in puzzles generate): a 17-empty
    hex4 position (of a random game) is answered, not "unknown" at once."""
    text = ".WBB/BW.W./WB..W./BW..WB./WBW.WB/....B/B... B"
    unbounded = run("probe", "smallholder", text, "--time", "0", "--json")
    assert unbounded.exit_code == 0, unbounded.output
    bounded = run("probe", "smallholder", text, "--json")
    assert json.loads(unbounded.stdout) == json.loads(bounded.stdout)
    assert json.loads(bounded.stdout)["value"] == "win"


def test_probe_answers_carry_the_pv_only_when_asked() -> None:
    """The text answer without --pv spares the search the principal variation's extra
    searches; JSON and --pv carry it."""
    from tablebase.service.probing import probe_answers
    from tablebase.service.smallholder import DESCRIPTION

    text = "WB.W/WBW.B/BBWBB./..B.B.W/.W.W../BWW.W/W.BB W"
    options = {"board": "hex4", "ruleset": "nibbler", "rules": None, "allow_unreachable": False}
    full = probe_answers(DESCRIPTION, None, search=True, **options).one(text)
    bare = probe_answers(DESCRIPTION, None, search=True, pv=False, **options).one(text)
    assert "pv" not in bare and {**bare, "pv": full["pv"]} == full and len(full["pv"]) == 9
    result = run("probe", "smallholder", text, "--search", "--pv")
    assert result.exit_code == 0 and result.stdout.strip().endswith("; pv: " + " ".join(full["pv"]))


def test_probe_time_counts_from_the_programs_start() -> None:
    """For one position, `tablebase probe --time` bounds the whole command, start-up
    included (the interpreter, the imports, the compiled code's loading): given less
    than any start-up takes, the search gets no time and answers "unknown", where with
    no time bound it proves a win. (main() called inside a process, as the other tests
    do, counts from the call.)"""
    text = ".WBB/BW.W./WB..W./BW..WB./WBW.WB/....B/B... B"

    def probe(seconds: str) -> dict:
        done = subprocess.run(["tablebase", "probe", "smallholder", text, "--time", seconds, "--json", "-s"],
                              capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, done.stderr
        return json.loads(done.stdout)

    assert probe("0.05")["value"] == "unknown"
    assert probe("0")["value"] == "win"
    # this test process is older than 2 s: main() called in it counts from the call
    in_process = run("probe", "smallholder", text, "--time", "2", "--json")
    assert json.loads(in_process.stdout)["value"] == "win"
