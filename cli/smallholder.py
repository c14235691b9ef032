"""Commands for The Smallholder (registered on the verb groups of cli/app.py)."""

from __future__ import annotations

import re
from functools import cache
from typing import Any

import click

from tablebase.cli.app import answer_positions, moves, show
from tablebase.games.smallholder import (
    BLACK, COLOUR_NAMES, CREATE, DEFAULT_BOARD, DEFAULT_RULESET, RULESETS, WHITE, Board, IllegalMoveError, Position, Rules, Smallholder, bits, get_board, opponent, parse_position, parse_rules)

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
def show_smallholder(position: str | None, board: str | None, ruleset: str | None, spec: str | None,
                     allow_unreachable: bool) -> None:
    """Draw a Smallholder POSITION with holdings, groups and legal moves.

    POSITION is the rows from top to bottom separated by '/', each cell B, W or '.',
    then a space and the side to move (B or W); default: the empty board, Black to
    move. Cells are named by row letter (a = top row) and column (1 = leftmost).

    \b
    Example:
        tablebase show smallholder --board hex3
        tablebase show smallholder 'BB./B..W/.W.../..../... W' --ruleset stymie
    """
    game, pos = _read(position, board, _rules_of(ruleset, spec), allow_unreachable)
    click.echo(describe(game, pos))


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

