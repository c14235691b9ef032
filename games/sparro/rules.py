"""Sparro rules: positions, legal moves, game end, notation, symmetry (RULES.md section 1).

A position is the red and black bitmasks over the 24 playable cells plus, in the
extended variants, who holds the tie-breaker token. Its integer key is
``red | black << 24 | red_has_token << 48``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from tablebase.games.base import DRAW, LOSS, WIN, IllegalPositionError, NotationError
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
    """The rules of one Sparro variant (see RULES.md 1.3-1.4)."""

    game_name: Final = "sparro"

    def __init__(self, variant: str = "standard") -> None:
        if variant not in NAMED_VARIANTS:
            raise NotationError(f"unknown sparro variant, expected one of {', '.join(NAMED_VARIANTS)}: {variant!r}")
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
            raise ValueError(f"illegal move {CELL_NAMES[move] if 0 <= move < NUM_CELLS else move} "
                             f"in {self.format(pos)!r}")
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

    def parse(self, text: str) -> SparroPosition:
        """Read a position (RULES.md 1.6); raise NotationError naming what is wrong."""
        pos = self._parse_syntax(text)
        problem = self.illegality(pos)
        if problem:
            raise IllegalPositionError(f"{problem}: {text!r}")
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


def _colour(letter: str) -> str:
    return "red" if letter == RED else "black"


def _mask(cells: frozenset[int]) -> int:
    return sum(1 << i for i in cells)


_CORNER_MASK: Final = _mask(CORNER_CELLS)
_EDGE_CENTRE_MASK: Final = _mask(EDGE_CENTRE_CELLS)


__all__ = ["Sparro", "SparroPosition", "SparroResult", "VARIANTS", "CELLS", "count_lines", "available_cells"]
