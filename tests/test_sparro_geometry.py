"""Sparro geometry (games/sparro/geometry.py) against a brute-force 3-D derivation.

The reference, tests/sparro_naive.py, places unit spheres in a close-packed pyramid and
derives platforms (touching marbles one level down), lines (three touching marbles in a
straight row on one outer face plane) and the 8 symmetries (isometries of the plane
about the vertical axis) from the sphere centres alone.

    level 0 (4x4)        level 1 (3x3)      level 2 (2x2)
      a b c d              a b c              a b
    1 0 1 2 3            1 12 13 14         1 20 21
    2 4 o o 5            2 15  o 16         2 22 23
    3 6 o o 7            3 17 18 19
    4 8 9 10 11
"""

from __future__ import annotations

import itertools

import pytest

import sparro_naive as naive
from tablebase.games.sparro import geometry as g

INDEX = {cell: i for i, cell in enumerate(naive.PLAYABLE)}


def mask_of(cells) -> int:
    return sum(1 << INDEX[cell] for cell in cells)


# -- cells ---------------------------------------------------------------------------

def test_cell_order_matches_naive() -> None:
    assert g.NUM_CELLS == 24
    assert list(g.CELLS) == naive.PLAYABLE
    assert g.FULL_MASK == (1 << 24) - 1
    assert all(g.INDEX[cell] == i for i, cell in enumerate(g.CELLS))


@pytest.mark.parametrize("index, cell", [
    (0, (0, 0, 0)), (3, (0, 0, 3)), (4, (0, 1, 0)), (5, (0, 1, 3)), (6, (0, 2, 0)), (7, (0, 2, 3)),
    (8, (0, 3, 0)), (11, (0, 3, 3)), (12, (1, 0, 0)), (14, (1, 0, 2)), (15, (1, 1, 0)), (16, (1, 1, 2)),
    (19, (1, 2, 2)), (20, (2, 0, 0)), (21, (2, 0, 1)), (22, (2, 1, 0)), (23, (2, 1, 1)),
])
def test_standard_order_spot_checks(index: int, cell: tuple[int, int, int]) -> None:
    assert g.CELLS[index] == cell


def test_level_counts_and_whites() -> None:
    per_level = [sum(1 for cell in g.CELLS if cell[0] == level) for level in range(3)]
    assert per_level == [12, 8, 4]
    assert g.WHITE_CELLS == naive.WHITES
    assert not set(g.CELLS) & naive.WHITES


def test_corners_and_edge_centres() -> None:
    corners = {(0, 0, 0), (0, 0, 3), (0, 3, 0), (0, 3, 3)}
    assert {g.CELLS[i] for i in g.CORNER_CELLS} == corners == naive.CORNERS
    assert len(g.EDGE_CENTRE_CELLS) == 8
    assert {g.CELLS[i] for i in g.EDGE_CENTRE_CELLS} == naive.EDGE_CENTRES
    assert sorted(g.EDGE_CENTRE_CELLS) == [1, 2, 4, 5, 6, 7, 9, 10]


@pytest.mark.parametrize("index, name", [(0, "0a1"), (3, "0d1"), (4, "0a2"), (11, "0d4"),
                                         (12, "1a1"), (18, "1b3"), (19, "1c3"), (20, "2a1"), (23, "2b2")])
def test_cell_names(index: int, name: str) -> None:
    assert g.CELL_NAMES[index] == name
    assert g.cell_name(index) == name


def test_cell_names_unique() -> None:
    assert len(set(g.CELL_NAMES)) == 24


# -- platforms -------------------------------------------------------------------------

def test_naive_platforms_are_four_cells() -> None:
    # Sanity of the reference itself: every upper marble touches exactly 4 below.
    for cell in naive.ALL_CELLS:
        assert len(naive.platform(cell)) == (0 if cell[0] == 0 else 4)


@pytest.mark.parametrize("index", range(24))
def test_platform_masks_match_3d_derivation(index: int) -> None:
    cell = naive.PLAYABLE[index]
    expected = mask_of(d for d in naive.platform(cell) if d not in naive.WHITES)
    assert g.PLATFORM_MASKS[index] == expected


@pytest.mark.parametrize("name, below", [
    ("1a1", {"0a1", "0b1", "0a2"}),            # (0,1,1) is white
    ("1b1", {"0b1", "0c1"}),                   # two whites underneath
    ("1b2", None),                             # white itself: not a playable cell
    ("2a1", {"1a1", "1b1", "1a2"}),            # (1,1,1) is white
    ("2b2", {"1b2", "1c2", "1b3", "1c3"} - {"1b2"}),
])
def test_platform_examples(name: str, below: set[str] | None) -> None:
    if below is None:
        assert name not in g.CELL_NAMES
        return
    i = g.CELL_NAMES.index(name)
    got = {g.CELL_NAMES[j] for j in range(24) if g.PLATFORM_MASKS[i] >> j & 1}
    assert got == below


# -- lines ------------------------------------------------------------------------------

def test_naive_line_count() -> None:
    assert len(naive.LINES) == 24
    # 7 per face, the 4 ridge lines shared by two faces.
    per_face = {face: sum(1 for line in naive.LINES if all(naive.on_face(c, face) for c in line))
                for face in naive.FACE_PLANES}
    assert per_face == {"north": 7, "east": 7, "south": 7, "west": 7}


def test_lines_match_3d_derivation() -> None:
    expected = sorted(mask_of(line) for line in naive.LINES)
    assert list(g.LINE_MASKS) == expected
    assert len(set(g.LINE_MASKS)) == 24


def test_lines_through_each_cell() -> None:
    for i in range(24):
        expected = {mask_of(line) for line in naive.LINES if naive.PLAYABLE[i] in line}
        assert set(g.LINES_THROUGH[i]) == expected
    # A level-0 corner lies on 2 horizontals and 1 ridge line; the apex cells on 3 each.
    assert len(g.LINES_THROUGH[0]) == 3
    assert len(g.LINES_THROUGH[20]) == 3


@pytest.mark.parametrize("names", [
    ("0a1", "0b1", "0c1"), ("0b1", "0c1", "0d1"), ("1a1", "1b1", "1c1"),   # north horizontals
    ("0a1", "1a1", "2a1"), ("0b1", "1b1", "2b1"),                         # north rising right
    ("0c1", "1b1", "2a1"), ("0d1", "1c1", "2b1"),                         # north rising left
    ("0a4", "1a3", "2a2"), ("0d4", "1c3", "2b2"),                         # south ridges
    ("0a2", "0a3", "0a4"), ("1c1", "1c2", "1c3"),                         # west / east
])
def test_named_lines_exist(names: tuple[str, str, str]) -> None:
    mask = sum(1 << g.CELL_NAMES.index(n) for n in names)
    assert mask in g.LINE_MASKS


@pytest.mark.parametrize("names", [
    ("0a1", "0b1", "1a1"),      # a triangle, not a straight row
    ("0c1", "0d1", "0d2"),      # bends around the north-east corner
    ("1a2", "1b2", "1c2"),      # 1b2 is the white (1,1,1): not even a playable cell
    ("0a1", "0b1", "0c1", "0d1"),  # four cells: two lines, but not one
])
def test_non_lines(names: tuple[str, ...]) -> None:
    mask = sum(1 << g.CELL_NAMES.index(n) for n in names if n in g.CELL_NAMES)
    assert mask not in g.LINE_MASKS


def test_off_face_rows_all_contain_a_white() -> None:
    # Why whites matter for the face rule: every straight row of 3 touching marbles
    # that is not on one outer face runs through a white marble.
    for a, b, c in itertools.permutations(naive.ALL_CELLS, 3):
        pa, pb, pc = naive.centre(a), naive.centre(b), naive.centre(c)
        straight = all(abs(pb[i] - (pa[i] + pc[i]) / 2) < 1e-9 for i in range(3))
        if straight and naive.touching(a, b) and not naive.faces_of(a) & naive.faces_of(b) & naive.faces_of(c):
            assert {a, b, c} & naive.WHITES
            assert sum(1 << INDEX[x] for x in (a, b, c) if x in INDEX) not in g.LINE_MASKS


# -- symmetries --------------------------------------------------------------------------

def perm_of(m: dict) -> tuple[int, ...]:
    return tuple(INDEX[m[cell]] for cell in naive.PLAYABLE)


def compose(p: tuple[int, ...], q: tuple[int, ...]) -> tuple[int, ...]:
    """First q, then p."""
    return tuple(p[q[i]] for i in range(len(q)))


def test_symmetries_match_naive() -> None:
    assert len(g.SYMMETRIES) == 8
    assert len(set(g.SYMMETRIES)) == 8
    assert g.SYMMETRIES[0] == tuple(range(24))
    assert set(g.SYMMETRIES) == {perm_of(m) for m in naive.SYMMETRIES}
    for perm in g.SYMMETRIES:
        assert sorted(perm) == list(range(24))


def test_symmetries_closed_under_composition() -> None:
    group = set(g.SYMMETRIES)
    for p, q in itertools.product(g.SYMMETRIES, repeat=2):
        assert compose(p, q) in group
    for p in g.SYMMETRIES:  # inverses
        assert any(compose(p, q) == g.SYMMETRIES[0] for q in g.SYMMETRIES)


@pytest.mark.parametrize("s", range(8))
def test_symmetry_preserves_structure(s: int) -> None:
    perm = g.SYMMETRIES[s]
    assert {g.permute_mask(line, perm) for line in g.LINE_MASKS} == set(g.LINE_MASKS)
    for i in range(24):
        assert g.PLATFORM_MASKS[perm[i]] == g.permute_mask(g.PLATFORM_MASKS[i], perm)
        assert g.CELLS[perm[i]][0] == g.CELLS[i][0]  # levels kept
    assert {perm[i] for i in g.CORNER_CELLS} == set(g.CORNER_CELLS)
    assert {perm[i] for i in g.EDGE_CENTRE_CELLS} == set(g.EDGE_CENTRE_CELLS)


def test_rotate_180() -> None:
    for i, (level, row, col) in enumerate(g.CELLS):
        assert g.CELLS[g.ROTATE_180[i]] == (level, 3 - level - row, 3 - level - col)
        assert g.ROTATE_180[i] != i
    assert g.ROTATE_180 in g.SYMMETRIES


@pytest.mark.parametrize("s", range(8))
def test_symmetric_mask_agrees_with_permute_mask(s: int) -> None:
    import random

    rng = random.Random(s)
    masks = [0, g.FULL_MASK, 1, 1 << 23, 0xFF00FF] + [rng.getrandbits(24) for _ in range(300)]
    for mask in masks:
        assert g.symmetric_mask(mask, s) == g.permute_mask(mask, g.SYMMETRIES[s])
        assert g.symmetric_mask(mask, s).bit_count() == mask.bit_count()


def test_permute_mask_by_hand() -> None:
    perm = g.ROTATE_180
    # 0a1 (0,0,0) <-> 0d4 (0,3,3); 2a1 (2,0,0) <-> 2b2 (2,1,1)
    assert g.permute_mask(1 << 0, perm) == 1 << 11
    assert g.permute_mask(1 << 20 | 1 << 0, perm) == 1 << 23 | 1 << 11
