"""Puzzles: the committed sets re-verified from the rules engine and the tables (not by
the generator), the generator's own output, and the puzzle commands."""

from __future__ import annotations

import csv
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from tablebase.cli.main import main
from tablebase.service.puzzles import rules_object
from tablebase.service.smallholder import solved_lookup
from tablebase.service.sparro import table_lookup
from tablebase.db.store import TablebaseStore
from tablebase.games.base import LOSS, WIN
from tablebase.games.sparro import Sparro
from tablebase.solver.probe import probe
from tablebase.solver.puzzles import generate
from tablebase.solver.smallholder_search import ArrayLocalSearch

PUZZLE_DIR = Path(__file__).parent.parent / "positions" / "puzzles"
TSV_HEADER = ["id", "game", "rules", "position", "solution", "depth", "grade"]


class Verifier:
    """Checks a puzzle claim move by move: every defence, every winner position."""

    def __init__(self, game, lookup) -> None:
        self.game = game
        self.lookup = lookup

    def value_after(self, pos, move) -> tuple[int, int]:
        """(value, plies to the end) for the player making ``move``."""
        child = self.game.play(pos, move)
        over = self.game.terminal_value(child)
        if over is not None:
            return -over, 1
        outcome = self.lookup([self.game.canonical_key(child)])[0]
        return -outcome.value, (outcome.remoteness or 0) + 1  # a draw's remoteness does not matter here

    def check(self, pos, plies_left: int, line: list[int]) -> set[str]:
        """Verify the subtree; follow ``line`` where it goes; return the winner positions met."""
        game = self.game
        winners = [m for m in game.legal_moves(pos)
                   if (lambda v: v[0] == WIN and v[1] <= plies_left)(self.value_after(pos, m))]
        assert len(winners) == 1, f"{len(winners)} winning moves in {game.format(pos)}"
        if line:
            assert line[0] == winners[0], f"solution move {line[0]} is not the winning move in {game.format(pos)}"
        after = game.play(pos, winners[0])
        if game.terminal_value(after) is not None:
            assert game.terminal_value(after) == LOSS
            return {game.format(pos)}
        checked = {game.format(pos)}
        for defence in game.legal_moves(after):
            reply = game.play(after, defence)
            if game.terminal_value(reply) is not None:
                assert game.terminal_value(reply) == WIN  # a defence may only lose
                continue
            follow = line[2:] if len(line) > 1 and line[1] == defence else []
            checked |= self.check(reply, plies_left - 2, follow)
        return checked


def committed_puzzles(name: str = "sparro.tsv") -> list[dict]:
    with open(PUZZLE_DIR / name, newline="") as handle:
        reader = csv.DictReader(handle, delimiter="\t")
        assert reader.fieldnames == TSV_HEADER
        return list(reader)


def verify_row(game, lookup, row: dict) -> None:
    """A committed puzzle's claims: a choice at the start, its depth, unique wins
    everywhere, a winning main line."""
    verifier = Verifier(game, lookup)
    pos = game.parse(row["position"])
    assert len(list(game.legal_moves(pos))) >= 2, row["position"]
    line = [int(m) for m in row["solution"].split()]
    depth = int(row["depth"])
    assert len(line) == depth
    root = lookup([game.canonical_key(pos)])[0]
    assert (root.value, root.remoteness) == (WIN, depth)
    verifier.check(pos, depth, line)
    solver = game.to_move(pos)
    for move in line:  # the main line is legal and ends the game in the solver's favour
        pos = game.play(pos, move)
    assert game.terminal_value(pos) == (WIN if game.to_move(pos) == solver else LOSS)


def test_committed_set_size_and_spread() -> None:
    rows = committed_puzzles()
    assert len(rows) >= 60
    assert {row["rules"] for row in rows} == {"standard", "extended", "extended-unrestricted"}
    assert len({(row["rules"], row["position"]) for row in rows}) == len(rows)


def test_every_committed_puzzle_is_unique_against_every_defence(sparro_db: Path) -> None:
    with TablebaseStore(sparro_db) as store:
        for row in committed_puzzles():
            game = Sparro(row["rules"])
            verify_row(game, table_lookup(store, store.table("sparro", row["rules"])), row)


@pytest.mark.slow
def test_committed_smallholder_puzzles(tmp_path: Path) -> None:
    """limping2 puzzles against its tables (solved here in seconds); hex3 puzzles against
    an exact search of everything reachable from the puzzle (the tables of hex3 take
    minutes to solve, too long for the test suite)."""
    rows = committed_puzzles("smallholder.tsv")
    assert len(rows) >= 60
    assert {row["rules"].rpartition("@")[2] for row in rows} == {"limping2", "hex3"}
    with TablebaseStore(tmp_path / "smallholder.sqlite", create=True) as store:
        for row in rows:
            game = rules_object("smallholder", row["rules"])
            if game.board.name == "limping2":
                lookup = solved_lookup(store, game, progress=False)
            else:
                lookup = ArrayLocalSearch(game, node_budget=2_000_000).outcomes
            verify_row(game, lookup, row)


@pytest.fixture
def puzzle_db(sparro_db: Path, tmp_path: Path) -> Path:
    path = tmp_path / "puzzles.sqlite"
    shutil.copy(sparro_db, path)
    return path


@pytest.mark.slow
def test_generated_puzzles_verify_independently(sparro_db: Path) -> None:
    with TablebaseStore(sparro_db) as store:
        for variant in ("standard", "extended"):
            game = Sparro(variant)
            lookup = table_lookup(store, store.table("sparro", variant))
            found = list(generate(game, lookup, 15, 3, 9, seed=5))
            assert len(found) == 15 and len({p.canonical_key for p in found}) == 15
            verifier = Verifier(game, lookup)
            for puzzle in found:
                checked = verifier.check(game.parse(puzzle.position), puzzle.depth, puzzle.main_line)
                assert checked == set(puzzle.tree)
                assert 1 <= puzzle.grade <= 5
            # reproducible from the seed
            again = list(generate(game, lookup, 15, 3, 9, seed=5))
            assert [p.position for p in again] == [p.position for p in found]


def run(*args: str, input: str | None = None):
    return CliRunner().invoke(main, list(args), input=input)


def test_generate_list_show_export(puzzle_db: Path) -> None:
    db = ["--db", str(puzzle_db)]
    empty = run("puzzles", "list", *db)  # nothing stored yet: stdout stays empty, stderr says so
    assert empty.exit_code == 0 and empty.stdout == ""
    assert empty.stderr == f"note: no puzzles in {puzzle_db}; 'tablebase puzzles generate' finds some\n"
    result = run("puzzles", "generate", "sparro", "--count", "4", "--min-depth", "5", "--seed", "3", *db)
    assert result.exit_code == 0, result.output
    assert len(result.stdout.splitlines()) == 4
    again = run("puzzles", "generate", "sparro", "--count", "4", "--min-depth", "5", "--seed", "3", *db)
    assert again.exit_code == 0  # the stored ones are skipped: four more, all new
    assert not set(again.stdout.splitlines()) & set(result.stdout.splitlines())
    listed = run("puzzles", "list", *db)
    assert len(listed.stdout.splitlines()) == 8 and listed.stderr == ""
    none = run("puzzles", "list", "--grade", "5", "--min-depth", "99", *db)
    assert none.stdout == "" and none.stderr.startswith("note: no puzzles match these filters in ")
    exported = run("puzzles", "export", *db)
    rows = list(csv.DictReader(exported.stdout.splitlines(), delimiter="\t"))
    assert exported.stdout.splitlines()[0].split("\t") == TSV_HEADER
    assert len(rows) == 8 and all(int(r["depth"]) >= 5 for r in rows)
    assert len({r["position"] for r in rows}) == 8
    shown = run("puzzles", "show", rows[0]["id"], *db)
    assert shown.exit_code == 0 and f"win within {rows[0]['depth']} plies" in shown.stdout
    assert run("puzzles", "show", "999", *db).stderr.startswith("Error: no puzzle with id 999")


def test_play_right_and_wrong(puzzle_db: Path) -> None:
    db = ["--db", str(puzzle_db)]
    run("puzzles", "generate", "sparro", "--count", "1", "--min-depth", "3", "--max-depth", "3", "--seed", "4", *db)
    row = list(csv.DictReader(run("puzzles", "export", *db).stdout.splitlines(), delimiter="\t"))[0]
    line = row["solution"].split()
    solved = run("puzzles", "play", row["id"], *db, input=f"{line[0]}\n{line[2]}\n")
    assert solved.exit_code == 0 and "right!" in solved.stdout and "solved!" in solved.stdout
    game = Sparro(row["rules"])
    pos = game.parse(row["position"])
    wrong = next(m for m in game.legal_moves(pos) if m != int(line[0]))
    failed = run("puzzles", "play", row["id"], *db, input=f"{wrong}\n")
    assert failed.exit_code == 0 and "wrong" in failed.stdout  # giving up is the user's choice, not an error
    assert failed.stdout.rstrip().endswith("input ended: not solved. (1 wrong try)")


def test_play_puzzle_shows_the_refutation_and_allows_retry_and_hint(puzzle_db: Path) -> None:
    db = ["--db", str(puzzle_db)]
    run("puzzles", "generate", "sparro", "--count", "1", "--min-depth", "3", "--max-depth", "3", "--seed", "4", *db)
    row = list(csv.DictReader(run("puzzles", "export", *db).stdout.splitlines(), delimiter="\t"))[0]
    line = [int(m) for m in row["solution"].split()]
    game = Sparro(row["rules"])
    pos = game.parse(row["position"])
    with TablebaseStore(puzzle_db) as store:
        lookup = table_lookup(store, store.table("sparro", row["rules"]))
        answer = probe(game, pos, lookup)
        wrong = next(m for m in answer.moves if m.cell != line[0])
        # the refutation: the opponent's best line after the wrong move, to the end of the game
        refutation, after = [wrong.name], game.play(pos, wrong.cell)
        while game.terminal_value(after) is None:
            best = probe(game, after, lookup).moves[0]
            refutation.append(best.name)
            after = game.play(after, best.cell)
    result = run("puzzles", "play", row["id"], *db,
                 input=f"{wrong.name}\nh\n{game.move_name(line[0])}\n{game.move_name(line[2])}\n")
    assert result.exit_code == 0, result.output
    out = result.stdout
    value = wrong.outcome.name + ("" if wrong.outcome.remoteness is None else f" in {wrong.outcome.remoteness}")
    assert f"wrong: {wrong.name} is a {value} for you" in out
    assert f"Refutation: {' '.join(refutation)}\n" in out
    assert f"hint: play {game.move_name(line[0])}\n" in out
    assert out.index("wrong:") < out.index("hint:") < out.index("right!")
    assert out.rstrip().endswith("solved! (1 wrong try, 1 hint)")


def test_play_marks_the_moves_that_change_the_value(puzzle_db: Path) -> None:
    """Red wins in 13 here, but 0a3 loses: play says what that move threw away."""
    position = "RBBRBR.BR.../......../...."
    game = Sparro("standard")
    with TablebaseStore(puzzle_db) as store:
        answer = probe(game, game.parse(position), table_lookup(store, store.table("sparro", "standard")))
    losing = next(m for m in answer.moves if m.outcome.value == LOSS)
    keeping = answer.moves[0]
    result = run("play", "sparro", position, "--db", str(puzzle_db), input=f"{losing.name}\nq\n")
    assert (f"{losing.name}: win in {answer.outcome.remoteness} -> loss in {losing.outcome.remoteness} "
            f"(this move changed the value)\n") in result.stdout
    result = run("play", "sparro", position, "--db", str(puzzle_db), input=f"{keeping.name}\nq\n")
    assert f"{keeping.name}: win in {keeping.outcome.remoteness}\n" in result.stdout
    assert "changed the value" not in result.stdout


def test_a_rules_filter_is_read_as_the_games_read_rules(tmp_path: Path) -> None:
    """A spelled-out spec (or one that amounts to a named ruleset) finds the puzzles stored
    under the ruleset's label; a label of another game is said to name no rules of this one."""
    db = ["--db", str(tmp_path / "p.sqlite")]
    made = run("puzzles", "generate", "smallholder", "--board", "limping2", "--count", "2", "--solve", "-s", *db)
    assert made.exit_code == 0, made.output
    stored = run("puzzles", "list", "--rules", "nibbler@limping2", *db).stdout
    assert stored.count("nibbler@limping2") == 2
    for spelled in ("groups=must-create-if-one-live,adjacent=smallest-playable,territory=gap,capture=piecewise@limping2",
                    "territory=gap@limping2"):
        assert run("puzzles", "list", "--rules", spelled, *db).stdout == stored
    other = run("puzzles", "list", "--rules", "standard", "--game", "smallholder", *db)
    assert other.stdout == "" and "'standard' names no smallholder rules" in other.stderr
