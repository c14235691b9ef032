"""Exhaustive checks of a fixed strategy against every line of play of the other side.

A strategy is a function ``(position, opponent's last move or None) -> move`` for one
side (the strategist). `check_strategy` plays it against every possible sequence of
opponent moves, breadth-first, and reports whether it always wins; the first failure
found is therefore a shortest counterexample (fewest plies).

Positions are merged by exact key, which is sound for strategies that depend only on
the position and the last move (both built-ins here do).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Sequence, TypeVar

from tablebase.games.base import LOSS, WIN, Game
from tablebase.solver.probe import Lookup, probe

P = TypeVar("P")

Strategy = Callable[[P, "int | None"], int]


@dataclass(frozen=True)
class StrategyCheck:
    """The verdict of `check_strategy`.

    ``counterexample`` is a shortest line of moves (both sides, from the start) after
    which the strategy fails, and ``failure`` says how: the strategist lost, drew, or
    had no legal reply.
    """

    always_wins: bool
    positions: int  # distinct positions met with the opponent to move
    counterexample: list[int] | None = None
    failure: str | None = None


class _Failed(Exception):
    def __init__(self, line: list[int], failure: str) -> None:
        super().__init__(failure)
        self.line = line
        self.failure = failure


def check_strategy(game: Game[P], start: P, strategist: str, strategy: Strategy[P]) -> StrategyCheck:
    """Whether ``strategy`` wins for ``strategist`` from ``start`` against every defence."""
    seen: set[int] = set()

    def respond(pos: P, line: list[int], last: int | None) -> tuple[P, list[int]] | None:
        """The strategist's reply; None when the game ended in its favour. Raises _Failed."""
        over = game.terminal_value(pos)
        if over is not None:
            if over != WIN:
                raise _Failed(line, "the strategist loses" if over == LOSS else "the game is drawn")
            return None
        reply = strategy(pos, last)
        if reply not in game.legal_moves(pos):
            raise _Failed(line + [reply], f"the strategy's reply {game.move_name(reply)} is illegal")
        after = game.play(pos, reply)
        over = game.terminal_value(after)
        if over is not None:
            if over != LOSS:
                raise _Failed(line + [reply], "the strategist loses" if over == WIN else "the game is drawn")
            return None
        return after, line + [reply]

    try:
        frontier: list[tuple[P, list[int]]]
        if game.to_move(start) == strategist:
            first = respond(start, [], None)
            frontier = [] if first is None else [first]
        else:
            frontier = [(start, [])]
        while frontier:
            following: list[tuple[P, list[int]]] = []
            for pos, line in frontier:
                key = game.key(pos)
                if key in seen:
                    continue
                seen.add(key)
                for move in game.legal_moves(pos):
                    answer = respond(game.play(pos, move), line + [move], move)
                    if answer is not None:
                        following.append(answer)
            frontier = following
    except _Failed as failed:
        return StrategyCheck(False, len(seen), failed.line, failed.failure)
    return StrategyCheck(True, len(seen))


def symmetry_strategy(permutation: Sequence[int]) -> Strategy:
    """Answer each move with its image under a fixed symmetry of the board."""

    def reply(pos: object, last: int | None) -> int:
        if last is None:
            raise ValueError("a symmetry strategy cannot make the first move")
        return permutation[last]

    return reply


def table_strategy(game: Game[P], lookup: Lookup) -> Strategy[P]:
    """Play the table's best move (quickest win, else slowest loss; lowest cell on ties)."""

    def reply(pos: P, last: int | None) -> int:
        return probe(game, pos, lookup).moves[0].cell

    return reply
