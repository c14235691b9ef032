"""`tablebase puzzles ...` and `tablebase play`: generate, browse, export and play puzzles."""

from __future__ import annotations

import json
import sys
from html import escape
from dataclasses import asdict
from pathlib import Path
from typing import Any, Callable

import click

from tablebase.cli.app import (
    CONTEXT_SETTINGS,
    TablebaseError,
    _Group,
    db_option,
    json_option,
    main,
    show_progress,
    silent_option,
)
from tablebase.cli.pictures import smallholder_svg, sparro_svg
from tablebase.cli.smallholder import describe, game_for_rules_name, solved_lookup
from tablebase.cli.sparro import render, solve_into, table_lookup
from tablebase.db.puzzles import PuzzleStore, StoredPuzzle
from tablebase.db.store import TablebaseStore
from tablebase.games.base import WIN, NotationError
from tablebase.games.smallholder import DEFAULT_RULESET, Smallholder, parse_rules
from tablebase.games.sparro import VARIANTS, Sparro
from tablebase.solver.probe import Lookup, probe
from tablebase.solver.puzzles import generate

GAMES = ("sparro", "smallholder")
TSV_COLUMNS = ("id", "game", "rules", "position", "solution", "depth", "grade")
SIDE_NAMES = {"R": "Red", "B": "Black", "W": "White"}


def rules_label(game: str, variant: str, ruleset: str, board: str) -> str:
    """How a puzzle records its rules: the Sparro variant, or the Smallholder ruleset@board."""
    return variant if game == "sparro" else Smallholder(board, parse_rules(ruleset)).rules_name


def rules_object(game: str, label: str) -> Any:
    """The rules object of a recorded rules label."""
    return Sparro(label) if game == "sparro" else game_for_rules_name(label)


def game_and_lookup(store: TablebaseStore, game: str, label: str, progress: bool) -> tuple[Any, Lookup]:
    """The rules object and a table lookup for recorded rules, solving the table if needed."""
    rules = rules_object(game, label)
    if game == "sparro":
        return rules, table_lookup(store, solve_into(store, label, progress))
    return rules, solved_lookup(store, rules, progress)


def draw_text(game: Any, pos: Any) -> str:
    return render(game, pos) if isinstance(game, Sparro) else describe(game, pos)


def draw_svg(game: Any, pos: Any) -> str:
    return sparro_svg(game, pos) if isinstance(game, Sparro) else smallholder_svg(game, pos)


@main.group(cls=_Group, context_settings=CONTEXT_SETTINGS)
def puzzles() -> None:
    """Puzzles with proven unique solutions: generate, list, show, export, play.

    A puzzle is "to move and win within N plies": the side to move wins, and at each of
    its moves in the solution, against every defence, exactly one move wins within the
    plies left. The whole solution tree is checked against the solved tables.
    """


@puzzles.command("generate", epilog="""\b
Example:
    tablebase puzzles generate sparro --count 20 --min-depth 5 --seed 7
    tablebase puzzles generate sparro --variant extended --count 100 --json
    tablebase puzzles generate smallholder --ruleset stymie --board limping2 --count 10""")
@click.argument("game", type=click.Choice(GAMES))
@click.option("--variant", type=click.Choice(VARIANTS), default="standard", show_default=True,
              help="Sparro variant.")
@click.option("--ruleset", default=DEFAULT_RULESET, show_default=True,
              help="Smallholder ruleset: a name or a spec such as 'territory=hull,capture=groupwise'.")
@click.option("--board", type=click.Choice(["limping2", "hex3"]), default="hex3", show_default=True,
              help="Smallholder board (one that can be solved).")
@click.option("--count", type=click.IntRange(1, 10_000), default=10, show_default=True,
              help="How many new puzzles to find.")
@click.option("--min-depth", type=click.IntRange(1, 200), default=3, show_default=True,
              help="Fewest plies to the win.")
@click.option("--max-depth", type=click.IntRange(1, 200), default=15, show_default=True,
              help="Most plies to the win.")
@click.option("--seed", type=int, default=1, show_default=True, help="Random seed: the same seed gives the same puzzles.")
@click.option("--max-games", type=click.IntRange(1), default=20_000, show_default=True,
              help="Give up after sampling this many games.")
@db_option
@silent_option
@json_option
def generate_command(game: str, variant: str, ruleset: str, board: str, count: int, min_depth: int,
                     max_depth: int, seed: int, max_games: int, db_path: str, silent: bool, as_json: bool) -> None:
    """Find new puzzles in natural-looking games and store them in the tablebase file.

    Candidates come from random games in which no player ignores a win in one move or
    hands one to the opponent when it can avoid it. Puzzles already stored (up to
    symmetry) are skipped. Prints one line per new puzzle: id, depth, grade, position.
    """
    if min_depth > max_depth:
        raise TablebaseError(f"--min-depth {min_depth} is more than --max-depth {max_depth}")
    label = rules_label(game, variant, ruleset, board)
    choice = f"--variant {variant}" if game == "sparro" else f"--ruleset {ruleset} --board {board}"
    source = (f"tablebase puzzles generate {game} {choice} --count {count} --min-depth {min_depth} "
              f"--max-depth {max_depth} --seed {seed}")
    with TablebaseStore(db_path, create=True) as store:
        rules, lookup = game_and_lookup(store, game, label, show_progress(silent))
        library = PuzzleStore(store)
        found = list(generate(rules, lookup, count, min_depth, max_depth, seed,
                              exclude=library.keys(game, label), max_games=max_games))
        ids = library.add_all([{"game": game, "rules": label, "source": source, **asdict(p)} for p in found])
        stored = [library.get(i) for i in ids if i is not None]
    for puzzle in stored:
        click.echo(json.dumps(puzzle.as_json()) if as_json else
                   f"#{puzzle.id}  depth {puzzle.depth:2d}  grade {puzzle.grade}  {puzzle.position}")
    if len(stored) < count:
        click.echo(f"found {len(stored)} of {count} puzzles in {max_games} games; widen the depths or add --max-games",
                   err=True)


def _filters(function: Callable) -> Callable:
    for option in reversed([
        click.option("--game", type=click.Choice(GAMES), help="Only this game."),
        click.option("--rules", help="Only these rules (Sparro variant, or Smallholder ruleset@board)."),
        click.option("--min-depth", type=int, help="Only puzzles at least this deep."),
        click.option("--max-depth", type=int, help="Only puzzles at most this deep."),
        click.option("--grade", type=click.IntRange(1, 5), help="Only this difficulty grade (1-5)."),
        click.option("--limit", type=click.IntRange(1), help="At most this many."),
    ]):
        function = option(function)
    return function


@puzzles.command("list", epilog="""\b
Example:
    tablebase puzzles list --grade 3
    tablebase puzzles list --game sparro --rules extended --json""")
@_filters
@db_option
@json_option
def list_command(game: str | None, rules: str | None, min_depth: int | None, max_depth: int | None,
                 grade: int | None, limit: int | None, db_path: str, as_json: bool) -> None:
    """List stored puzzles: id, game, rules, depth, grade, position."""
    with TablebaseStore(db_path) as store:
        found = PuzzleStore(store).find(game, rules, min_depth, max_depth, grade, limit)
    for p in found:
        click.echo(json.dumps(p.as_json()) if as_json else
                   f"#{p.id}\t{p.game}\t{p.rules}\tdepth {p.depth}\tgrade {p.grade}\t{p.position}")


@puzzles.command("show", epilog="""\b
Example:
    tablebase puzzles show 12
    tablebase puzzles show 12 --json""")
@click.argument("puzzle_id", type=int)
@db_option
@json_option
def show_command(puzzle_id: int, db_path: str, as_json: bool) -> None:
    """Show a puzzle: the position, whose turn, and its solution (main line)."""
    with TablebaseStore(db_path) as store:
        puzzle = PuzzleStore(store).get(puzzle_id)
    if as_json:
        click.echo(json.dumps({**puzzle.as_json(), "tree": puzzle.tree}))
        return
    game = rules_object(puzzle.game, puzzle.rules)
    pos = game.parse(puzzle.position)
    click.echo(f"Puzzle #{puzzle.id} ({puzzle.game} {puzzle.rules}, grade {puzzle.grade}): "
               f"{SIDE_NAMES[game.to_move(pos)]} to move and win within {puzzle.depth} plies.")
    click.echo(draw_text(game, pos))
    names = [game.move_name(m) for m in puzzle.main_line]
    click.echo("solution: " + " ".join(names))
    click.echo(f"({len(puzzle.tree)} positions in the solution tree; every defence is covered)")


def export_tsv(found: list[StoredPuzzle]) -> str:
    rows = ["\t".join(TSV_COLUMNS)]
    rows += ["\t".join([str(p.id), p.game, p.rules, p.position, " ".join(map(str, p.main_line)), str(p.depth),
                        str(p.grade)]) for p in found]
    return "\n".join(rows) + "\n"


@puzzles.command("export", epilog="""\b
Example:
    tablebase puzzles export --output puzzles.tsv
    tablebase puzzles export --game sparro --format html --output sheet.html""")
@_filters
@click.option("--format", "fmt", type=click.Choice(["tsv", "html"]), default="tsv", show_default=True,
              help="Tab-separated text, or an HTML sheet with a picture per puzzle.")
@click.option("--output", type=click.Path(dir_okay=False, writable=True), help="File to write (default: stdout).")
@db_option
def export_command(game: str | None, rules: str | None, min_depth: int | None, max_depth: int | None,
                   grade: int | None, limit: int | None, fmt: str, output: str | None, db_path: str) -> None:
    """Export puzzles as tab-separated text (columns: id, game, rules, position,
    solution as cell indices, depth, grade) or as an HTML sheet with pictures."""
    with TablebaseStore(db_path) as store:
        found = PuzzleStore(store).find(game, rules, min_depth, max_depth, grade, limit)
    text = export_tsv(found) if fmt == "tsv" else export_html(found)
    if output:
        Path(output).write_text(text)
        click.echo(f"wrote {len(found)} puzzles to {output}", err=True)
    else:
        click.echo(text, nl=False)


def export_html(found: list[StoredPuzzle]) -> str:
    parts = ["<!DOCTYPE html>", "<html><head><meta charset='utf-8'><title>tablebase puzzles</title>",
             "<style>body{font-family:sans-serif} .puzzle{display:inline-block;width:380px;margin:12px;"
             "vertical-align:top} .solution{color:#777;font-size:small}</style></head><body>",
             "<h1>Puzzles</h1>"]
    for p in found:
        game = rules_object(p.game, p.rules)
        pos = game.parse(p.position)
        solution = " ".join(game.move_name(m) for m in p.main_line)
        parts.append(f"<div class='puzzle'><h3>#{p.id}: {SIDE_NAMES[game.to_move(pos)]} to move, win within "
                     f"{p.depth} plies (grade {p.grade})</h3>{draw_svg(game, pos)}"
                     f"<p><code>{escape(p.position)}</code> ({escape(p.game)} {escape(p.rules)})</p>"
                     f"<p class='solution'>Solution: {escape(solution)}</p></div>")
    parts.append("</body></html>")
    return "\n".join(parts) + "\n"


def _play(game: Any, pos: Any, lookup: Lookup, human: str, expected: dict[str, int] | None) -> bool:
    """Play from ``pos``: the user moves for ``human``, the table answers with the best
    move. With ``expected`` (a puzzle's tree) each user move is judged at once.
    Returns True if the user won."""
    while game.terminal_value(pos) is None:
        click.echo(draw_text(game, pos))
        if game.to_move(pos) != human:
            answer = probe(game, pos, lookup)
            reply = answer.moves[0]
            click.echo(f"-> {reply.name} ({reply.outcome.name} for it in {reply.outcome.remoteness})")
            pos = game.play(pos, reply.cell)
            continue
        text = click.prompt("your move (name or index, 'q' to quit)")
        if text.strip().lower() in ("q", "quit"):
            return False
        try:
            move = game.parse_move(text)
            after = game.play(pos, move)
        except (NotationError, ValueError) as exc:
            click.echo(f"not a legal move: {exc}")
            continue
        if expected is not None:
            right = expected.get(game.format(pos)) == move
            click.echo("right!" if right else "wrong: that move does not win in time. The solution was "
                       f"{game.move_name(expected[game.format(pos)])}.")
            if not right:
                return False
        else:
            outcome = next(m.outcome for m in probe(game, pos, lookup).moves if m.cell == move)
            click.echo(f"{game.move_name(move)}: {outcome.name} in {outcome.remoteness}")
        pos = after
    click.echo(draw_text(game, pos))
    side_to_move_wins = game.terminal_value(pos) == WIN
    return side_to_move_wins == (game.to_move(pos) == human)


@puzzles.command("play", epilog="""\b
Example:
    tablebase puzzles play 12""")
@click.argument("puzzle_id", type=int)
@db_option
def play_puzzle(puzzle_id: int, db_path: str) -> None:
    """Solve a puzzle interactively: enter moves, the table defends; each move is judged."""
    with TablebaseStore(db_path) as store:
        puzzle = PuzzleStore(store).get(puzzle_id)
        game, lookup = game_and_lookup(store, puzzle.game, puzzle.rules, progress=False)
        pos = game.parse(puzzle.position)
        click.echo(f"Puzzle #{puzzle.id}: win within {puzzle.depth} plies.")
        solved = _play(game, pos, lookup, game.to_move(pos), puzzle.tree)
    click.echo("solved!" if solved else "not solved.")
    if not solved:
        sys.exit(1)


@main.command("play", epilog="""\b
Example:
    tablebase play sparro
    tablebase play sparro 'RBBRBR.BR.../......../....' --variant standard --as B
    tablebase play smallholder --board limping2 --ruleset stymie""")
@click.argument("game", type=click.Choice(GAMES))
@click.argument("position", required=False)
@click.option("--variant", type=click.Choice(VARIANTS), default="standard", show_default=True, help="Sparro variant.")
@click.option("--ruleset", default=DEFAULT_RULESET, show_default=True, help="Smallholder ruleset (name or spec).")
@click.option("--board", type=click.Choice(["limping2", "hex3"]), default="hex3", show_default=True,
              help="Smallholder board.")
@click.option("--as", "side", type=click.Choice(["R", "B", "W"]), help="Your colour (default: the side to move).")
@db_option
def play_command(game: str, position: str | None, variant: str, ruleset: str, board: str, side: str | None,
                 db_path: str) -> None:
    """Play against the perfect player from any position (default: the start).

    After each of your moves the toolkit says what it is worth (win, loss or draw for
    you, and in how many plies); the perfect player answers with its best move.
    """
    with TablebaseStore(db_path, create=True) as store:
        rules, lookup = game_and_lookup(store, game, rules_label(game, variant, ruleset, board), show_progress(False))
        pos = rules.parse(position) if position else rules.start()
        you = side or rules.to_move(pos)
        if you not in ("R", "B") if game == "sparro" else you not in ("B", "W"):
            raise TablebaseError(f"--as {you} is not a colour of {game}")
        won = _play(rules, pos, lookup, you, None)
    click.echo("you win!" if won else "the perfect player wins.")
