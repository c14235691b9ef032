"""Every rule of docs/smallholder.md on hand-built positions, then a cross-check of the
bitboard engine against the naive one (tests/smallholder_naive.py) on random playouts
of all 120 option combinations.

Board pictures in the comments use the cell names: row letter from the top, column
number from the left. hex3 and hex4 in doubled coordinates look like::

    hex3                           hex4
        a1  a2  a3                       a1  a2  a3  a4
      b1  b2  b3  b4                   b1  b2  b3  b4  b5
    c1  c2  c3  c4  c5               c1  c2  c3  c4  c5  c6
      d1  d2  d3  d4               d1  d2  d3  d4  d5  d6  d7
        e1  e2  e3                   e1  e2  e3  e4  e5  e6
                                       f1  f2  f3  f4  f5
                                         g1  g2  g3  g4
"""

from __future__ import annotations

import os
import random
from pathlib import Path

import pytest

from smallholder_naive import NaiveBoard, holdings as naive_holdings, parse as naive_parse
from smallholder_naive import successors as naive_successors, write as naive_write
from tablebase.games.base import LOSS, IllegalPositionError
from tablebase.games.smallholder import (
    BLACK, BOARD_ROWS, CREATE, EXTEND, RULESETS, WHITE, IllegalMoveError, Position, Rules, Smallholder,
    all_rules, bits)


def names(game: Smallholder, mask: int) -> set[str]:
    return {game.board.names[i] for i in bits(mask)}


def move_names(game: Smallholder, pos: Position, kind: str | None = None) -> set[str]:
    return {game.move_name(m.cell) for m in game.moves(pos) if kind is None or m.kind == kind}


# -- holdings ----------------------------------------------------------------------------

# hex3, one black group b2-b3-c4. From c3 the group is seen to the E (c4) and to the NNW
# (b2), 120 degrees apart: hull holds c3. No two of its stones are on one line with a
# gap between, so it holds nothing under gap.
#       .   .   .
#     .   B   B   .
#   .   .   *   B   .
#     .   .   .   .
#       .   .   .
HULL_ONLY = ".../.BB./...B./..../... W"


def test_hull_holds_between_directions_120_degrees_apart() -> None:
    gap, hull = Smallholder("hex3", "territory=gap"), Smallholder("hex3", "territory=hull")
    pos = gap.parse(HULL_ONLY)
    assert gap.holdings(pos, BLACK) == 0
    assert "c3" in names(hull, hull.holdings(pos, BLACK))
    assert "c3" not in move_names(hull, pos)  # White may not play there under hull
    assert "c3" in move_names(gap, pos)


# hex3, a black ring over the top from c1 to c5 with a white stone on c2. Lines of sight
# pass over anything: c3 and c4 lie between c1 and c5 although c2 is white.
#       B   B   B
#     B   .   .   B
#   B   W   .   .   B
#     .   .   .   .
#       .   .   .
RING = "BBB/B..B/BW..B/..../... B"


def test_gap_holdings_see_over_stones_and_empty_cells() -> None:
    game = Smallholder("hex3", "capture=groupwise")
    # c2 would have been captured when the ring closed: unreachable, but fine to analyse.
    pos = game.parse(RING, allow_unreachable=True)
    assert game.status(pos) == ("white group c2 inside black's holdings would have been captured",)
    # Own stones can be held too: a2 (between a1 and a3), b1 (c1 and a1), b4 (a3 and c5).
    assert names(game, game.holdings(pos, BLACK)) == {"a2", "b1", "b2", "b3", "b4", "c2", "c3", "c4"}
    assert game.holdings(pos, WHITE) == 0


def test_holdings_belong_to_single_groups() -> None:
    # c1 and c5 are on one line but in different groups: nothing between them is held.
    #   .../..../B...B/..../.W. W
    game = Smallholder("hex3")
    pos = game.parse(".../..../B...B/..../.W. W")
    assert game.holdings(pos, BLACK) == 0


# -- playable cells and live groups --------------------------------------------------------

# limping2: a white ring holds b2, c2 (and c3). Black c3-d3 is partly inside; its other
# neighbours are white, so under groupwise it has no playable neighbour: dead. With
# re-entry, b2 and c2 are next to a black stone, so playable again and the group is live.
#       W   W
#     W   w   W
#   W   w  (B)  W
#     .   W   B
LIMPING_TRAP = "WW/W.W/W.BW/.WB B"


@pytest.mark.parametrize("capture, playable, live", [
    ("groupwise", {"d1"}, False),
    ("groupwise-reentry", {"b2", "c2", "d1"}, True),
])
def test_playable_and_live(capture: str, playable: set[str], live: bool) -> None:
    game = Smallholder("limping2", f"capture={capture}")
    pos = game.parse(LIMPING_TRAP)
    assert names(game, game.playable(pos, BLACK)) == playable
    (group,) = game.groups(pos, BLACK)
    assert (group.size, group.live) == (2, live)
    assert game.live_groups(pos, BLACK) == ((group,) if live else ())
    # A cell in one's own holdings stays playable: White may play b2 and c2.
    assert {"b2", "c2"} <= names(game, game.playable(pos, WHITE))


def test_piecewise_stone_in_enemy_holdings_is_unreachable() -> None:
    game = Smallholder("limping2", "capture=piecewise")
    with pytest.raises(IllegalPositionError, match="black stones in white's holdings .*c3"):
        game.parse(LIMPING_TRAP)
    pos = game.parse(LIMPING_TRAP, allow_unreachable=True)
    assert game.status(pos)


# -- adjacent play ---------------------------------------------------------------------------

# hex4, Black to move. Black a1 is a dead single stone (m' = 1); live groups d2-d3 (size 2,
# so m = 2) and f2-f3-f4 (size 3). e2 and e3 touch both live groups.
#         B   W   .   .
#       W   W   .   .   .
#     .   .   .   .   .   .
#   .   B   B   .   .   .   .
#     .   .   .   .   .   .
#       .   B   B   B   .
#         .   .   .   .
ADJACENT = "BW../WW.../....../.BB..../....../.BBB./.... B"
NEXT_TO_PAIR = {"c1", "c2", "c3", "d1", "d4", "e1"}
NEXT_TO_BOTH = {"e2", "e3"}


@pytest.mark.parametrize("adjacent, extends", [
    ("smallest-playable", NEXT_TO_PAIR | NEXT_TO_BOTH),  # some neighbour group <= m
    ("smallest-playable-only", NEXT_TO_PAIR),             # every neighbour group == m
    ("smallest", set()),                                   # m' = 1, only the dead a1
    ("smallest-only", set()),
])
def test_adjacent_play_options(adjacent: str, extends: set[str]) -> None:
    game = Smallholder("hex4", f"adjacent={adjacent}")
    pos = game.parse(ADJACENT)
    assert move_names(game, pos, EXTEND) == extends
    creates = move_names(game, pos, CREATE)
    assert "a3" in creates and "d7" in creates
    assert not creates & (NEXT_TO_PAIR | NEXT_TO_BOTH), "a cell next to a friendly stone is never a create"


def test_smallest_lets_a_size_one_group_grow() -> None:
    # Same board without the dead a1: m' = 2 now, so "smallest" allows the pair's cells.
    game = Smallholder("hex4", "adjacent=smallest")
    pos = game.parse(ADJACENT.replace("BW..", ".W..", 1))
    assert move_names(game, pos, EXTEND) == NEXT_TO_PAIR | NEXT_TO_BOTH


# -- groups options --------------------------------------------------------------------------

# ADJACENT without f2-f3-f4: G = 2 (a1 dead, d2-d3 live) but L = 1; create moves exist.
ONE_LIVE = "BW../WW.../....../.BB..../....../...../.... B"


@pytest.mark.parametrize("groups, position, extends_allowed", [
    ("must-create-if-one", ADJACENT, True),
    ("must-create-if-one-live", ADJACENT, True),
    ("priority-create-if-one", ADJACENT, True),
    ("priority-create-if-one-live", ADJACENT, True),
    ("priority-create", ADJACENT, False),          # creates exist, so only creates
    ("must-create-if-one", ONE_LIVE, True),        # G = 2
    ("must-create-if-one-live", ONE_LIVE, False),  # L = 1
    ("priority-create-if-one", ONE_LIVE, True),
    ("priority-create-if-one-live", ONE_LIVE, False),
    ("priority-create", ONE_LIVE, False),
])
def test_groups_options_with_create_moves(groups: str, position: str, extends_allowed: bool) -> None:
    game = Smallholder("hex4", f"groups={groups}")
    pos = game.parse(position)
    assert bool(move_names(game, pos, EXTEND)) is extends_allowed
    assert move_names(game, pos, CREATE)


# limping2: one black group b2-c2-c3 touches every empty cell, so no create move exists.
#       .   .
#     .   B   .
#   .   B   B   W
#     .   .   .
CROWDED = "../.B./.BBW/... B"


@pytest.mark.parametrize("groups, moves", [
    ("must-create-if-one", 0),            # G = 1: must create, cannot: loses
    ("must-create-if-one-live", 0),
    ("priority-create-if-one", 8),        # no create exists, so extensions are allowed
    ("priority-create-if-one-live", 8),
    ("priority-create", 8),
])
def test_groups_options_without_create_moves(groups: str, moves: int) -> None:
    game = Smallholder("limping2", f"groups={groups}")
    pos = game.parse(CROWDED)
    assert len(game.legal_moves(pos)) == moves
    assert game.terminal_value(pos) == (LOSS if moves == 0 else None)
    assert game.winner(pos) == (WHITE if moves == 0 else None)


# -- capture ---------------------------------------------------------------------------------

# hex4, Black to move (groups=must-create-if-one: the dead g1 makes G = 2). Black c6
# joins the ring a1..b5 to c1..c6: c2 c3 c4 c5 become held. White c2-c3 is then wholly
# inside; White c5-d5 only partly (d5 is outside).
#         B   B   B   B
#       B   .   .   .   B
#     B   W   W   .   W  [.]
#   .   .   .   .   W   .   .
#     .   .   .   .   .   .
#       W   W   .   .   .
#         B   W   .   .
CAPTURE = "BBBB/B...B/BWW.W./....W../....../WW.../BW.. B"


@pytest.mark.parametrize("capture, after", [
    ("piecewise", "BBBB/B...B/B....B/....W../....../WW.../BW.. W"),          # c2 c3 c5
    ("groupwise", "BBBB/B...B/B...WB/....W../....../WW.../BW.. W"),          # c2-c3 only
    ("groupwise-reentry", "BBBB/B...B/B...WB/....W../....../WW.../BW.. W"),
])
def test_capture_on_extension(capture: str, after: str) -> None:
    game = Smallholder("hex4", f"groups=must-create-if-one,capture={capture}")
    pos = game.parse(CAPTURE)
    (move,) = [m for m in game.moves(pos) if game.move_name(m.cell) == "c6"]
    assert move.kind == EXTEND
    assert game.format(game.play(pos, move.cell)) == after
    assert move.captures == (3 if capture == "piecewise" else 2)


@pytest.mark.parametrize("capture, reenters", [("groupwise", False), ("groupwise-reentry", True)])
def test_reentry_next_to_own_stone(capture: str, reenters: bool) -> None:
    # After the groupwise capture, c4 is inside Black's holdings and next to White c5.
    game = Smallholder("hex4", f"groups=must-create-if-one,capture={capture}")
    pos = game.parse("BBBB/B...B/B...WB/....W../....../WW.../BW.. W")
    assert ("c4" in move_names(game, pos, EXTEND)) is reenters
    assert "c3" not in move_names(game, pos)  # held and not next to a white stone


def test_partly_inside_group_is_reachable_under_groupwise() -> None:
    game = Smallholder("hex4", "capture=groupwise")
    pos = game.parse("BBBB/B...B/B...WB/....W../....../WW.../BW.. W")
    assert game.status(pos) == ()
    with pytest.raises(IllegalPositionError):
        Smallholder("hex4", "capture=piecewise").parse("BBBB/B...B/B...WB/....W../....../WW.../BW.. W")


# hex3, unreachable on purpose: White c2 already sits in Black's holdings (see RING),
# and Black has a second group e3. Only an extension captures, and it captures every
# enemy stone in any of the mover's holdings, not only near the new stone.
@pytest.mark.parametrize("move, kind, captures", [
    ("d2", CREATE, 0),    # a new group: no capture although c2 is held
    ("d3", EXTEND, 1),    # extends e3, far from c2: c2 goes
])
def test_only_extensions_capture(move: str, kind: str, captures: int) -> None:
    game = Smallholder("hex3", "groups=must-create-if-one,adjacent=smallest")
    pos = game.parse("BBB/B..B/BW..B/..../..B B", allow_unreachable=True)
    (found,) = [m for m in game.moves(pos) if game.move_name(m.cell) == move]
    assert (found.kind, found.captures) == (kind, captures)


# -- game end, play, keys ----------------------------------------------------------------------

def test_first_moves_and_illegal_move() -> None:
    game = Smallholder("limping2")
    start = game.start()
    assert game.legal_moves(start) == list(range(12))
    pos = game.play(start, game.parse_move("a1"))
    assert game.format(pos) == "B./.../..../... W"
    # White cannot extend with one group under nibbler: the cells next to nothing white
    # are creates, and nothing else exists yet.
    assert all(m.kind == CREATE for m in game.moves(pos))
    with pytest.raises(IllegalMoveError, match="illegal move .*'a1'"):
        game.play(pos, 0)
    with pytest.raises(ValueError):
        game.play(pos, 99)


def test_key_and_canonical_key() -> None:
    game = Smallholder("limping2")
    pos = game.parse("B./.../..../..W W")
    n = game.board.size
    assert game.key(pos) == 1 | 1 << (11 + n) | 1 << 2 * n
    assert game.from_key(game.key(pos)) == pos
    images = {game.canonical_key(_image(game, pos, s)) for s in range(len(game.board.symmetries))}
    assert images == {game.canonical_key(pos)}
    assert game.canonical_key(pos) <= game.key(pos)


def test_rules_names() -> None:
    assert Smallholder().rules_name == "nibbler@hex4"
    assert Smallholder("hex3", "stymie").rules_name == "stymie@hex3"
    spec = "groups=priority-create,adjacent=smallest,territory=hull,capture=groupwise"
    assert Smallholder("hex4", spec).rules_name == f"{spec}@hex4"
    # A spec that spells out a named ruleset gets its name: one name per option set.
    assert Smallholder("hex4", RULESETS["hull-setbacks"].spec).rules_name == "hull-setbacks@hex4"
    assert len(all_rules()) == 120 == len(set(all_rules()))


# -- invariances -------------------------------------------------------------------------------

def _image(game: Smallholder, pos: Position, symmetry: int) -> Position:
    t = game.board.transform
    return Position(t(pos.black, symmetry), t(pos.white, symmetry), pos.to_move)


def _playout_positions(game: Smallholder, rng: random.Random, limit: int) -> list[Position]:
    pos, seen = game.start(), []
    for _ in range(limit):
        seen.append(pos)
        found = game.moves(pos)
        if not found:
            break
        pos = game.result(pos, rng.choice(found))
    return seen


@pytest.mark.slow
@pytest.mark.parametrize("board", ["limping2", "limping3", "hex3", "hex4"])
@pytest.mark.parametrize("ruleset", list(RULESETS))
def test_symmetry_and_colour_invariance(board: str, ruleset: str) -> None:
    game = Smallholder(board, ruleset)
    rng = random.Random(f"{board}/{ruleset}")
    for pos in _playout_positions(game, rng, 3 * game.board.size):
        found = game.moves(pos)
        for s, perm in enumerate(game.board.symmetries):
            image = _image(game, pos, s)
            expected = sorted((perm[m.cell], m.kind, m.captures) for m in found)
            assert [(m.cell, m.kind, m.captures) for m in game.moves(image)] == expected
            assert game.canonical_key(image) == game.canonical_key(pos)
        swapped = game.moves(pos.swap_colours())
        assert [(m.cell, m.kind, m.captures) for m in swapped] == [(m.cell, m.kind, m.captures) for m in found]


# -- cross-check against the naive implementation ---------------------------------------------

#: Random playouts per option combination; every position of each is checked. The naive
#: engine needs a few ms per hex4 position and the whole Smallholder test run should stay
#: well under a minute; SMALLHOLDER_PLAYOUTS=k multiplies the playouts for a deeper check.
SCALE = int(os.environ.get("SMALLHOLDER_PLAYOUTS", "1"))
PLAYOUTS = {"limping2": 2 * SCALE, "hex3": SCALE, "hex4": SCALE}


def _options(rules: Rules) -> dict[str, str]:
    return {"groups": rules.groups, "adjacent": rules.adjacent, "territory": rules.territory,
            "capture": rules.capture}


@pytest.mark.parametrize("board", list(PLAYOUTS))
@pytest.mark.parametrize("rules", [pytest.param(r, marks=[] if r.name in RULESETS else [pytest.mark.slow])
                                   for r in all_rules()], ids=lambda r: r.spec.replace(",", ";"))  # named: quick
def test_engine_agrees_with_naive_implementation(board: str, rules: Rules) -> None:
    game = Smallholder(board, rules)
    naive_board = NaiveBoard(list(BOARD_ROWS[board]))
    options = _options(rules)
    rng = random.Random(f"{board}/{rules.spec}")
    for _ in range(PLAYOUTS[board]):
        # hull + piecewise can repeat positions; three board-fulls of moves is plenty.
        for pos in _playout_positions(game, rng, 3 * game.board.size):
            text = game.format(pos)
            slow = naive_parse(naive_board, text)
            expected = [(cell, kind, captured, naive_write(naive_board, after))
                        for cell, kind, captured, after in naive_successors(naive_board, slow, options)]
            got = [(m.cell, m.kind, m.captures, game.format(after)) for m, after in game.children(pos)]
            assert got == expected, text
            for colour in (BLACK, WHITE):
                held = {naive_board.index[c] for c in naive_holdings(naive_board, slow, colour, rules.territory)}
                assert set(bits(game.holdings(pos, colour))) == held, (text, colour)
            assert (game.terminal_value(pos) == LOSS) is (not expected)
            # Conservative status: no position reached in play is ever flagged.
            assert game.status(pos) == (), text


def test_naive_board_matches_engine_cell_order() -> None:
    for name, rows in BOARD_ROWS.items():
        game = Smallholder(name)
        naive = NaiveBoard(list(rows))
        for i, cell in enumerate(naive.cells):
            expected = {naive.index[n] for n in naive.neighbours(cell)}
            assert set(game.board.neighbours[i]) == expected


def test_engine_is_pure_rules() -> None:
    """games/ must not reach into the solver, the database or the CLI (STYLE.md)."""
    package = Path(__file__).resolve().parent.parent / "games" / "smallholder"
    for source in package.glob("*.py"):
        text = source.read_text()
        for layer in ("tablebase.solver", "tablebase.db", "tablebase.cli", "import click", "print("):
            assert layer not in text, f"{source.name} uses {layer}"
