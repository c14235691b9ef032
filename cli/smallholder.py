"""Commands for The Smallholder (registered on the verb groups of cli/app.py)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import click
from click.core import ParameterSource

from tablebase.cli.app import (
    BUDGET_RANGE, EXACT_BUDGET_STEP, SEED_RANGE, Checked, Seconds, Whole,
    answer_positions, cluster_options, cycle, db_option, end_status_line, json_option, long_run_options,
    long_run_progress, moves, probe, probe_texts, progress_printer, pv_option, search_since, search_time_option, show,
    silent_option, solve)
from tablebase.service.files import open_store, write_text
from tablebase.render.text import moves_line, repetition_text
from tablebase.service.tables import solve_json
from tablebase.service.probing import DEFAULT_SEARCH_SECONDS, probe_answers
from tablebase.service.repetition import (
    DEFAULT_GAMES, DEFAULT_PLIES, DEFAULT_SLACK, MAX_GAMES, MAX_PLIES, MAX_SLACK, find_repetition)
from tablebase.service.proof import (DEFAULT_JOB_BUDGET, DEFAULT_JOB_RETRIES, DEFAULT_JOB_TABLE_MB,
                                     DEFAULT_LEAF_SOLVER, LEAF_SOLVERS, MAX_JOB_TABLE_MB, MIN_JOB_TABLE_MB,
                                     weak_solve_into)
from tablebase.service.smallholder import (
    DESCRIPTION, check_solvable, game_of, read, replay, rules_of, solve_into)


#: The types of the rules options (--board, --ruleset, --rules) of every command that has
#: them: a value the service's parsers refuse is a usage error (exit status 2).
BOARD = Checked("board", DESCRIPTION.check_board)
RULESET = Checked("ruleset", lambda text: rules_of(text, None))
RULES = Checked("spec", lambda text: rules_of(None, text))

_board_option = click.option("--board", "board", metavar="B", type=BOARD, default=None,
                             help=f"Board: hex3..hex7 or limping2..limping4 (default {DESCRIPTION.default_board}, "
                                  f"or the board the position is on).")
_ruleset_option = click.option("--ruleset", metavar="R", type=RULESET, default=None,
                               help=f"Named ruleset: {', '.join(DESCRIPTION.rulesets)} (default {DESCRIPTION.default_ruleset}).")
_rules_option = click.option("--rules", "spec", metavar="SPEC", type=RULES, default=None,
                             help="Custom options groups=...,adjacent=...,territory=...,capture=...; "
                                  "keys left out keep the --ruleset values.")
_unreachable_option = click.option("--allow-unreachable", is_flag=True,
                                   help="Accept a position that cannot arise in play (for analysis).")


@show.command("smallholder")
@click.argument("position", required=False)
@_board_option
@_ruleset_option
@_rules_option
@_unreachable_option
@click.option("--svg", "svg_path", type=click.Path(),
              help="Also draw the position as an SVG picture into this file.")
def show_smallholder(position: str | None, board: str | None, ruleset: str | None, spec: str | None,
                     allow_unreachable: bool, svg_path: str | None) -> None:
    """Draw a Smallholder POSITION with holdings, groups and legal moves.

    POSITION is the rows from top to bottom separated by '/', each cell B, W or '.',
    then a space and the side to move (B or W); default: the empty board, Black to
    move. Cells are named by row letter (a = top row) and column (1 = leftmost).

    \b
    Example:
        tablebase show smallholder --board hex3
        tablebase show smallholder 'BB./B..W/.W.../..../... W' --ruleset stymie
        tablebase show smallholder 'BB./B..W/.W.../..../... W' --svg position.svg
    """
    game, pos = read(position, board, rules_of(ruleset, spec), allow_unreachable)
    if svg_path:  # first: a file it cannot write is an error before anything is printed
        write_text(svg_path, DESCRIPTION.svg(game, pos))
    click.echo(DESCRIPTION.text(game, pos))


@moves.command("smallholder")
@click.argument("position", required=False)
@_board_option
@_ruleset_option
@_rules_option
@click.option("--json", "as_json", is_flag=True, help="One JSON object per position.")
@click.option("--after", metavar="MOVES", default=None,
              help="Play these moves first (names or indices, space or comma separated) and answer "
                   "for the position reached.")
@_unreachable_option
def moves_smallholder(position: str | None, board: str | None, ruleset: str | None, spec: str | None,
                      as_json: bool, after: str | None, allow_unreachable: bool) -> None:
    """List the legal moves of a Smallholder POSITION, or of every stdin line with '-'.

    Text output is one line per position: the position (with --after, the one reached),
    whose turn, then the move names, '+' marking an extension and 'xN' a capture of N
    stones ('B./.../..../..W B: B to move: b3 c1 c2'); once the side to move cannot
    move, 'game over, B wins (W cannot move)' after the position. JSON:
    {"position", "to_move", "moves": [{"cell", "name", "kind", "captures"}], "result"},
    where "result" is null or {"winner": "B"|"W"} once the side to move cannot move.

    \b
    Example:
        tablebase moves smallholder --board hex3
        tablebase moves smallholder --board limping2 --after 'a1 d3 c2' --json
        printf '../.../..../... B\\n../.../B.../... W\\n' | tablebase moves smallholder - --json
    """
    rules = rules_of(ruleset, spec)
    if position is None:
        position_text = _empty_board(board, rules)
    else:
        position_text = position

    def one(text: str) -> dict[str, Any]:
        game, pos = read(text, board, rules, allow_unreachable)
        return DESCRIPTION.moves(game, replay(game, pos, after))

    answer_positions(position_text, one, as_json, moves_text)


def moves_text(answer: dict[str, Any]) -> str:
    """One text line of `moves smallholder`: the position, then whose turn and its moves
    (as `moves sparro` has them), or who won."""
    if answer["result"]:
        return f"{answer['position']}: game over, {answer['result']['winner']} wins ({answer['to_move']} cannot move)"
    return f"{answer['position']}: {answer['to_move']} to move: {moves_line(answer)}"


def _empty_board(board: str | None, rules: Any) -> str:
    """The text of the empty board (Black to move) of ``board`` (default: the default board)."""
    game = game_of(board or DESCRIPTION.default_board, rules)
    return game.format(game.start())


# -- solving ------------------------------------------------------------------------

def _rules_to_solve(ruleset: str | None, spec: str | None, all_rulesets: bool, all_combinations: bool) -> list[Any]:
    if sum((bool(ruleset or spec), all_rulesets, all_combinations)) > 1:
        raise click.UsageError("give one of --ruleset/--rules, --all-rulesets, --all-combinations")
    if all_rulesets:
        return DESCRIPTION.named_rules()
    if all_combinations:
        return DESCRIPTION.all_combinations()
    return [rules_of(ruleset, spec)]


#: The options of `solve smallholder` that only a weak solve takes (parameter names).
WEAK_ONLY = ("workers", "scheduler", "job_budget", "job_retries", "job_table_mb", "job_max_empty", "time_limit",
             "leaf_solver", "first_moves", "position")


@solve.command("smallholder", epilog="""\b
Example:
    tablebase solve smallholder --board limping2 --all-combinations -s
    tablebase solve smallholder --board hex3 --ruleset nibbler --json
    tablebase solve smallholder --board limping2 --rules territory=hull,capture=piecewise
    tablebase solve smallholder --board limping2 --weak --first-moves
    tablebase solve smallholder --board limping3 --weak --workers 2 --time-limit 3600
    tablebase solve smallholder --board hex4 --weak --scheduler tcp://10.0.0.5:8786""")
@click.option("--board", metavar="B", type=BOARD, default=DESCRIPTION.default_board, show_default=True,
              help="Board: limping2 or hex3 for a table (at most 20 cells; the default hex4 needs --weak); "
                   "with --weak any board up to 63 cells.")
@_ruleset_option
@_rules_option
@click.option("--all-rulesets", is_flag=True, help="Solve the five named rulesets.")
@click.option("--all-combinations", is_flag=True, help="Solve all 120 option combinations.")
@db_option
@long_run_options
@json_option
@click.option("--force", is_flag=True, help="Solve again even if the table is complete.")
@click.option("--weak", is_flag=True,
              help="Weak solve: prove the value of the start (no table), by a proof-number search whose "
                   "frontier positions are exact-search jobs; resumable, committed as it goes.")
@cluster_options("--weak: run the jobs")
@click.option("--job-budget", type=BUDGET_RANGE, default=DEFAULT_JOB_BUDGET, show_default=True,
              help="--weak: positions one leaf job may explore before it answers unknown (then it runs "
                   "again with more, see --job-retries, and after that the proof-number search expands the "
                   "position instead).")
@click.option("--job-retries", type=Whole(0, 10), default=None,
              help="--weak: a job out of budget runs again with 4 times the budget, up to this many times, "
                   f"before the search expands its position (0: expand at once)  [default: {DEFAULT_JOB_RETRIES}]")
@click.option("--job-table-mb", type=Whole(MIN_JOB_TABLE_MB, MAX_JOB_TABLE_MB), default=None, metavar="MB",
              help="--weak: size limit of the transposition table each worker's leaf search keeps from job to "
                   "job (later jobs reuse what earlier ones proved; in-process, one table serves both cores)  "
                   f"[default: {DEFAULT_JOB_TABLE_MB}]")
@click.option("--job-max-empty", type=Whole(0, 10**4), default=None,
              help="--weak: send only positions with at most this many empty cells as jobs; the search "
                   "expands bigger ones itself (default: every position is tried as a job first).")
@click.option("--time-limit", type=Seconds(0, 10**9), default=None, metavar="SECONDS",
              help="--weak: stop after this long (everything settled is kept; the same command goes on).")
@click.option("--leaf-solver", type=click.Choice(sorted(LEAF_SOLVERS)), default=DEFAULT_LEAF_SOLVER,
              show_default=True,
              help="--weak: the exact search the jobs run: 'exact' (compiled pruning search), 'value' (the "
                   "same for the value alone, cheaper; the export then finds the remoteness of the proof's "
                   "leaves), 'subgraph' (whole reachable subgraph, endgames only), 'reference' (the same, "
                   "per-position engine).")
@click.option("--first-moves", is_flag=True,
              help="--weak: after the start, settle every first move too (which ones win).")
@click.option("--position", metavar="POSITION", default=None,
              help="--weak: the root to prove instead of the empty board (its board is --board's).")
def solve_smallholder(board: str, ruleset: str | None, spec: str | None, all_rulesets: bool,
                      all_combinations: bool, db_path: str, silent: bool, as_json: bool, force: bool, weak: bool,
                      workers: int | None, scheduler: str | None, job_budget: int, job_retries: int | None,
                      job_table_mb: int | None, job_max_empty: int | None,
                      time_limit: float | None, leaf_solver: str, first_moves: bool, position: str | None) -> None:
    """Solve every position reachable from the empty board and store it in the tablebase.

    All canonical positions reachable from the start are enumerated breadth-first, the
    move graph is solved by retrograde analysis (win, loss, or draw for endless play,
    with the remoteness in plies), and the table is written tier by tier (a tier is the
    positions with the same number of stones). A solve interrupted before the end is
    started again from scratch. A complete table is reused unless --force is given (the line
    then says it was already solved, and how long that took; with --json, "reused": true).
    Prints, per ruleset, the value of the start for Black and the totals.

    With --weak no table is made: the start is proved a win for one side (or a draw)
    by a proof-number search over the opening (docs/distributed.md), on any board up
    to 63 cells (limping3, hex4). Every settled position is committed as it is
    settled, so a killed run resumes where it stopped when the same command is given
    again. Progress on stderr: settled nodes, the root's proof and disproof numbers,
    jobs per second, the most-proving line and how far its first move is (of the
    positions after it, how many are proved). --position proves another root (a
    middlegame position) the same way. 'tablebase proof export' (with the same
    --position) then writes the proof, 'tablebase check --proof' verifies it.
    """
    if not weak:
        context = click.get_current_context()
        given = [f"--{name.replace('_', '-')}" for name in WEAK_ONLY
                 if context.get_parameter_source(name) not in (None, ParameterSource.DEFAULT)]
        if given:
            names = given[0] if len(given) == 1 else f"{', '.join(given[:-1])} and {given[-1]}"
            raise click.UsageError(f"{names} belong{'s' if len(given) == 1 else ''} to --weak")
    rules_list = _rules_to_solve(ruleset, spec, all_rulesets, all_combinations)
    if weak:
        if all_combinations or force:
            raise click.UsageError("--weak takes one ruleset or --all-rulesets (and no --force)")
        with open_store(db_path, create=True) as store:
            for rules in rules_list:
                report = weak_solve_into(store, board, rules, root_text=position, node_budget=job_budget,
                                         job_retries=DEFAULT_JOB_RETRIES if job_retries is None else job_retries,
                                         job_table_mb=DEFAULT_JOB_TABLE_MB if job_table_mb is None else job_table_mb,
                                         solver=leaf_solver, workers=workers,
                                         scheduler=scheduler, job_max_empty=job_max_empty, time_limit=time_limit,
                                         first_moves=first_moves, progress=long_run_progress(silent))
                click.echo(json.dumps(report.as_json()) if as_json else report.text())
        return
    check_solvable(board)  # a board too big for a table is a clean error before anything is written
    with open_store(db_path, create=True) as store:
        for rules in rules_list:
            info = solve_into(store, board, rules, progress=long_run_progress(silent), force=force)
            summary = solve_json(info, info.reused)
            if as_json:
                click.echo(json.dumps(summary))
            else:
                start = summary["start"]["value"]
                if summary["start"]["remoteness"] is not None:
                    start += f" for Black in {summary['start']['remoteness']} plies"
                click.echo(f"smallholder {info.rules}: start is a {start}; {info.positions:,} positions, "
                           f"{summary['draws']:,} draws, {info.solved_text()}")


# -- probing ------------------------------------------------------------------------


@probe.command("smallholder", epilog="""\b
Example:
    tablebase solve smallholder --board limping2 && tablebase probe smallholder --board limping2
    tablebase probe smallholder 'B./.W./..../... B' --json
    tablebase probe smallholder --search 'WB.W/WBW.B/BBWBB./..B.B.W/.W.W../BWW.W/W.BB W'
    cat positions.txt | tablebase probe smallholder - --ruleset stymie --json""")
@click.argument("position", required=False)
@_board_option
@_ruleset_option
@_rules_option
@db_option
@json_option
@click.option("--search", "use_search", is_flag=True,
              help="Answer by the exact search from the rules alone even where the tablebase holds the rules.")
@click.option("--budget", type=BUDGET_RANGE, default=DESCRIPTION.search_budget, show_default=True,
              help=f"Positions the search may explore per probed position. {EXACT_BUDGET_STEP}")
@search_time_option(DEFAULT_SEARCH_SECONDS)
@_unreachable_option
@pv_option
@silent_option
def probe_smallholder(position: str | None, board: str | None, ruleset: str | None, spec: str | None,
                      db_path: str, as_json: bool, use_search: bool, budget: int, seconds: float,
                      allow_unreachable: bool, show_pv: bool, silent: bool) -> None:
    """The exact value and remoteness of a Smallholder POSITION (or of each stdin line
    with '-') and of every legal move, best move first.

    Values are for the side to move: 'win', 'loss' or 'draw' (endless play, no
    remoteness); a move's value is for the player who makes it. Remoteness counts plies
    to the end, the winner hurrying and the loser holding out. Without --search the
    answer comes from the tablebase; rules it does not hold (every hex4 ruleset, or no
    tablebase file at all) are answered by the exact search ("source": "search");
    --search forces it. The search is exact (draws from cycles included) and stops at
    --time seconds or --budget positions, answering 'unknown' (the text output adds a
    note on stderr naming the bounds); the moves it settled by then come first, with
    their exact value and remoteness, the others read 'unknown', and "at_least" says
    what they prove (the best of them: a win in at most N plies, at least a draw; null
    when none is settled). Progress goes to stderr. What it proves is kept in the --db
    file when that exists and can be written, and later searches start from it. Default POSITION: the empty --board
    (default hex4). --pv adds the principal variation to the text (a drawn line stops
    where it repeats). JSON: {"position", "to_move", "rules", "source"
    ("table" or "search"), "value", "remoteness", "moves": [{"cell", "name", "value",
    "remoteness"}], "pv": [names]}, and "at_least": {"value", "remoteness"} or null
    when "value" is "unknown".
    """
    rules = rules_of(ruleset, spec)
    text = position if position is not None else _empty_board(board, rules)

    options: dict[str, Any] = {"board": board, "ruleset": ruleset, "rules": spec,
                               "allow_unreachable": allow_unreachable, "pv": as_json or show_pv}
    search: dict[str, Any] = {"budget": budget, "seconds": seconds or None, "progress": progress_printer(silent),
                              "fallback": True, "since": search_since(text)}
    texts = probe_texts(show_pv, budget, seconds)
    if not Path(db_path).exists():
        answers = probe_answers(DESCRIPTION, None, search=use_search, **search, **options)
        answer_positions(text, answers.one, as_json, texts, answers.many)
        return
    with open_store(db_path) as store:  # a search starts from the results stored there, and adds to them
        answers = probe_answers(DESCRIPTION, store, search=use_search, **search, **options)
        answer_positions(text, answers.one, as_json, texts, answers.many)


# -- repetitions ----------------------------------------------------------------------

@cycle.command("smallholder", epilog="""\b
Example:
    tablebase cycle smallholder --board hex3 --rules territory=hull,capture=piecewise
    tablebase cycle smallholder --board limping3 --games 2000 --plies 14 --slack 3 --json
    tablebase cycle smallholder 'BWBB/WBWWW/WBBBWB/.BB.B.B/WB..WB/WBW.B/BWWW W'""")
@click.argument("position", required=False)
@_board_option
@_ruleset_option
@_rules_option
@click.option("--games", type=Whole(1, MAX_GAMES), default=DEFAULT_GAMES, show_default=True,
              help="Random games to play (without POSITION); the search stops at the first repetition.")
@click.option("--plies", type=Whole(2, MAX_PLIES), default=DEFAULT_PLIES, show_default=True,
              help="Length of the lines followed from each position.")
@click.option("--slack", type=Whole(0, MAX_SLACK), default=DEFAULT_SLACK, show_default=True,
              help="Stones a line may add before it is dropped (a return has to capture them again).")
@click.option("--seed", type=SEED_RANGE, default=0, show_default=True, help="Seed of the random games.")
@json_option
@silent_option
def cycle_smallholder(position: str | None, board: str | None, ruleset: str | None, spec: str | None, games: int,
                      plies: int, slack: int, seed: int, as_json: bool, silent: bool) -> None:
    """Look for a repetition: a line of play that comes back to a position.

    A line found proves that play can repeat under these rules on this board (and so
    that a game may never end: the tables and the search count such play as a draw). It
    is played again by the reference rules engine before it is printed: the moves from
    the empty board to the position, then the cycle back to it. Not finding one proves
    nothing: on limping2 and hex3 the atlas settles the question exactly (its 'cycles'
    column); on bigger boards this search is how a repetition is shown.

    Without POSITION, random games (seeded) are played on --board (default hex4) and the
    lines of up to --plies plies are followed from each of their positions; with
    POSITION, from that position alone. Lines that add more than --slack stones are
    dropped: a repetition needs captures, and a line far ahead in stones cannot take
    them all back. The default 200 games take seconds on limping3 and about a minute on
    hex4 (several under groups=priority-create) when none is found. Progress goes to
    stderr. JSON: {"rules", "found", "from",
    "moves_to_position", "position", "cycle", "games", "positions_searched", "plies",
    "slack", "seed"} (moves as names; the three lines null when none was found).
    """
    answer = find_repetition(board, rules_of(ruleset, spec), position, games, plies, slack, seed,
                             progress=long_run_progress(silent))
    end_status_line()
    click.echo(json.dumps(answer) if as_json else repetition_text(answer))
