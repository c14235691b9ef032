"""The Python API: `tablebase.open()` and what a Tablebase answers."""

from __future__ import annotations

import json
from pathlib import Path

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
