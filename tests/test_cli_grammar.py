"""One CLI grammar: JSON lines, the same keys in both games, files written by options."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from tablebase.cli.main import main


def run(*args: str) -> "object":
    return CliRunner().invoke(main, list(args))


def test_tables_lists_the_file(sparro_db: Path) -> None:
    result = run("tables", "--db", str(sparro_db), "--json")
    assert result.exit_code == 0, result.output
    rows = [json.loads(line) for line in result.stdout.splitlines()]
    assert {r["rules"] for r in rows} == {"standard", "extended", "extended-unrestricted"}
    assert all(r["game"] == "sparro" and r["status"] == "complete" and r["bytes"] > 0 for r in rows)
    text = run("tables", "--db", str(sparro_db))
    assert text.exit_code == 0 and len(text.stdout.splitlines()) == 3 and "sparro standard: complete" in text.stdout


def test_solve_json_has_rules_in_both_games(sparro_db: Path, tmp_path: Path) -> None:
    sparro = run("solve", "sparro", "--variant", "standard", "--db", str(sparro_db), "--json", "-s")
    assert sparro.exit_code == 0, sparro.output
    answer = json.loads(sparro.stdout)
    assert answer["rules"] == "standard" and "variant" not in answer
    db = str(tmp_path / "s.sqlite")
    small = run("solve", "smallholder", "--board", "limping2", "--ruleset", "stymie", "--db", db, "--json", "-s")
    assert small.exit_code == 0, small.output
    answer = json.loads(small.stdout)
    assert answer["rules"] == "stymie@limping2" and "moves" not in answer and answer["edges"] > answer["positions"] / 2


@pytest.mark.parametrize("args", [["show", "sparro"], ["show", "smallholder", "--board", "hex3"]])
def test_svg_to_a_bad_path_is_one_line(tmp_path: Path, args: list[str]) -> None:
    for target, words in [(tmp_path / "missing" / "x.svg", "does not exist"), (tmp_path, "is a directory")]:
        result = run(*args, "--svg", str(target))
        assert result.exit_code == 1 and result.exception is None or isinstance(result.exception, SystemExit)
        assert words in result.stderr and len(result.stderr.strip().splitlines()) == 1
    good = tmp_path / "ok.svg"
    assert run(*args, "--svg", str(good)).exit_code == 0 and good.read_text().startswith("<svg")


def test_puzzle_json_names_the_moves(sparro_db: Path, tmp_path: Path) -> None:
    db = tmp_path / "p.sqlite"
    db.write_bytes(sparro_db.read_bytes())
    made = run("puzzles", "generate", "sparro", "--count", "2", "--seed", "5", "--db", str(db), "--json", "-s")
    assert made.exit_code == 0, made.output
    for line in made.stdout.splitlines():
        puzzle = json.loads(line)
        assert len(puzzle["solution_names"]) == len(puzzle["solution"]) > 0
        assert all(isinstance(name, str) and name[0] in "012" for name in puzzle["solution_names"])


@pytest.mark.parametrize("args", [
    ["probe", "smallholder", "--time", "nan"],
    ["puzzles", "generate", "smallholder", "--board", "hex4", "--time", "NaN"],
    ["solve", "smallholder", "--weak", "--time-limit", "nan"],
])
def test_seconds_options_refuse_nan(tmp_path: Path, args: list[str]) -> None:
    """'nan' passes click's FloatRange (every comparison with it is false) and would make
    a time bound that never runs out; the options refuse it before any work starts."""
    result = run(*args, "--db", str(tmp_path / "t.sqlite"))
    assert result.exit_code == 2
    assert "is not a number of seconds" in result.output
    assert not (tmp_path / "t.sqlite").exists()
