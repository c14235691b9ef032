"""A game against the perfect player (and a puzzle played move by move): the state and
the judgement of each move; the interface only asks for moves and prints."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from tablebase.games.base import WIN
from tablebase.service.errors import IllegalMoveError
from tablebase.solver.probe import Lookup, MoveOutcome, Outcome, probe


@dataclass(frozen=True)
class Judgement:
    """What a move of the user was worth: its outcome for the user, and for a puzzle
    whether it was the solution's move (``right``) and that move's name."""

    name: str
    outcome: Outcome | None
    right: bool | None = None
    solution: str | None = None


class Match:
    """A game from ``pos`` in which the user plays ``human`` and the table the other side.

    With ``expected`` (a puzzle's solution tree: position text -> move) each user move
    is judged against it and a wrong one ends the match."""

    def __init__(self, game: Any, pos: Any, lookup: Lookup, human: str, expected: dict[str, int] | None = None
                 ) -> None:
        self.game = game
        self.pos = pos
        self.lookup = lookup
        self.human = human
        self.expected = expected
        self.failed = False

    @property
    def over(self) -> bool:
        return self.failed or self.game.terminal_value(self.pos) is not None

    @property
    def users_turn(self) -> bool:
        return self.game.to_move(self.pos) == self.human

    def reply(self) -> MoveOutcome:
        """The perfect player's best move, played."""
        best = probe(self.game, self.pos, self.lookup).moves[0]
        self.pos = self.game.play(self.pos, best.cell)
        return best

    def move(self, text: str) -> Judgement:
        """Play the user's move (a name or an index); NotationError / IllegalMoveError
        (a ValueError) when it is not a legal move, and nothing is played."""
        move = self.game.parse_move(text)
        try:
            after = self.game.play(self.pos, move)
        except IllegalMoveError:
            raise
        except ValueError as exc:
            raise IllegalMoveError(str(exc)) from None
        name = self.game.move_name(move)
        if self.expected is not None:
            solution = self.expected.get(self.game.format(self.pos))
            right = solution == move
            judgement = Judgement(name, None, right, None if solution is None else self.game.move_name(solution))
            if not right:
                self.failed = True
                return judgement
        else:
            outcome = next(m.outcome for m in probe(self.game, self.pos, self.lookup).moves if m.cell == move)
            judgement = Judgement(name, outcome)
        self.pos = after
        return judgement

    @property
    def user_won(self) -> bool:
        if self.failed:
            return False
        side_to_move_wins = self.game.terminal_value(self.pos) == WIN
        return side_to_move_wins == (self.game.to_move(self.pos) == self.human)
