"""A game against the perfect player (and a puzzle played move by move): the state and
the judgement of each move; the interface only asks for moves and prints."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from tablebase.solver.probe import VALUE_NAMES, Lookup, MoveOutcome, Outcome, outcome_of, probe


def outcome_text(outcome: Outcome) -> str:
    """"win in 19", "loss in 2", "draw"."""
    return outcome.name + ("" if outcome.remoteness is None else f" in {outcome.remoteness}")


@dataclass(frozen=True)
class Judgement:
    """What a move of the user was worth: its outcome for the user and the user's value
    before it; for a puzzle whether it was the solution's move (``right``); for a wrong
    puzzle move the refutation (the opponent's best line after it, move names)."""

    name: str
    outcome: Outcome
    right: bool | None = None
    before: Outcome | None = None
    refutation: tuple[str, ...] = ()

    @property
    def changed(self) -> bool:
        """Whether the move changed the game's value for the user (it threw a result away)."""
        return self.before is not None and self.before.value != self.outcome.value

    def change_text(self) -> str:
        """"win in 19 -> loss in 2": what the move threw away, then what it left."""
        assert self.before is not None
        return f"{outcome_text(self.before)} -> {outcome_text(self.outcome)}"


class Match:
    """A game from ``pos`` in which the user plays ``human`` and the table the other side.

    With ``expected`` (a puzzle's solution tree: position text -> move) each user move
    is judged against it; a wrong one is not played (the user may try again, or ask for
    a `hint`) and is counted in ``mistakes``."""

    def __init__(self, game: Any, pos: Any, lookup: Lookup, human: str, expected: dict[str, int] | None = None
                 ) -> None:
        self.game = game
        self.pos = pos
        self.lookup = lookup
        self.human = human
        self.expected = expected
        self.mistakes = 0
        self.hints = 0
        #: the current position's value for the side to move, once a probe has said it
        self.known: Outcome | None = None

    @property
    def over(self) -> bool:
        return self.game.terminal_value(self.pos) is not None

    @property
    def users_turn(self) -> bool:
        return self.game.to_move(self.pos) == self.human

    def reply(self) -> MoveOutcome:
        """The perfect player's best move, played."""
        best = probe(self.game, self.pos, self.lookup).moves[0]
        self.pos = self.game.play(self.pos, best.cell)
        self.known = best.outcome.after_move()
        return best

    def move(self, text: str) -> Judgement:
        """Play the user's move (a name or an index); NotationError when it names no
        cell, IllegalMoveError when it is not a legal move; then nothing is played."""
        move = self.game.parse_move(text)
        after = self.game.play(self.pos, move)
        name = self.game.move_name(move)
        answer = probe(self.game, self.pos, self.lookup)
        self.known = answer.outcome
        outcome = next(m.outcome for m in answer.moves if m.cell == move)
        if self.expected is not None and self.expected.get(self.game.format(self.pos)) != move:
            self.mistakes += 1
            return Judgement(name, outcome, False, answer.outcome, tuple(self.line(after)))
        self.pos = after
        self.known = outcome.after_move()
        return Judgement(name, outcome, None if self.expected is None else True, answer.outcome)

    def hint(self) -> str:
        """The name of the solution's move in the current position (a puzzle only)."""
        if self.expected is None or self.game.format(self.pos) not in self.expected:
            raise ValueError("hints are for puzzles, at the solver's turn")
        self.hints += 1
        return self.game.move_name(self.expected[self.game.format(self.pos)])

    def line(self, pos: Any) -> list[str]:
        """The best play from ``pos`` to the end of the game (move names)."""
        from tablebase.service.probing import principal_variations  # one definition, as probe's pv

        return principal_variations(self.game, [pos], self.lookup)[0]

    @property
    def result(self) -> str | None:
        """The finished game's result for the user: "win", "loss" or "draw" (None while it goes on)."""
        terminal = self.game.terminal_value(self.pos)
        if terminal is None:
            return None
        return VALUE_NAMES[terminal if self.users_turn else -terminal]

    def standing(self, look_up: bool = True) -> Outcome | None:
        """The exact value of the current position for the side to move (what a game
        stopped here was worth): what the match's probes said of it, else (with
        ``look_up``) what the lookup says; None where neither knows it. Without
        ``look_up`` nothing is searched: a lookup that searches may take its whole
        budget, too long for a user who quits."""
        terminal = self.game.terminal_value(self.pos)
        if terminal is not None:
            return outcome_of(terminal, 0)
        if self.known is not None or not look_up:
            return self.known
        found = self.lookup([self.game.canonical_key(self.pos)])[0]
        return found if isinstance(found, Outcome) else None
