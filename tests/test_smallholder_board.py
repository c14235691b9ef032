"""Board geometry: cell counts, neighbours, axes, rays, symmetries, cell names."""

from __future__ import annotations

import pytest

from tablebase.games.base import NotationError
from tablebase.games.smallholder import AXES, BOARD_ROWS, bits, board_for_rows, get_board
from tablebase.games.smallholder.board import NNE, NNW, SSE, SSW, E, W

ALL_BOARDS = list(BOARD_ROWS)


@pytest.mark.parametrize("name, cells, rows, symmetries", [
    ("hex3", 19, (3, 4, 5, 4, 3), 12),
    ("hex4", 37, (4, 5, 6, 7, 6, 5, 4), 12),
    ("hex5", 61, (5, 6, 7, 8, 9, 8, 7, 6, 5), 12),
    ("hex6", 91, (6, 7, 8, 9, 10, 11, 10, 9, 8, 7, 6), 12),
    ("hex7", 127, (7, 8, 9, 10, 11, 12, 13, 12, 11, 10, 9, 8, 7), 12),
    ("limping2", 12, (2, 3, 4, 3), 6),
    ("limping3", 27, (3, 4, 5, 6, 5, 4), 6),
    ("limping4", 48, (4, 5, 6, 7, 8, 7, 6, 5), 6),
])
def test_board_shapes(name: str, cells: int, rows: tuple[int, ...], symmetries: int) -> None:
    board = get_board(name)
    assert board.size == cells
    assert board.row_lengths == rows
    assert len(board.symmetries) == symmetries
    assert board_for_rows(rows) is board


def test_unknown_board() -> None:
    with pytest.raises(NotationError, match="unknown board .*'hex9'"):
        get_board("hex9")
    assert board_for_rows((3, 3)) is None


def test_limping2_neighbours() -> None:
    #     a1  a2
    #   b1  b2  b3
    # c1  c2  c3  c4
    #   d1  d2  d3
    board = get_board("limping2")
    name = board.names
    index = {n: i for i, n in enumerate(name)}

    def around(cell: str) -> set[str]:
        return {name[j] for j in board.neighbours[index[cell]]}

    assert around("a1") == {"a2", "b1", "b2"}
    assert around("b2") == {"a1", "a2", "b1", "b3", "c2", "c3"}
    assert around("c1") == {"b1", "c2", "d1"}
    assert around("c4") == {"b3", "c3", "d3"}
    assert around("d2") == {"c2", "c3", "d1", "d3"}
    ray = board.rays
    assert bits(ray[E][index["c1"]]) == [index[n] for n in ("c2", "c3", "c4")]
    assert bits(ray[W][index["c1"]]) == []
    assert {name[i] for i in bits(ray[NNE][index["d1"]])} == {"c2", "b2", "a2"}
    assert {name[i] for i in bits(ray[NNW][index["d3"]])} == {"c3", "b2", "a1"}
    assert {name[i] for i in bits(ray[SSE][index["a1"]])} == {"b2", "c3", "d3"}
    assert {name[i] for i in bits(ray[SSW][index["a2"]])} == {"b2", "c2", "d1"}


@pytest.mark.parametrize("name", ALL_BOARDS)
def test_neighbours_are_symmetric_and_masks_match(name: str) -> None:
    board = get_board(name)
    for i, near in enumerate(board.neighbours):
        assert 2 <= len(near) <= 6
        assert i not in near
        assert board.neighbour_mask[i] == sum(1 << j for j in near)
        for j in near:
            assert i in board.neighbours[j]
    # Both shapes are hexagons: 6 corner cells with 3 neighbours each.
    assert sum(1 for near in board.neighbours if len(near) == 3) == 6


@pytest.mark.parametrize("name", ALL_BOARDS)
def test_axes_partition_the_board_into_lines(name: str) -> None:
    board = get_board(name)
    for axis, lines in enumerate(board.lines):
        covered = sorted(c for line in lines for c in line)
        assert covered == list(range(board.size)), "each axis covers every cell exactly once"
        forward, _ = AXES[axis]
        for line in lines:
            for a, b in zip(line, line[1:]):
                assert b in board.neighbours[a]
                assert board.rays[forward][a] >> b & 1
    assert [len(line) for line in board.lines[0]] == list(board.row_lengths)


@pytest.mark.parametrize("name", ALL_BOARDS)
def test_rays_are_lines_beyond_the_cell(name: str) -> None:
    board = get_board(name)
    for axis, (forward, backward) in enumerate(AXES):
        for line in board.lines[axis]:
            for k, cell in enumerate(line):
                assert board.rays[forward][cell] == sum(1 << c for c in line[k + 1:])
                assert board.rays[backward][cell] == sum(1 << c for c in line[:k])


def _line_sets(board_name: str) -> list[set[frozenset[int]]]:
    return [{frozenset(line) for line in lines} for lines in get_board(board_name).lines]


@pytest.mark.parametrize("name", ALL_BOARDS)
def test_every_symmetry_preserves_adjacency_and_axes(name: str) -> None:
    board = get_board(name)
    axes = _line_sets(name)
    assert board.symmetries[0] == tuple(range(board.size))
    assert len(set(board.symmetries)) == len(board.symmetries)
    for perm in board.symmetries:
        assert sorted(perm) == list(range(board.size))
        for i, near in enumerate(board.neighbours):
            assert {perm[j] for j in near} == set(board.neighbours[perm[i]])
        images = [{frozenset(perm[c] for c in line) for line in lines} for lines in axes]
        # Each axis maps onto one axis, and the three axes onto all three.
        assert sorted(axes.index(image) for image in images) == [0, 1, 2]


@pytest.mark.parametrize("name", ALL_BOARDS)
def test_symmetries_form_a_group(name: str) -> None:
    board = get_board(name)
    maps = set(board.symmetries)
    for p in board.symmetries:
        for q in board.symmetries:
            assert tuple(q[p[i]] for i in range(board.size)) in maps


@pytest.mark.parametrize("name", ["limping2", "hex3", "hex7"])
def test_transform_matches_permutation(name: str) -> None:
    board = get_board(name)
    mask = sum(1 << i for i in range(0, board.size, 3)) | 1 << (board.size - 1)
    for s, perm in enumerate(board.symmetries):
        assert board.transform(mask, s) == sum(1 << perm[i] for i in bits(mask))
        assert board.transform(0, s) == 0
        assert board.transform(board.full, s) == board.full


@pytest.mark.parametrize("name", ALL_BOARDS)
def test_cell_names_round_trip(name: str) -> None:
    board = get_board(name)
    assert board.names[0] == "a1"
    for i, cell_name in enumerate(board.names):
        assert board.parse_cell(cell_name) == i
        assert board.parse_cell(cell_name.upper()) == i
        assert board.parse_cell(str(i)) == i
        assert board.cell_name(i) == cell_name


@pytest.mark.parametrize("text", ["z1", "a0", "a5", "", "-1", "37", "a 1"])
def test_bad_cell_names(text: str) -> None:
    with pytest.raises(NotationError) as info:
        get_board("hex4").parse_cell(text)
    assert str(info.value).endswith(repr(text))
