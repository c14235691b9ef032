"""Sparro rules: positions, legal moves, game end, notation, symmetry (docs/sparro.md).

A position is the red and black bitmasks over the 24 playable cells plus, in the
extended variants, who holds the tie-breaker token. Its integer key is
``red | black << 24 | red_has_token << 48``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from tablebase.games.base import (
    DRAW, LOSS, WIN, IllegalMoveError, IllegalPositionError, NotationError, UnreachablePositionError)
from tablebase.games.sparro.geometry import (
    CELL_NAMES,
    CELLS,
    CORNER_CELLS,
    EDGE_CENTRE_CELLS,
    FULL_MASK,
    LINE_MASKS,
    LINES_THROUGH,
    NUM_CELLS,
    PLATFORM_MASKS,
    SYMMETRIES,
    symmetric_mask,
)

VARIANTS: Final = ("standard", "extended", "extended-unrestricted")
#: `standard` without Black's compensation: a full board with no line is a draw. Not a
#: published rule set, but a named variant like the others (it can be solved, probed and
#: compared), so that what the compensation rule decides can be measured.
NO_COMPENSATION: Final = "standard-no-compensation"
HYPOTHETICAL_VARIANTS: Final = (NO_COMPENSATION,)
#: Every variant the rules engine knows: the published ones, then the hypothetical one.
NAMED_VARIANTS: Final = VARIANTS + HYPOTHETICAL_VARIANTS
#: Bumped whenever a rule change could change any position's value (stored tables record it).
RULES_VERSION: Final = "sparro-1"
RED: Final = "R"
BLACK: Final = "B"
MARBLES_PER_PLAYER: Final = 12
GROUP_SIZES: Final = (12, 8, 4)  # playable cells on levels 0, 1, 2
TOKEN_SHIFT: Final = 2 * NUM_CELLS
MAX_NOTATION_LENGTH: Final = 64


@dataclass(frozen=True, slots=True)
class SparroPosition:
    """An immutable Sparro position. ``red_has_token`` is always False in `standard`."""

    red: int
    black: int
    red_has_token: bool = False

    @property
    def occupied(self) -> int:
        return self.red | self.black

    @property
    def marbles(self) -> int:
        return self.red.bit_count() + self.black.bit_count()

    @property
    def to_move(self) -> str:
        return RED if self.red.bit_count() == self.black.bit_count() else BLACK

    @property
    def token(self) -> str:
        return RED if self.red_has_token else BLACK


@dataclass(frozen=True, slots=True)
class SparroResult:
    """How a finished game ended."""

    winner: str | None  # None for a draw (only in the hypothetical no-compensation variant)
    red_lines: int
    black_lines: int
    token: str


def count_lines(mask: int) -> int:
    """How many of the 24 lines lie entirely inside ``mask``."""
    return sum(1 for line in LINE_MASKS if mask & line == line)


_BASE_MASK: Final = sum(1 << i for i, platform in enumerate(PLATFORM_MASKS) if platform == 0)
_UPPER_CELLS: Final = tuple((1 << i, platform) for i, platform in enumerate(PLATFORM_MASKS) if platform)


def available_cells(occupied: int) -> int:
    """Bitmask of the empty cells whose platform is complete."""
    free = _BASE_MASK & ~occupied
    for bit, platform in _UPPER_CELLS:
        if not occupied & bit and occupied & platform == platform:
            free |= bit
    return free


def completes_line(mask: int, cell: int) -> bool:
    """Whether a marble on ``cell`` completes a line of ``mask``'s colour (``mask`` holds it)."""
    return any(mask & line == line for line in LINES_THROUGH[cell])


class Sparro:
    """The rules of one Sparro variant (docs/sparro.md, Variants)."""

    game_name: Final = "sparro"

    def __init__(self, variant: str = "standard") -> None:
        if variant not in NAMED_VARIANTS:
            raise NotationError(f"unknown sparro variant (known: {', '.join(NAMED_VARIANTS)}): {variant!r}")
        self.variant = variant
        self.rules_name = variant
        self.extended = variant.startswith("extended")
        self.full_board_winner: str | None = None if variant == NO_COMPENSATION else BLACK
        self.first_move_rule = variant == "extended"

    def __repr__(self) -> str:
        return f"Sparro({self.variant!r})"

    # -- positions -------------------------------------------------------------

    def start(self) -> SparroPosition:
        return SparroPosition(0, 0, False)

    def to_move(self, pos: SparroPosition) -> str:
        return pos.to_move

    def key(self, pos: SparroPosition) -> int:
        return pos.red | pos.black << NUM_CELLS | int(pos.red_has_token) << TOKEN_SHIFT

    def from_key(self, key: int) -> SparroPosition:
        return SparroPosition(key & FULL_MASK, key >> NUM_CELLS & FULL_MASK, bool(key >> TOKEN_SHIFT & 1))

    def symmetric(self, pos: SparroPosition, symmetry: int) -> SparroPosition:
        return SparroPosition(symmetric_mask(pos.red, symmetry), symmetric_mask(pos.black, symmetry),
                              pos.red_has_token)

    def canonical_key(self, pos: SparroPosition) -> int:
        red, black = pos.red, pos.black
        board = min(symmetric_mask(red, s) | symmetric_mask(black, s) << NUM_CELLS for s in range(len(SYMMETRIES)))
        return board | int(pos.red_has_token) << TOKEN_SHIFT

    # -- play ------------------------------------------------------------------

    def result(self, pos: SparroPosition) -> SparroResult | None:
        """The result if the game is over, else None."""
        full = pos.occupied == FULL_MASK
        if self.extended and not full:
            return None
        red_lines, black_lines = count_lines(pos.red), count_lines(pos.black)
        if not self.extended:
            if red_lines:
                return SparroResult(RED, red_lines, black_lines, BLACK)
            if black_lines:
                return SparroResult(BLACK, red_lines, black_lines, BLACK)
            if full:
                return SparroResult(self.full_board_winner, 0, 0, BLACK)  # no line: Black wins
            return None
        if red_lines != black_lines:
            winner = RED if red_lines > black_lines else BLACK
        else:
            winner = pos.token
        return SparroResult(winner, red_lines, black_lines, pos.token)

    def terminal_value(self, pos: SparroPosition) -> int | None:
        result = self.result(pos)
        if result is None:
            return None
        if result.winner is None:
            return DRAW
        return WIN if result.winner == pos.to_move else LOSS

    def legal_mask(self, pos: SparroPosition) -> int:
        """Bitmask of the cells the side to move may play (0 when the game is over)."""
        if self.result(pos) is not None:
            return 0
        free = available_cells(pos.occupied)
        if self.first_move_rule and pos.marbles == 1:
            free &= _EDGE_CENTRE_MASK if pos.red & _CORNER_MASK else _CORNER_MASK
        return free

    def legal_moves(self, pos: SparroPosition) -> list[int]:
        free = self.legal_mask(pos)
        return [i for i in range(NUM_CELLS) if free >> i & 1]

    def play(self, pos: SparroPosition, move: int) -> SparroPosition:
        if not (0 <= move < NUM_CELLS and self.legal_mask(pos) >> move & 1):
            side = "Red" if pos.to_move == RED else "Black"
            raise IllegalMoveError(f"illegal move for {side} in {self.format(pos)!r} "
                                   f"under {self.variant}: "
                                   f"{CELL_NAMES[move] if 0 <= move < NUM_CELLS else str(move)!r}")
        bit = 1 << move
        if pos.to_move == RED:
            red, black = pos.red | bit, pos.black
            token = pos.red_has_token or (self.extended and completes_line(red, move))
        else:
            red, black = pos.red, pos.black | bit
            token = pos.red_has_token and not (self.extended and completes_line(black, move))
        return SparroPosition(red, black, token)

    # -- notation --------------------------------------------------------------

    def move_name(self, move: int) -> str:
        return CELL_NAMES[move]

    def parse_move(self, text: str) -> int:
        word = text.strip().lower()
        if word.isascii() and word.isdigit() and len(word) <= 2 and int(word) < NUM_CELLS:
            return int(word)
        if word in CELL_NAMES:
            return CELL_NAMES.index(word)
        shown = repr(text) if len(text) <= MAX_NOTATION_LENGTH else repr(text[:MAX_NOTATION_LENGTH]) + "..."
        raise NotationError(f"expected a cell name (0a1 .. 2b2, see 'tablebase show sparro') or an index 0-23: {shown}")

    def format(self, pos: SparroPosition) -> str:
        chars = ["R" if pos.red >> i & 1 else "B" if pos.black >> i & 1 else "." for i in range(NUM_CELLS)]
        board = "/".join(["".join(chars[:12]), "".join(chars[12:20]), "".join(chars[20:])])
        return f"{board} {pos.token}" if self.extended else board

    def parse(self, text: str, allow_unreachable: bool = False) -> SparroPosition:
        """Read a position (docs/sparro.md, Notation); raise NotationError naming what is wrong.

        A legal position that no game reaches (see `unreachability`) raises
        IllegalPositionError too, unless ``allow_unreachable``.
        """
        pos = self._parse_syntax(text)
        problem = self.illegality(pos)
        if problem:
            raise IllegalPositionError(f"{problem}: {text!r}")
        if not allow_unreachable:
            problem = self.unreachability(pos)
            if problem:
                raise UnreachablePositionError(f"position cannot arise in play under {self.variant} ({problem})",
                                               text)
        return pos

    def _parse_syntax(self, text: str) -> SparroPosition:
        if len(text) > MAX_NOTATION_LENGTH:
            raise NotationError(f"position text too long ({len(text)} characters): {text[:MAX_NOTATION_LENGTH]!r}...")
        words = text.split()
        if not words:
            raise NotationError(f"empty position, expected e.g. '............/......../....': {text!r}")
        if len(words) > 2:
            raise NotationError(f"expected the board and at most a token holder, found {len(words)} words: {text!r}")
        board = words[0]
        token = words[1] if len(words) == 2 else BLACK
        if len(words) == 2 and not self.extended:
            raise NotationError(f"a token holder is only written in the extended variants: {text!r}")
        if token not in (RED, BLACK):
            raise NotationError(f"token holder must be 'R' or 'B', found {token!r}: {text!r}")
        groups = board.split("/")
        if len(groups) != 3:
            raise NotationError(f"expected 3 groups separated by '/', found {len(groups)}: {text!r}")
        offset = text.index(board)
        red = black = 0
        cell = 0
        for level, (group, size) in enumerate(zip(groups, GROUP_SIZES)):
            for ch in group:
                if ch not in "RB.":
                    raise NotationError(f"unknown character {ch!r} at offset {offset}, expected R, B or '.': {text!r}")
                offset += 1
            if len(group) != size:
                raise NotationError(f"level {level} needs {size} cells, found {len(group)}: {text!r}")
            offset += 1
            for ch in group:
                if ch == "R":
                    red |= 1 << cell
                elif ch == "B":
                    black |= 1 << cell
                cell += 1
        return SparroPosition(red, black, token == RED)

    def illegality(self, pos: SparroPosition) -> str | None:
        """Why ``pos`` is not a legal position of this variant, or None if it is."""
        for i, platform in enumerate(PLATFORM_MASKS):
            if pos.occupied >> i & 1 and pos.occupied & platform != platform:
                missing = ", ".join(CELL_NAMES[j] for j in range(NUM_CELLS) if platform >> j & 1 and not pos.occupied >> j & 1)
                return f"marble on {CELL_NAMES[i]} floats: its platform lacks {missing}"
        reds, blacks = pos.red.bit_count(), pos.black.bit_count()
        if reds not in (blacks, blacks + 1):
            return f"red has {reds} marbles and black {blacks}; red must have as many or one more"
        red_lines, black_lines = count_lines(pos.red), count_lines(pos.black)
        if not self.extended:
            if pos.red_has_token:
                return "the standard variant has no token"
            last_mover_lines, to_move_lines = (red_lines, black_lines) if pos.to_move == BLACK else (black_lines, red_lines)
            if to_move_lines:
                both = "both players have a line" if last_mover_lines else f"{_colour(pos.to_move)} has a line but is to move"
                return f"{both}; the game would have ended at the first line"
            return None
        if red_lines and not black_lines and not pos.red_has_token:
            return "only red has lines, so red must hold the token"
        if not red_lines and pos.red_has_token:
            return "red holds the token without having made a line"
        return None


    def unreachability(self, pos: SparroPosition) -> str | None:
        """Why no game of this variant reaches the legal position ``pos``, or None if one does.

        A game reaches ``pos`` when its marbles can be placed one by one, Red first and in
        turn, each on a complete platform, under the variant's rules: in `standard` the
        game ends at the first line, so a position with a line is reachable only if one
        marble of the last mover lies on every line, can be taken back (nothing rests on
        it) and leaves a reachable position with no line; in `extended` Black's first
        marble obeys the first-move rule; in the extended variants the token must be with
        whoever completed the last new line. The answer is exact: a search over the orders
        in which the marbles could have been placed (each sub-position tried once).
        """
        red, black = pos.red, pos.black
        if not self.extended:
            problem = _line_problem(pos)
            if problem:
                return problem
            last_mover = red if pos.to_move == BLACK else black
            if not count_lines(last_mover):
                return None if _placeable(red, black, False) else _UNPLACEABLE
            # the line's last marble: taken back, it leaves a position without a line
            if any(_placeable(red & ~bit, black & ~bit, False) for bit in _last_marbles(pos)):
                return None
            return f"{_UNPLACEABLE}, before the line is completed"
        both_have_lines = bool(count_lines(red) and count_lines(black))
        if both_have_lines:  # the token says who completed the last new line: the order matters
            if _placeable(red, black, self.first_move_rule, pos.red_has_token):
                return None
        elif _placeable(red, black, self.first_move_rule):  # the token is forced (``illegality``)
            return None
        if self.first_move_rule and _placeable(red, black, False, pos.red_has_token if both_have_lines else None):
            return ("Black's first marble must be on an edge-centre cell after a red corner and on a corner "
                    "after a red edge-centre cell, and no such game reaches it")
        if both_have_lines and _placeable(red, black, self.first_move_rule):
            holder, other = (RED, BLACK) if pos.red_has_token else (BLACK, RED)
            return (f"{_colour(holder)} holds the token, but in every game reaching it {_colour(other)} "
                    f"completes the last new line")
        return _UNPLACEABLE


_UNPLACEABLE: Final = "its marbles cannot be placed in turn, Red first, each on a complete platform"


def _line_problem(pos: SparroPosition) -> str | None:
    """In `standard`: why the last mover's lines cannot be the game's end, or None.

    ``illegality`` has already made sure that only the last mover has lines.
    """
    mover, marbles = (RED, pos.red) if pos.to_move == BLACK else (BLACK, pos.black)
    lines = [line for line in LINE_MASKS if marbles & line == line]
    if not lines:
        return None
    shared = marbles
    for line in lines:
        shared &= line
    if not shared:
        return f"{_colour(mover)} has lines that share no marble, and the game ends at the first line"
    free = [cell for cell in range(NUM_CELLS) if shared >> cell & 1 and not _resting_on(pos.occupied, cell)]
    if not free:
        cells = ", ".join(CELL_NAMES[cell] for cell in range(NUM_CELLS) if shared >> cell & 1)
        lines_text = f"{_colour(mover)}'s line{'s' if len(lines) > 1 else ''}"
        if shared.bit_count() == 1:
            return f"a marble rests on {cells}, the last marble of {lines_text}: it was played after the game ended"
        return (f"marbles rest on each of {cells}, the marbles that could have completed {lines_text}: "
                f"one was played after the game ended")
    return None


def _resting_on(occupied: int, cell: int) -> bool:
    """Whether an occupied cell has ``cell`` in its platform."""
    return any(occupied >> upper & 1 and PLATFORM_MASKS[upper] >> cell & 1 for upper in range(NUM_CELLS))


def _last_marbles(pos: SparroPosition) -> list[int]:
    """The marbles (as bits) of the last mover that could have been placed last: on every
    one of their lines, with nothing resting on them."""
    marbles = pos.red if pos.to_move == BLACK else pos.black
    shared = marbles
    for line in LINE_MASKS:
        if marbles & line == line:
            shared &= line
    return [1 << cell for cell in range(NUM_CELLS) if shared >> cell & 1 and not _resting_on(pos.occupied, cell)]


def _placeable(goal_red: int, goal_black: int, first_move_rule: bool, goal_token: bool | None = None) -> bool:
    """Whether the marbles of ``goal_red`` and ``goal_black`` can be placed one by one, Red
    first and in turn, each on a complete platform (Black's first marble by the extended
    first-move rule if asked). With ``goal_token`` (whether Red holds it at the end), the
    token is passed as in the extended variants and must end there; else lines are not
    looked at.

    A depth-first search over the orders of placement, each sub-position tried at most
    once; upper cells first (placing one as soon as it can be never hurts).
    """
    dead: set[int] = set()
    track = goal_token is not None
    token_bit = 1 << TOKEN_SHIFT

    def walk(red: int, black: int, token: bool) -> bool:
        if red == goal_red and black == goal_black:
            return not track or token == goal_token
        key = red | black << NUM_CELLS | (token_bit if token else 0)
        if key in dead:
            return False
        red_turn = red.bit_count() == black.bit_count()
        wanted = available_cells(red | black) & ((goal_red & ~red) if red_turn else (goal_black & ~black))
        if first_move_rule and not red_turn and not black and red.bit_count() == 1:
            wanted &= _EDGE_CENTRE_MASK if red & _CORNER_MASK else _CORNER_MASK
        while wanted:
            cell = wanted.bit_length() - 1
            bit = 1 << cell
            wanted ^= bit
            if red_turn:
                after = token or (track and completes_line(red | bit, cell))
                if walk(red | bit, black, after):
                    return True
            else:
                after = token and not (track and completes_line(black | bit, cell))
                if walk(red, black | bit, after):
                    return True
        dead.add(key)
        return False

    return walk(0, 0, False)


def _colour(letter: str) -> str:
    return "red" if letter == RED else "black"


def _mask(cells: frozenset[int]) -> int:
    return sum(1 << i for i in cells)


_CORNER_MASK: Final = _mask(CORNER_CELLS)
_EDGE_CENTRE_MASK: Final = _mask(EDGE_CENTRE_CELLS)


__all__ = ["Sparro", "SparroPosition", "SparroResult", "VARIANTS", "CELLS", "count_lines", "available_cells"]
