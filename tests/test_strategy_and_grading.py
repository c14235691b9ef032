"""Direct tests of the strategy checker (solver/strategy.py) and of puzzle grading
(solver/puzzles.py) on a game small enough to know by hand: a pile of counters, each
player takes 1 or 2, whoever cannot move (the pile is empty) loses. The side to move
loses exactly when the pile is a multiple of 3."""

from __future__ import annotations

from typing import Sequence

import pytest

from tablebase.games.base import LOSS, WIN
from tablebase.solver.probe import MoveOutcome, Outcome, ProbeResult
from tablebase.solver.puzzles import NotAPuzzle, grade, make_puzzle
from tablebase.solver.strategy import check_strategy

Pile = tuple[int, str]  # counters left, side to move


class TakeAway:
    game_name = "take-away"
    rules_name = "1-or-2"

    def __init__(self, size: int) -> None:
        self.size = size

    def start(self) -> Pile:
        return (self.size, "R")

    def parse(self, text: str) -> Pile:
        count, side = text.split()
        return (int(count), side)

    def format(self, pos: Pile) -> str:
        return f"{pos[0]} {pos[1]}"

    def to_move(self, pos: Pile) -> str:
        return pos[1]

    def legal_moves(self, pos: Pile) -> Sequence[int]:
        return [take for take in (1, 2) if take <= pos[0]]

    def play(self, pos: Pile, move: int) -> Pile:
        if move not in self.legal_moves(pos):
            raise ValueError(f"cannot take {move} from {pos[0]}")
        return (pos[0] - move, "B" if pos[1] == "R" else "R")

    def terminal_value(self, pos: Pile) -> int | None:
        return LOSS if pos[0] == 0 else None

    def key(self, pos: Pile) -> int:
        return pos[0] * 2 + (pos[1] == "B")

    def canonical_key(self, pos: Pile) -> int:
        return self.key(pos)

    def move_name(self, move: int) -> str:
        return f"take{move}"

    def parse_move(self, text: str) -> int:
        return int(text.removeprefix("take"))


def exact(keys: Sequence[int]) -> list[Outcome | None]:
    """The value of each pile by the rule above (remoteness: plies to the end)."""
    outcomes: list[Outcome | None] = []
    for key in keys:
        count = key // 2
        outcomes.append(Outcome(LOSS, 2 * (count // 3)) if count % 3 == 0 else Outcome(WIN, 2 * (count // 3) + 1))
    return outcomes


def perfect(pos: Pile, last: int | None) -> int:
    return pos[0] % 3 or 1


def test_the_winning_strategy_always_wins() -> None:
    game = TakeAway(10)  # 10 is not a multiple of 3: Red, to move, wins
    verdict = check_strategy(game, game.start(), "R", perfect)
    assert verdict.always_wins and verdict.counterexample is None and verdict.positions > 0


def test_a_losing_strategy_gets_a_shortest_counterexample() -> None:
    game = TakeAway(5)
    verdict = check_strategy(game, game.start(), "R", lambda pos, last: 1)  # always take one
    assert not verdict.always_wins and verdict.failure == "the strategist loses"
    line = verdict.counterexample
    assert line is not None
    pos = game.start()
    for move in line:
        pos = game.play(pos, move)
    assert game.terminal_value(pos) == LOSS and game.to_move(pos) == "R"  # Red is stuck: it lost
    # shortest: 5 taken one by one by Red with Black taking 2 and 1 ends in 4 plies, no line is shorter
    assert len(line) == 4


def test_an_illegal_reply_is_a_failure() -> None:
    game = TakeAway(4)
    verdict = check_strategy(game, game.start(), "R", lambda pos, last: 2 if pos[0] < 2 else pos[0] % 3 or 1)
    assert not verdict.always_wins and verdict.failure is not None and "illegal" in verdict.failure


def test_the_strategist_cannot_win_a_lost_position() -> None:
    game = TakeAway(9)  # a multiple of 3: whatever Red does, Black wins with the rule
    verdict = check_strategy(game, game.start(), "R", perfect)
    assert not verdict.always_wins and verdict.counterexample


def root(alternatives: int) -> ProbeResult:
    moves = [MoveOutcome(i, f"m{i}", Outcome(WIN if i == 0 else LOSS, 3)) for i in range(alternatives + 1)]
    return ProbeResult("p", "R", Outcome(WIN, 3), moves)


@pytest.mark.parametrize("depth, alternatives, tree, expected", [
    (3, 1, 5, 1),      # shallow, few choices, small tree
    (4, 1, 5, 2),      # one point per 4 plies
    (8, 6, 5, 4),      # two for depth, one for six tempting alternatives
    (8, 6, 20, 5),     # and one for a tree of 20 positions
    (20, 9, 300, 5),   # never above 5
])
def test_grade_points(depth: int, alternatives: int, tree: int, expected: int) -> None:
    found, features = grade(depth, root(alternatives), tree)
    assert found == expected
    assert features == {"alternatives": alternatives, "tree_positions": tree}


def test_a_puzzle_of_the_pile_game() -> None:
    game = TakeAway(4)  # Red wins by taking 1 (leaving 3), and only by that move
    puzzle = make_puzzle(game, game.start(), exact, 1, 10)
    assert puzzle.main_line[0] == 1 and puzzle.depth == 3
    pos = game.start()
    for move in puzzle.main_line:
        pos = game.play(pos, move)
    assert game.terminal_value(pos) == LOSS and game.to_move(pos) == "B"  # Black is left without a move
    with pytest.raises(NotAPuzzle):
        make_puzzle(game, (3, "R"), exact, 1, 10)  # a lost position is no puzzle
    with pytest.raises(NotAPuzzle, match="one legal move"):
        make_puzzle(game, (1, "R"), exact, 1, 10)  # won, by the only legal move: no choice, no puzzle
