"""The array rules (solver/smallholder_arrays.py) against the per-position engine:
children, terminal detection and canonical keys on random positions of all 120 option
combinations on limping2 and hex3."""

from __future__ import annotations

import random

import numpy as np
import pytest

from playouts import playout_positions

from tablebase.games.smallholder import Position, Rules, Smallholder, all_rules
from tablebase.solver.smallholder_arrays import SmallholderArrays, lowest_bit

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


def test_lowest_bit() -> None:
    masks = np.array([0, 1, 6, 1 << 40 | 1 << 50], dtype=np.uint64)
    assert lowest_bit(masks).tolist() == [0, 1, 2, 1 << 40]


def test_groups_are_the_engines() -> None:
    game = Smallholder("hex3")
    rng = random.Random(3)
    positions = random_positions(game, rng, 50)
    arrays = SmallholderArrays("hex3", "nibbler")
    found = arrays.groups(np.array([p.black for p in positions], dtype=np.uint64))
    for i, pos in enumerate(positions):
        ours = sorted(int(g[i]) for g in found.stones if g[i])
        assert ours == sorted(g.stones for g in game.groups(pos, "B"))


def test_boards_too_big_for_keys_are_refused() -> None:
    arrays = SmallholderArrays("hex4", "nibbler")
    with pytest.raises(ValueError, match="at most 31"):
        arrays.canonical(np.zeros(1, dtype=np.uint64))


def test_lookup_tables_match_flood_fill_and_sight() -> None:
    from tablebase.solver.smallholder_arrays import flood, holdings_by_sight

    for territory in ("gap", "hull"):
        arrays = SmallholderArrays("hex3", f"territory={territory}")
        masks = np.random.default_rng(1).integers(0, 1 << 19, 5000, dtype=np.uint64)
        assert np.array_equal(arrays.holdings(masks), holdings_by_sight(arrays.sight, arrays.pairs, masks))
        groups = arrays.groups(masks)
        assert np.array_equal(groups.stones[0], flood(arrays.neighbours, lowest_bit(masks), masks))
