"""One payload layout, one tier function and one draw convention for both games, and
the version policy's refusal of Sparro tables in the old layout."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from tablebase.cli.main import main
from tablebase.db.store import TablebaseStore
from tablebase.games.base import DRAW, LOSS, WIN
from tablebase.games.sparro.rules import RULES_VERSION
from tablebase.service.games import GAMES
from tablebase.solver.graph import solve_graph
from tablebase.solver.keys import stone_counts
from tablebase.solver.payload import PAYLOAD_DTYPES, decode, encode, layout
from tablebase.solver.probe import Outcome, outcome_of, outcomes
from tablebase.solver.search import Search
from tablebase.solver.tiered import SOLVER_VERSION


@pytest.mark.parametrize("dtype, draw, win, mask", [("u1", 0x80, 0x40, 0x3F), ("u2", 0x8000, 0x4000, 0x3FFF)])
def test_one_layout_for_both_widths(dtype: str, draw: int, win: int, mask: int) -> None:
    assert layout(dtype) == (draw, win, mask)
    values = np.array([WIN, LOSS, DRAW, LOSS], dtype=np.int8)
    payload = encode(values, np.array([3, 0, 9, mask]), dtype)
    assert payload.dtype == np.dtype(dtype)
    assert payload.tolist() == [win | 3, 0, draw, mask]
    back_values, back_remoteness = decode(payload)
    assert back_values.tolist() == values.tolist() and back_remoteness.tolist() == [3, 0, 0, mask]
    with pytest.raises(ValueError, match="does not fit"):
        encode(values[:1], np.array([mask + 1]), dtype)


def test_every_game_stores_the_shared_layout() -> None:
    assert {d.name: d.payload_dtype for d in GAMES.values()} == PAYLOAD_DTYPES
    for description in GAMES.values():
        payload = encode(np.array([WIN, DRAW]), np.array([5, 0]), description.payload_dtype)
        assert [v.tolist() for v in description.decode(payload)] == [[WIN, DRAW], [5, 0]]


def test_one_tier_function() -> None:
    keys = np.array([0, 0b101, 0b11 | 1 << 12 | 1 << 24, 1 << 48], dtype=np.uint64)
    assert stone_counts(keys, 12).tolist() == [0, 2, 3, 0]  # the side bit of a 12-cell board is bit 24
    assert stone_counts(keys, 24).tolist() == [0, 2, 4, 0]  # Sparro: the token bit 48 is no marble
    sparro = GAMES["sparro"]
    assert sparro.tier_of(sparro.default_game())(keys).tolist() == [0, 2, 4, 0]


def test_a_draw_has_remoteness_none_everywhere() -> None:
    assert outcome_of(DRAW, 0) == Outcome(DRAW, None) == outcome_of(DRAW, 7)
    assert outcomes(np.array([WIN, DRAW]), np.array([4, 0])) == [Outcome(WIN, 4), Outcome(DRAW, None)]
    # the graph solver: a two-cycle is a draw, its array entry 0, its Outcome remoteness None
    solution = solve_graph(3, np.array([0, 1]), np.array([1, 0]))
    assert solution.values.tolist() == [DRAW, DRAW, LOSS] and solution.remoteness.tolist() == [0, 0, 0]
    assert outcomes(solution.values, solution.remoteness)[0] == Outcome(DRAW, None)
    # the alpha-beta search answers an Outcome too
    sparro = GAMES["sparro"]
    game = sparro.rules("standard-no-compensation")
    pos = game.start()
    for _ in range(18):  # a late position, quick to search
        if game.terminal_value(game.play(pos, game.legal_moves(pos)[-1])) is not None:
            break
        pos = game.play(pos, game.legal_moves(pos)[-1])
    result = Search(game).solve(pos)
    assert isinstance(result.outcome, Outcome)
    assert (result.outcome.remoteness is None) == (result.outcome.value == DRAW)


def test_a_sparro_table_in_the_old_layout_is_refused(tmp_path: Path) -> None:
    assert SOLVER_VERSION == "tiered-2"
    path = tmp_path / "old.sqlite"
    with TablebaseStore(path, create=True) as store:
        table = store.begin_table("sparro", "standard", RULES_VERSION, "tiered-1", "u1")
        store.write_tier(table.id, 0, np.zeros(1, dtype=np.uint64), np.array([0x80 | 21], dtype=np.uint8), 0.0)
        store.finish_table(table.id, 1.0, {})
    result = CliRunner().invoke(main, ["probe", "sparro", "--db", str(path)])
    assert result.exit_code == 1
    assert result.stderr.strip() == (f"Error: the sparro standard table in {str(path)!r} was made by another "
                                     "version; run 'tablebase solve sparro --variant standard --force'")


def test_one_bit_permutation_helper() -> None:
    """The chunked tables of games.bits move every bit where the permutation says, for
    both games' symmetries (against the plain bit-by-bit permutation)."""
    import random

    from tablebase.games.bits import chunk_tables, permutation_images
    from tablebase.games.smallholder.board import get_board
    from tablebase.games.sparro.geometry import SYMMETRIES, permute_mask, symmetric_mask
    from tablebase.solver.sparro_arrays import canonical

    rng = random.Random(5)
    for perm in SYMMETRIES[1:3] + tuple(get_board("hex3").symmetries[1:3]):
        tables = chunk_tables(permutation_images(perm, masks=2), 7)
        for _ in range(50):
            mask = rng.getrandbits(2 * len(perm))
            image = 0
            for c, table in enumerate(tables):
                image |= table[(mask >> 7 * c) & 127]
            assert image == permute_mask(mask, tuple(perm) + tuple(p + len(perm) for p in perm))
    mask = rng.getrandbits(24)
    assert all(symmetric_mask(mask, s) == permute_mask(mask, perm) for s, perm in enumerate(SYMMETRIES))
    board = get_board("hex3")
    assert all(board.transform(mask & board.full, s) == permute_mask(mask & board.full, perm)
               for s, perm in enumerate(board.symmetries))
    key = np.array([mask | rng.getrandbits(24) << 24], dtype=np.uint64)
    images = [permute_mask(int(key[0]) & (1 << 48) - 1, tuple(p) + tuple(q + 24 for q in p)) for p in SYMMETRIES]
    assert canonical(key).tolist() == [min(images)]
