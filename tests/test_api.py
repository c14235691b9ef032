"""The Python API: `tablebase.open()` and what a Tablebase answers."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

import tablebase
from tablebase.cli.main import main
from tablebase.games.base import NotationError
from tablebase.games.sparro import Sparro
from tablebase.service.errors import NotSolved, ServiceError, StoreError
from tablebase.service.progress import ProgressEvent

START = "............/......../...."
MIDGAME = "RBBRBR.BR.../......../...."


def test_probe_the_start_and_walk_the_pv(sparro_standard_db: Path) -> None:
    with tablebase.open(sparro_standard_db) as tb:
        p = tb.probe("sparro", START)
    assert (p.value, p.to_move, p.source, p.rules) == ("win", "R", "table", "standard")
    assert isinstance(p.remoteness, int) and p.remoteness > 0
    assert p.moves[0].value == "win" and p.moves[0].remoteness == p.remoteness
    # the PV is a whole perfect game: as long as the remoteness, ending in Red's win
    assert len(p.pv) == p.remoteness and p.pv[0] == p.moves[0].name
    game = Sparro("standard")
    pos = game.start()
    for name in p.pv:
        pos = game.play(pos, game.parse_move(name))
    result = game.result(pos)
    assert result is not None and result.winner == "R"


def test_pv_follows_the_best_move_at_every_ply(sparro_standard_db: Path) -> None:
    with tablebase.open(sparro_standard_db) as tb:
        p = tb.probe("sparro", MIDGAME)
        position = p.position
        for ply, name in enumerate(p.pv):
            here = tb.probe("sparro", position.text)
            assert here.moves[0].name == name
            assert here.remoteness == p.remoteness - ply  # one ply closer to the end each time
            position = position.play(name)


def test_to_dict_is_what_probe_json_prints(sparro_standard_db: Path) -> None:
    with tablebase.open(sparro_standard_db) as tb:
        expected = tb.probe("sparro", MIDGAME).to_dict()
    result = CliRunner().invoke(main, ["probe", "sparro", MIDGAME, "--db", str(sparro_standard_db), "--json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.output) == expected


def test_search_agrees_with_the_table(sparro_standard_db: Path) -> None:
    deep = "RBBRBRRBRB../......../...."
    with tablebase.open(sparro_standard_db) as tb:
        table = tb.probe("sparro", deep)
        search = tb.probe("sparro", deep, search=True)
    assert search.source == "search"
    assert (search.value, search.remoteness, search.moves) == (table.value, table.remoteness, table.moves)


def test_search_out_of_budget_is_unknown(sparro_standard_db: Path) -> None:
    with tablebase.open(sparro_standard_db) as tb:
        p = tb.probe("sparro", START, search=True, budget=10)
    assert (p.value, p.remoteness, p.pv) == ("unknown", None, [])
    assert {m.value for m in p.moves} == {"unknown"}
    assert p.at_least is None and p.to_dict()["at_least"] is None  # no move settled: nothing proved


def test_search_bounds_without_a_search_are_refused(sparro_standard_db: Path) -> None:
    """``budget`` and ``seconds`` bound a search alone: without search=True the table
    answers, and a bound given there was silently unused."""
    with tablebase.open(sparro_standard_db) as tb:
        for bounds, named in (({"budget": 1000}, "budget=1000"), ({"seconds": 2.5}, "seconds=2.5"),
                              ({"budget": 10, "seconds": 1.0}, "budget=10")):
            with pytest.raises(ServiceError) as refused:
                tb.probe("sparro", START, **bounds)
            assert str(refused.value).endswith(f"without search=True the table answers: give search=True, or "
                                               f"leave {named.split('=')[0]} out: {named}")
        # with search=True the same bounds bound the search: ten positions settle nothing
        # (the start's own search takes about 18 s), while the table knows the value
        bounded = tb.probe("sparro", START, search=True, budget=10)
        assert (bounded.value, bounded.source) == ("unknown", "search")
        assert tb.probe("sparro", START).value == "win"


def test_a_smallholder_search_keeps_to_its_seconds(tmp_path: Path) -> None:
    """``seconds=`` bounds a Smallholder search's wall-clock time as --time does: the
    empty hex4 board, with no node budget to speak of (hours of work), answers "unknown"
    after the bound; bad values are refused before any work."""
    with tablebase.open(tmp_path / "none.sqlite", mode="w") as tb:
        started = time.perf_counter()
        p = tb.probe("smallholder", board="hex4", search=True, budget=10**12, seconds=0.5)
        assert (p.value, p.source) == ("unknown", "search")
        assert time.perf_counter() - started < 120  # not the budget: that would take hours
        for bad in (0, -1, float("nan"), "1", True):
            with pytest.raises(ServiceError, match="seconds must be a positive number of seconds"):
                tb.probe("smallholder", board="hex4", search=True, seconds=bad)


def test_an_unknown_probe_keeps_what_its_settled_moves_prove() -> None:
    """`Probe.at_least` carries the answer's ``at_least``, and `to_dict` gives the answer back."""
    from tablebase.service.api import LowerBound, _position, _probe_of
    from tablebase.games.smallholder import Smallholder

    engine = Smallholder("hex4", "nibbler")
    pos = engine.start()
    answer = {"position": engine.format(pos), "to_move": "B", "rules": engine.rules_name, "source": "search",
              "value": "unknown", "remoteness": None,
              "moves": [{"cell": 18, "name": "d4", "value": "win", "remoteness": 35}]
              + [{"cell": c, "name": engine.move_name(c), "value": "unknown", "remoteness": None}
                 for c in engine.legal_moves(pos) if c != 18],
              "pv": [], "at_least": {"value": "win", "remoteness": 35}}
    p = _probe_of(_position("smallholder", engine, pos), answer)
    assert p.at_least == LowerBound("win", 35) and tablebase.LowerBound is LowerBound
    assert p.to_dict() == answer
    known = _probe_of(_position("smallholder", engine, pos), {**answer, "value": "win", "remoteness": 35})
    assert "at_least" not in known.to_dict()


def test_tables_lists_what_the_file_holds(sparro_db: Path) -> None:
    with tablebase.open(sparro_db) as tb:
        tables = tb.tables()
    assert {t.rules for t in tables} == {"standard", "extended", "extended-unrestricted"}
    assert all(t.game == "sparro" and t.status == "complete" and t.positions > 0 and t.bytes > 0 for t in tables)


def test_positions_draw_themselves(sparro_standard_db: Path) -> None:
    with tablebase.open(sparro_standard_db) as tb:
        p = tb.probe("sparro", MIDGAME)
        pos = tb.position("smallholder", board="hex3")
    assert p._repr_svg_().startswith("<svg") and p.position._repr_svg_().startswith("<svg")
    assert pos._repr_svg_().startswith("<svg") and pos.rules == "nibbler@hex3" and pos.to_move == "B"


@pytest.mark.parametrize("call, message", [
    (lambda tb: tb.probe("sparro", 123), "position must be text, not 123"),
    (lambda tb: tb.probe("smallholder", b"..../... B"), "position must be text, not b'..../... B'"),
    (lambda tb: tb.position("smallholder", board="hex4", rules=3), "rules must be text, not 3"),
    (lambda tb: tb.position(["sparro"]), r"game must be text, not \['sparro'\]"),
    (lambda tb: tb.solve("smallholder", board=4), "board must be text, not 4"),
    (lambda tb: tb.puzzles(rules=5), "rules must be text, not 5"),
    (lambda tb: tb.weak_solve("smallholder", 5), "position must be text, not 5"),
])
def test_what_is_not_text_is_named(sparro_standard_db: Path, call: Any, message: str) -> None:
    """Positions, game names and rules options are text: anything else is a ServiceError
    naming the parameter and the value (a number or bytes failed deep in a parser, with
    an AttributeError or a TypeError)."""
    with tablebase.open(sparro_standard_db) as tb:
        with pytest.raises(ServiceError, match=message):
            call(tb)


@pytest.mark.parametrize("call, message", [
    (lambda tb: tablebase.open(None), "path must be a file's path, not None"),
    (lambda tb: tablebase.open(3), "path must be a file's path, not 3"),
    (lambda tb: tablebase.open(b"tablebase.sqlite"), "path must be a file's path, not b'tablebase.sqlite'"),
    (lambda tb: tablebase.check_proof(None), r"proof must be a proof file's path or its lines \(text\), not None"),
    (lambda tb: tablebase.check_proof(b"x"), r"proof must be a proof file's path or its lines \(text\), not b'x'"),
    (lambda tb: tablebase.check_proof([1, 2]), "line 1 of the proof must be text, not 1"),
    (lambda tb: tablebase.check_proof(["x"], journal=7), "journal must be a file's path, not 7"),
    (lambda tb: tablebase.find_repetition(position=3), "position must be text, not 3"),
    (lambda tb: tablebase.find_repetition(board=3), "board must be text, not 3"),
    (lambda tb: tablebase.find_repetition(progress=5), "progress must be a function taking a ProgressEvent"),
    (lambda tb: tb.verify("smallholder", boards="limping2"), "boards must be a tuple of board names, not 'limping2'"),
    (lambda tb: tb.verify("smallholder", boards=None), "boards must be a tuple of board names, not None"),
    (lambda tb: tb.verify("smallholder", boards=(), proofs=("x.tsv",)),
     r"each of proofs must be a \(proof file, journal or None\) pair, not 'x.tsv'"),
    (lambda tb: tb.verify("smallholder", boards=(), proofs=((None, None),)), "proof must be a file's path, not None"),
    (lambda tb: tb.verify("smallholder", boards=(), progress=5), "progress must be a function"),
    (lambda tb: tb.solve("sparro", progress=5), "progress must be a function"),
    (lambda tb: tb.probe("sparro", search="yes"), "search must be True or False, not 'yes'"),
])
def test_arguments_of_the_wrong_kind_are_named(tmp_path: Path, call: Any, message: str) -> None:
    """Paths, proofs, board lists, progress callbacks and flags of the wrong kind are a
    ServiceError naming the parameter and the value, before any work (each was a
    TypeError, AttributeError or ValueError from deep inside, or read as something else:
    a board list "limping2" as the boards 'l', 'i', ...)."""
    with tablebase.open(tmp_path / "empty.sqlite", mode="w") as tb:
        with pytest.raises(ServiceError, match=message):
            call(tb)


@pytest.mark.parametrize("move, error, message", [
    (99, NotationError, r"cell index 99 is off the hex3 board \(cells 0-18\): '99'"),
    (-1, NotationError, "unknown cell on hex3 .*: '-1'"),
    ("z9", NotationError, "unknown cell on hex3 .*: 'z9'"),
    (True, ServiceError, "a move is a cell index or a cell name, not True"),
    (3.5, ServiceError, "a move is a cell index or a cell name, not 3.5"),
    (None, ServiceError, "a move is a cell index or a cell name, not None"),
])
def test_a_move_that_is_not_a_cell_is_named(move: object, error: type, message: str) -> None:
    """`Position.play` takes a cell index or name; anything else is refused with the move
    named (an index off the board used to read as an illegal move, a bool as a cell, a
    float as a traceback)."""
    with tablebase.open(":memory:", mode="w") as tb:
        pos = tb.position("smallholder", board="hex3")
    with pytest.raises(error, match=message):
        pos.play(move)  # type: ignore[arg-type]
    assert pos.play(0).text != pos.text and pos.play("a1") == pos.play(0) == pos.play("0")


def test_solve_with_a_progress_callback(tmp_path: Path) -> None:
    events: list[ProgressEvent] = []
    with tablebase.open(tmp_path / "t.sqlite", mode="w") as tb:
        info = tb.solve("smallholder", board="limping2", rules="territory=hull,capture=piecewise",
                        progress=events.append)
        p = tb.probe("smallholder", board="limping2", rules="territory=hull,capture=piecewise")
    assert info.status == "complete" and events and all(e.task.startswith("smallholder ") for e in events)
    assert p.rules == info.rules and p.value == info.summary["start_value"]
    assert p.remoteness == info.summary["start_remoteness"]


def test_errors_are_the_service_classes(sparro_standard_db: Path, tmp_path: Path) -> None:
    with pytest.raises(StoreError):
        tablebase.open(tmp_path / "missing.sqlite")
    with pytest.raises(ServiceError):
        tablebase.open(sparro_standard_db, mode="x")  # type: ignore[arg-type]
    with tablebase.open(sparro_standard_db) as tb:
        with pytest.raises(NotationError):
            tb.probe("sparro", "RRRR")
        with pytest.raises(NotationError):
            tb.probe("chess", START)
        with pytest.raises(NotSolved):
            tb.probe("smallholder", board="hex3")
        with pytest.raises(ServiceError, match="too big"):
            tb.probe("smallholder", board="hex4")


@pytest.mark.parametrize("call, message", [
    (lambda tb: tb.probe("sparro", START, search=True, budget="many"), "budget must be a whole number at least 1, not 'many'"),
    (lambda tb: tb.probe("sparro", START, search=True, budget=0), "budget must be a whole number at least 1, not 0"),
    (lambda tb: tb.probe("sparro", START, search=True, budget=True), "budget must be .* not True"),
    (lambda tb: tb.check(sample=-1), "sample must be a whole number at least 0, not -1"),
    (lambda tb: tb.puzzles(limit=-1), "limit must be a whole number at least 0, not -1"),
    (lambda tb: tb.puzzles(grade=9), "grade must be a whole number from 1 to 5, not 9"),
    (lambda tb: tb.puzzles(min_depth=2.5), "min_depth must be a whole number at least 0, not 2.5"),
])
def test_bad_numbers_name_the_parameter(sparro_standard_db: Path, call: object, message: str) -> None:
    """A parameter out of its range is a ServiceError naming it and the value, not a
    silent answer (a negative limit would mean no limit to SQLite) or a stray TypeError."""
    with tablebase.open(sparro_standard_db) as tb:
        with pytest.raises(ServiceError, match=message):
            call(tb)  # type: ignore[operator]



@pytest.mark.parametrize("options, message", [
    ({"count": -1}, "count must be a whole number at least 1, not -1"),
    ({"min_depth": 0}, "min_depth must be a whole number at least 1, not 0"),
    ({"min_depth": 9, "max_depth": 2}, "max_depth must be a whole number at least 9, not 2"),
    ({"max_games": 0}, "max_games must be a whole number at least 1, not 0"),
])
def test_bad_puzzle_settings_are_refused_before_any_work(tmp_path: Path, options: dict, message: str) -> None:
    with tablebase.open(tmp_path / "new.sqlite", mode="w") as tb:
        with pytest.raises(ServiceError, match=message):
            tb.generate_puzzles("smallholder", board="limping2", **options)
        assert tb.tables() == [] and tb.puzzles() == []  # nothing solved or stored


@pytest.mark.parametrize("options, message", [
    ({"job_budget": 0}, "job_budget must be a whole number from 1 to"),
    ({"job_retries": 11}, "job_retries must be a whole number from 0 to 10, not 11"),
    ({"job_table_mb": 0}, "job_table_mb must be a whole number from 1 to"),
    ({"workers": 0}, "workers must be a whole number at least 1, not 0"),
    ({"job_max_empty": -1}, "job_max_empty must be a whole number at least 0, not -1"),
    ({"time_limit": float("nan")}, "time_limit must be a number of seconds, at least 0, not nan"),
    ({"leaf_solver": "guess"}, "unknown leaf solver .*: 'guess'"),
    ({"board": "hex9"}, "hex9"),
])
def test_bad_weak_solve_settings_are_refused_before_any_work(tmp_path: Path, options: dict, message: str) -> None:
    with tablebase.open(tmp_path / "new.sqlite", mode="w") as tb:
        with pytest.raises((ServiceError, NotationError), match=message):
            tb.weak_solve(**{"board": "limping2", **options})
        with pytest.raises(ServiceError, match="no weak solve stored"):
            tb.export_proof(board="limping2")  # nothing was stored


def test_weak_solve_export_and_check_agree_with_the_table(tmp_path: Path) -> None:
    """The weak solve of the API proves the table's value of a limping2 start, its export
    passes the check (from lines and from a file), and a read-only file refuses to be
    solved into; Sparro has no weak solve."""
    with tablebase.open(tmp_path / "tb.sqlite", mode="w") as tb:
        table = tb.solve("smallholder", board="limping2", ruleset="stymie")
        report = tb.weak_solve(board="limping2", ruleset="stymie", job_budget=1000)
        lines = tb.export_proof(board="limping2", ruleset="stymie")
        with pytest.raises(ServiceError, match="weak solves are for games whose tables do not fit"):
            tb.weak_solve("sparro")
    assert report.value == table.summary["start_value"] == "loss" and report.winner == "W"
    checked = tablebase.check_proof(lines)
    assert checked.winner == "W" and checked.depth >= table.summary["start_remoteness"]
    proof = tmp_path / "stymie.tsv"
    proof.write_text("".join(line + "\n" for line in lines))
    assert tablebase.check_proof(proof).rows == checked.rows
    # with a journal, a second check takes the big leaves' findings from it
    first = tablebase.check_proof(proof, check_budget=50, journal=tmp_path / "check.journal")
    again = tablebase.check_proof(proof, check_budget=50, journal=tmp_path / "check.journal")
    assert first.searched_leaves > 0 and (again.searched_leaves, again.journal_leaves) == (0, first.searched_leaves)
    with pytest.raises(ServiceError, match="not a valid proof"):
        tablebase.check_proof(lines[:-1] + ["x\tleaf\t\twin\t1"])
    with tablebase.open(tmp_path / "tb.sqlite") as reader, pytest.raises(StoreError, match="read-only"):
        reader.weak_solve(board="limping2", ruleset="nibbler")
