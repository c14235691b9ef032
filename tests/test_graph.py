"""The general retrograde solver against hand-made graphs and slow references."""

from __future__ import annotations

import functools
import random

import numpy as np
import pytest

from tablebase.games.base import DRAW, LOSS, WIN
from tablebase.solver.graph import NOT_TERMINAL, solve_csr, solve_graph

Result = tuple[int, int]  # (value, remoteness; 0 for a draw, the solvers' array convention)


def solve_lists(children: list[list[int]], terminal: dict[int, int] | None = None) -> list[Result]:
    parents = [p for p, kids in enumerate(children) for _ in kids]
    kids = [c for cs in children for c in cs]
    values = None
    if terminal is not None:
        values = np.full(len(children), NOT_TERMINAL, dtype=np.int16)
        for v, t in terminal.items():
            values[v] = t
    solution = solve_graph(len(children), np.array(parents, dtype=np.int64), np.array(kids, dtype=np.int64), values)
    return list(zip(solution.values.tolist(), solution.remoteness.tolist()))


def bounded_reference(children: list[list[int]], terminal: dict[int, int] | None = None) -> list[Result]:
    """Independent slow reference: "won within k plies" / "lost within k plies" by
    induction on k, one position at a time; never decided for any k means a draw."""
    terminal = terminal or {}
    n = len(children)
    result: list[Result | None] = [None] * n
    for v in range(n):
        if v in terminal:
            result[v] = (terminal[v], 0)
        elif not children[v]:
            result[v] = (LOSS, 0)
    for k in range(1, 2 * n + 3):
        before = list(result)  # decisions within k - 1 plies
        for v in range(n):
            if before[v] is not None:
                continue
            outcomes = [before[c] for c in children[v]]
            if any(o is not None and o[0] == LOSS for o in outcomes):
                result[v] = (WIN, k)
            elif all(o is not None and o[0] == WIN for o in outcomes):
                result[v] = (LOSS, k)
    return [r if r is not None else (DRAW, 0) for r in result]


def dag_minimax(children: list[list[int]]) -> list[Result]:
    """Plain recursive minimax (acyclic graphs only): best for the mover, fastest win, slowest loss."""

    @functools.cache
    def value(v: int) -> Result:
        if not children[v]:
            return (LOSS, 0)
        outcomes = [value(c) for c in children[v]]
        wins = [r for val, r in outcomes if val == LOSS]
        if wins:
            return (WIN, min(wins) + 1)
        return (LOSS, max(r for _, r in outcomes) + 1)

    return [value(v) for v in range(len(children))]


def test_chain() -> None:
    # 0 -> 1 -> 2 -> 3 (3 cannot move)
    assert solve_lists([[1], [2], [3], []]) == [(WIN, 3), (LOSS, 2), (WIN, 1), (LOSS, 0)]


def test_two_cycle_is_a_draw() -> None:
    assert solve_lists([[1], [0]]) == [(DRAW, 0), (DRAW, 0)]


def test_self_loop_is_a_draw() -> None:
    assert solve_lists([[0]]) == [(DRAW, 0)]


def test_self_loop_with_a_winning_exit() -> None:
    # 0 can loop on itself or move to 1, where the opponent cannot move: 0 wins at once
    assert solve_lists([[0, 1], []]) == [(WIN, 1), (LOSS, 0)]


def test_cycle_with_an_exit() -> None:
    # 0 <-> 1, and 1 may leave to 2 (lost for its mover): 1 wins, so 0 loses
    assert solve_lists([[1], [0, 2], []]) == [(LOSS, 2), (WIN, 1), (LOSS, 0)]


def test_cycle_whose_exit_loses_stays_a_draw() -> None:
    # 1 may leave to 2, but 2 wins for its mover (2 -> 3 terminal); 1 prefers the cycle
    assert solve_lists([[1], [0, 2], [3], []]) == [(DRAW, 0), (DRAW, 0), (WIN, 1), (LOSS, 0)]


def test_loser_delays_through_a_cycle_only_when_it_can_last() -> None:
    # 0 must choose between 1 (won for its mover in 1) and the cycle 0 <-> 4, where 4
    # can end the game by moving to 5: the cycle is no refuge, 0 loses in the longer way
    children = [[1, 4], [2], [], [], [0, 5], []]
    assert solve_lists(children) == bounded_reference(children)
    assert solve_lists(children)[0] == (LOSS, 2)


def test_terminal_values() -> None:
    # 1 is a finished game won by its mover, 2 a finished draw; their moves are ignored
    children = [[1, 2], [0], [0]]
    terminal = {1: WIN, 2: DRAW}
    assert solve_lists(children, terminal) == [(DRAW, 0), (WIN, 0), (DRAW, 0)]
    assert solve_lists(children, terminal) == bounded_reference(children, terminal)


def test_csr_form() -> None:
    solution = solve_csr(np.array([0, 1, 2, 2]), np.array([1, 2]))
    assert solution.values.tolist() == [LOSS, WIN, LOSS]
    assert solution.remoteness.tolist() == [2, 1, 0]


def test_bad_edges_are_refused() -> None:
    with pytest.raises(ValueError, match="edge endpoints"):
        solve_graph(2, np.array([0]), np.array([2]))


def random_graph(rng: random.Random, n: int, acyclic: bool) -> list[list[int]]:
    children = []
    for v in range(n):
        targets = list(range(v + 1, n)) if acyclic else list(range(n))
        k = rng.choice([0, 1, 1, 2, 2, 3, 4]) if targets else 0
        children.append([rng.choice(targets) for _ in range(k)])
    return children


@pytest.mark.parametrize("seed", range(40))
def test_random_dags_agree_with_minimax(seed: int) -> None:
    rng = random.Random(seed)
    children = random_graph(rng, rng.randint(1, 40), acyclic=True)
    assert solve_lists(children) == dag_minimax(children)


@pytest.mark.parametrize("seed", range(80))
def test_random_cyclic_graphs_agree_with_the_bounded_reference(seed: int) -> None:
    rng = random.Random(1000 + seed)
    children = random_graph(rng, rng.randint(1, 30), acyclic=False)
    terminal = {v: rng.choice([WIN, LOSS, DRAW]) for v in range(len(children)) if rng.random() < 0.1}
    assert solve_lists(children, terminal) == bounded_reference(children, terminal)
    assert solve_lists(children) == bounded_reference(children)


def test_random_cyclic_graphs_include_draws() -> None:
    rng = random.Random(7)
    graphs = [random_graph(rng, 20, acyclic=False) for _ in range(20)]
    assert any(value == DRAW for g in graphs for value, _ in solve_lists(g))


def test_reaches_cycle() -> None:
    from tablebase.solver.graph import reaches_cycle, reverse_edges

    # 0 -> 1 <-> 2, 3 -> 4: only 0, 1, 2 can play forever
    parents, children = np.array([0, 1, 2, 3]), np.array([1, 2, 1, 4])
    offsets, rev = reverse_edges(5, parents, children)
    assert reaches_cycle(offsets, rev).tolist() == [True, True, True, False, False]
