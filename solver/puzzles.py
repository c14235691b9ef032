"""Puzzles: positions where the side to move wins, has a choice (at least two legal
moves), and, at each of its moves along the solution, exactly one move wins against
every defence.

Works for any game (`tablebase.games.base.Game`) given a ``lookup`` of exact results
(the solved tables). Candidates come from natural-looking games: random play in which
nobody ignores a win in one move or allows one when it can be avoided.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any, Callable, Generic, Iterator, TypeVar

from tablebase.games.base import LOSS, WIN, Game
from tablebase.solver.probe import Lookup, NotInTable, ProbeResult, probe

P = TypeVar("P")

#: Solution trees larger than this many winner-to-move positions are not puzzles anyone solves.
MAX_TREE_POSITIONS = 400


@dataclass(frozen=True)
class Puzzle(Generic[P]):
    """A checked puzzle: "to move and win within ``depth`` plies".

    ``tree`` maps every position of the solution tree where the solver is to move
    (project notation) to its unique winning move (cell index); ``main_line`` is the
    solution against the longest defence, as cell indices, first move first.
    """

    position: str
    canonical_key: int
    depth: int  # plies to the win with the longest defence
    main_line: list[int]
    tree: dict[str, int]
    grade: int
    features: dict[str, int] = field(default_factory=dict)


class NotAPuzzle(Exception):
    """The position fails a puzzle condition (the message says which)."""


def winning_moves(answer: ProbeResult, plies_left: int) -> list[int]:
    """The moves that win within ``plies_left`` plies (the move itself included)."""
    return [m.cell for m in answer.moves
            if m.outcome.value == WIN and (m.outcome.remoteness or 0) <= plies_left]


def solution_tree(game: Game[P], pos: P, lookup: Lookup, depth: int) -> dict[str, int]:
    """The unique winning move of every position of the solution tree where the winner is
    to move, for a win within ``depth`` plies from ``pos``.

    Every defence is followed. At each winner position with ``b`` plies left, exactly one
    move must win within ``b`` plies. Raises NotAPuzzle when a winner position has no or
    several such moves, or the tree exceeds MAX_TREE_POSITIONS.
    """
    tree: dict[str, int] = {}
    seen: set[tuple[int, int]] = set()
    pending = [(pos, depth)]
    while pending:
        node, plies_left = pending.pop()
        key = (game.key(node), plies_left)  # exact positions: the tree must name the ones a player meets
        if key in seen:
            continue
        seen.add(key)
        if len(seen) > MAX_TREE_POSITIONS:
            raise NotAPuzzle(f"solution tree larger than {MAX_TREE_POSITIONS} positions")
        winning = winning_moves(probe(game, node, lookup), plies_left)
        if len(winning) != 1:
            raise NotAPuzzle(f"{len(winning)} moves win within {plies_left} plies in {game.format(node)!r}")
        text = game.format(node)
        if tree.setdefault(text, winning[0]) != winning[0]:
            raise NotAPuzzle(f"the winning move in {text!r} depends on the plies left")
        after = game.play(node, winning[0])
        if game.terminal_value(after) is not None:
            continue
        for defence in game.legal_moves(after):
            reply = game.play(after, defence)
            if game.terminal_value(reply) is None:
                pending.append((reply, plies_left - 2))
    return tree


def main_line(game: Game[P], pos: P, lookup: Lookup, tree: dict[str, int]) -> list[int]:
    """The solution against the longest defence (the table's best defence)."""
    line = []
    while game.terminal_value(pos) is None:
        text = game.format(pos)
        if text in tree:
            move = tree[text]
        else:  # the defender: the slowest loss, lowest cell on ties
            move = probe(game, pos, lookup).moves[0].cell
        line.append(move)
        pos = game.play(pos, move)
    return line


def grade(depth: int, root: ProbeResult, tree_size: int) -> tuple[int, dict[str, int]]:
    """Difficulty 1 (easy) to 5 (hard) from exact features.

    Points: one per 4 plies of depth; one if the root has 6 or more tempting
    alternatives (legal moves that do not win within the depth); one if the solution
    tree has 20 or more positions to foresee. Grade = 1 + points, at most 5.
    """
    alternatives = len(root.moves) - 1
    points = depth // 4 + (alternatives >= 6) + (tree_size >= 20)
    return min(5, 1 + points), {"alternatives": alternatives, "tree_positions": tree_size}


def make_puzzle(game: Game[P], pos: P, lookup: Lookup, min_depth: int, max_depth: int,
                root: ProbeResult | None = None) -> Puzzle[P]:
    """Check ``pos`` and return it as a Puzzle; raise NotAPuzzle with the reason if it is not one.

    ``root`` is ``probe(game, pos, lookup)`` if the caller has it already.
    """
    root = root or probe(game, pos, lookup)
    if root.outcome.value != WIN:
        raise NotAPuzzle("the side to move does not win")
    if len(root.moves) < 2:
        raise NotAPuzzle("the side to move has one legal move: no choice to make")
    depth = root.outcome.remoteness or 0
    if not min_depth <= depth <= max_depth:
        raise NotAPuzzle(f"depth {depth} outside {min_depth}..{max_depth}")
    if len(winning_moves(root, depth)) != 1:
        raise NotAPuzzle(f"more than one first move wins within {depth} plies")
    tree = solution_tree(game, pos, lookup, depth)
    level, features = grade(depth, root, len(tree))
    return Puzzle(game.format(pos), game.canonical_key(pos), depth, main_line(game, pos, lookup, tree), tree,
                  level, features)


#: A two-ply look at a position: (its legal moves, those that win at once, those after
#: which the opponent cannot win at once).
LookAhead = Callable[[Any], tuple[list[int], list[int], list[int]]]


def rules_look_ahead(game: Game[P]) -> LookAhead:
    """The two-ply look of the rules engine (a game may have a compiled one)."""
    def look(pos: P) -> tuple[list[int], list[int], list[int]]:
        moves = list(game.legal_moves(pos))
        wins = [m for m in moves if game.terminal_value(game.play(pos, m)) == LOSS]
        safe = [m for m in moves if not _hands_a_win(game, game.play(pos, m))]
        return moves, wins, safe
    return look


def natural_game(game: Game[P], lookup: Lookup, rng: random.Random,
                 look_ahead: LookAhead | None = None) -> Iterator[tuple[P, ProbeResult | None]]:
    """The positions of one natural-looking game, each with its probe (None where the
    lookup does not know the position or a move: a search out of budget): random moves,
    except that a player takes a win in one move and avoids handing the opponent one
    when it can. (The table is asked only what a player sees one move ahead; where it
    cannot say, ``look_ahead`` looks two plies ahead: by default the rules engine.)"""
    look = look_ahead or rules_look_ahead(game)
    pos = game.start()
    while game.terminal_value(pos) is None:
        try:
            answer: ProbeResult | None = probe(game, pos, lookup)
        except NotInTable:
            answer = None
        yield pos, answer
        if answer is not None:
            wins = [m.cell for m in answer.moves if m.outcome.value == WIN and m.outcome.remoteness == 1]
            safe = [m.cell for m in answer.moves if not (m.outcome.value == LOSS and m.outcome.remoteness == 2)]
            moves = [m.cell for m in answer.moves]
        else:
            moves, wins, safe = look(pos)
        pos = game.play(pos, rng.choice(wins or safe or moves))


def _hands_a_win(game: Game[P], pos: P) -> bool:
    """Whether the side to move in ``pos`` can win at once."""
    if game.terminal_value(pos) is not None:
        return False
    return any(game.terminal_value(game.play(pos, m)) == LOSS for m in game.legal_moves(pos))


def generate(game: Game[P], lookup: Lookup, count: int, min_depth: int, max_depth: int, seed: int,
             exclude: set[int] | None = None, max_games: int = 20_000, play_lookup: Lookup | None = None,
             progress: Callable[[int, int, int], None] | None = None,
             look_ahead: LookAhead | None = None) -> Iterator[Puzzle[P]]:
    """Up to ``count`` distinct puzzles (by canonical key) from natural games, reproducibly from ``seed``.

    Each natural game gives at most one puzzle: its positions are tried in random order.
    ``play_lookup`` (default ``lookup``) guides the natural games, and only positions it
    knows are candidates; a lookup that does not know a position (a search out of its
    budget) never makes it a puzzle: a candidate whose solution tree meets an unknown
    is skipped. ``progress(games, candidates, found)`` is called after each game;
    ``look_ahead`` is `natural_game`'s.
    """
    rng = random.Random(seed)
    seen = set(exclude or ())
    found = 0
    tried = 0
    for games in range(1, max_games + 1):
        if found >= count:
            return
        candidates = list(natural_game(game, play_lookup or lookup, rng, look_ahead))
        rng.shuffle(candidates)
        for pos, root in candidates:
            if (root is None or root.outcome.value != WIN or len(root.moves) < 2
                    or not min_depth <= (root.outcome.remoteness or 0) <= max_depth):
                continue
            key = game.canonical_key(pos)
            if key in seen:
                continue
            seen.add(key)
            tried += 1
            try:
                puzzle = make_puzzle(game, pos, lookup, min_depth, max_depth, root)
            except (NotAPuzzle, NotInTable):
                continue
            found += 1
            yield puzzle
            break
        if progress is not None:
            progress(games, tried, found)
