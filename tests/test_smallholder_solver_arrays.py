"""The array rules (solver/smallholder_arrays.py, over the compiled rules) against the
per-position engine: children grouped by cell, terminal detection and canonical keys on
random positions of all 120 option combinations on limping2 and hex3."""

from __future__ import annotations

import random

import numpy as np
import pytest

from playouts import playout_positions

from tablebase.games.smallholder import Position, Rules, Smallholder, all_rules
from tablebase.solver.smallholder_arrays import MaskMap, SmallholderArrays

BOARDS = ("limping2", "hex3")


def random_positions(game: Smallholder, rng: random.Random, count: int) -> list[Position]:
    """Arbitrary boards (most cannot arise in play): the array rules must still agree."""
    out = []
    for _ in range(count):
        cells = [rng.choice("BW..") for _ in range(game.board.size)]
        black = sum(1 << i for i, c in enumerate(cells) if c == "B")
        white = sum(1 << i for i, c in enumerate(cells) if c == "W")
        out.append(Position(black, white, rng.choice("BW")))
    return out


def check_against_engine(game: Smallholder, positions: list[Position]) -> None:
    arrays = SmallholderArrays(game.board, game.rules)
    keys = np.array([game.key(p) for p in positions], dtype=np.uint64)
    children: list[set[int]] = [set() for _ in positions]
    for where, child in arrays.children(keys):
        for i, key in zip(where.tolist(), child.tolist()):
            children[i].add(key)
    legal = arrays.legal(keys).tolist()
    for i, pos in enumerate(positions):
        expected = {game.key(child) for _, child in game.children(pos)}
        assert children[i] == expected, (game.rules_name, game.format(pos))
        assert (legal[i] == 0) == (game.terminal_value(pos) is not None), (game.rules_name, game.format(pos))
        assert legal[i] == sum(1 << m for m in game.legal_moves(pos))


@pytest.mark.slow
@pytest.mark.parametrize("board", BOARDS)
@pytest.mark.parametrize("rules", all_rules(), ids=lambda r: r.spec)
def test_children_and_terminals_agree_with_the_engine(board: str, rules: Rules) -> None:
    game = Smallholder(board, rules)
    rng = random.Random(f"{board} {rules.spec}")
    positions = playout_positions(game, rng, 3) + random_positions(game, rng, 20)
    check_against_engine(game, positions)


@pytest.mark.parametrize("board", BOARDS)
def test_canonical_keys_agree_with_the_engine(board: str) -> None:
    game = Smallholder(board)
    rng = random.Random(board)
    positions = random_positions(game, rng, 200)
    keys = np.array([game.key(p) for p in positions], dtype=np.uint64)
    canonical = SmallholderArrays(board, "nibbler").canonical(keys).tolist()
    assert canonical == [game.canonical_key(p) for p in positions]


def test_moves_on_hex4_masks_agree_with_the_engine() -> None:
    """Boards too big for keys: the move functions take colour masks."""
    game = Smallholder("hex4", "stymie")
    positions = playout_positions(game, random.Random(4), 2)
    arrays = SmallholderArrays("hex4", "stymie")
    mover = np.array([p.mover for p in positions], dtype=np.uint64)
    waiter = np.array([p.waiter for p in positions], dtype=np.uint64)
    found: list[set[tuple[int, int, int]]] = [set() for _ in positions]
    for cell, where, after_mover, after_waiter in arrays.moves(mover, waiter):
        for i, m, w in zip(where.tolist(), after_mover.tolist(), after_waiter.tolist()):
            found[i].add((cell, m, w))
    for i, pos in enumerate(positions):
        assert found[i] == {(move.cell, child.waiter, child.mover) for move, child in game.children(pos)}


def test_mask_maps_are_unions_of_images() -> None:
    images = [1 << (3 * i % 17) for i in range(17)]
    masks = np.random.default_rng(1).integers(0, 1 << 17, 500, dtype=np.uint64)
    expected = [sum(images[i] for i in range(17) if m >> i & 1) for m in masks.tolist()]
    assert MaskMap(images, max_chunk_bits=5)(masks).tolist() == expected


def test_boards_too_big_for_keys_are_refused() -> None:
    arrays = SmallholderArrays("hex4", "nibbler")
    with pytest.raises(ValueError, match="at most 31"):
        arrays.canonical(np.zeros(1, dtype=np.uint64))
