"""Text pictures of Sparro and Smallholder positions, as the `show` commands print them."""

from __future__ import annotations

from typing import Any

from tablebase.games.smallholder import BLACK, COLOUR_NAMES, CREATE, WHITE, Board, Position, Smallholder, bits, opponent
from tablebase.games.sparro import Sparro, SparroPosition, count_lines
from tablebase.games.sparro.geometry import INDEX, WHITE_CELLS

__all__ = ["sparro_text", "smallholder_text", "smallholder_picture", "smallholder_moves", "move_label",
           "moves_line"]

#: Characters per cell in the picture; a row one cell shorter is indented by half of it.
_CELL_WIDTH = 4
_LEGEND = ("B W  stones      (B) (W)  stones of a dead group (no playable cell next to it)\n"
           "b w  empty cells held by Black / White      *  held by both      .  other empty cells")


def sparro_text(game: Sparro, pos: SparroPosition) -> str:
    """A text picture of the three levels, whose turn it is and the line counts."""
    header = f"Sparro ({game.variant})"
    result = game.result(pos)
    status = (f"game over: {'Red' if result.winner == 'R' else 'Black'} wins" if result
              else f"{'Red' if pos.to_move == 'R' else 'Black'} to move")
    lines = [f"{header}: {status}",
             f"marbles  R {pos.red.bit_count():2d}  B {pos.black.bit_count():2d}"
             f"    lines  R {count_lines(pos.red)}  B {count_lines(pos.black)}"
             + (f"    token {pos.token}" if game.extended else ""), ""]
    grids = []
    for level in range(3):
        size = 4 - level
        rows = [f"level {level}".ljust(12), "  " + " ".join("abcd"[:size])]
        for row in range(size):
            marks = []
            for col in range(size):
                cell = (level, row, col)
                if cell in WHITE_CELLS:
                    marks.append("o")
                else:
                    i = INDEX[cell]
                    marks.append("R" if pos.red >> i & 1 else "B" if pos.black >> i & 1 else ".")
            rows.append(f"{row + 1} " + " ".join(marks))
        grids.append(rows)
    for r in range(max(len(g) for g in grids)):
        lines.append("   ".join((g[r] if r < len(g) else "").ljust(12) for g in grids).rstrip())
    lines.append("")
    legal = game.legal_moves(pos)
    lines.append("legal moves: " + (" ".join(game.move_name(m) for m in legal) if legal else "none"))
    lines.append("(o: fixed white marble; a cell is named level+column+row, e.g. 0a1, 1b3, 2b2)")
    return "\n".join(lines)


def move_label(name: str, kind: str, captures: int) -> str:
    """``c3`` for a create move, ``c3+`` for an extension, ``c3+x2`` when it captures 2."""
    return name + ("" if kind == CREATE else "+") + (f"x{captures}" if captures else "")


def smallholder_moves(game: Smallholder, pos: Position) -> dict[str, Any]:
    """The legal moves of ``pos`` as the JSON object of ``moves smallholder``."""
    found = game.moves(pos)
    return {
        "position": game.format(pos),
        "to_move": pos.to_move,
        "moves": [{"cell": m.cell, "name": game.move_name(m.cell), "kind": m.kind, "captures": m.captures}
                  for m in found],
        "result": None if found else {"winner": opponent(pos.to_move)},
    }


def moves_line(result: dict[str, Any]) -> str:
    """The text form of a `smallholder_moves` object's moves."""
    if result["result"] is not None:
        loser = COLOUR_NAMES[result["to_move"]]
        return f"none: {loser} cannot move and loses, {COLOUR_NAMES[result['result']['winner']]} wins"
    return " ".join(move_label(m["name"], m["kind"], m["captures"]) for m in result["moves"])


def smallholder_picture(game: Smallholder, pos: Position) -> str:
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


def smallholder_text(game: Smallholder, pos: Position) -> str:
    """The full text of ``show smallholder``."""
    header = f"The Smallholder, {game.rules_name}: {COLOUR_NAMES[pos.to_move].capitalize()} to move"
    return "\n".join([
        header,
        game.format(pos),
        "",
        smallholder_picture(game, pos),
        "",
        _LEGEND,
        "",
        _groups_line(game, pos, BLACK),
        _groups_line(game, pos, WHITE),
        f"Legal moves ({len(game.moves(pos))}; + extends a group, xN captures N stones): "
        f"{moves_line(smallholder_moves(game, pos))}",
    ])


def repetition_text(answer: dict[str, Any]) -> str:
    """The text of a search for repetitions (`service.repetition`'s JSON object)."""
    rules, lead, cycle = answer["rules"], answer["moves_to_position"], answer["cycle"]
    if answer["games"] is None:  # from a given position
        if not answer["found"]:
            return (f"{rules}: no repetition found in the lines of up to {answer['plies']} plies from "
                    f"{answer['from']}; this does not prove that there is none")
        reached = f"after {' '.join(lead)} the position {answer['position']}" if lead else "it"
        return (f"{rules}: from {answer['from']}, {reached} comes back to itself by {' '.join(cycle)} "
                f"({len(cycle)} plies); the reference rules engine plays the whole line. (Play repeats if "
                f"{answer['from']} arises in play; it passes the reachability checks, which do not prove that.)")
    if not answer["found"]:
        return (f"{rules}: no repetition found in {answer['games']:,} random games (lines of up to "
                f"{answer['plies']} plies followed from {answer['positions_searched']:,} positions); this does not "
                f"prove that there is none")
    return (f"{rules}: play can repeat. After {' '.join(lead)} ({len(lead)} plies from the empty board) the "
            f"position {answer['position']} comes back to itself by {' '.join(cycle)} ({len(cycle)} plies).\n"
            f"Found in random game {answer['games']:,} ({answer['positions_searched']:,} positions searched "
            f"from); the reference rules engine plays the whole line.")
