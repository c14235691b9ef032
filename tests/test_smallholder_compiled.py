"""The compiled rules (games/smallholder/compiled.py) against the per-position engine
(games/smallholder/rules.py), move for move: legal moves, the position after each move
(captures included), terminal detection, groups, holdings, playable cells, symmetries
and canonical forms, on random playouts and arbitrary boards.

The default run takes the five named rulesets and a spread of the 120 combinations on
every board the compiled rules take; the exhaustive sweep (--exhaustive) takes all 120 on every board.
"""

from __future__ import annotations

import random
from typing import Callable

import numpy as np
import pytest

from playouts import playout_positions

from tablebase.games.smallholder import RULESETS, Position, Rules, Smallholder, all_rules
from tablebase.games.smallholder import compiled
from tablebase.games.smallholder.compiled import CompiledRules

BOARDS = ("limping2", "hex3", "limping3", "hex4", "limping4", "hex5")
QUICK = list(RULESETS.values()) + all_rules()[3::17]


def everywhere(test: Callable[[str, Rules], None]) -> Callable[[str, Rules], None]:
    """The exhaustive sweep of a test of (board, rules): every board of BOARDS under all
    120 option combinations, run only with ``pytest --exhaustive``."""
    test = pytest.mark.parametrize("rules", all_rules(), ids=lambda r: r.spec)(test)
    return pytest.mark.exhaustive(pytest.mark.parametrize("board", BOARDS)(test))


def arbitrary_positions(game: Smallholder, rng: random.Random, count: int) -> list[Position]:
    """Random boards (most cannot arise in play): the compiled rules must still agree."""
    out = []
    for _ in range(count):
        fill = rng.choice(("BW..", "BW.", "BBW...", "B.W"))
        cells = [rng.choice(fill) for _ in range(game.board.size)]
        black = sum(1 << i for i, c in enumerate(cells) if c == "B")
        white = sum(1 << i for i, c in enumerate(cells) if c == "W")
        out.append(Position(black, white, rng.choice("BW")))
    return out


def check_moves(game: Smallholder, fast: CompiledRules, positions: list[Position]) -> None:
    for pos in positions:
        where = (game.rules_name, game.format(pos))
        expected = {move.cell: (move, game.result(pos, move)) for move in game.moves(pos)}
        got = dict(fast.children(pos))
        assert got.keys() == expected.keys(), where
        assert fast.legal_moves(pos) == sorted(expected), where
        for cell, (move, child) in expected.items():
            assert got[cell] == child, (where, cell)
            assert fast.captured(pos, cell) == move.captured, (where, cell)
            assert fast.play(pos, cell) == child, (where, cell)
        assert fast.is_terminal(pos) == (game.terminal_value(pos) is not None), where
        for colour, stones, other in (("B", pos.black, pos.white), ("W", pos.white, pos.black)):
            assert fast.groups(stones) == [g.stones for g in game.groups(pos, colour)], (where, colour)
            assert fast.holdings(stones) == game.holdings(pos, colour), (where, colour)
            assert fast.playable(stones, other) == game.playable(pos, colour), (where, colour)


def check_rules(board: str, rules: Rules, games: int, arbitrary: int) -> None:
    game = Smallholder(board, rules)
    rng = random.Random(f"{board} {rules.spec}")
    check_moves(game, CompiledRules(board, rules), playout_positions(game, rng, games)
                + arbitrary_positions(game, rng, arbitrary))


@pytest.mark.parametrize("board", BOARDS)
@pytest.mark.parametrize("rules", QUICK, ids=lambda r: r.name)
def test_moves_agree_with_the_engine(board: str, rules: Rules) -> None:
    check_rules(board, rules, games=2, arbitrary=10)


@everywhere
def test_moves_agree_with_the_engine_everywhere(board: str, rules: Rules) -> None:
    check_rules(board, rules, games=6, arbitrary=40)


def generated(call, mover: int, waiter: int, held: np.uint64, t: compiled.Tables, *prev: np.ndarray,
              w: np.ndarray | None = None) -> tuple[list[int], list[int], list[int], list[int]]:
    """What a workspace move generation (`children_knowing`, or `children_from` given
    ``prev``) makes of (mover, waiter): the cells, the mover's and the waiter's stones
    after each move, the mover's holdings after it; in ``w`` or a fresh workspace."""
    w = np.zeros(compiled.WORKSPACE_SLOTS, np.uint64) if w is None else w
    cells, own, enemy = np.zeros(64, np.int64), np.zeros(64, np.uint64), np.zeros(64, np.uint64)
    count = call(np.uint64(mover), np.uint64(waiter), held, t, w, *prev, cells, own, enemy)
    return (cells[:count].tolist(), own[:count].tolist(), enemy[:count].tolist(),
            w[compiled.AFTER_HELD_SLOT:compiled.AFTER_HELD_SLOT + count].tolist())


@pytest.mark.parametrize("board", BOARDS)
@pytest.mark.parametrize("rules", QUICK, ids=lambda r: r.name)
def test_move_generation_given_the_enemy_holdings(board: str, rules: Rules) -> None:
    """The search hands each child the holdings its parent worked out: move generation
    given them (`children_knowing`) makes the same children as without, and the holdings
    it hands on are the mover's after each move, as the engine has them."""
    game = Smallholder(board, rules)
    t = CompiledRules(board, rules).tables
    rng = random.Random(f"{board} {rules.spec} known")
    for pos in playout_positions(game, rng, 2) + arbitrary_positions(game, rng, 10):
        held = game.holdings(pos, "W" if pos.to_move == "B" else "B")
        results = [generated(compiled.children_knowing, pos.mover, pos.waiter, given, t)
                   for given in (compiled.UNKNOWN_HELD, np.uint64(held))]
        assert results[0] == results[1], game.format(pos)
        cells, _, _, after_held = results[1]
        assert cells == sorted(move.cell for move in game.moves(pos)), game.format(pos)
        for cell, held_after in zip(cells, after_held):
            assert held_after == game.holdings(game.play(pos, cell), pos.to_move), (game.format(pos), cell)


def check_children_from(board: str, rules: Rules, games: int, arbitrary: int) -> None:
    """`children_from` against `children_knowing` on each position and the one two
    before it in ``games`` playouts and ``arbitrary`` random boards."""
    game = Smallholder(board, rules)
    t = CompiledRules(board, rules).tables
    rng = random.Random(f"{board} {rules.spec} two plies up")
    positions = playout_positions(game, rng, games) + arbitrary_positions(game, rng, arbitrary)
    inherited = 0
    for up, pos in zip(positions, positions[2:]):
        prev = np.zeros(compiled.WORKSPACE_SLOTS, np.uint64)  # the groups of two plies up
        generated(compiled.children_knowing, up.mover, up.waiter, compiled.UNKNOWN_HELD, t, w=prev)
        held = np.uint64(game.holdings(pos, "W" if pos.to_move == "B" else "B"))
        fresh = generated(compiled.children_knowing, pos.mover, pos.waiter, held, t)
        assert generated(compiled.children_from, pos.mover, pos.waiter, held, t, prev) == fresh, \
            (game.format(up), game.format(pos))
        added = pos.mover & ~up.mover
        inherited += not (up.mover & ~pos.mover) and added.bit_count() == 1
    assert inherited > 10  # most positions of the games took their groups from two plies up


@pytest.mark.parametrize("board", BOARDS)
@pytest.mark.parametrize("rules", QUICK, ids=lambda r: r.name)
def test_move_generation_from_the_groups_two_plies_up(board: str, rules: Rules) -> None:
    """The search hands each position the mover's groups as its grandparent found them
    (`children_from`): the same children and holdings after each move as found afresh,
    whether the move between captured some of the mover's stones (the groups are then
    found again), or the earlier workspace is of another position altogether (the next
    game's first positions, random boards)."""
    check_children_from(board, rules, games=3, arbitrary=10)


@everywhere
def test_move_generation_from_the_groups_two_plies_up_everywhere(board: str, rules: Rules) -> None:
    check_children_from(board, rules, games=3, arbitrary=10)


@pytest.mark.parametrize("board", BOARDS)
def test_symmetries_and_canonical_forms(board: str) -> None:
    game = Smallholder(board)
    fast = CompiledRules(board, "nibbler")
    t = fast.tables
    rng = random.Random(board)
    positions = arbitrary_positions(game, rng, 60) + playout_positions(game, rng, 1)
    symmetries = len(game.board.symmetries)
    assert t.nsym == symmetries
    for pos in positions:
        images = [(game.board.transform(pos.black, s), game.board.transform(pos.white, s)) for s in range(symmetries)]
        for s, (black, white) in enumerate(images):
            assert int(compiled.transform(np.uint64(pos.black), s, t)) == black
            assert int(compiled.transform(np.uint64(pos.white), s, t)) == white
        best = fast.canonical(pos)
        # the image smallest by white first, then black
        assert (best.white, best.black) == min((w, b) for b, w in images), game.format(pos)
        black, white, symmetry = compiled.canonical_symmetry(np.uint64(pos.black), np.uint64(pos.white), t)
        assert (int(black), int(white)) == (best.black, best.white) == images[symmetry], game.format(pos)
        for black, white in images:  # the same canonical form from every image
            assert fast.canonical(Position(black, white, pos.to_move)) == best
        if game.board.size <= compiled.MAX_KEY_CELLS:
            assert fast.canonical_key(pos) == game.canonical_key(pos), game.format(pos)


def test_keys_round_trip_and_bit_helpers() -> None:
    game = Smallholder("hex3")
    for pos in arbitrary_positions(game, random.Random(5), 50):
        for white_to_move in (False, True):
            key = compiled.pack_key(np.uint64(pos.black), np.uint64(pos.white), white_to_move, 19)
            assert int(key) == game.key(Position(pos.black, pos.white, "W" if white_to_move else "B"))
            black, white, side = compiled.unpack_key(key, 19)
            assert (int(black), int(white), bool(side)) == (pos.black, pos.white, white_to_move)
    for mask in (0, 1, 6, 1 << 63, (1 << 64) - 1, 0b101000):
        assert compiled.popcount(np.uint64(mask)) == mask.bit_count()
        assert compiled.lowest_cell(np.uint64(mask)) == ((mask & -mask).bit_length() - 1 if mask else 64)


def test_terminal_value_is_a_loss_for_the_side_to_move() -> None:
    game = Smallholder("limping2", "nibbler")
    t = compiled.tables("limping2", "nibbler")
    ended = [p for p in playout_positions(game, random.Random(2), 5) if game.terminal_value(p) is not None]
    assert ended
    for pos in ended + [game.start()]:
        args = (np.uint64(pos.black), np.uint64(pos.white), pos.to_move == "W", t)
        expected = game.terminal_value(pos)
        assert compiled.terminal_value(*args) == (0 if expected is None else expected)


def test_boards_beyond_64_cells_are_refused() -> None:
    with pytest.raises(ValueError, match="at most 64"):
        compiled.tables("hex6", "nibbler")


@pytest.mark.parametrize("board", ("limping2", "hex3"))
@pytest.mark.parametrize("rules", list(RULESETS.values()) + all_rules()[7::23], ids=lambda r: r.name)
def test_array_kernels_agree_with_the_engine(board: str, rules: Rules) -> None:
    game = Smallholder(board, rules)
    t = compiled.tables(board, rules)
    rng = random.Random(f"arrays {board} {rules.spec}")
    positions = playout_positions(game, rng, 3) + arbitrary_positions(game, rng, 20)
    keys = np.array([game.key(p) for p in positions], dtype=np.uint64)
    assert compiled.canonical_keys(keys, t).tolist() == [game.canonical_key(p) for p in positions]
    assert compiled.legal_of_keys(keys, t).tolist() == [sum(1 << m for m in game.legal_moves(p)) for p in positions]
    counts, child_keys = compiled.expand_keys(keys, t)
    expected = [[game.canonical_key(child) for _, child in game.children(p)] for p in positions]
    assert counts.tolist() == [len(e) for e in expected]
    assert child_keys.tolist() == [k for e in expected for k in e]
    movers = np.array([p.mover for p in positions], dtype=np.uint64)
    waiters = np.array([p.waiter for p in positions], dtype=np.uint64)
    parent, cell, mover, waiter = compiled.expand(movers, waiters, t)
    got = list(zip(parent.tolist(), cell.tolist(), mover.tolist(), waiter.tolist()))
    assert got == [(i, move.cell, child.waiter, child.mover)
                   for i, p in enumerate(positions) for move, child in game.children(p)]


def test_loading_the_cli_does_not_load_numba() -> None:
    """Compilation happens at the first use of the compiled rules, never at start-up."""
    import subprocess
    import sys

    code = ("import sys, tablebase.cli.main, tablebase.service.smallholder, tablebase.solver.smallholder_solve; "
            "print('numba' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "False"


def test_expand_keys_on_many_positions_is_the_scalar_rules() -> None:
    """Thousands of positions (the whole-array kernels split them into blocks): every
    child key is the scalar `children` and `canonical_key` of its parent."""
    from tablebase.solver.smallholder_solve import solve_ruleset

    t = compiled.tables("limping2", "stymie")
    keys = solve_ruleset("limping2", "stymie").keys
    counts, child_keys = compiled.expand_keys(keys, t)
    cells = np.empty(12, dtype=np.int64)
    blacks = np.empty(12, dtype=np.uint64)
    whites = np.empty(12, dtype=np.uint64)
    expected: list[int] = []
    for key in keys.tolist():
        black, white, white_to_move = compiled.unpack_key(np.uint64(key), 12)
        count = compiled.children(black, white, white_to_move, t, cells, blacks, whites)
        expected += [int(compiled.canonical_key(blacks[k], whites[k], not white_to_move, t)) for k in range(count)]
    assert int(counts.sum()) == len(expected)
    assert child_keys.tolist() == expected
    # the parallel path (large arrays) gives the same as the serial one
    many = np.concatenate([keys] * (1 + compiled._PARALLEL_KEYS // len(keys)))
    counts_many, child_many = compiled.expand_keys(many, t)
    assert len(many) >= compiled._PARALLEL_KEYS
    assert counts_many.tolist() == counts.tolist() * (len(many) // len(keys))
    assert child_many.tolist() == expected * (len(many) // len(keys))


@pytest.mark.parametrize("board", ["hex3", "hex4", "limping3"])
@pytest.mark.parametrize("ruleset", sorted(RULESETS))
def test_the_compiled_two_ply_look_agrees_with_the_rules_engine(board: str, ruleset: str) -> None:
    """The natural games of puzzle generation look two plies ahead on the compiled rules
    (`solver.smallholder_exact.look_ahead`) where the search cannot answer: the same moves,
    wins at once and safe moves as the rules engine's look (`solver.puzzles`)."""
    from tablebase.solver.puzzles import rules_look_ahead
    from tablebase.solver.smallholder_exact import look_ahead

    game = Smallholder(board, ruleset)
    compiled_look, reference_look = look_ahead(game), rules_look_ahead(game)
    rng = random.Random(f"{board}/{ruleset}")
    positions = []
    for _ in range(10):  # the last plies of random games, where wins at once and handed wins lie, and one earlier
        line = [game.start()]
        while game.legal_moves(line[-1]):
            line.append(game.play(line[-1], rng.choice(game.legal_moves(line[-1]))))
        positions += line[-6:-1] + [rng.choice(line[:-6] or line)]
    wins = unsafe = 0
    for pos in positions:
        moves, winning, safe = compiled_look(pos)
        assert (moves, winning, safe) == reference_look(pos), game.format(pos)
        wins += len(winning)
        unsafe += len(moves) - len(safe)
    assert wins > 0 and unsafe > 0
