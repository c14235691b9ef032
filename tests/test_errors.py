"""Error classes that keep bad notation, illegal moves and storage problems apart, and
how the interfaces show each: one line on stderr with exit status 1 (CLI); a usage error
(bad options or arguments) is one line too, with exit status 2."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from tablebase.cli.main import main
from tablebase.db.store import StoreError
from tablebase.games.base import IllegalMoveError, NotationError
from tablebase.games.smallholder import Smallholder
from tablebase.games.sparro import Sparro
from tablebase.service.errors import USER_ERRORS


def test_the_three_kinds_are_separate_classes() -> None:
    assert not issubclass(IllegalMoveError, NotationError)
    assert not issubclass(NotationError, IllegalMoveError)
    assert not issubclass(StoreError, (NotationError, IllegalMoveError))
    for kind in (NotationError, IllegalMoveError, StoreError):
        assert issubclass(kind, USER_ERRORS)


@pytest.mark.parametrize("game, taken, text", [
    (Sparro("standard"), "0a1", "0a1"),
    (Smallholder("limping2", "nibbler"), "a1", "a1"),
])
def test_both_games_raise_the_illegal_move_class(game: object, taken: str, text: str) -> None:
    pos = game.start()  # type: ignore[attr-defined]
    cell = game.parse_move(taken)  # type: ignore[attr-defined]
    pos = game.play(pos, cell)  # type: ignore[attr-defined]
    with pytest.raises(IllegalMoveError) as raised:
        game.play(pos, cell)  # type: ignore[attr-defined]
    assert not isinstance(raised.value, NotationError)
    assert str(raised.value).startswith("illegal move for ") and str(raised.value).endswith(f": {text!r}")


def test_bad_notation_of_a_move_is_a_notation_error() -> None:
    with pytest.raises(NotationError):
        Sparro("standard").parse_move("9z9")
    with pytest.raises(NotationError):
        Smallholder("limping2", "nibbler").parse_move("z9")


def one_line_error(*args: str, status: int = 1) -> str:
    result = CliRunner().invoke(main, list(args), prog_name="tablebase")
    assert result.exit_code == status, result.output
    assert result.stdout == ""
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    return lines[0]


def test_cli_shows_an_illegal_move_as_one_line() -> None:
    line = one_line_error("moves", "smallholder", "--board", "limping2", "--after", "a1 a1")
    assert "--after move 2 is illegal" in line and line.endswith("'a1'")


def test_cli_shows_bad_notation_as_one_line() -> None:
    line = one_line_error("moves", "smallholder", "--board", "limping2", "--after", "a1 zz")
    assert line.endswith("'zz'")


def test_cli_shows_a_storage_problem_as_one_line(tmp_path: Path) -> None:
    missing = tmp_path / "none.sqlite"
    line = one_line_error("probe", "sparro", "--db", str(missing))
    assert str(missing) in line


@pytest.mark.parametrize("args, expected", [
    (["probe", "smallholder", "--time", "-1"],
     "Error: Invalid value for '--time': -1.0 is not in the range x>=0. (see 'tablebase probe smallholder --help')"),
    (["--bogus"], "Error: No such option '--bogus'. (see 'tablebase --help')"),
    (["proof", "copy", "--bogus"], "Error: No such option '--bogus'. (see 'tablebase proof copy --help')"),
    (["probe", "smallholder", "a", "b"],
     "Error: Got unexpected extra argument (b) (see 'tablebase probe smallholder --help')"),
    (["atlas", "smallholder", "--proof", "p.tsv"],  # raised by the command itself
     "Error: --proof adds its result to the --markdown page: give --markdown too "
     "(see 'tablebase atlas smallholder --help')"),
])
def test_cli_shows_a_usage_error_as_one_line(args: list[str], expected: str) -> None:
    assert one_line_error(*args, status=2) == expected


def test_a_group_given_nothing_still_shows_its_help() -> None:
    result = CliRunner().invoke(main, ["probe"], prog_name="tablebase")
    assert result.exit_code == 2 and result.stderr.startswith("Usage: tablebase probe [OPTIONS] COMMAND")
    assert "smallholder" in result.stderr and "sparro" in result.stderr
