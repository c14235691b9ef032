"""Commands for The Smallholder (registered on the verb groups of cli/app.py)."""

from __future__ import annotations

import json
import re
import time
from functools import cache
from pathlib import Path
from typing import Any

import click
import numpy as np

from tablebase.cli.app import (
    TablebaseError, answer_positions, db_option, json_option, moves, probe, show, show_progress, silent_option, solve)
from tablebase.cli.pictures import smallholder_svg
from tablebase.cli.tables import ProbeAnswers, probe_text, progress_display, tiered_lookup
from tablebase.db.store import TableInfo, TablebaseStore
from tablebase.games.base import DRAW, LOSS, WIN
from tablebase.solver.probe import Lookup
from tablebase.solver.smallholder_arrays import MAX_KEY_CELLS, MAX_MASK_CELLS
from tablebase.solver.smallholder_search import DEFAULT_NODE_BUDGET, ArrayLocalSearch, LocalSearch
from tablebase.solver.smallholder_solve import (
    PAYLOAD_DTYPE, RULES_VERSION, SOLVER_VERSION, pack_results, solve_ruleset, stone_counts, unpack_results)
from tablebase.games.smallholder import (
    BLACK, COLOUR_NAMES, CREATE, DEFAULT_BOARD, DEFAULT_RULESET, RULESETS, WHITE, Board, IllegalMoveError, Position, Rules, Smallholder, all_rules, bits, get_board, opponent, parse_position, parse_rules)

#: Characters per cell in the picture; a row one cell shorter is indented by half of it.
_CELL_WIDTH = 4
_LEGEND = ("B W  stones      (B) (W)  stones of a dead group (no playable cell next to it)\n"
           "b w  empty cells held by Black / White      *  held by both      .  other empty cells")


def _rules_of(ruleset: str | None, spec: str | None) -> Rules:
    base = parse_rules(ruleset or DEFAULT_RULESET)
    return parse_rules(spec, base) if spec else base


@cache
def _game(board: str, rules: Rules) -> Smallholder:
    return Smallholder(board, rules)


def _read(text: str | None, board: str | None, rules: Rules, allow_unreachable: bool) -> tuple[Smallholder, Position]:
    """The rules object and position for ``text`` (the start position when None).

    Without ``--board`` the board is the one the text's row lengths belong to.
    """
    if text is None:
        game = _game(board or DEFAULT_BOARD, rules)
        return game, game.start()
    found, _ = parse_position(text, get_board(board) if board else None)
    game = _game(found.name, rules)
    return game, game.parse(text, allow_unreachable=allow_unreachable)


def _replay(game: Smallholder, pos: Position, after: str | None) -> Position:
    """Play the ``--after`` moves (names or indices, space or comma separated)."""
    for number, token in enumerate(re.split(r"[\s,]+", (after or "").strip()), start=1):
        if not token:
            continue
        cell = game.parse_move(token)
        try:
            pos = game.play(pos, cell)
        except IllegalMoveError:
            why = "the game is over" if not game.moves(pos) else "not a legal move"
            raise IllegalMoveError(f"--after move {number} is illegal ({why} for {COLOUR_NAMES[pos.to_move]} "
                                   f"in {game.format(pos)!r} under {game.rules_name}): {token!r}") from None
    return pos


def move_label(name: str, kind: str, captures: int) -> str:
    """``c3`` for a create move, ``c3+`` for an extension, ``c3+x2`` when it captures 2."""
    return name + ("" if kind == CREATE else "+") + (f"x{captures}" if captures else "")


def _moves_line(result: dict[str, Any]) -> str:
    """The text form of an ``answer`` dict's moves."""
    if result["result"] is not None:
        loser = COLOUR_NAMES[result["to_move"]]
        return f"none: {loser} cannot move and loses, {COLOUR_NAMES[result['result']['winner']]} wins"
    return " ".join(move_label(m["name"], m["kind"], m["captures"]) for m in result["moves"])


def picture(game: Smallholder, pos: Position) -> str:
    """The board drawn with offset rows, holdings and dead groups marked."""
    board: Board = game.board
    held_black = game.holdings(pos, BLACK)
    held_white = game.holdings(pos, WHITE)
    dead = 0
    for colour in (BLACK, WHITE):
        for group in game.groups(pos, colour):
            if not group.live:
                dead |= group.stones
    widest = max(board.row_lengths)
    lines = []
    start = 0
    for row, length in enumerate(board.row_lengths):
        tokens = []
        for cell in range(start, start + length):
            bit = 1 << cell
            if pos.black & bit or pos.white & bit:
                stone = BLACK if pos.black & bit else WHITE
                token = f"({stone})" if dead & bit else stone
            elif held_black & bit and held_white & bit:
                token = "*"
            elif held_black & bit:
                token = "b"
            elif held_white & bit:
                token = "w"
            else:
                token = "."
            tokens.append(token.center(_CELL_WIDTH - 1))
        indent = " " * ((widest - length) * _CELL_WIDTH // 2)
        cells = (indent + " ".join(tokens)).ljust(widest * _CELL_WIDTH)
        names = f"{board.names[start]}-{board.names[start + length - 1]}"
        lines.append(f"{board.names[start][0]}  {cells}  {names}".rstrip())
        start += length
    return "\n".join(lines)


def _groups_line(game: Smallholder, pos: Position, colour: str) -> str:
    groups = game.groups(pos, colour)
    stones = pos.stones(colour).bit_count()
    if not groups:
        return f"{COLOUR_NAMES[colour].capitalize()}: no stones"
    parts = []
    for group in groups:
        names = " ".join(game.move_name(c) for c in bits(group.stones))
        parts.append(f"{names} ({group.size}{'' if group.live else ', dead'})")
    return (f"{COLOUR_NAMES[colour].capitalize()}: {stones} stone{'s' * (stones != 1)} in {len(groups)} "
            f"group{'s' * (len(groups) != 1)}: {', '.join(parts)}")


def describe(game: Smallholder, pos: Position) -> str:
    """The full text of ``show smallholder``."""
    header = f"The Smallholder, {game.rules_name}: {COLOUR_NAMES[pos.to_move].capitalize()} to move"
    return "\n".join([
        header,
        game.format(pos),
        "",
        picture(game, pos),
        "",
        _LEGEND,
        "",
        _groups_line(game, pos, BLACK),
        _groups_line(game, pos, WHITE),
        f"Legal moves ({len(game.moves(pos))}; + extends a group, xN captures N stones): "
        f"{_moves_line(answer(game, pos))}",
    ])


def answer(game: Smallholder, pos: Position) -> dict[str, Any]:
    """The JSON answer of ``moves smallholder`` for one position."""
    found = game.moves(pos)
    return {
        "position": game.format(pos),
        "to_move": pos.to_move,
        "moves": [{"cell": m.cell, "name": game.move_name(m.cell), "kind": m.kind, "captures": m.captures}
                  for m in found],
        "result": None if found else {"winner": opponent(pos.to_move)},
    }


_board_option = click.option("--board", "board", metavar="B", default=None,
                             help=f"Board: hex3..hex7 or limping2..limping4 (default {DEFAULT_BOARD}, "
                                  f"or the board the position is on).")
_ruleset_option = click.option("--ruleset", metavar="R", default=None,
                               help=f"Named ruleset: {', '.join(RULESETS)} (default {DEFAULT_RULESET}).")
_rules_option = click.option("--rules", "spec", metavar="SPEC", default=None,
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
@click.option("--svg", "svg_path", type=click.Path(dir_okay=False, writable=True),
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
    game, pos = _read(position, board, _rules_of(ruleset, spec), allow_unreachable)
    click.echo(describe(game, pos))
    if svg_path:
        Path(svg_path).write_text(smallholder_svg(game, pos), encoding="utf-8")


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

    Text output is one line per position: the move names, '+' marking an extension and
    'xN' a capture of N stones (with --after, the position reached comes first). JSON:
    {"position", "to_move", "moves": [{"cell", "name", "kind", "captures"}], "result"},
    where "result" is null or {"winner": "B"|"W"} once the side to move cannot move.

    \b
    Example:
        tablebase moves smallholder --board hex3
        tablebase moves smallholder --board limping2 --after 'a1 d3 c2' --json
        printf '../.../..../... B\\n../.../B.../... W\\n' | tablebase moves smallholder - --json
    """
    rules = _rules_of(ruleset, spec)
    if position is None:
        position_text = _game(board or DEFAULT_BOARD, rules).format(Position(0, 0, BLACK))
    else:
        position_text = position

    def one(text: str) -> dict[str, Any]:
        game, pos = _read(text, board, rules, allow_unreachable)
        return answer(game, _replay(game, pos, after))

    def as_text(result: dict[str, Any]) -> str:
        line = _moves_line(result)
        return f"{result['position']}: {line}" if after else line

    answer_positions(position_text, one, as_json, as_text)


# -- solving ------------------------------------------------------------------------

GAME = "smallholder"
#: The board `solve smallholder` uses without --board (hex4, the game's default, is too big).
SOLVE_BOARD = "hex3"
_VALUE_NAMES = {WIN: "win", DRAW: "draw", LOSS: "loss"}


def solve_into(store: TablebaseStore, board: str, rules: Rules, progress: bool = False,
               force: bool = False) -> TableInfo:
    """Solve one ruleset on one board into ``store`` and return the table's info.

    A complete table of the same versions is reused unless ``force``. Any other stored
    table under the name (an interrupted solve, other versions) is deleted and the solve
    starts from scratch: unlike Sparro's tiers, no part of the graph can be solved alone.
    """
    game = _game(board, rules)
    if game.board.size > MAX_KEY_CELLS:
        raise TablebaseError(f"{board} has {game.board.size} cells; solving handles boards of up to "
                             f"{MAX_KEY_CELLS} cells (limping2, hex3); use 'probe smallholder --search'")
    with store.solve_lock():
        return _solve_locked(store, game, rules, progress, force)


def _solve_locked(store: TablebaseStore, game: Smallholder, rules: Rules, progress: bool, force: bool) -> TableInfo:
    name = game.rules_name
    old = store.table(GAME, name)
    if old is not None and not force and old.status == "complete" and (
            old.rules_version, old.solver_version, old.payload_dtype) == (RULES_VERSION, SOLVER_VERSION, PAYLOAD_DTYPE):
        return old
    if old is not None:
        store.delete_table(GAME, name)
    table = store.begin_table(GAME, name, RULES_VERSION, SOLVER_VERSION, PAYLOAD_DTYPE)
    started = time.perf_counter()
    with progress_display(progress, f"smallholder {name}") as line:
        def report(stage: str, step: int, positions: int) -> None:
            what = "ply" if stage == "enumerate" else "retrograde levels"
            line.update(f"{stage} {what} {step}, {positions:,} positions")

        solved = solve_ruleset(game.board, rules, report)
        payload = pack_results(solved.values, solved.remoteness)
        tiers = stone_counts(solved.keys, game.board.size)
        for tier in range(2 * game.board.size + 1):
            which = np.flatnonzero(tiers == tier)
            if len(which):
                line.update(f"storing tier {tier} ({len(which):,} positions)")
                store.write_tier(table.id, tier, solved.keys[which], payload[which], 0.0)
    value, remoteness = solved.start
    summary = {"start_value": _VALUE_NAMES[value], "start_remoteness": remoteness, "moves": solved.moves,
               "plies": solved.plies, "draws": int(np.count_nonzero(solved.values == DRAW)),
               "cyclic_positions": solved.cyclic,
               "stage_seconds": {k: round(v, 2) for k, v in solved.seconds.items()}}
    return store.finish_table(table.id, time.perf_counter() - started, summary)


def _rules_to_solve(ruleset: str | None, spec: str | None, all_rulesets: bool, all_combinations: bool) -> list[Rules]:
    if sum((bool(ruleset or spec), all_rulesets, all_combinations)) > 1:
        raise click.UsageError("give one of --ruleset/--rules, --all-rulesets, --all-combinations")
    if all_rulesets:
        return list(RULESETS.values())
    if all_combinations:
        return all_rules()
    return [_rules_of(ruleset, spec)]


@solve.command("smallholder", epilog="""\b
Example:
    tablebase solve smallholder --board limping2 --all-combinations -s
    tablebase solve smallholder --board hex3 --ruleset nibbler --json
    tablebase solve smallholder --board limping2 --rules territory=hull,capture=piecewise""")
@click.option("--board", metavar="B", default=SOLVE_BOARD, show_default=True,
              help="Board: limping2 or hex3 (boards of at most 31 cells; limping3 would need far too long).")
@_ruleset_option
@_rules_option
@click.option("--all-rulesets", is_flag=True, help="Solve the five named rulesets.")
@click.option("--all-combinations", is_flag=True, help="Solve all 120 option combinations.")
@db_option
@silent_option
@json_option
@click.option("--force", is_flag=True, help="Solve again even if the table is complete.")
def solve_smallholder(board: str, ruleset: str | None, spec: str | None, all_rulesets: bool,
                      all_combinations: bool, db_path: str, silent: bool, as_json: bool, force: bool) -> None:
    """Solve every position reachable from the empty board and store it in the tablebase.

    All canonical positions reachable from the start are enumerated breadth-first, the
    move graph is solved by retrograde analysis (win, loss, or draw for endless play,
    with the remoteness in plies), and the table is written tier by tier (a tier is the
    positions with the same number of stones). A solve interrupted before the end is
    started again from scratch. A complete table is reused unless --force is given.
    Prints, per ruleset, the value of the start for Black and the totals.
    """
    rules_list = _rules_to_solve(ruleset, spec, all_rulesets, all_combinations)
    get_board(board)  # an unknown board is a clean error before anything is written
    with TablebaseStore(db_path, create=True) as store:
        for rules in rules_list:
            info = solve_into(store, board, rules, progress=show_progress(silent), force=force)
            summary = {"game": GAME, "rules": info.rules, **info.summary, "positions": info.positions,
                       "seconds": round(info.seconds, 2), "checksum": info.checksum}
            if as_json:
                click.echo(json.dumps(summary))
            else:
                start = summary["start_value"]
                if summary["start_remoteness"] is not None:
                    start += f" for Black in {summary['start_remoteness']} plies"
                click.echo(f"smallholder {info.rules}: start is a {start}; {info.positions:,} positions, "
                           f"{summary['draws']:,} draws, solved in {info.seconds:.1f} s")


# -- probing ------------------------------------------------------------------------


def game_for_rules_name(name: str) -> Smallholder:
    """The rules object of a table's rules name (``ruleset@board`` or ``spec@board``)."""
    spec, _, board = name.rpartition("@")
    return _game(board, parse_rules(spec))


def table_lookup(store: TablebaseStore, table: TableInfo) -> Lookup:
    """Exact outcomes of canonical keys from a stored Smallholder table (None where absent)."""
    size = game_for_rules_name(table.rules).board.size
    return tiered_lookup(store, table, lambda keys: stone_counts(keys, size), unpack_results)


def symmetry_images(game: Smallholder, pos: Position) -> list[tuple[Position, tuple[int, ...]]]:
    """Every symmetry image of ``pos`` with the cell permutation that makes it."""
    board = game.board
    return [(Position(board.transform(pos.black, s), board.transform(pos.white, s), pos.to_move), perm)
            for s, perm in enumerate(board.symmetries)]


def solved_lookup(store: TablebaseStore, game: Smallholder, progress: bool) -> Lookup:
    """A lookup into ``game``'s table, solving it first if it is not stored yet."""
    if game.board.size > MAX_KEY_CELLS:
        raise TablebaseError(f"{game.board.name} is too big to have tables (at most {MAX_KEY_CELLS} cells)")
    solve_into(store, game.board.name, game.rules, progress)
    return _stored_lookup(store, str(store.path), game)


def _stored_lookup(store: TablebaseStore, db_path: str, game: Smallholder) -> Lookup:
    if game.board.size > MAX_KEY_CELLS:
        raise TablebaseError(f"{game.board.name} is too big to have tables (at most {MAX_KEY_CELLS} cells); "
                             f"use --search")
    table = store.table(GAME, game.rules_name)
    choice = f"--ruleset {game.rules.name}" if game.rules.name in RULESETS else f"--rules {game.rules.spec}"
    solve_hint = f"tablebase solve smallholder --board {game.board.name} {choice}"
    if table is None or table.status != "complete":
        raise TablebaseError(f"smallholder {game.rules_name} is not solved in {db_path!r}; "
                             f"run '{solve_hint}' or use --search")
    if (table.rules_version, table.solver_version) != (RULES_VERSION, SOLVER_VERSION):
        raise TablebaseError(f"the smallholder {game.rules_name} table in {db_path!r} was made by another "
                             f"version; run '{solve_hint} --force'")
    return table_lookup(store, table)


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
              help="Answer by a bounded exact search from the rules alone instead of the tablebase.")
@click.option("--budget", type=click.IntRange(min=1), default=DEFAULT_NODE_BUDGET, show_default=True,
              help="Positions the search may explore per probed position.")
@_unreachable_option
def probe_smallholder(position: str | None, board: str | None, ruleset: str | None, spec: str | None,
                      db_path: str, as_json: bool, use_search: bool, budget: int, allow_unreachable: bool) -> None:
    """The exact value and remoteness of a Smallholder POSITION (or of each stdin line
    with '-') and of every legal move, best move first.

    Values are for the side to move: 'win', 'loss' or 'draw' (endless play, no
    remoteness); a move's value is for the player who makes it. Remoteness counts plies
    to the end, the winner hurrying and the loser holding out. Without --search the
    answer comes from the tablebase, and a position it does not hold is an error. With
    --search every position reachable from POSITION is explored (up to --budget) and
    solved exactly; past the budget the value is 'unknown'. Default POSITION: the
    empty --board (default hex4). JSON: {"position", "to_move", "value", "remoteness",
    "moves": [{"cell", "name", "value", "remoteness"}]}.
    """
    rules = _rules_of(ruleset, spec)
    text = position if position is not None else _game(board or DEFAULT_BOARD, rules).format(Position(0, 0, BLACK))

    def parse(line: str) -> tuple[Smallholder, Position]:
        return _read(line, board, rules, allow_unreachable)

    if use_search:
        searches: dict[str, LocalSearch] = {}

        def search_for(game: Smallholder) -> Lookup:
            if game.rules_name not in searches:
                # the array rules are faster; the engine's own search covers the boards they cannot hold
                search = ArrayLocalSearch if game.board.size <= MAX_MASK_CELLS else LocalSearch
                searches[game.rules_name] = search(game, node_budget=budget)
            return searches[game.rules_name].outcomes

        answers = ProbeAnswers(parse, search_for, answer_unknown=True)  # type: ignore[arg-type]
        answer_positions(text, answers.one, as_json, probe_text, answers.many)
        return
    with TablebaseStore(db_path) as store:
        lookups: dict[str, Lookup] = {}

        def table_for(game: Smallholder) -> Lookup:
            if game.rules_name not in lookups:
                lookups[game.rules_name] = _stored_lookup(store, db_path, game)
            return lookups[game.rules_name]

        answers = ProbeAnswers(parse, table_for)  # type: ignore[arg-type]
        answer_positions(text, answers.one, as_json, probe_text, answers.many)
