"""The Sparro commands through click's CliRunner: exit codes, exact output, batch mode."""

from __future__ import annotations

import json
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from tablebase.cli.main import main

START = "............/......../...."

START_PICTURE = """\
Sparro (standard): Red to move
marbles  R  0  B  0    lines  R 0  B 0

level 0        level 1        level 2
  a b c d        a b c          a b
1 . . . .      1 . . .        1 . .
2 . o o .      2 . o .        2 . .
3 . o o .      3 . . .
4 . . . .

legal moves: 0a1 0b1 0c1 0d1 0a2 0d2 0a3 0d3 0a4 0b4 0c4 0d4
(o: fixed white marble; a cell is named level+column+row, e.g. 0a1, 1b3, 2b2)
"""


def run(*args: str, input: str | None = None):
    return CliRunner().invoke(main, list(args), input=input)


def test_show_start() -> None:
    result = run("show", "sparro")
    assert result.exit_code == 0
    assert result.output == START_PICTURE


def test_show_extended_reports_token() -> None:
    result = run("show", "sparro", "--variant", "extended", "RRR.BB....../......../.... R")
    assert result.exit_code == 0
    assert "Black to move" in result.output and "token R" in result.output and "lines  R 1  B 0" in result.output


def test_moves_json_shape() -> None:
    result = run("moves", "sparro", "--json", "R.........../......../....")
    assert result.exit_code == 0
    answer = json.loads(result.output)
    assert answer["to_move"] == "B" and answer["result"] is None
    assert [m["cell"] for m in answer["moves"]] == list(range(1, 12))
    assert answer["moves"][0] == {"cell": 1, "name": "0b1"}


def test_moves_finished_game() -> None:
    result = run("moves", "sparro", "--json", "RRR.BB....../......../....")
    assert json.loads(result.output) == {"position": "RRR.BB....../......../....", "to_move": "B", "moves": [],
                                         "result": {"winner": "R", "lines": {"R": 1, "B": 0}}}


def test_moves_extended_first_move_rule() -> None:
    result = run("moves", "sparro", "--variant", "extended", "R.........../......../....")
    assert result.output == "R.........../......../.... B: B to move: 0b1 0c1 0a2 0d2 0a3 0d3 0b4 0c4\n"


def test_moves_batch_reports_bad_lines_and_goes_on() -> None:
    lines = f"{START}\nRXR........./......../....\n\nR.........../......../....\n"
    result = run("moves", "sparro", "-", "--json", input=lines)
    assert result.exit_code == 1
    answers = [json.loads(line) for line in result.stdout.splitlines()]
    assert [a["position"] for a in answers] == [START, "RXR........./......../....", "R.........../......../...."]
    assert answers[1]["error"].startswith("unknown character 'X' at offset 1")
    assert "1 position(s) in the batch could not be answered" in result.stderr


@pytest.mark.parametrize("position, message", [
    ("RXR........./......../....", "unknown character 'X' at offset 1"),
    ("R......./......../....", "level 0 needs 12 cells, found 8"),
    ("R.......R.../R......./....", "marble on 1a1 floats"),
    ("RR........../......../....", "red has 2 marbles and black 0"),
    ("", "empty position"),
])
def test_bad_position_is_one_line_error(position: str, message: str) -> None:
    result = run("show", "sparro", position)
    assert result.exit_code == 1
    assert result.stdout == ""
    assert result.stderr.startswith("Error: " + message)
    assert result.stderr.count("\n") == 1
    assert "Traceback" not in result.stderr


def test_probe_without_table_is_a_clean_error(tmp_path: Path) -> None:
    result = run("probe", "sparro", "--db", str(tmp_path / "none.sqlite"))
    assert result.exit_code == 1
    assert result.stderr.startswith("Error: no tablebase at")


def test_probe_search_needs_no_table() -> None:
    result = run("probe", "sparro", "--search", "--json", "--variant", "extended", "RRBBRBRBBRBR/R......./....")
    assert result.exit_code == 0
    answer = json.loads(result.output)
    assert answer["value"] == "win" and answer["to_move"] == "B"
    assert answer["moves"][0]["value"] == "win" and answer["moves"][0]["remoteness"] == answer["remoteness"]


def test_probe_from_table_matches_search(sparro_db: Path) -> None:
    position = "RBBRBR.BR.../......../...."
    table = run("probe", "sparro", "--db", str(sparro_db), "--json", position)
    search = run("probe", "sparro", "--search", "--json", position)
    assert table.exit_code == 0 and search.exit_code == 0
    from_table, from_search = json.loads(table.output), json.loads(search.output)
    assert (from_table.pop("source"), from_search.pop("source")) == ("table", "search")
    assert from_table == from_search  # values, moves and the principal variation alike


def test_probe_batch(sparro_db: Path) -> None:
    lines = f"{START}\nRRR.BB....../......../....\n"
    result = run("probe", "sparro", "-", "--db", str(sparro_db), "--json", input=lines)
    assert result.exit_code == 0
    start, over = [json.loads(line) for line in result.output.splitlines()]
    assert start["value"] == "win" and start["remoteness"] == 21 and len(start["moves"]) == 12
    assert over == {"position": "RRR.BB....../......../....", "to_move": "B", "rules": "standard",
                    "source": "table", "value": "loss", "remoteness": 0, "moves": [], "pv": []}


def test_solve_reuses_complete_table(sparro_db: Path) -> None:
    result = run("solve", "sparro", "--variant", "standard", "--db", str(sparro_db), "--json")
    assert result.exit_code == 0
    summary = json.loads(result.output)
    assert summary["start"] == {"value": "win", "remoteness": 21} and summary["reused"] is True
    assert summary["positions"] == 1964178


def _commands(group: click.Group, prefix: tuple[str, ...] = ()):
    for name, command in group.commands.items():
        yield prefix + (name,), command
        if isinstance(command, click.Group):
            yield from _commands(command, prefix + (name,))


@pytest.mark.parametrize("path, command", list(_commands(main)), ids=lambda v: " ".join(v) if isinstance(v, tuple) else "")
def test_every_command_has_help_with_example(path: tuple[str, ...], command: click.Command) -> None:
    result = run(*path, "-h")
    assert result.exit_code == 0
    assert command.help or command.short_help
    if not isinstance(command, click.Group):
        assert "Example:" in result.output


def test_version() -> None:
    result = run("--version")
    assert result.exit_code == 0 and result.output.startswith("tablebase, version ")


def test_probe_search_out_of_budget_says_unknown() -> None:
    result = run("probe", "sparro", "--search", "--budget", "50", "--json")
    assert result.exit_code == 0
    answer = json.loads(result.output)
    assert answer["value"] == "unknown" and answer["remoteness"] is None
    assert {m["value"] for m in answer["moves"]} == {"unknown"} and len(answer["moves"]) == 12
