"""Repetitions of The Smallholder found by play: a reachable position and a line that returns to it.

Every move adds a stone, so a line of play can come back to where it started only through
captures (docs/smallholder.md, "Cycles and draws"). Whether a ruleset can repeat on a board
is settled exactly where the whole graph is solved (`limping2`, `hex3`: the tables'
`reaches_cycle`); on bigger boards a repetition is *shown* by a line of play, and not
finding one proves nothing. This module looks for one:

* `find_cycle`: from one position, a breadth-first search over the compiled rules (whole
  arrays of positions a ply at a time) for a line that meets a position it passed before
  (or a symmetric image of it) with the same side to move. Lines that add more than
  ``slack`` stones net are dropped (a return has to take them off again by captures), and
  a ply keeps at most ``cap`` distinct positions (a seeded sample beyond it). It is a
  finder: a line it returns is a repetition; a None says only that it found none.
* `search_repetition`: random games from the empty board (seeded), `find_cycle` from
  each of their positions after ``min_ply`` plies, until a line is found or ``games``
  games are over.

A line found is played again by the per-position rules engine of `games/` before it is
reported (`confirm`): the compiled rules that found it and the reference engine agree on
every move of it, from the empty board (or the position searched from) to the return.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from functools import cache
from typing import Callable

import numpy as np

from tablebase.games.smallholder.board import Board, get_board
from tablebase.games.smallholder.position import Position
from tablebase.games.smallholder.rules import Smallholder

U64 = np.uint64
#: Plies of the lines followed from a position, by default (the `hex4` nibbler cycle of the
#: docs has 8).
DEFAULT_PLIES = 12
#: Stones a line may add net before it is dropped, by default.
DEFAULT_SLACK = 2
#: Distinct positions a ply of `find_cycle` keeps, by default.
DEFAULT_CAP = 50_000
#: Random games `search_repetition` plays, by default (when none is found: seconds to a minute
#: on `limping3`; on `hex4` about a minute, several under `groups=priority-create`).
DEFAULT_GAMES = 200
#: Plies of a random game before its positions are searched from, by default.
DEFAULT_MIN_PLY = 6


@dataclass(frozen=True)
class Repetition:
    """``position``, reached by the moves ``lead`` from ``start``, and ``cycle``: legal
    moves from it that return to it (the same stones, the same side to move)."""

    start: Position
    lead: tuple[int, ...]
    position: Position
    cycle: tuple[int, ...]


@dataclass(frozen=True)
class RepetitionSearch:
    """What `search_repetition` did: the repetition it found (or None), the games it
    played and the positions it searched from."""

    found: Repetition | None
    games: int
    positions: int


def _stone_counts(masks_a: np.ndarray, masks_b: np.ndarray) -> np.ndarray:
    return (np.bitwise_count(masks_a) + np.bitwise_count(masks_b)).astype(np.int64)


class _Shapes:
    """A hash of a bitboard that its symmetric images share: the sum (mod 2**64) of a
    random weight per orbit of cells under the board's symmetries, over the stones,
    by lookup tables of chunks of the bitboard. Two positions that are images of each
    other have equal hashes; unequal positions almost never do, and the few candidates
    are compared exactly (`_symmetry_onto`)."""

    CHUNK_BITS = 11

    def __init__(self, board: Board) -> None:
        orbit = [min(perm[c] for perm in board.symmetries) for c in range(board.size)]
        weights = np.random.default_rng(2026).integers(0, 2**63, size=board.size, dtype=np.int64).astype(U64)
        cell_weights = np.array([weights[orbit[c]] for c in range(board.size)], dtype=U64)
        self.tables = []
        for start in range(0, board.size, self.CHUNK_BITS):
            bits = cell_weights[start:start + self.CHUNK_BITS]
            table = np.zeros(1 << len(bits), dtype=U64)
            for b, weight in enumerate(bits):  # table[v] = the sum of the weights of v's bits
                table[1 << b:2 << b] = table[:1 << b] + weight
            self.tables.append(table)

    def __call__(self, masks: np.ndarray) -> np.ndarray:
        low = U64((1 << self.CHUNK_BITS) - 1)
        out = self.tables[0][(masks & low).astype(np.intp)]
        for k, table in enumerate(self.tables[1:], start=1):
            out = out + table[((masks >> U64(k * self.CHUNK_BITS)) & low).astype(np.intp)]
        return out


@cache
def _shapes(board: str) -> _Shapes:
    return _Shapes(get_board(board))


def find_cycle(game: Smallholder, pos: Position, plies: int = DEFAULT_PLIES, slack: int = DEFAULT_SLACK,
               cap: int = DEFAULT_CAP, seed: int = 0) -> tuple[tuple[int, ...], tuple[int, ...]] | None:
    """``(lead, cycle)``: legal moves from ``pos`` to a position and legal moves from
    there back to it, or None when none was found (which proves nothing: see the
    module's text). The search follows the lines from ``pos`` of up to ``plies`` plies
    and stops at the first that meets a position it passed before, or one of its
    symmetric images, with the same side to move; a return to an image under a symmetry
    of order k, followed by its images under that symmetry, comes back to the position
    itself in k times as many plies, and that whole cycle is what is returned."""
    from tablebase.games.smallholder.compiled import expand, tables

    t = tables(game.board, game.rules)
    shape = _shapes(game.board.name)
    most_stones = pos.mover.bit_count() + pos.waiter.bit_count() + slack
    rng = np.random.default_rng(seed)
    movers, waiters = np.array([U64(pos.mover)]), np.array([U64(pos.waiter)])
    hashes = [(shape(movers), shape(waiters))]  # per ply: the symmetry-blind hashes
    parents: list[np.ndarray] = [np.zeros(1, dtype=np.int64)]
    cells: list[np.ndarray] = [np.zeros(1, dtype=np.int64)]
    for ply in range(1, plies + 1):
        parent, cell, after_own, after_enemy = expand(movers, waiters, t)
        movers, waiters = after_enemy, after_own  # the other side moves next
        keep = np.flatnonzero(_stone_counts(movers, waiters) <= most_stones)
        _, first = np.unique(np.stack([movers[keep], waiters[keep]], axis=1), axis=0, return_index=True)
        keep = keep[first]
        if len(keep) > cap:
            keep = np.sort(rng.choice(keep, cap, replace=False))
        if len(keep) == 0:
            return None
        parent, cell, movers, waiters = parent[keep], cell[keep], movers[keep], waiters[keep]
        parents.append(parent)
        cells.append(cell)
        hashes.append((shape(movers), shape(waiters)))
        hm, hw = hashes[-1]
        ancestor = np.arange(len(movers))
        for back in range(1, ply + 1):  # compare with the ancestor ``back`` plies up
            ancestor = parents[ply - back + 1][ancestor]
            if back % 2:
                continue
            am, aw = hashes[ply - back]
            for at in np.flatnonzero((am[ancestor] == hm) & (aw[ancestor] == hw)):
                earlier = _after(game, pos, _line_to(parents, cells, ply - back, int(ancestor[at])))
                stones = (earlier.mover, earlier.waiter)
                symmetry = _symmetry_onto(game, stones, (int(movers[at]), int(waiters[at])))
                if symmetry is None:
                    continue  # the hashes met by chance
                line = _line_to(parents, cells, ply, int(at))
                return line[:ply - back], _whole_cycle(game, stones, line[ply - back:], symmetry)
    return None


def _after(game: Smallholder, pos: Position, moves: tuple[int, ...]) -> Position:
    for move in moves:
        pos = game.play(pos, move)
    return pos


def _line_to(parents: list[np.ndarray], cells: list[np.ndarray], ply: int, at: int) -> tuple[int, ...]:
    """The moves from the start to entry ``at`` of ply ``ply``."""
    line: list[int] = []
    for k in range(ply, 0, -1):
        line.append(int(cells[k][at]))
        at = int(parents[k][at])
    return tuple(reversed(line))


def _symmetry_onto(game: Smallholder, stones: tuple[int, int], image: tuple[int, int]) -> int | None:
    """A symmetry of the board mapping ``stones`` (mover's, waiter's) onto ``image``, or None."""
    for symmetry in range(len(game.board.symmetries)):
        if tuple(game.board.transform(mask, symmetry) for mask in stones) == image:
            return symmetry
    return None


def _whole_cycle(game: Smallholder, stones: tuple[int, int], line: tuple[int, ...],
                 symmetry: int) -> tuple[int, ...]:
    """``line`` (from the position of ``stones``, the mover's and the waiter's, to its
    image under ``symmetry``), then its images under the powers of the symmetry until
    the position itself comes back."""
    board, perm = game.board, game.board.symmetries[symmetry]
    cycle, part = line, tuple(perm[c] for c in line)
    reached = tuple(board.transform(mask, symmetry) for mask in stones)
    while reached != stones:
        cycle += part
        part = tuple(perm[c] for c in part)
        reached = tuple(board.transform(mask, symmetry) for mask in reached)
    return cycle


def confirm(game: Smallholder, repetition: Repetition) -> None:
    """Play ``repetition`` with the per-position rules engine from its start: every move
    legal, the position reached, and the cycle back to it; else ValueError (the compiled
    rules that found the line and the reference engine disagree: a bug)."""
    pos = repetition.start
    for k, move in enumerate(repetition.lead + repetition.cycle):
        if move not in game.legal_moves(pos):
            raise ValueError(f"move {k + 1} ({game.move_name(move)}) of the line is not legal in {game.format(pos)}")
        pos = game.play(pos, move)
        if k + 1 == len(repetition.lead) and pos != repetition.position:
            raise ValueError(f"the game reaches {game.format(pos)}, not {game.format(repetition.position)}")
    if pos != repetition.position:
        raise ValueError(f"the cycle ends in {game.format(pos)}, not back in {game.format(repetition.position)}")


def _confirmed(game: Smallholder, start: Position, before: tuple[int, ...],
               lines: tuple[tuple[int, ...], tuple[int, ...]]) -> Repetition:
    """The `Repetition` of `find_cycle`'s ``lines`` from a position reached by ``before``
    from ``start``, confirmed by the reference engine."""
    lead, cycle = before + lines[0], lines[1]
    found = Repetition(start, lead, _after(game, start, lead), cycle)
    confirm(game, found)
    return found


def repetition_from(game: Smallholder, pos: Position, plies: int = DEFAULT_PLIES, slack: int = DEFAULT_SLACK,
                    cap: int = DEFAULT_CAP, seed: int = 0) -> Repetition | None:
    """`find_cycle` from ``pos``, as a `Repetition` confirmed by the reference engine."""
    lines = find_cycle(game, pos, plies, slack, cap, seed)
    return None if lines is None else _confirmed(game, pos, (), lines)


def search_repetition(game: Smallholder, games: int = DEFAULT_GAMES, seed: int = 0, plies: int = DEFAULT_PLIES,
                      slack: int = DEFAULT_SLACK, cap: int = DEFAULT_CAP, min_ply: int = DEFAULT_MIN_PLY,
                      progress: Callable[[int, int], None] | None = None) -> RepetitionSearch:
    """Random games (seeded) and `find_cycle` from each of their positions after
    ``min_ply`` plies, until a repetition is found (confirmed by the reference engine) or
    ``games`` games are over. ``progress(games, positions)`` is called after each game."""
    rng = random.Random(seed)
    searched = 0
    for played in range(1, games + 1):
        pos = game.start()
        line: list[int] = []
        while moves := game.legal_moves(pos):
            if len(line) >= min_ply:
                searched += 1
                lines = find_cycle(game, pos, plies, slack, cap, seed)
                if lines is not None:
                    return RepetitionSearch(_confirmed(game, game.start(), tuple(line), lines), played, searched)
            line.append(moves[rng.randrange(len(moves))])
            pos = game.play(pos, line[-1])
        if progress is not None:
            progress(played, searched)
    return RepetitionSearch(None, games, searched)
