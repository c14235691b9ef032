"""Smallholder boards: hexagonal cells in horizontal rows, as bitboard tables.

Cells are numbered in row-major order (top row first, left to right); cell ``i`` is
bit ``i`` of a bitboard. Geometry is worked out once per board in *doubled*
coordinates, where a cell is ``(x, row)`` and its neighbours differ by::

          NNW (-1,-1)   NNE (+1,-1)
    W (-2,0)      cell        E (+2,0)
          SSW (-1,+1)   SSE (+1,+1)

e.g. ``limping2`` (rows 2, 3, 4, 3) laid out with x running across::

        a1  a2              x = 2, 4
      b1  b2  b3            x = 1, 3, 5
    c1  c2  c3  c4          x = 0, 2, 4, 6
      d1  d2  d3            x = 1, 3, 5

Symmetries are derived, not typed in: each of the 12 linear symmetries of the hex
lattice (in cube coordinates: a permutation of ``(q, r, s)``, optionally negated) is
tried, and kept when a translate of the image is the board itself.
"""

from __future__ import annotations

import string
from dataclasses import dataclass, field
from functools import cache
from itertools import permutations

from tablebase.games.base import NotationError
from tablebase.games.bits import chunk_tables, permutation_images

#: Direction indices, counter-clockwise from east: 60 degrees apart, so ``(d + 3) % 6``
#: is the opposite direction and ``(d + 2) % 6`` the one 120 degrees further on.
E, NNE, NNW, W, SSW, SSE = range(6)
DIRECTION_NAMES = ("E", "NNE", "NNW", "W", "SSW", "SSE")
#: Doubled-coordinate steps ``(dx, drow)`` of the six directions.
STEPS = ((2, 0), (1, -1), (-1, -1), (-2, 0), (-1, 1), (1, 1))
#: The three axes, each as its two opposite directions.
AXES = ((E, W), (NNE, SSW), (NNW, SSE))
AXIS_NAMES = ("E-W", "NNE-SSW", "NNW-SSE")

#: Row lengths, top to bottom, of every board the toolkit knows (docs/smallholder.md, Boards).
BOARD_ROWS: dict[str, tuple[int, ...]] = {
    **{f"hex{n}": tuple(range(n, 2 * n)) + tuple(range(2 * n - 2, n - 1, -1)) for n in range(3, 8)},
    **{f"limping{n}": tuple(range(n, 2 * n + 1)) + tuple(range(2 * n - 1, n, -1)) for n in range(2, 5)},
}
DEFAULT_BOARD = "hex4"

#: Bits per chunk of the lookup tables that apply a symmetry to a whole bitboard.
_CHUNK_BITS = 8
_CHUNK_MASK = (1 << _CHUNK_BITS) - 1

Cube = tuple[int, int, int]


@dataclass(frozen=True, eq=False)
class Board:
    """One board shape with every table the rules need, indexed by cell."""

    name: str
    row_lengths: tuple[int, ...]
    #: ``(x, row)`` doubled coordinates of each cell.
    coords: tuple[tuple[int, int], ...] = field(repr=False)
    #: ``(row, column)`` of each cell, both from 0.
    rows_cols: tuple[tuple[int, int], ...] = field(repr=False)
    names: tuple[str, ...] = field(repr=False)
    #: ``neighbours[i]``: the cell indices next to ``i`` (any order).
    neighbours: tuple[tuple[int, ...], ...] = field(repr=False)
    #: ``neighbour_mask[i]``: bitboard of the cells next to ``i``.
    neighbour_mask: tuple[int, ...] = field(repr=False)
    #: ``rays[d][i]``: bitboard of the cells strictly beyond ``i`` in direction ``d``.
    rays: tuple[tuple[int, ...], ...] = field(repr=False)
    #: ``lines[a]``: the maximal lines of cells along axis ``a``, each in order.
    lines: tuple[tuple[tuple[int, ...], ...], ...] = field(repr=False)
    #: Every symmetry as a cell permutation ``perm[i] = image of i``; identity first.
    symmetries: tuple[tuple[int, ...], ...] = field(repr=False)

    @property
    def size(self) -> int:
        return len(self.coords)

    @property
    def full(self) -> int:
        """The bitboard of all cells."""
        return (1 << self.size) - 1

    def cell_name(self, cell: int) -> str:
        """``a1`` is the top-left cell: row letter (from the top), column number (from 1)."""
        if not 0 <= cell < self.size:
            raise NotationError(f"no cell {cell} on {self.name} (cells 0-{self.size - 1}): {cell!r}")
        return self.names[cell]

    def parse_cell(self, text: str) -> int:
        """A cell given by its name (``c3``, any case) or its index (``12``)."""
        token = text.strip().lower()
        if token.isascii() and token.isdigit():  # str.isdigit alone takes other scripts' digits
            if len(token) > 6:
                raise NotationError(f"cell index too large for {self.name} (cells 0-{self.size - 1}): "
                                    f"{text[:20]!r}...")
            cell = int(token)
            if cell < self.size:
                return cell
            raise NotationError(f"cell index {cell} is off the {self.name} board (cells 0-{self.size - 1}): {text!r}")
        index = _name_index(self)
        if token in index:
            return index[token]
        last_row = string.ascii_lowercase[len(self.row_lengths) - 1]
        raise NotationError(f"unknown cell on {self.name} (expected a name a1-{last_row}{self.row_lengths[-1]} "
                            f"or an index 0-{self.size - 1}): {text!r}")

    def transform(self, mask: int, symmetry: int) -> int:
        """The image of bitboard ``mask`` under ``symmetries[symmetry]``."""
        tables = _chunk_tables(self)[symmetry]
        image = 0
        for chunk, table in enumerate(tables):
            image |= table[(mask >> (chunk * _CHUNK_BITS)) & _CHUNK_MASK]
        return image


def bits(mask: int) -> list[int]:
    """The set bit positions of ``mask``, ascending."""
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


def _to_cube(x: int, row: int, parity: int) -> Cube:
    q = (x - row - parity) // 2
    return (q, row, -q - row)


def _lattice_maps() -> list[tuple[tuple[int, ...], int]]:
    """The 12 symmetries of the hex lattice fixing the origin: (coordinate order, sign).

    Permuting cube coordinates (q, r, s) and negating all three keeps q + r + s = 0 and
    maps the six unit steps (permutations of (1, -1, 0)) onto each other.
    """
    return [(order, sign) for order in permutations(range(3)) for sign in (1, -1)]


def _symmetries(cubes: list[Cube]) -> tuple[tuple[int, ...], ...]:
    index = {c: i for i, c in enumerate(cubes)}
    # The lexicographic minimum moves with a translation, so it fixes the translation.
    lowest = min(cubes)
    found: list[tuple[int, ...]] = []
    for order, sign in _lattice_maps():
        image = [(sign * c[order[0]], sign * c[order[1]], sign * c[order[2]]) for c in cubes]
        low = min(image)
        shift = (lowest[0] - low[0], lowest[1] - low[1], lowest[2] - low[2])
        moved = [(a + shift[0], b + shift[1], c + shift[2]) for a, b, c in image]
        if all(m in index for m in moved):
            perm = tuple(index[m] for m in moved)
            if perm not in found:
                found.append(perm)
    identity = tuple(range(len(cubes)))
    found.remove(identity)
    return (identity, *found)


def make_board(name: str, row_lengths: tuple[int, ...]) -> Board:
    """Build the tables of a board from its row lengths (each row one longer or shorter)."""
    widest = max(row_lengths)
    coords = [(widest - length + 2 * col, row)
              for row, length in enumerate(row_lengths) for col in range(length)]
    rows_cols = [(row, col) for row, length in enumerate(row_lengths) for col in range(length)]
    names = [f"{string.ascii_lowercase[row]}{col + 1}" for row, col in rows_cols]
    at = {xy: i for i, xy in enumerate(coords)}

    def walk(cell: int, d: int) -> list[int]:
        (x, row), (dx, dr) = coords[cell], STEPS[d]
        out = []
        while (x + dx, row + dr) in at:
            x, row = x + dx, row + dr
            out.append(at[(x, row)])
        return out

    n = len(coords)
    neighbours = [tuple(at[(x + dx, r + dr)] for dx, dr in STEPS if (x + dx, r + dr) in at) for x, r in coords]
    rays = [[sum(1 << j for j in walk(i, d)) for i in range(n)] for d in range(6)]
    lines = []
    for forward, backward in AXES:
        starts = [i for i in range(n) if not walk(i, backward)]
        lines.append(tuple(tuple([s, *walk(s, forward)]) for s in starts))
    parity = (coords[0][0] - coords[0][1]) % 2
    cubes = [_to_cube(x, r, parity) for x, r in coords]
    return Board(
        name=name,
        row_lengths=row_lengths,
        coords=tuple(coords),
        rows_cols=tuple(rows_cols),
        names=tuple(names),
        neighbours=tuple(neighbours),
        neighbour_mask=tuple(sum(1 << j for j in nb) for nb in neighbours),
        rays=tuple(tuple(r) for r in rays),
        lines=tuple(lines),
        symmetries=_symmetries(cubes),
    )


@cache
def get_board(name: str) -> Board:
    """The board called ``name`` (``hex3`` .. ``hex7``, ``limping2`` .. ``limping4``)."""
    rows = BOARD_ROWS.get(name)
    if rows is None:
        raise NotationError(f"unknown board (known: {', '.join(BOARD_ROWS)}): {name!r}")
    return make_board(name, rows)


def board_for_rows(row_lengths: tuple[int, ...]) -> Board | None:
    """The known board with these row lengths, or None."""
    for name, rows in BOARD_ROWS.items():
        if rows == row_lengths:
            return get_board(name)
    return None


@cache
def _name_index(board: Board) -> dict[str, int]:
    return {name: i for i, name in enumerate(board.names)}


@cache
def _chunk_tables(board: Board) -> tuple[tuple[tuple[int, ...], ...], ...]:
    """Per symmetry and 8-cell chunk, the image of each of the 256 chunk values."""
    return tuple(tuple(tuple(table) for table in chunk_tables(permutation_images(perm), _CHUNK_BITS))
                 for perm in board.symmetries)
