"""A tablebase explorer: the value of a position and of each of its moves.

`probe` works for any game (see `tablebase.games.base.Game`) given a ``lookup`` that
maps canonical keys to exact results, so the same code serves the SQLite tables and
the search.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Generic, Sequence, TypeVar

from tablebase.games.base import DRAW, LOSS, WIN, Game

P = TypeVar("P")

VALUE_NAMES = {WIN: "win", LOSS: "loss", DRAW: "draw"}


@dataclass(frozen=True)
class Outcome:
    """An exact result for one side: WIN/LOSS/DRAW and plies to the end (None for a draw).

    The one result type of every solver (tables, graph solver, searches) at the Python
    level; arrays and stored payloads are turned into Outcomes by `outcome_of` alone.
    """

    value: int
    remoteness: int | None

    @property
    def name(self) -> str:
        return VALUE_NAMES[self.value]

    def for_mover(self) -> Outcome:
        """This result of a child position, seen by the player whose move led to it."""
        return Outcome(-self.value, None if self.remoteness is None else self.remoteness + 1)

    def after_move(self) -> Outcome:
        """This result of a move (for the player making it), seen from the position it
        leads to, the opponent to move: the inverse of `for_mover`."""
        return Outcome(-self.value, None if self.remoteness is None else self.remoteness - 1)

    def preference(self) -> tuple[int, int]:
        """Sort key, best first: quick wins, then draws, then slow losses."""
        if self.value == WIN:
            return (0, self.remoteness or 0)
        if self.value == DRAW:
            return (1, 0)
        return (2, -(self.remoteness or 0))


def outcome_of(value: int, remoteness: int) -> Outcome:
    """The `Outcome` of one entry of the solvers' arrays, where a draw's remoteness entry
    is 0 (or anything: it is not read). Every array result becomes an Outcome here."""
    return Outcome(int(value), None if value == DRAW else int(remoteness))


def outcomes(values: Any, remoteness: Any) -> list[Outcome]:
    """`outcome_of` for aligned arrays of values and remoteness."""
    return [outcome_of(value, plies) for value, plies in zip(values.tolist(), remoteness.tolist())]


#: canonical keys -> their exact results (None where unknown, or the error that keeps a
#: key from being answered, e.g. a damaged block of a stored table)
Lookup = Callable[[Sequence[int]], Sequence[Outcome | Exception | None]]


class NotInTable(LookupError):
    """The position is not covered by the table (unsolved rules, or not reachable).

    ``settled`` holds the moves whose positions the lookup did answer (a search that ran
    out of budget before it settled every move), best first: exact results all the same."""

    def __init__(self, message: str, settled: Sequence["MoveOutcome"] = ()) -> None:
        super().__init__(message)
        self.settled = tuple(settled)


@dataclass(frozen=True)
class MoveOutcome:
    cell: int
    name: str
    outcome: Outcome  # for the player making the move


@dataclass(frozen=True)
class ProbeResult(Generic[P]):
    position: str
    to_move: str
    outcome: Outcome
    moves: list[MoveOutcome]

    def as_json(self) -> dict:
        return {
            "position": self.position,
            "to_move": self.to_move,
            "value": self.outcome.name,
            "remoteness": self.outcome.remoteness,
            "moves": [{"cell": m.cell, "name": m.name, "value": m.outcome.name,
                       "remoteness": m.outcome.remoteness} for m in self.moves],
        }


def probe(game: Game[P], pos: P, lookup: Lookup, unknown: str = "position not in the table") -> ProbeResult[P]:
    """The exact outcome of ``pos`` and of every legal move, best move first.

    Raises NotInTable if the lookup does not know the position or one of its children.
    """
    result = probe_many(game, [pos], lookup, unknown)[0]
    if isinstance(result, Exception):
        raise result
    return result


def probe_many(game: Game[P], positions: Sequence[P], lookup: Lookup,
               unknown: str = "position not in the table") -> list[ProbeResult[P] | Exception]:
    """`probe` for many positions with a single call of ``lookup``; a position the
    lookup does not cover gets a NotInTable error (saying ``unknown``) in its place, one
    the lookup cannot answer (damaged data) the lookup's error."""
    plans = []
    keys: list[int] = []
    for pos in positions:
        moves = list(game.legal_moves(pos))
        children = [game.play(pos, move) for move in moves]
        plans.append((pos, moves, children, len(keys)))
        keys.append(game.canonical_key(pos))
        keys.extend(game.canonical_key(child) for child in children)
    found = lookup(keys)
    results: list[ProbeResult[P] | Exception] = []
    for pos, moves, children, first in plans:
        outcomes = list(found[first:first + 1 + len(children)])
        # a finished game needs no table, and neither does a move that finishes it
        for index, node in enumerate([pos] + children):
            terminal = game.terminal_value(node)
            if terminal is not None:
                outcomes[index] = Outcome(terminal, 0)
        failed = next((outcome for outcome in outcomes if isinstance(outcome, Exception)), None)
        if failed is not None:
            results.append(failed)
            continue
        move_outcomes = [MoveOutcome(move, game.move_name(move), outcome.for_mover())  # type: ignore[union-attr]
                         for move, outcome in zip(moves, outcomes[1:]) if outcome is not None]
        move_outcomes.sort(key=lambda m: (m.outcome.preference(), m.cell))
        if any(outcome is None for outcome in outcomes):
            results.append(NotInTable(f"{unknown}: {game.format(pos)!r}", move_outcomes))
            continue
        results.append(ProbeResult(game.format(pos), game.to_move(pos), outcomes[0], move_outcomes))  # type: ignore[arg-type]
    return results
