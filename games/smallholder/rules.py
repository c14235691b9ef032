"""The Smallholder rules engine on integer bitboards (docs/smallholder.md).

Holdings are computed per group from its *sight* masks: ``sight[d]`` is the set of cells
from which a look in direction ``d`` (over anything) meets a stone of the group, i.e.
the union of the rays in the opposite direction from each of its stones. A cell is held
by the group when it is in ``sight`` of both directions of one pair: the two directions
of an axis (``gap``) or two directions 120 degrees apart (``hull``). Keeping the sight
masks per group lets an extension's holdings be found by OR-ing a few masks instead of
recomputing the merged group from scratch.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Callable, Iterable

from tablebase.games.base import LOSS, IllegalMoveError, UnreachablePositionError
from tablebase.games.smallholder.board import AXES, DEFAULT_BOARD, Board, bits, get_board
from tablebase.games.smallholder.options import DEFAULT_RULESET, Rules, parse_rules
from tablebase.games.smallholder.position import (
    BLACK, COLOUR_NAMES, WHITE, Position, format_position, opponent, parse_position)

__all__ = ["CREATE", "EXTEND", "Group", "IllegalMoveError", "Move", "Smallholder"]

CREATE = "create"
EXTEND = "extend"

#: Direction pairs whose two lines of sight must both meet the group, per territory.
_SIGHT_PAIRS = {
    "gap": AXES,
    "hull": tuple((d, (d + 2) % 6) for d in range(6)),
}
#: How many analysed positions each rules object remembers (``legal_moves`` then ``play``
#: on the same position is the common pattern; the cache makes the second call free).
_ANALYSIS_CACHE = 4096


@dataclass(frozen=True, slots=True)
class Move:
    """A legal move with what it does."""

    cell: int
    kind: str
    #: Bitboard of the enemy stones the move removes (0 for a create move).
    captured: int

    @property
    def captures(self) -> int:
        return self.captured.bit_count()


@dataclass(frozen=True, slots=True)
class Group:
    """A group of one colour: its stones, the cells around it, and what it holds."""

    stones: int
    #: Cells next to the group (empty or enemy).
    border: int
    #: ``sight[d]``: cells whose line of sight in direction ``d`` meets the group.
    sight: tuple[int, ...]
    holdings: int
    #: Whether a cell next to the group is playable for its owner.
    live: bool

    @property
    def size(self) -> int:
        return self.stones.bit_count()


@dataclass(frozen=True, slots=True)
class _Side:
    """Everything about one colour's stones that move generation needs."""

    groups: tuple[Group, ...]
    holdings: int
    playable: int


@dataclass(frozen=True, slots=True)
class _Analysis:
    mover: _Side
    waiter: _Side
    moves: tuple[Move, ...]


class Smallholder:
    """The rules of one Smallholder ruleset on one board (implements ``games.base.Game``).

    ``ruleset`` is a named ruleset (``nibbler``, ``stymie``, ...), a custom spec
    (``groups=...,adjacent=...``; missing keys from nibbler) or a ``Rules`` value.
    """

    game_name = "smallholder"

    def __init__(self, board: str | Board = DEFAULT_BOARD, ruleset: str | Rules = DEFAULT_RULESET) -> None:
        self.board = board if isinstance(board, Board) else get_board(board)
        self.rules = ruleset if isinstance(ruleset, Rules) else parse_rules(ruleset)
        self.rules_name = f"{self.rules.name}@{self.board.name}"
        self._pairs = _SIGHT_PAIRS[self.rules.territory]
        self._opposite_rays = tuple(self.board.rays[(d + 3) % 6] for d in range(6))
        self._analyse: Callable[[Position], _Analysis] = lru_cache(maxsize=_ANALYSIS_CACHE)(self._analyse_uncached)

    def __repr__(self) -> str:
        return f"Smallholder({self.board.name!r}, {self.rules.name!r})"

    # -- the Game protocol -----------------------------------------------------------

    def start(self) -> Position:
        return Position(0, 0, BLACK)

    def parse(self, text: str, allow_unreachable: bool = False) -> Position:
        """Read a position of this board; one that cannot arise in play raises
        ``UnreachablePositionError`` (an ``IllegalPositionError``) unless ``allow_unreachable``."""
        _, pos = parse_position(text, self.board)
        if not allow_unreachable:
            problems = self.status(pos)
            if problems:
                raise UnreachablePositionError(f"position cannot arise in play under {self.rules_name} "
                                               f"({'; '.join(problems)})", text)
        return pos

    def format(self, pos: Position) -> str:
        return format_position(self.board, pos)

    def to_move(self, pos: Position) -> str:
        return pos.to_move

    def legal_moves(self, pos: Position) -> list[int]:
        return [move.cell for move in self._analyse(pos).moves]

    def play(self, pos: Position, move: int) -> Position:
        """The position after ``move`` (with its captures); IllegalMoveError if not legal."""
        for candidate in self._analyse(pos).moves:
            if candidate.cell == move:
                return self.result(pos, candidate)
        raise IllegalMoveError(f"illegal move for {COLOUR_NAMES[pos.to_move]} "
                               f"in {self.format(pos)!r} under {self.rules_name}: {self._move_text(move)!r}")

    def terminal_value(self, pos: Position) -> int | None:
        """LOSS when the side to move has no legal move (the last to place wins), else None."""
        return None if self._analyse(pos).moves else LOSS

    def key(self, pos: Position) -> int:
        n = self.board.size
        return pos.black | pos.white << n | (pos.to_move == WHITE) << 2 * n

    def symmetric(self, pos: Position, symmetry: int) -> Position:
        """The image of ``pos`` under the board's ``symmetry`` (same side to move)."""
        transform = self.board.transform
        return Position(transform(pos.black, symmetry), transform(pos.white, symmetry), pos.to_move)

    def canonical_key(self, pos: Position) -> int:
        """The smallest key over the board's symmetries (colours are not swapped)."""
        n = self.board.size
        side = (pos.to_move == WHITE) << 2 * n
        transform = self.board.transform
        return min(transform(pos.black, s) | transform(pos.white, s) << n | side
                   for s in range(len(self.board.symmetries)))

    def from_key(self, key: int) -> Position:
        n = self.board.size
        full = self.board.full
        return Position(key & full, key >> n & full, WHITE if key >> 2 * n else BLACK)

    def move_name(self, move: int) -> str:
        return self.board.cell_name(move)

    def parse_move(self, text: str) -> int:
        return self.board.parse_cell(text)

    # -- richer queries ----------------------------------------------------------------

    def moves(self, pos: Position) -> tuple[Move, ...]:
        """The legal moves with their kind and captures, by ascending cell."""
        return self._analyse(pos).moves

    def result(self, pos: Position, move: Move) -> Position:
        """The position after a move taken from ``moves(pos)``."""
        placed = 1 << move.cell
        if pos.to_move == BLACK:
            return Position(pos.black | placed, pos.white & ~move.captured, WHITE)
        return Position(pos.black & ~move.captured, pos.white | placed, BLACK)

    def children(self, pos: Position) -> list[tuple[Move, Position]]:
        return [(move, self.result(pos, move)) for move in self._analyse(pos).moves]

    def winner(self, pos: Position) -> str | None:
        """The winning colour if the game is over, else None."""
        return opponent(pos.to_move) if not self._analyse(pos).moves else None

    def groups(self, pos: Position, colour: str) -> tuple[Group, ...]:
        """The groups of ``colour``, with holdings and liveness, ordered by lowest cell."""
        return self._side_of(pos, colour).groups

    def holdings(self, pos: Position, colour: str) -> int:
        """Bitboard of the cells held by ``colour`` (any content)."""
        return self._side_of(pos, colour).holdings

    def playable(self, pos: Position, colour: str) -> int:
        """Bitboard of the cells ``colour`` could place on (before the move-kind rules)."""
        return self._side_of(pos, colour).playable

    def live_groups(self, pos: Position, colour: str) -> tuple[Group, ...]:
        return tuple(g for g in self.groups(pos, colour) if g.live)

    def status(self, pos: Position) -> tuple[str, ...]:
        """Why ``pos`` cannot arise in play under these rules; empty when it can.

        Sound checks only (each is an invariant of play, proved in docs/smallholder.md):
        the player who just moved has a stone unless nobody has moved; under
        ``piecewise`` capture no stone lies in the opponent's holdings; under
        ``groupwise`` capture no group lies entirely inside the opponent's holdings.
        """
        problems = []
        if pos.black & pos.white:
            problems.append("a cell holds both colours")
        last = opponent(pos.to_move)
        if not pos.waiter and (pos.mover or pos.to_move == WHITE):
            problems.append(f"{COLOUR_NAMES[last]} has just moved but has no stone")
        for colour in (pos.to_move, last):
            enemy = self._side_of(pos, opponent(colour))
            stones = pos.stones(colour)
            if self.rules.capture == "piecewise":
                inside = stones & enemy.holdings
                if inside:
                    problems.append(f"{COLOUR_NAMES[colour]} stones in {COLOUR_NAMES[opponent(colour)]}'s "
                                    f"holdings would have been captured: {self._names(inside)}")
            else:
                for group in self._side_of(pos, colour).groups:
                    if not group.stones & ~enemy.holdings:
                        problems.append(f"{COLOUR_NAMES[colour]} group {self._names(group.stones)} inside "
                                        f"{COLOUR_NAMES[opponent(colour)]}'s holdings would have been captured")
        return tuple(problems)

    # -- the engine --------------------------------------------------------------------

    def _names(self, mask: int) -> str:
        return " ".join(self.board.names[i] for i in bits(mask))

    def _move_text(self, move: int) -> str:
        return self.board.names[move] if 0 <= move < self.board.size else str(move)

    def _side_of(self, pos: Position, colour: str) -> _Side:
        analysis = self._analyse(pos)
        return analysis.mover if colour == pos.to_move else analysis.waiter

    def _holdings_of(self, sight: tuple[int, ...]) -> int:
        held = 0
        for a, b in self._pairs:
            held |= sight[a] & sight[b]
        return held

    def _groups_of(self, stones: int) -> list[tuple[int, int, tuple[int, ...], int]]:
        """Flood-fill ``stones`` into groups: (stones, border, sight, holdings) each."""
        neighbour_mask = self.board.neighbour_mask
        opposite_rays = self._opposite_rays
        found = []
        rest = stones
        while rest:
            group = frontier = rest & -rest
            reach = 0
            while frontier:
                grown = 0
                for cell in bits(frontier):
                    grown |= neighbour_mask[cell]
                reach |= grown
                frontier = grown & rest & ~group
                group |= frontier
            rest &= ~group
            sight = [0] * 6
            for cell in bits(group):
                for d in range(6):
                    sight[d] |= opposite_rays[d][cell]
            fixed = tuple(sight)
            found.append((group, reach & ~group, fixed, self._holdings_of(fixed)))
        return found

    def _side(self, raw: list[tuple[int, int, tuple[int, ...], int]], enemy_holdings: int, empty: int) -> _Side:
        playable = empty & ~enemy_holdings
        if self.rules.reentry:
            for _, border, _, _ in raw:
                playable |= border & empty
        groups = tuple(Group(stones, border, sight, held, bool(border & playable))
                       for stones, border, sight, held in raw)
        return _Side(groups, _union(g.holdings for g in groups), playable)

    def _analyse_uncached(self, pos: Position) -> _Analysis:
        own, enemy = pos.mover, pos.waiter
        empty = self.board.full & ~(own | enemy)
        own_raw, enemy_raw = self._groups_of(own), self._groups_of(enemy)
        # Playability for one side depends on the other side's holdings.
        mover = self._side(own_raw, _union(g[3] for g in enemy_raw), empty)
        waiter = self._side(enemy_raw, _union(g[3] for g in own_raw), empty)
        return _Analysis(mover, waiter, self._generate(mover, waiter, own, enemy))

    def _generate(self, mover: _Side, waiter: _Side, own: int, enemy: int) -> tuple[Move, ...]:
        rules = self.rules
        neighbour_mask = self.board.neighbour_mask
        creates: list[int] = []
        extends: list[tuple[int, list[Group]]] = []
        live_sizes = [g.size for g in mover.groups if g.live]
        all_sizes = [g.size for g in mover.groups]
        # m and m' of docs/smallholder.md (The option axes); a neighbour group of a playable cell is live, so its
        # size is >= m (>= m'), which makes "<= m" and "== m" the same test.
        smallest = min(live_sizes if rules.adjacent.startswith("smallest-playable") else all_sizes, default=0)
        every = rules.adjacent.endswith("-only")
        for cell in bits(mover.playable):
            near = neighbour_mask[cell]
            if not near & own:
                creates.append(cell)
                continue
            touching = [g for g in mover.groups if g.stones & near]
            sizes_ok = [g.size == smallest for g in touching]
            if all(sizes_ok) if every else any(sizes_ok):
                extends.append((cell, touching))

        count = len(live_sizes) if rules.groups.endswith("-live") else len(all_sizes)
        if rules.groups == "priority-create":
            extend_allowed = not creates
        elif rules.groups.startswith("must-create"):
            extend_allowed = count >= 2
        else:
            extend_allowed = count >= 2 or not creates

        moves = [Move(cell, CREATE, 0) for cell in creates]
        if extend_allowed:
            moves += [Move(cell, EXTEND, self._captured(cell, touching, mover, waiter, enemy))
                      for cell, touching in extends]
        moves.sort(key=lambda m: m.cell)
        return tuple(moves)

    def _captured(self, cell: int, touching: list[Group], mover: _Side, waiter: _Side, enemy: int) -> int:
        """The enemy stones removed by the extension at ``cell`` joining ``touching``."""
        sight = [self._opposite_rays[d][cell] for d in range(6)]
        for group in touching:
            for d in range(6):
                sight[d] |= group.sight[d]
        held = self._holdings_of(tuple(sight))
        for group in mover.groups:
            if not group.stones & self.board.neighbour_mask[cell]:
                held |= group.holdings
        if self.rules.capture == "piecewise":
            return enemy & held
        return _union(g.stones for g in waiter.groups if not g.stones & ~held)


def _union(masks: Iterable[int]) -> int:
    out = 0
    for mask in masks:
        out |= mask
    return out
