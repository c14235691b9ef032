"""Sparro board geometry: the lower three levels of a Shibumi pyramid.

    level 0 (4x4)        level 1 (3x3)      level 2 (2x2)
      a b c d              a b c              a b
    1 0 1 2 3            1 12 13 14         1 20 21
    2 4 o o 5            2 15  o 16         2 22 23
    3 6 o o 7            3 17 18 19
    4 8 9 10 11

``o`` marks the five fixed white marbles. Numbers are the standard cell indices
(docs/sparro.md, Notation): level by level, row-major, whites skipped. A cell's name is its level,
column letter and row number: ``0a1`` is index 0, ``1b3`` index 18, ``2b2`` index 23.

Everything here is derived once at import time from the rule text; nothing is typed in
as a table of numbers.
"""

from __future__ import annotations

from typing import Final

from tablebase.games.bits import chunk_tables, permutation_images

Cell = tuple[int, int, int]  # (level, row, col)

LEVELS: Final = 3
WHITE_CELLS: Final[frozenset[Cell]] = frozenset({(0, 1, 1), (0, 1, 2), (0, 2, 1), (0, 2, 2), (1, 1, 1)})


def _level_size(level: int) -> int:
    return 4 - level


#: The 24 playable cells in standard cell order.
CELLS: Final[tuple[Cell, ...]] = tuple(
    (level, row, col)
    for level in range(LEVELS)
    for row in range(_level_size(level))
    for col in range(_level_size(level))
    if (level, row, col) not in WHITE_CELLS
)
NUM_CELLS: Final = len(CELLS)
INDEX: Final[dict[Cell, int]] = {cell: i for i, cell in enumerate(CELLS)}
FULL_MASK: Final = (1 << NUM_CELLS) - 1


def cell_name(index: int) -> str:
    level, row, col = CELLS[index]
    return f"{level}{'abcd'[col]}{row + 1}"


CELL_NAMES: Final[tuple[str, ...]] = tuple(cell_name(i) for i in range(NUM_CELLS))


def _platform(cell: Cell) -> tuple[Cell, ...]:
    level, row, col = cell
    if level == 0:
        return ()
    return tuple((level - 1, row + dr, col + dc) for dr in (0, 1) for dc in (0, 1))


#: For each cell, the bitmask of playable cells its platform needs (whites are always
#: there, so they are left out); 0 for level-0 cells.
PLATFORM_MASKS: Final[tuple[int, ...]] = tuple(
    sum(1 << INDEX[below] for below in _platform(cell) if below not in WHITE_CELLS) for cell in CELLS
)

CORNER_CELLS: Final[frozenset[int]] = frozenset(INDEX[(0, r, c)] for r in (0, 3) for c in (0, 3))
EDGE_CENTRE_CELLS: Final[frozenset[int]] = frozenset(
    i for i, (level, _, _) in enumerate(CELLS) if level == 0 and i not in CORNER_CELLS
)


def _face_rows(face: str) -> list[list[Cell]]:
    """The three rows F0, F1, F2 of a face, each read along the face in one direction."""
    rows = []
    for level in range(LEVELS):
        n = _level_size(level)
        if face == "north":
            rows.append([(level, 0, k) for k in range(n)])
        elif face == "south":
            rows.append([(level, n - 1, k) for k in range(n)])
        elif face == "west":
            rows.append([(level, k, 0) for k in range(n)])
        else:  # east
            rows.append([(level, k, n - 1) for k in range(n)])
    return rows


def _face_lines(face: str) -> list[tuple[Cell, Cell, Cell]]:
    f0, f1, f2 = _face_rows(face)
    lines = [(f0[0], f0[1], f0[2]), (f0[1], f0[2], f0[3]), (f1[0], f1[1], f1[2])]
    lines += [(f0[j], f1[j], f2[j]) for j in (0, 1)]
    lines += [(f0[j + 1], f1[j], f2[j - 1]) for j in (1, 2)]
    return lines


FACES: Final = ("north", "east", "south", "west")

#: The 24 distinct lines as bitmasks, sorted. Ridge lines shared by two faces appear once.
LINE_MASKS: Final[tuple[int, ...]] = tuple(
    sorted({sum(1 << INDEX[cell] for cell in line) for face in FACES for line in _face_lines(face)})
)

#: For each cell, the lines through it.
LINES_THROUGH: Final[tuple[tuple[int, ...], ...]] = tuple(
    tuple(line for line in LINE_MASKS if line >> i & 1) for i in range(NUM_CELLS)
)


def _square_symmetries() -> list:
    """The 8 symmetries of an n x n square as functions (n, row, col) -> (row, col)."""

    def make(rotations: int, reflect: bool):
        def apply(n: int, row: int, col: int) -> tuple[int, int]:
            if reflect:
                col = n - 1 - col
            for _ in range(rotations):
                row, col = col, n - 1 - row
            return row, col

        return apply

    return [make(k, reflect) for reflect in (False, True) for k in range(4)]


def _symmetry_permutation(transform) -> tuple[int, ...]:
    perm = []
    for level, row, col in CELLS:
        r, c = transform(_level_size(level), row, col)
        perm.append(INDEX[(level, r, c)])
    return tuple(perm)


#: SYMMETRIES[s][i] is the cell that symmetry s sends cell i to. Index 0 is the identity.
SYMMETRIES: Final[tuple[tuple[int, ...], ...]] = tuple(
    _symmetry_permutation(t) for t in _square_symmetries()
)

#: The 180-degree rotation, (L, r, c) -> (L, 3-L-r, 3-L-c): the mirror strategy's map.
ROTATE_180: Final = SYMMETRIES[2]


def permute_mask(mask: int, perm: tuple[int, ...]) -> int:
    """The bitmask whose bit ``perm[i]`` is bit ``i`` of ``mask``."""
    out = 0
    while mask:
        low = mask & -mask
        out |= 1 << perm[low.bit_length() - 1]
        mask ^= low
    return out


def _byte_tables() -> tuple[tuple[tuple[int, ...], ...], ...]:
    """BYTE_IMAGES[s][j][b]: where symmetry s sends byte j (cells 8j..8j+7) holding b."""
    return tuple(tuple(tuple(table) for table in chunk_tables(permutation_images(perm), 8)) for perm in SYMMETRIES)


BYTE_IMAGES: Final = _byte_tables()


def symmetric_mask(mask: int, symmetry: int) -> int:
    """``permute_mask(mask, SYMMETRIES[symmetry])`` through byte tables (it runs per search node)."""
    t0, t1, t2 = BYTE_IMAGES[symmetry]
    return t0[mask & 255] | t1[mask >> 8 & 255] | t2[mask >> 16]
