"""Commands that need tables (play, puzzles generate, verify) never start a solve the
user did not ask for: they say what they would solve and roughly how long it takes, on
one line, exit with status 1 and write nothing; --solve lets them go ahead."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from tablebase.cli.main import main
from tablebase.db.store import TablebaseStore
from tablebase.service.sparro import DESCRIPTION as SPARRO
from tablebase.service.tables import _duration
from tablebase.service.verify import tables_needed


def run(*args: str, input: str | None = None):  # type: ignore[no-untyped-def]
    return CliRunner().invoke(main, list(args), input=input)


def refusal(*args: str) -> str:
    result = run(*args)
    assert result.exit_code == 1, result.output
    assert result.stdout == ""
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].endswith("give --solve to go ahead")
    return lines[0]


@pytest.fixture(scope="module")
def standard_db(sparro_standard_db: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A file holding the standard Sparro table only (a copy: puzzles are written to it)."""
    path = tmp_path_factory.mktemp("gate") / "standard.sqlite"
    shutil.copy(sparro_standard_db, path)
    return path


@pytest.mark.parametrize("command, args, tables", [
    ("play sparro", ["play", "sparro"], ["sparro standard"]),
    ("play smallholder", ["play", "smallholder", "--board", "limping2"], ["smallholder nibbler@limping2"]),
    ("puzzles generate sparro", ["puzzles", "generate", "sparro", "--variant", "extended"], ["sparro extended"]),
    ("puzzles generate smallholder", ["puzzles", "generate", "smallholder", "--board", "hex3"],
     ["smallholder nibbler@hex3"]),
])
def test_a_fresh_file_is_refused_with_what_and_how_long(tmp_path: Path, command: str, args: list[str],
                                                        tables: list[str]) -> None:
    db = tmp_path / "fresh.sqlite"
    line = refusal(*args, "--db", str(db))
    assert line.startswith(f"Error: {command} would first solve the table it needs into {str(db)!r} (about ")
    assert all(name in line for name in tables)
    assert not db.exists()  # nothing written


def test_verify_without_a_game_names_every_table_and_the_total_time(tmp_path: Path) -> None:
    db = tmp_path / "fresh.sqlite"
    line = refusal("verify", "--db", str(db))
    needed = tables_needed("all")
    assert f"verify would first solve {len(needed)} tables" in line
    assert f"({_duration(sum(d.solve_seconds(game) for d, game in needed))})" in line
    names = re.search(r"\): (.*); give --solve", line)
    assert names is not None
    assert names.group(1).split(", ") == [f"{d.name} {game.rules_name}" for d, game in needed]
    assert not db.exists()


def test_only_the_missing_tables_are_named(standard_db: Path) -> None:
    line = refusal("verify", "sparro", "--db", str(standard_db))
    assert "sparro extended" in line and "sparro standard," not in line and "sparro standard-no-compensation" in line


def test_with_the_table_stored_no_solve_flag_is_needed(standard_db: Path) -> None:
    played = run("play", "sparro", "--db", str(standard_db), input="q\n")
    assert played.exit_code == 0, played.output
    assert "your move" in played.stdout
    made = run("puzzles", "generate", "sparro", "--count", "1", "--seed", "2", "--db", str(standard_db), "-s")
    assert made.exit_code == 0, made.output
    assert made.stdout.startswith("#")


@pytest.mark.slow
def test_solve_goes_ahead(tmp_path: Path) -> None:
    db = tmp_path / "fresh.sqlite"
    made = run("puzzles", "generate", "sparro", "--count", "1", "--seed", "2", "--db", str(db), "--solve", "-s")
    assert made.exit_code == 0, made.output
    with TablebaseStore(db) as store:
        table = store.table("sparro", "standard")
        assert table is not None and table.status == "complete"
    checked = run("verify", "smallholder", "--board", "limping2", "--db", str(db), "--solve", "-s", "--json")
    assert checked.exit_code == 0, checked.output
    assert len(checked.stdout.splitlines()) >= 5


def test_the_estimates_are_the_descriptions_figures() -> None:
    assert SPARRO.solve_seconds(SPARRO.rules("standard")) < SPARRO.solve_seconds(SPARRO.rules("extended"))
    assert _duration(30) == "about 30 s" and _duration(600) == "about 10 minutes"


def test_the_smallholder_estimates_are_what_solves_took() -> None:
    """A hex3 ruleset took 16-22 s wall and a limping2 one well under a second (measured
    2026-12-07, service/smallholder.py); the estimates said 18 s and 3 s, and verify on
    limping2 said 'about 15 s' for what takes one or two."""
    from tablebase.service.smallholder import DESCRIPTION as SMALLHOLDER

    assert 16 <= SMALLHOLDER.solve_seconds(SMALLHOLDER.rules("stymie@hex3")) <= 22
    assert SMALLHOLDER.solve_seconds(SMALLHOLDER.rules("nibbler@limping2")) <= 1
    line = refusal("verify", "smallholder", "--board", "limping2", "--db", "/nonexistent/fresh.sqlite")
    assert "would first solve 5 tables it needs into '/nonexistent/fresh.sqlite' (about 5 s)" in line


def test_smallholder_commands_default_to_hex4_and_play_names_the_boards_it_can(tmp_path: Path) -> None:
    """Every Smallholder command defaults to hex4; play cannot serve its start (the
    search, its perfect player there, cannot settle it) and says so at once, asking for a
    position and naming the boards whose start it can play, on one line."""
    db = tmp_path / "t.sqlite"
    for command in (["play"], ["puzzles", "generate"]):
        assert "[default: hex4]" in " ".join(run(*command, "--help").output.split())
    result = run("play", "smallholder", "--db", str(db), "--solve")
    assert result.exit_code == 1 and result.stdout == ""
    (line,) = result.stderr.strip().splitlines()
    assert "hex4" in line and "POSITION" in line and "--board limping2" in line and "--board hex3" in line, line
    assert not db.exists()
