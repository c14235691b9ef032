"""What every rules engine offers the solvers and the CLI.

A game is a small rules object (one per variant or ruleset and board) that works on
immutable position values. Positions are values relative to nothing: the rules object
says whose turn it is, which moves are legal and how the game ends. Moves are cell
indices (ints) in the board's standard cell order.
"""

from __future__ import annotations

from typing import Hashable, Protocol, Sequence, TypeVar

#: Game values, always for the side to move.
WIN = 1
DRAW = 0
LOSS = -1


class NotationError(ValueError):
    """Text that is not a position or a move of the game.

    The message is lowercase, says what was wrong or expected, and ends with the
    offending text as ``{text!r}`` (a text too long to be a position is shown by its
    first characters, followed by ``...``).
    """


class IllegalPositionError(NotationError):
    """Well-formed text describing a position the rules do not allow."""


class UnreachablePositionError(IllegalPositionError):
    """A legal position that no game reaches: refused unless unreachable positions are
    allowed. ``why`` says why it cannot arise ("position cannot arise in play under ...
    (...)"); the message adds how to accept it, `message` lets an interface name its own
    way (a command-line flag) instead of the Python keyword's."""

    def __init__(self, why: str, text: str) -> None:
        super().__init__(why, text)  # both in args, so that it pickles (a worker's error)
        self.why, self.text = why, text

    def message(self, accept: str | None = "allow unreachable positions") -> str:
        """The message, saying how to accept the position (``accept``; None: not at all)."""
        return f"{self.why}; {accept} to analyse it: {self.text!r}" if accept else f"{self.why}: {self.text!r}"

    def __str__(self) -> str:
        return self.message()


class IllegalMoveError(ValueError):
    """A well-formed move that the rules do not allow in the position (not a notation
    problem: the move names a cell, but that cell is not a legal move there).

    The message says whose move it was, in which position, and ends with the move as
    ``{text!r}``.
    """


P = TypeVar("P", bound=Hashable)


class Game(Protocol[P]):
    """The interface the search, the retrograde solvers and the CLI rely on."""

    @property
    def game_name(self) -> str:
        """Short game name as used on the command line ("sparro", "smallholder")."""
        ...

    @property
    def rules_name(self) -> str:
        """Variant or ruleset label ("standard", "nibbler@hex4", ...)."""
        ...

    def start(self) -> P:
        """The position before the first move."""
        ...

    def parse(self, text: str) -> P:
        """Read a position in the project notation; raise NotationError if it is not one."""
        ...

    def format(self, pos: P) -> str:
        """The project notation of ``pos`` (``parse(format(p)) == p``)."""
        ...

    def to_move(self, pos: P) -> str:
        """The colour letter of the side to move."""
        ...

    def legal_moves(self, pos: P) -> Sequence[int]:
        """The legal moves (cell indices, ascending); empty when the game is over."""
        ...

    def play(self, pos: P, move: int) -> P:
        """The position after ``move``; raise IllegalMoveError if the move is illegal."""
        ...

    def terminal_value(self, pos: P) -> int | None:
        """WIN/LOSS/DRAW for the side to move if the game is over, else None."""
        ...

    def key(self, pos: P) -> int:
        """A compact non-negative integer encoding of ``pos``."""
        ...

    def canonical_key(self, pos: P) -> int:
        """The smallest ``key`` over the symmetry images of ``pos``."""
        ...

    def move_name(self, move: int) -> str:
        """The human-friendly name of a cell."""
        ...

    def parse_move(self, text: str) -> int:
        """A cell given by its name or its index; raise NotationError otherwise."""
        ...
