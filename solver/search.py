"""Exact game-tree search with a transposition table: the second, independent method.

`Search.solve` computes the exact value and remoteness of one position from the rules
engine alone (any object following `tablebase.games.base.Game`). It is a fail-soft
alpha-beta negamax over distance-aware scores, with a transposition table of bounds
keyed by canonical keys.

Precondition: the game graph below the position is acyclic (true of Sparro, where
marbles are never removed). A game with cycles needs a graph solver instead.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Callable, Generic, TypeVar

from tablebase.games.base import DRAW, LOSS, WIN, Game
from tablebase.solver.probe import Outcome

P = TypeVar("P")

#: |score| = SCORE_SCALE - remoteness for a decided position; 0 for a draw.
SCORE_SCALE = 10_000
INFINITY = 2 * SCORE_SCALE


class SearchBudgetExceeded(Exception):
    """The node budget (or the time) ran out before the position was solved."""


#: Positions between two looks at the clock and two progress reports.
CLOCK_EVERY = 1 << 14


@dataclass(frozen=True)
class SearchResult:
    """The exact outcome for the side to move and the positions the search visited."""

    outcome: Outcome
    nodes: int


def score_to_parent(score: int) -> int:
    """A child's score seen from its parent: the sign flips and the end is one ply further."""
    return -score + (score > 0) - (score < 0)


def score_to_child(score: int) -> int:
    """Inverse of `score_to_parent`, used to pass the search window down."""
    return -score - (score > 0) + (score < 0)


def score_to_outcome(score: int) -> Outcome:
    if score == 0:
        return Outcome(DRAW, None)
    return Outcome(WIN if score > 0 else LOSS, SCORE_SCALE - abs(score))


class TranspositionTable:
    """Bounds on the exact score of positions, keyed by canonical key."""

    def __init__(self) -> None:
        self._bounds: dict[int, tuple[int, int]] = {}

    def __len__(self) -> int:
        return len(self._bounds)

    def bounds(self, key: int) -> tuple[int, int]:
        """(lower, upper): the score lies between them (inclusive)."""
        return self._bounds.get(key, (-INFINITY, INFINITY))

    def store(self, key: int, lower: int, upper: int) -> None:
        old_lower, old_upper = self.bounds(key)
        self._bounds[key] = (max(lower, old_lower), min(upper, old_upper))


class Search(Generic[P]):
    """Solves positions of one game exactly; the table is kept between calls."""

    def __init__(self, game: Game[P], node_budget: int | None = None, deadline: float | None = None,
                 progress: Callable[[int], None] | None = None) -> None:
        self.game = game
        self.node_budget = node_budget
        #: a `time.perf_counter` instant past which the search gives up (None: no time bound)
        self.deadline = deadline
        #: called with the positions searched so far, every CLOCK_EVERY positions
        self.progress = progress
        self.table = TranspositionTable()
        self.nodes = 0

    def solve(self, pos: P) -> SearchResult:
        """The exact value and remoteness of ``pos``; raises SearchBudgetExceeded."""
        self.nodes = 0
        score = self._negamax(pos, -INFINITY, INFINITY)
        return SearchResult(score_to_outcome(score), self.nodes)

    def _negamax(self, pos: P, alpha: int, beta: int) -> int:
        """Fail-soft: the exact score if alpha < score < beta, else a bound on the side it failed."""
        self.nodes += 1
        if self.node_budget is not None and self.nodes > self.node_budget:
            raise SearchBudgetExceeded(f"no result within {self.node_budget} nodes")
        if self.nodes % CLOCK_EVERY == 0:
            if self.deadline is not None and time.perf_counter() >= self.deadline:
                raise SearchBudgetExceeded("no result within the time given")
            if self.progress is not None:
                self.progress(self.nodes)
        game = self.game
        terminal = game.terminal_value(pos)
        if terminal is not None:
            return terminal * SCORE_SCALE
        key = game.canonical_key(pos)
        lower, upper = self.table.bounds(key)
        if lower >= beta or lower == upper:
            return lower
        if upper <= alpha:
            return upper
        alpha, beta = max(alpha, lower), min(beta, upper)
        window_alpha, window_beta = alpha, beta
        children = [game.play(pos, move) for move in game.legal_moves(pos)]
        # children where the opponent has already lost first: they end the search at once
        children.sort(key=lambda child: game.terminal_value(child) != LOSS)
        best = -INFINITY
        for child in children:
            score = score_to_parent(self._negamax(child, score_to_child(beta), score_to_child(alpha)))
            if score > best:
                best = score
                if best >= beta:
                    break
                alpha = max(alpha, best)
        if best <= window_alpha:
            self.table.store(key, -INFINITY, best)
        elif best >= window_beta:
            self.table.store(key, best, INFINITY)
        else:
            self.table.store(key, best, best)
        return best
