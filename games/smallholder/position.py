"""The Smallholder position value and its text notation (docs/smallholder.md, Notation).

Notation: the rows top to bottom separated by ``/``, each row's cells left to right as
``B``, ``W`` or ``.``, then a space and the side to move. The board is recognised from
the row lengths; the empty ``limping2`` board with Black to move is ``../.../..../... B``.
"""

from __future__ import annotations

from dataclasses import dataclass

from tablebase.games.base import NotationError
from tablebase.games.smallholder.board import BOARD_ROWS, Board, board_for_rows

BLACK = "B"
WHITE = "W"
EMPTY = "."
COLOUR_NAMES = {BLACK: "black", WHITE: "white"}
#: Longest text worth reading: hex7 needs 127 cells + 12 slashes + 2.
MAX_TEXT = 400


def opponent(colour: str) -> str:
    return WHITE if colour == BLACK else BLACK


@dataclass(frozen=True, slots=True)
class Position:
    """Stones as bitboards (bit ``i`` = cell ``i`` of the board) and the side to move.

    The board is not stored: the rules object that made the position knows it.
    """

    black: int
    white: int
    to_move: str = BLACK

    def stones(self, colour: str) -> int:
        return self.black if colour == BLACK else self.white

    @property
    def mover(self) -> int:
        """The stones of the side to move."""
        return self.black if self.to_move == BLACK else self.white

    @property
    def waiter(self) -> int:
        """The stones of the side that just moved."""
        return self.white if self.to_move == BLACK else self.black

    def swap_colours(self) -> Position:
        """Every stone and the side to move change colour (the rules treat both colours alike)."""
        return Position(self.white, self.black, opponent(self.to_move))


def _known_boards() -> str:
    return "; ".join(f"{name} {'/'.join(map(str, rows))}" for name, rows in BOARD_ROWS.items())


def parse_position(text: str, board: Board | None = None) -> tuple[Board, Position]:
    """Read a position; with ``board`` given, the text must be for that board."""
    if len(text) > MAX_TEXT:
        raise NotationError(f"position text too long ({len(text)} characters, at most {MAX_TEXT}): "
                            f"{text[:40] + '...'!r}")
    stripped = text.strip()
    if not stripped:
        raise NotationError(f"empty position (expected rows of B, W and . separated by '/', "
                            f"a space and the side to move): {text!r}")
    diagram, _, rest = stripped.partition(" ")
    side = rest.strip()
    if not side:
        raise NotationError(f"missing side to move (expected ' B' or ' W' after the rows): {text!r}")
    if side not in (BLACK, WHITE):
        raise NotationError(f"invalid side to move {side!r} (expected B or W): {text!r}")
    offset = text.index(diagram)
    for i, char in enumerate(diagram):
        if char not in "BW./":
            raise NotationError(f"unknown character {char!r} at offset {offset + i} "
                                f"(expected B, W, . or /): {text!r}")
    rows = diagram.split("/")
    lengths = tuple(len(row) for row in rows)
    found = board_for_rows(lengths)
    if found is None:
        raise NotationError(f"row lengths {'/'.join(map(str, lengths))} match no board "
                            f"(known: {_known_boards()}): {text!r}")
    if board is not None and found.name != board.name:
        raise NotationError(f"position is on {found.name}, not on the requested board {board.name}: {text!r}")
    cells = "".join(rows)
    black = sum(1 << i for i, char in enumerate(cells) if char == BLACK)
    white = sum(1 << i for i, char in enumerate(cells) if char == WHITE)
    return found, Position(black, white, side)


def format_position(board: Board, pos: Position) -> str:
    """The notation of ``pos`` on ``board`` (the inverse of ``parse_position``)."""
    chars = [BLACK if pos.black >> i & 1 else WHITE if pos.white >> i & 1 else EMPTY for i in range(board.size)]
    rows, start = [], 0
    for length in board.row_lengths:
        rows.append("".join(chars[start:start + length]))
        start += length
    return f"{'/'.join(rows)} {pos.to_move}"
