"""hex4 puzzles, judged by the exact search: the curated set re-verified move by move
against a fresh search (and its roots against the subgraph method), and a lookup that
does not know a position never lets it into a puzzle."""

from __future__ import annotations

import zlib
from pathlib import Path

import pytest

from test_puzzles import Verifier, committed_puzzles, verify_row
from tablebase.db.store import TablebaseStore
from tablebase.games.base import WIN
from tablebase.service import puzzles as service
from tablebase.service.puzzles import rules_object
from tablebase.service.smallholder import solved_lookup
from tablebase.solver.puzzles import generate
from tablebase.solver.smallholder_exact import ExactSearch
from tablebase.solver.smallholder_search import ArrayLocalSearch


def search_lookup(game):  # type: ignore[no-untyped-def]
    """Exact outcomes by a fresh exact search (one table for the whole check)."""
    search = ExactSearch(game, table_bytes=1 << 26)
    return lambda keys: [search.solve(game.from_key(key)) for key in keys]


def test_curated_hex4_puzzles_against_the_search() -> None:
    rows = committed_puzzles("hex4.tsv")
    assert len(rows) >= 10
    assert {row["rules"] for row in rows} == {"nibbler@hex4"}
    assert len({row["position"] for row in rows}) == len(rows)
    for row in rows:
        game = rules_object("smallholder", row["rules"])
        verify_row(game, search_lookup(game), row)
        # the root's value by a method independent of the search: exploration + retrograde
        pos = game.parse(row["position"])
        outcome = ArrayLocalSearch(game, node_budget=5_000_000).outcomes([game.canonical_key(pos)])[0]
        assert outcome is not None and (outcome.value, outcome.remoteness) == (WIN, int(row["depth"]))


def test_an_unknown_never_becomes_a_puzzle(tmp_path: Path) -> None:
    """With a lookup that knows only two thirds of the positions, every puzzle found is
    one that lookup fully covers (its own verification would fail otherwise) and a true
    puzzle by the complete table."""
    game = rules_object("smallholder", "nibbler@limping2")
    with TablebaseStore(tmp_path / "t.sqlite", create=True) as store:
        full = solved_lookup(store, game, progress=False)

        def partial(keys):  # type: ignore[no-untyped-def]
            known = full(keys)
            return [None if zlib.crc32(str(key).encode()) % 3 == 0 else outcome for key, outcome in zip(keys, known)]

        found = list(generate(game, partial, 6, 3, 9, seed=4, max_games=3000))
        assert found
        for puzzle in found:
            for lookup in (partial, full):
                checked = Verifier(game, lookup).check(game.parse(puzzle.position), puzzle.depth, puzzle.main_line)
                assert checked == set(puzzle.tree)


@pytest.mark.slow
def test_generate_hex4_puzzles_by_search(tmp_path: Path) -> None:
    with TablebaseStore(tmp_path / "t.sqlite", create=True) as store:
        found = list(service.generate_into(store, "smallholder", "nibbler@hex4", 1, 3, 5, 1, 20, "test",
                                           nodes=500_000, seconds=None))
    assert len(found) == 1
    game = rules_object("smallholder", "nibbler@hex4")
    verify_row(game, search_lookup(game), {"position": found[0].position, "depth": str(found[0].depth),
                                           "solution": " ".join(map(str, found[0].main_line))})


HEX4_WIN_IN_7 = "WBWB/BWBWW/.B...B/BWWWB.B/B.BBWW/BW.W./WBBW W"


def test_play_on_hex4_against_the_search(tmp_path: Path) -> None:
    """`tablebase play` on hex4 from a position: the exact search is the perfect player.
    Playing the principal variation's moves wins, each judged as the remoteness falls;
    the root's value is confirmed by the subgraph method, independent of the search."""
    from click.testing import CliRunner

    from tablebase.cli.main import main
    from tablebase.service.probing import principal_variations

    game = rules_object("smallholder", "nibbler@hex4")
    pos = game.parse(HEX4_WIN_IN_7)
    outcome = ArrayLocalSearch(game, node_budget=5_000_000).outcomes([game.canonical_key(pos)])[0]
    assert outcome is not None and (outcome.value, outcome.remoteness) == (WIN, 7)
    with TablebaseStore(tmp_path / "pv.sqlite", create=True) as store:
        _, lookup = service.game_and_lookup(store, "smallholder", "nibbler@hex4")
        line = principal_variations(game, [pos], lookup)[0]
    assert len(line) == 7
    yours = line[0::2]  # the side to move's moves; the perfect player answers with the others
    result = CliRunner().invoke(main, ["play", "smallholder", HEX4_WIN_IN_7, "--db", str(tmp_path / "t.sqlite")],
                                input="\n".join(yours) + "\n")
    assert result.exit_code == 0, result.output
    for move, left in zip(yours, (7, 5, 3, 1)):
        assert f"{move}: win in {left}\n" in result.stdout
    for move, left in zip(line[1::2], (6, 4, 2)):
        assert f"-> {move} (loss in {left} for it)\n" in result.stdout
    assert result.stdout.rstrip().endswith("you win!")


def test_play_on_hex4_stops_where_the_search_cannot_settle(tmp_path: Path) -> None:
    """A position the search cannot settle within --budget ends the game with status 1
    and one line naming the position and the bounds, never a guessed move."""
    from click.testing import CliRunner

    from tablebase.cli.main import main

    hard = "..BB/B..../W.WW../......W/.B.WBW/...../B.B. W"  # 24 empty cells: a loss in 22
    result = CliRunner().invoke(main, ["play", "smallholder", hard, "--budget", "1000", "--time", "0",
                                       "--db", str(tmp_path / "t.sqlite")], input="a1\n")
    assert result.exit_code == 1
    (error,) = result.stderr.strip().splitlines()
    assert error == (f"Error: play smallholder: the search did not settle {hard!r} within --time 0 s and "
                     "--budget 1,000 positions; the game stops here (give more --time)")
    assert "a1:" not in result.stdout  # the move was not judged, nor played
