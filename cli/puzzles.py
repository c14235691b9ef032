"""`tablebase puzzles ...` and `tablebase play`: generate, browse, export and play puzzles."""

from __future__ import annotations

import json
import sys
from typing import Any, Callable

import click

from tablebase.cli.app import (
    BUDGET_RANGE,
    CONTEXT_SETTINGS,
    DEPTH_RANGE,
    EXACT_BUDGET_STEP,
    ID_RANGE,
    SEED_RANGE,
    Seconds,
    TablebaseError,
    Whole,
    _Group,
    db_option,
    end_status_line,
    json_option,
    long_run_options,
    long_run_progress,
    main,
    progress_printer,
    solve_option,
)
from tablebase.cli.smallholder import RULESET
from tablebase.service.files import open_store, write_text
from tablebase.service import puzzles as service
from tablebase.service.errors import IllegalMoveError, NotationError, NotInTable
from tablebase.service.games import GAMES as REGISTRY, describe
from tablebase.service.play import Match, outcome_text
from tablebase.service.probing import DEFAULT_SEARCH_SECONDS
from tablebase.service.smallholder import DESCRIPTION as SMALLHOLDER
from tablebase.service.tables import refuse_unasked_solve
from tablebase.service.sparro import DESCRIPTION as SPARRO

GAMES = tuple(REGISTRY)
SIDE_NAMES = {"R": "Red", "B": "Black", "W": "White"}


def _options(game: str, variant: str, ruleset: str, board: str) -> dict[str, Any]:
    """The rules options of the command line that apply to ``game``."""
    given = {"variant": variant, "ruleset": ruleset, "board": board}
    return {name: value for name, value in given.items() if name in describe(game).options}


@main.group(cls=_Group, context_settings=CONTEXT_SETTINGS)
def puzzles() -> None:
    """Puzzles with proven unique solutions: generate, list, show, export, play.

    A puzzle is "to move and win within N plies": the side to move wins, has at least
    two legal moves to choose from, and at each of its moves in the solution, against
    every defence, exactly one move wins within the plies left. The whole solution tree
    is checked against the solved tables.
    """


def _check_depths(min_depth: int | None, max_depth: int | None) -> None:
    """A usage error when the depth range is empty (--min-depth above --max-depth)."""
    if min_depth is not None and max_depth is not None and min_depth > max_depth:
        raise click.UsageError(f"--min-depth {min_depth} is more than --max-depth {max_depth}")


@puzzles.command("generate", epilog="""\b
Example:
    tablebase puzzles generate sparro --count 20 --min-depth 5 --seed 7 --solve
    tablebase puzzles generate sparro --variant extended --count 100 --json --solve
    tablebase puzzles generate smallholder --ruleset stymie --board limping2 --count 10 --solve
    tablebase puzzles generate smallholder --board hex4 --count 3 --time 5""")
@click.argument("game", type=click.Choice(GAMES))
@click.option("--variant", type=click.Choice(SPARRO.variants), default=SPARRO.default_variant, show_default=True,
              help="Sparro variant.")
@click.option("--ruleset", type=RULESET, default=SMALLHOLDER.default_ruleset, show_default=True,
              help="Smallholder ruleset: a name or a spec such as 'territory=hull,capture=groupwise'.")
@click.option("--board", type=click.Choice(["limping2", "hex3", "hex4"]), default=SMALLHOLDER.default_board,
              show_default=True,
              help="Smallholder board: hex4 (judged by the exact search), or one that can be solved.")
@click.option("--count", type=Whole(1, 10_000), default=10, show_default=True,
              help="How many new puzzles to find.")
@click.option("--time", "seconds", type=Seconds(), default=service.PUZZLE_SEARCH_SECONDS,
              show_default=True,
              help="hex4: wall-clock seconds the search may spend on each position it judges (0: no time "
                   "bound, so that a seed always gives the same puzzles).")
@click.option("--budget", "nodes", type=Whole(1, 10**12), default=service.PUZZLE_SEARCH_NODES,
              show_default=True,
              help=f"hex4: positions the search may explore for each position it judges. {EXACT_BUDGET_STEP}")
@click.option("--min-depth", type=Whole(1, 200), default=3, show_default=True,
              help="Fewest plies to the win.")
@click.option("--max-depth", type=Whole(1, 200), default=15, show_default=True,
              help="Most plies to the win.")
@click.option("--seed", type=SEED_RANGE, default=1, show_default=True,
              help="Random seed: the same seed gives the same puzzles.")
@click.option("--max-games", type=Whole(1, 10**9), default=20_000, show_default=True,
              help="Give up after sampling this many games.")
@db_option
@solve_option
@long_run_options
@json_option
def generate_command(game: str, variant: str, ruleset: str, board: str, count: int, seconds: float, nodes: int,
                     min_depth: int, max_depth: int, seed: int, max_games: int, db_path: str, solve: bool, silent: bool,
                     as_json: bool) -> None:
    """Find new puzzles in natural-looking games and store them in the tablebase file.

    Candidates come from random games in which no player ignores a win in one move or
    hands one to the opponent when it can avoid it. Puzzles already stored (up to
    symmetry) are skipped. Each puzzle is stored as soon as it is proved, so an interrupted run
    keeps what it found; prints one line per new puzzle as it is stored: id, depth, grade,
    position. Puzzles are judged by the rules' table: when the file lacks it, --solve
    solves it first (without --solve the command says so, with how long it takes, and
    exits with status 1).

    On hex4, which no table holds, every position is judged by the exact search within
    --time seconds and --budget positions; a position it cannot settle in that budget is
    never a puzzle. The natural games are guided by a search of a twentieth of that
    budget, so candidates are the later positions of each game. Progress (games played,
    candidates searched, puzzles found) goes to stderr.
    """
    _check_depths(min_depth, max_depth)
    options = _options(game, variant, ruleset, board)
    label = service.rules_label(game, **options)
    if not solve:
        refuse_unasked_solve(db_path, f"puzzles generate {game}", [(describe(game), service.rules_object(game, label))])
    choice = " ".join(f"--{name} {value}" for name, value in options.items())
    searched = service.searched(describe(game), service.rules_object(game, label))
    bounds = f" --time {seconds:g} --budget {nodes}" if searched else ""
    source = (f"tablebase puzzles generate {game} {choice} --count {count} --min-depth {min_depth} "
              f"--max-depth {max_depth} --seed {seed}{bounds}")
    stored = 0
    with open_store(db_path, create=True) as store:
        for puzzle in service.generate_into(store, game, label, count, min_depth, max_depth, seed, max_games, source,
                                            long_run_progress(silent) if searched else progress_printer(silent),
                                            nodes, seconds or None):
            stored += 1  # already committed: printed as soon as it is stored
            click.echo(json.dumps(service.puzzle_json(puzzle)) if as_json else
                       f"#{puzzle.id}  depth {puzzle.depth:2d}  grade {puzzle.grade}  {puzzle.position}")
            sys.stdout.flush()
    if stored < count:
        click.echo(f"found {stored} of {count} puzzles in {max_games} games; widen the depths or add --max-games",
                   err=True)


def _filters(function: Callable) -> Callable:
    for option in reversed([
        click.option("--game", type=click.Choice(GAMES), help="Only this game."),
        click.option("--rules", help="Only these rules (Sparro variant, or Smallholder ruleset@board)."),
        click.option("--min-depth", type=DEPTH_RANGE, help="Only puzzles at least this deep."),
        click.option("--max-depth", type=DEPTH_RANGE, help="Only puzzles at most this deep."),
        click.option("--grade", type=Whole(1, 5), help="Only this difficulty grade (1-5)."),
        click.option("--limit", type=Whole(*service.LIMIT_RANGE), help="At most this many."),
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
    """List stored puzzles: id, game, rules, depth, grade, position (none: a note on
    stderr, nothing on stdout; when --rules names no rules, the note says how they are
    written: the Sparro variant, or the Smallholder ruleset@board such as nibbler@limping2)."""
    _check_depths(min_depth, max_depth)
    with open_store(db_path) as store:
        found = service.find(store, game, rules, min_depth, max_depth, grade, limit)
    if not found:
        filtered = any(value is not None for value in (game, rules, min_depth, max_depth, grade))
        hint = service.rules_filter_hint(game, rules)
        click.echo(f"note: no puzzles{' match these filters' if filtered else ''} in {db_path}; "
                   f"'tablebase puzzles generate' finds some" + (f"; --rules {hint}" if hint else ""), err=True)
    for p in found:
        click.echo(json.dumps(service.puzzle_json(p)) if as_json else
                   f"#{p.id}\t{p.game}\t{p.rules}\tdepth {p.depth}\tgrade {p.grade}\t{p.position}")


@puzzles.command("show", epilog="""\b
Example:
    tablebase puzzles show 12
    tablebase puzzles show 12 --json""")
@click.argument("puzzle_id", type=ID_RANGE)
@db_option
@json_option
def show_command(puzzle_id: int, db_path: str, as_json: bool) -> None:
    """Show a puzzle: the position, whose turn, and its solution (main line)."""
    with open_store(db_path) as store:
        puzzle = service.get(store, puzzle_id)
    if as_json:
        click.echo(json.dumps(service.puzzle_json(puzzle, tree=True)))
        return
    description = describe(puzzle.game)
    game = description.rules(puzzle.rules)
    pos = game.parse(puzzle.position)
    click.echo(f"Puzzle #{puzzle.id} ({puzzle.game} {puzzle.rules}, grade {puzzle.grade}): "
               f"{SIDE_NAMES[game.to_move(pos)]} to move and win within {puzzle.depth} plies.")
    click.echo(description.text(game, pos))
    click.echo("solution: " + " ".join(service.solution_names(puzzle)))
    click.echo(f"({len(puzzle.tree)} positions in the solution tree; every defence is covered)")


@puzzles.command("export", epilog="""\b
Example:
    tablebase puzzles export --output puzzles.tsv
    tablebase puzzles export --game sparro --format html --output sheet.html""")
@_filters
@click.option("--format", "fmt", type=click.Choice(["tsv", "html"]), default="tsv", show_default=True,
              help="Tab-separated text, or an HTML sheet with a picture per puzzle.")
@click.option("--output", type=click.Path(), help="File to write (default: stdout).")
@db_option
def export_command(game: str | None, rules: str | None, min_depth: int | None, max_depth: int | None,
                   grade: int | None, limit: int | None, fmt: str, output: str | None, db_path: str) -> None:
    """Export puzzles as tab-separated text (columns: id, game, rules, position,
    solution as cell indices, depth, grade) or as an HTML sheet with pictures."""
    _check_depths(min_depth, max_depth)
    with open_store(db_path) as store:
        found = service.find(store, game, rules, min_depth, max_depth, grade, limit)
    text = service.export_tsv(found) if fmt == "tsv" else service.export_html(found)
    if output:
        write_text(output, text)
        click.echo(f"wrote {len(found)} puzzles to {output}", err=True)
    else:
        click.echo(text, nl=False)


#: How a match stopped before its end, by what the user did (`_play`'s answer).
QUIT, INPUT_ENDED = "you quit", "input ended"


def _play(match: Match) -> str | None:
    """Play a match: the user enters moves, the table answers. Returns None once the game
    is over (`Match.result` says who won), else how it stopped: `QUIT` or `INPUT_ENDED`.

    Each user move is judged: its value, and when it changed the game's value what it
    threw away ("win in 19 -> loss in 2"). In a puzzle a wrong move is not played: its
    refutation is shown and the user tries again, or asks for a hint ('h')."""
    description = describe(match.game.game_name)
    puzzle = match.expected is not None
    prompt = "your move (name or index, " + ("'h' for a hint, " if puzzle else "") + "'q' to quit)"
    show_board = True
    while not match.over:
        if show_board:
            click.echo(description.text(match.game, match.pos))
        show_board = True
        if not match.users_turn:
            reply = match.reply()
            end_status_line()  # a search's progress line, if it drew one
            click.echo(f"-> {reply.name} ({outcome_text(reply.outcome)} for it)")
            continue
        try:
            text = click.prompt(prompt).strip()
        except click.Abort:  # end of input
            click.echo()
            return INPUT_ENDED
        if text.lower() in ("q", "quit"):
            return QUIT
        if puzzle and text.lower() in ("h", "hint"):
            click.echo(f"hint: play {match.hint()}")
            show_board = False
            continue
        try:
            judgement = match.move(text)
        except (NotationError, IllegalMoveError) as exc:
            end_status_line()
            click.echo(f"not a legal move: {exc}")
            show_board = False
            continue
        end_status_line()
        if judgement.right is False:
            click.echo(f"wrong: {judgement.name} is a {outcome_text(judgement.outcome)} for you, not the win "
                       f"the puzzle asks for. Refutation: {' '.join((judgement.name, *judgement.refutation))}")
            click.echo("try again ('h' for a hint, 'q' to quit)")
            show_board = False
        elif judgement.right:
            click.echo(f"right! {judgement.name}: {outcome_text(judgement.outcome)}")
        elif judgement.changed:
            click.echo(f"{judgement.name}: {judgement.change_text()} (this move changed the value)")
        else:
            click.echo(f"{judgement.name}: {outcome_text(judgement.outcome)}")
    click.echo(description.text(match.game, match.pos))
    return None


#: The last line of a game played to its end, by its result for the user.
GAME_OVER = {"win": "you win!", "loss": "the perfect player wins.", "draw": "a draw."}


def _stopped_text(match: Match, stopped: str, searched: bool) -> str:
    """The last line of a game the user stopped (at the user's turn): how, and what the
    position is worth with perfect play, when the perfect player knows it (a game the
    search plays starts no search for it: that could take the whole --time)."""
    side = SIDE_NAMES[match.game.to_move(match.pos)]
    standing = match.standing(look_up=not searched)
    if standing is None:
        return (f"{stopped}; the value of this position for {side} (to move) is not known: it was not searched "
                "('tablebase probe' searches it).")
    return f"{stopped}; with perfect play this position is a {outcome_text(standing)} for {side} (to move)."


@puzzles.command("play", epilog="""\b
Example:
    tablebase puzzles play 12""")
@click.argument("puzzle_id", type=ID_RANGE)
@db_option
def play_puzzle(puzzle_id: int, db_path: str) -> None:
    """Solve a puzzle interactively: enter moves, the table defends with its best move.

    Each move is judged at once. A wrong move is not played: the refutation (the line
    that punishes it) is shown and you try again; 'h' names the right move, 'q' (or the
    end of input) quits. The last line says "solved!" or "not solved.", with the wrong
    tries and hints counted. Exit status 0 either way: quitting is your choice, not an error.
    """
    with open_store(db_path) as store:
        puzzle = service.get(store, puzzle_id)
        game, lookup = service.game_and_lookup(store, puzzle.game, puzzle.rules)
        pos = game.parse(puzzle.position)
        click.echo(f"Puzzle #{puzzle.id}: win within {puzzle.depth} plies.")
        match = Match(game, pos, lookup, game.to_move(pos), puzzle.tree)
        stopped = _play(match)
    helped = [f"{n} {one if n == 1 else many}" for n, one, many in
              ((match.mistakes, "wrong try", "wrong tries"), (match.hints, "hint", "hints")) if n]
    solved = stopped is None and match.result == "win"  # a wrong move is never played
    click.echo(("solved!" if solved else f"{stopped or 'game over'}: not solved.")
               + (f" ({', '.join(helped)})" if helped else ""))


@main.command("play", epilog="""\b
Example:
    tablebase play sparro --solve
    tablebase play sparro 'RBBRBR.BR.../......../....' --variant standard --as B
    tablebase play smallholder --board limping2 --ruleset stymie
    tablebase play smallholder 'WBWB/BWBWW/.B...B/BWWWB.B/B.BBWW/BW.W./WBBW W'""")
@click.argument("game", type=click.Choice(GAMES))
@click.argument("position", required=False)
@click.option("--variant", type=click.Choice(SPARRO.variants), default=SPARRO.default_variant, show_default=True, help="Sparro variant.")
@click.option("--ruleset", type=RULESET, default=SMALLHOLDER.default_ruleset, show_default=True,
              help="Smallholder ruleset (name or spec).")
@click.option("--board", type=click.Choice(["limping2", "hex3", "hex4"]), default=SMALLHOLDER.default_board,
              show_default=True,
              help="Smallholder board: limping2 or hex3 (the perfect player reads a table), or hex4 from a "
                   "POSITION (the perfect player is the exact search).")
@click.option("--as", "side", type=click.Choice(["R", "B", "W"]), help="Your colour (default: the side to move).")
@click.option("--time", "seconds", type=Seconds(), default=DEFAULT_SEARCH_SECONDS, show_default=True,
              help="hex4: wall-clock seconds the search may take on each position it judges (0: no time bound, "
                   "only --budget).")
@click.option("--budget", type=BUDGET_RANGE, default=SMALLHOLDER.search_budget, show_default=True,
              help=f"hex4: positions the search may explore on each position it judges. {EXACT_BUDGET_STEP}")
@db_option
@solve_option
def play_command(game: str, position: str | None, variant: str, ruleset: str, board: str, side: str | None,
                 seconds: float, budget: int, db_path: str, solve: bool) -> None:
    """Play against the perfect player from any position (default: the start).

    After each of your moves the toolkit says what it is worth (win, loss or draw for
    you, and in how many plies), and when it changed the game's value, what it threw
    away: "0c1: win in 19 -> loss in 2". The perfect player answers with its best move.
    Its moves come from the rules' table: when the file lacks it, --solve solves it
    first (without --solve the command says so, with how long it takes, and exits with
    status 1). On hex4, which no table holds, the exact search is the perfect player:
    give a POSITION late enough for it (about 24 empty cells or fewer); a position it
    cannot settle within --time and --budget ends the game there, with status 1, and
    what it proves is kept in the --db file for later games.

    'q' (or the end of input) quits: the last line then says so, with what the
    position is worth for the side to move. Exit status 0 whenever the game ends or
    you quit (quitting is your choice, not an error).
    """
    if side is not None and side not in describe(game).colours:
        raise click.BadParameter(f"{side} is not a colour of {game} (its colours: "
                                 f"{', '.join(describe(game).colours)})", param_hint="'--as'")
    label = service.rules_label(game, **_options(game, variant, ruleset, board))
    description, engine = describe(game), service.rules_object(game, label)
    searched = service.searched(description, engine)
    unsolvable = description.cannot_solve(engine)
    if unsolvable and not searched:
        raise TablebaseError(f"play {game}: the perfect player's moves come from a table, and {unsolvable}; "
                             "give --board limping2 or --board hex3")
    if searched and position is None:
        raise TablebaseError(f"play {game}: on {board} the perfect player is the exact search, which cannot settle "
                             "the start; give a POSITION (about 24 empty cells or fewer), or --board limping2 or "
                             "--board hex3")
    if not solve and not searched:
        refuse_unasked_solve(db_path, f"play {game}", [(description, engine)])
    with open_store(db_path, create=True) as store:
        rules, lookup = service.game_and_lookup(store, game, label, progress_printer(False), budget, seconds or None)
        pos = rules.parse(position) if position else rules.start()
        match = Match(rules, pos, lookup, side or rules.to_move(pos))
        try:
            stopped = _play(match)
            last = _stopped_text(match, stopped, searched) if stopped else GAME_OVER[match.result]  # type: ignore[index]
        except NotInTable:  # the search out of its budget: no perfect move to claim
            raise TablebaseError(f"play {game}: the search did not settle {rules.format(match.pos)!r} within "
                                 f"--time {seconds:g} s and --budget {budget:,} positions; the game stops here "
                                 "(give more --time)") from None
    click.echo(last)
