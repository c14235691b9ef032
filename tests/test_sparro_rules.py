"""Sparro rules (games/sparro/rules.py): move generation, game end, token, symmetry.

Cross-checked against tests/sparro_naive.py, which works on ``{(level, row, col):
colour}`` dicts and reads docs/sparro.md (Variants) on its own. Hand-built positions are drawn
as pictures, the three levels side by side, ``o`` for the fixed whites:

    level 0    level 1  level 2
    R R B R    B R B    B B
    R o o R    R o R    B B
    B o o B    B R B
    R R B R
"""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import sparro_naive as naive
from tablebase.games.base import LOSS, WIN, IllegalPositionError, NotationError
from tablebase.games.sparro import VARIANTS, Sparro, SparroPosition, count_lines
from tablebase.games.sparro.geometry import CELL_NAMES, CORNER_CELLS, EDGE_CENTRE_CELLS, SYMMETRIES
from tablebase.games.sparro.rules import available_cells

INDEX = {cell: i for i, cell in enumerate(naive.PLAYABLE)}
GAMES = {variant: Sparro(variant) for variant in VARIANTS}


def picture(text: str, token: str = "") -> str:
    """The notation of a position drawn as above (token appended when given)."""
    rows = [line.split() for line in text.strip().splitlines()]
    assert [len(r) for r in rows] == [9, 9, 7, 4], "picture needs the three levels side by side"
    levels = [[r[:4] for r in rows], [r[4:7] for r in rows[:3]], [r[7:9] for r in rows[:2]]]
    groups = []
    for level, grid in enumerate(levels):
        chars = ""
        for row, line in enumerate(grid):
            for col, ch in enumerate(line):
                assert (ch == "o") == ((level, row, col) in naive.WHITES), (level, row, col)
                if ch != "o":
                    chars += ch
        groups.append(chars)
    board = "/".join(groups)
    return f"{board} {token}" if token else board


def cell(name: str) -> int:
    return CELL_NAMES.index(name)


def to_naive(pos: SparroPosition) -> naive.State:
    board = naive.empty_board()
    for i, c in enumerate(naive.PLAYABLE):
        if pos.red >> i & 1:
            board[c] = "R"
        elif pos.black >> i & 1:
            board[c] = "B"
    return (board, pos.token)


def naive_moves(game: naive.NaiveSparro, state: naive.State) -> list[int]:
    return sorted(INDEX[c] for c in game.legal(state))


# -- perft ------------------------------------------------------------------------------

def engine_perft(game: Sparro, depth: int) -> int:
    """Move sequences of length ``depth`` from the start, memoised by position key."""
    memo: dict[tuple[int, int], int] = {}

    def walk(pos: SparroPosition, d: int) -> int:
        moves = game.legal_moves(pos)
        if d == 1:
            return len(moves)
        k = (game.key(pos), d)
        if k not in memo:
            memo[k] = sum(walk(game.play(pos, m), d - 1) for m in moves)
        return memo[k]

    return 1 if depth == 0 else walk(game.start(), depth)


# Counted by tests/sparro_naive.perft (depth 6 takes ~10 s there, so it is pinned here and
# only depths <= 5 are recounted naively below). Depth 6 is the first where `standard`
# differs from `extended-unrestricted`: Red's 3rd marble can end the game.
PERFT = {
    "standard": [1, 12, 132, 1328, 12224, 103320, 777328],
    "extended": [1, 12, 64, 640, 5840, 48816, 376672],
    "extended-unrestricted": [1, 12, 132, 1328, 12224, 103320, 807440],
}


@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("depth", range(1, 7))
def test_perft_engine(variant: str, depth: int) -> None:
    assert engine_perft(GAMES[variant], depth) == PERFT[variant][depth]


@pytest.mark.slow
@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("depth", [1, 2, 3, 4, 5])
def test_perft_naive(variant: str, depth: int) -> None:
    assert naive.perft(naive.NaiveSparro(variant), depth) == PERFT[variant][depth]


# -- random playouts against the naive engine ---------------------------------------------

@pytest.mark.slow
@pytest.mark.parametrize("variant", VARIANTS)
def test_random_playouts_match_naive(variant: str) -> None:
    game, ref = GAMES[variant], naive.NaiveSparro(variant)
    rng = random.Random(f"playouts-{variant}")
    finished = {"R": 0, "B": 0}
    for _ in range(200):
        pos, state = game.start(), ref.start()
        while True:
            moves = game.legal_moves(pos)
            assert moves == naive_moves(ref, state), game.format(pos)
            assert game.to_move(pos) == naive.to_move(state[0])
            assert pos.token == state[1]
            assert count_lines(pos.red) == naive.lines_of(state[0], "R")
            assert count_lines(pos.black) == naive.lines_of(state[0], "B")
            result, winner = game.result(pos), ref.winner(state)
            assert (result.winner if result else None) == winner
            value = game.terminal_value(pos)
            assert value == (None if winner is None else WIN if winner == game.to_move(pos) else LOSS)
            if not moves:
                assert winner is not None
                finished[winner] += 1
                break
            move = rng.choice(moves)
            pos, state = game.play(pos, move), ref.play(state, naive.PLAYABLE[move])
    assert finished["R"] and finished["B"]  # both sides do win sometimes


# -- game end -----------------------------------------------------------------------------

# Red's fifth marble on 0a1 closes the north row 0a1-0b1-0c1 and the west column
# 0a1-0a2-0a3 at once.
TWO_LINES_FOR_RED = picture("""
    . R R B    . . .    . .
    R o o B    . o .    . .
    R o o .    . . .
    B . . B
""")
# The same with the colours swapped; Black (one marble short) plays 0a1.
TWO_LINES_FOR_BLACK = picture("""
    . B B R    . . .    . .
    B o o R    . o .    . .
    B o o .    . . .
    R R . R
""")


def test_standard_single_line_wins() -> None:
    game = GAMES["standard"]
    pos = game.parse("RR.BB......./......../....")
    assert game.result(pos) is None
    after = game.play(pos, cell("0c1"))
    result = game.result(after)
    assert result is not None
    assert (result.winner, result.red_lines, result.black_lines) == ("R", 1, 0)
    assert game.to_move(after) == "B"
    assert game.terminal_value(after) == LOSS
    assert game.legal_moves(after) == []
    with pytest.raises(ValueError):
        game.play(after, cell("0d1"))


def test_standard_two_lines_at_once() -> None:
    game = GAMES["standard"]
    pos = game.parse(TWO_LINES_FOR_RED)
    assert game.to_move(pos) == "R" and game.result(pos) is None
    after = game.play(pos, cell("0a1"))
    result = game.result(after)
    assert result is not None and result.winner == "R" and result.red_lines == 2
    assert game.terminal_value(after) == LOSS
    assert game.legal_moves(after) == []
    assert game.parse(game.format(after)) == after  # two lines by the last mover are legal


def test_standard_black_line_wins() -> None:
    game = GAMES["standard"]
    pos = game.parse(TWO_LINES_FOR_BLACK)
    assert game.to_move(pos) == "B"
    after = game.play(pos, cell("0a1"))
    result = game.result(after)
    assert result is not None
    assert (result.winner, result.red_lines, result.black_lines) == ("B", 0, 2)
    assert game.to_move(after) == "R"
    assert game.terminal_value(after) == LOSS


# A full board without any line, reached by a game (12 marbles each; Black played 2b2 last).
FULL_NO_LINE = picture("""
    R R B B    B B R    R B
    B o o B    B o R    R B
    R o o R    R R B
    B R B R
""")


def test_full_board_without_line() -> None:
    state = naive.from_text(FULL_NO_LINE)
    assert naive.is_full(state[0]) and naive.lines_of(state[0], "R") == naive.lines_of(state[0], "B") == 0
    for variant in VARIANTS:
        game = GAMES[variant]
        pos = game.parse(FULL_NO_LINE)
        result = game.result(pos)
        assert result is not None
        assert (result.winner, result.red_lines, result.black_lines, result.token) == ("B", 0, 0, "B")
        assert game.to_move(pos) == "R"
        assert game.terminal_value(pos) == LOSS
        assert game.legal_moves(pos) == []
    with pytest.raises(IllegalPositionError, match="token"):
        GAMES["extended"].parse(FULL_NO_LINE + " R")


def test_filling_the_board_without_line_wins_for_black() -> None:
    # Take away one black marble on top and let Black put it back: the last move.
    game = GAMES["standard"]
    before = game.parse(FULL_NO_LINE[:-1] + ".")
    assert game.result(before) is None and game.legal_moves(before) == [cell("2b2")]
    after = game.play(before, cell("2b2"))
    assert game.result(after).winner == "B"  # type: ignore[union-attr]


def test_standard_last_marble_completing_a_line() -> None:
    # Black's 12th marble on 2b2 closes the ridge 0d4-1c3-2b2: Black wins by that line.
    text = picture("""
        R R B R    B R B    R B
        R o o R    R o R    B .
        B o o B    B R B
        R R B B
    """)
    game = GAMES["standard"]
    pos = game.parse(text)
    assert game.result(pos) is None and game.legal_moves(pos) == [cell("2b2")]
    after = game.play(pos, cell("2b2"))
    result = game.result(after)
    assert result is not None
    assert (result.winner, result.red_lines, result.black_lines) == ("B", 0, 1)
    assert game.terminal_value(after) == LOSS


def test_extended_play_continues_after_lines() -> None:
    for variant in ("extended", "extended-unrestricted"):
        game = GAMES[variant]
        pos = game.parse(TWO_LINES_FOR_RED)
        after = game.play(pos, cell("0a1"))
        assert game.result(after) is None and game.terminal_value(after) is None
        assert game.legal_moves(after) == naive_moves(naive.NaiveSparro(variant), to_naive(after))
        # 0d3, 0b4, 0c4 on level 0; 1a1, 1b1, 1c1, 1a2 now rest on full platforms.
        assert game.legal_moves(after) == [cell(n) for n in ("0d3", "0b4", "0c4", "1a1", "1b1", "1c1", "1a2")]
        assert after.token == "R"
        assert count_lines(after.red) == 2


def test_four_in_a_row_counts_two() -> None:
    north = sum(1 << cell(n) for n in ("0a1", "0b1", "0c1", "0d1"))
    assert count_lines(north) == 2
    ring = sum(1 << i for i in range(12))  # all of level 0: 4 sides x 2
    assert count_lines(ring) == 8
    assert count_lines((1 << 24) - 1) == 24


# Full boards for the extended count; all legal with either token where both have lines.
# Full boards for the extended count: (notation, red lines, black lines).
FULL_BOARDS = [
    # Red: the north row 0a1-0d1 (4 in a row: 2 lines); Black: the east row of level 1
    # 1c1-1c2-1c3 and the west rising line 0a3-1a2-2a1.
    (picture("""
        R R R R    R B B    B R
        R o o B    B o B    B R
        B o o B    R B B
        R B R R
    """), 2, 2),
    ("RRRRBBBRRRBB/BBRRRBBB/BBRR", 2, 1),   # Red's 2 lines are the north 4 in a row
    ("RRBBRRBBRRBB/BRRBBRBB/RRBR", 1, 1),
    ("BBRBBRRBRRBR/BRBRRBRB/BRRB", 0, 1),
    ("BRRBBRRBRBRR/RBRBBBRB/BRRB", 1, 0),
    ("RBRBBBBRRRBR/RRBBBRRB/RBRB", 3, 3),
    (FULL_NO_LINE, 0, 0),
]


@pytest.mark.parametrize("variant", ["extended", "extended-unrestricted"])
@pytest.mark.parametrize("text, red_lines, black_lines", FULL_BOARDS)
@pytest.mark.parametrize("token", ["R", "B"])
def test_extended_full_board_result(variant: str, text: str, red_lines: int, black_lines: int,
                                    token: str) -> None:
    game = GAMES[variant]
    board, _ = naive.from_text(text)
    assert (naive.lines_of(board, "R"), naive.lines_of(board, "B")) == (red_lines, black_lines)
    consistent = (red_lines and black_lines) or token == ("R" if red_lines else "B")
    if not consistent:
        with pytest.raises(IllegalPositionError, match="token"):
            game.parse(f"{text} {token}")
        return
    pos = game.parse(f"{text} {token}", allow_unreachable=True)  # the result of any legal full board
    result = game.result(pos)
    assert result is not None
    expected = token if red_lines == black_lines else "R" if red_lines > black_lines else "B"
    assert (result.winner, result.red_lines, result.black_lines, result.token) == (
        expected, red_lines, black_lines, token)
    assert game.to_move(pos) == "R"
    assert game.terminal_value(pos) == (WIN if expected == "R" else LOSS)
    assert game.legal_moves(pos) == []


@pytest.mark.parametrize("text, red_lines, black_lines", FULL_BOARDS)
def test_standard_full_board_with_lines_ends_at_first_line(text: str, red_lines: int,
                                                           black_lines: int) -> None:
    game = GAMES["standard"]
    # Red is to move on a full board: a red line means the game should have ended earlier.
    if red_lines:
        with pytest.raises(IllegalPositionError, match="line"):
            game.parse(text)
    else:
        assert game.result(game.parse(text)).winner == "B"  # type: ignore[union-attr]


def test_token_passes_only_on_new_lines_of_the_mover() -> None:
    # A scripted extended game on the level-0 ring; after each move: token, red lines, black lines.
    game, ref = GAMES["extended"], naive.NaiveSparro("extended")
    script = [
        ("0a1", "B", 0, 0),
        ("0a2", "B", 0, 0),   # edge-centre, as the first-move rule demands
        ("0b1", "B", 0, 0),
        ("0a3", "B", 0, 0),
        ("0c1", "R", 1, 0),   # north 0a1-0c1
        ("0a4", "B", 1, 1),   # west 0a2-0a4
        ("0d1", "R", 2, 1),   # north 0b1-0d1: a new line although red already had one
        ("0b4", "R", 2, 1),   # no line: the token stays with Red
        ("0d2", "R", 2, 1),   # red marble, no line: unchanged
        ("0c4", "B", 2, 2),   # south 0a4-0c4
        ("0d3", "R", 3, 2),   # east 0d1-0d3
        ("0d4", "B", 3, 3),   # south 0b4-0d4 (0d2-0d4 is not black)
    ]
    pos, state = game.start(), ref.start()
    for name, token, red_lines, black_lines in script:
        pos, state = game.play(pos, cell(name)), ref.play(state, naive.PLAYABLE[cell(name)])
        assert (pos.token, count_lines(pos.red), count_lines(pos.black)) == (token, red_lines, black_lines), name
        assert pos.token == state[1]
        assert game.parse(game.format(pos)) == pos
    # Finish the game on the upper levels, always the lowest legal cell, against the naive.
    while game.legal_moves(pos):
        move = game.legal_moves(pos)[0]
        assert game.legal_moves(pos) == naive_moves(ref, state)
        pos, state = game.play(pos, move), ref.play(state, naive.PLAYABLE[move])
        assert pos.token == state[1]
    result = game.result(pos)
    assert result is not None and result.winner == ref.winner(state)
    assert (result.red_lines, result.black_lines) == (naive.lines_of(state[0], "R"), naive.lines_of(state[0], "B"))


def test_standard_has_no_token() -> None:
    game = GAMES["standard"]
    pos = game.play(game.parse(TWO_LINES_FOR_BLACK), cell("0a1"))
    assert not pos.red_has_token
    pos = game.play(game.parse("RR.BB......./......../...."), cell("0c1"))
    assert not pos.red_has_token and pos.token == "B"


# -- extended first-move rule ----------------------------------------------------------------

@pytest.mark.parametrize("first", range(12))
def test_extended_first_move_rule(first: int) -> None:
    game = GAMES["extended"]
    pos = game.play(game.start(), first)
    expected = set(EDGE_CENTRE_CELLS) if first in CORNER_CELLS else set(CORNER_CELLS)
    assert set(game.legal_moves(pos)) == expected - {first}
    assert len(game.legal_moves(pos)) == (8 if first in CORNER_CELLS else 4)
    for reply in EDGE_CENTRE_CELLS if first in CORNER_CELLS else CORNER_CELLS:
        other = (set(range(12)) - expected) - {first}
        for bad in other:
            with pytest.raises(ValueError):
                game.play(pos, bad)
        after = game.play(pos, reply)
        # From the third move on every available cell is legal again.
        assert set(game.legal_moves(after)) == {i for i in range(24) if available_cells(after.occupied) >> i & 1}
        assert len(game.legal_moves(after)) == 10


@pytest.mark.parametrize("variant", ["standard", "extended-unrestricted"])
@pytest.mark.parametrize("first", range(12))
def test_no_first_move_rule(variant: str, first: int) -> None:
    game = GAMES[variant]
    pos = game.play(game.start(), first)
    assert game.legal_moves(pos) == [i for i in range(12) if i != first]


def test_first_move_rule_after_parse() -> None:
    assert GAMES["extended"].legal_moves(GAMES["extended"].parse("...R......../......../....")) == [1, 2, 4, 5, 6, 7, 9, 10]
    assert GAMES["extended"].legal_moves(GAMES["extended"].parse("....R......./......../....")) == [0, 3, 8, 11]


def test_upper_cells_become_available() -> None:
    # 1b1 rests on 0b1, 0c1 and two whites: it is available as soon as both are filled.
    game = GAMES["extended-unrestricted"]
    pos = game.play(game.play(game.start(), cell("0b1")), cell("0c1"))
    assert cell("1b1") in game.legal_moves(pos)
    assert cell("1a1") not in game.legal_moves(pos)
    pos = game.play(pos, cell("1b1"))
    assert game.format(pos) == ".RB........./.R....../.... B"
    # 2a1 needs 1a1, 1b1, 1a2 (and the white 1b2).
    assert cell("2a1") not in game.legal_moves(pos)


@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("move", [-1, 24, 99])
def test_play_rejects_out_of_range(variant: str, move: int) -> None:
    game = GAMES[variant]
    with pytest.raises(ValueError):
        game.play(game.start(), move)


@pytest.mark.parametrize("variant", VARIANTS)
def test_play_rejects_occupied_and_floating(variant: str) -> None:
    game = GAMES[variant]
    pos = game.play(game.start(), cell("0b1"))
    with pytest.raises(ValueError):
        game.play(pos, cell("0b1"))
    with pytest.raises(ValueError):
        game.play(pos, cell("1a1"))
    with pytest.raises(ValueError):
        game.play(game.start(), cell("2b2"))


def test_unknown_variant() -> None:
    with pytest.raises(NotationError, match="unknown sparro variant.*'blitz'"):
        Sparro("blitz")


def test_start_and_names() -> None:
    for variant, game in GAMES.items():
        assert game.start() == SparroPosition(0, 0, False)
        assert game.rules_name == variant and game.game_name == "sparro"
        assert [game.move_name(i) for i in range(24)] == list(CELL_NAMES)


# -- symmetry and keys ---------------------------------------------------------------------------

@st.composite
def reachable(draw: st.DrawFn, variant: str | None = None) -> tuple[Sparro, SparroPosition]:
    """A position met along a game whose moves hypothesis chooses."""
    game = GAMES[variant or draw(st.sampled_from(VARIANTS))]
    choices = draw(st.lists(st.integers(0, 23), max_size=24))
    pos = game.start()
    for c in choices:
        moves = game.legal_moves(pos)
        if not moves:
            break
        pos = game.play(pos, moves[c % len(moves)])
    return game, pos


def naive_image(pos: SparroPosition, s: int) -> SparroPosition:
    """The image of ``pos`` under naive symmetry ``s`` (sphere-centre isometries)."""
    m = naive.SYMMETRIES[s]
    red = sum(1 << INDEX[m[c]] for i, c in enumerate(naive.PLAYABLE) if pos.red >> i & 1)
    black = sum(1 << INDEX[m[c]] for i, c in enumerate(naive.PLAYABLE) if pos.black >> i & 1)
    return SparroPosition(red, black, pos.red_has_token)


@settings(deadline=None, max_examples=150)
@given(reachable())
def test_canonical_key_invariant(case: tuple[Sparro, SparroPosition]) -> None:
    game, pos = case
    canon = game.canonical_key(pos)
    images = [naive_image(pos, s) for s in range(8)]
    assert canon == min(game.key(image) for image in images)
    for s in range(8):
        assert game.canonical_key(game.symmetric(pos, s)) == canon
        assert game.canonical_key(images[s]) == canon
    assert canon <= game.key(pos)
    assert game.from_key(canon) in images


@settings(deadline=None, max_examples=100)
@given(reachable(), st.integers(0, 7))
def test_symmetric_positions_play_alike(case: tuple[Sparro, SparroPosition], s: int) -> None:
    game, pos = case
    image = game.symmetric(pos, s)
    perm = SYMMETRIES[s]
    assert sorted(perm[m] for m in game.legal_moves(pos)) == game.legal_moves(image)
    assert game.terminal_value(image) == game.terminal_value(pos)
    assert game.to_move(image) == game.to_move(pos)
    for move in game.legal_moves(pos)[:3]:
        assert game.play(image, perm[move]) == game.symmetric(game.play(pos, move), s)


@settings(deadline=None, max_examples=150)
@given(reachable())
def test_key_round_trip(case: tuple[Sparro, SparroPosition]) -> None:
    game, pos = case
    key = game.key(pos)
    assert key >= 0 and key < 1 << 49
    assert game.from_key(key) == pos
    assert key & 0xFFFFFF == pos.red and key >> 24 & 0xFFFFFF == pos.black


def test_keys_distinguish_token() -> None:
    game = GAMES["extended"]
    a = game.parse("RRRBB......./......../.... R")
    b = SparroPosition(a.red, a.black, False)
    assert game.key(a) != game.key(b)
    assert game.canonical_key(a) != game.canonical_key(b)


def test_canonical_key_identifies_mirror_openings() -> None:
    game = GAMES["standard"]
    corners = {game.canonical_key(game.play(game.start(), i)) for i in CORNER_CELLS}
    edges = {game.canonical_key(game.play(game.start(), i)) for i in EDGE_CENTRE_CELLS}
    assert len(corners) == 1 and len(edges) == 1 and corners != edges
