"""Sparro notation (docs/sparro.md): positions both ways, every class of bad input, moves.

Fixtures: positions/sparro/legal.txt and positions/sparro/illegal.txt (their format is
described in their '#' header lines). Standard cell order of the notation:

    level 0 (4x4)        level 1 (3x3)      level 2 (2x2)
      a b c d              a b c              a b
    1 0 1 2 3            1 12 13 14         1 20 21
    2 4 o o 5            2 15  o 16         2 22 23
    3 6 o o 7            3 17 18 19
    4 8 9 10 11
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import assume, event, given, settings
from hypothesis import strategies as st

import sparro_naive as naive
from tablebase.games.base import IllegalPositionError, NotationError
from tablebase.games.sparro import VARIANTS, Sparro, SparroPosition
from tablebase.games.sparro.geometry import CELL_NAMES

FIXTURES = Path(__file__).resolve().parent.parent / "positions" / "sparro"
GAMES = {variant: Sparro(variant) for variant in VARIANTS}
MAX_LENGTH = 64  # longer texts are refused before anything else is looked at


def fixture_rows(name: str) -> list[list[str]]:
    rows = []
    for line in (FIXTURES / name).read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.startswith("#"):
            rows.append([field.strip() for field in line.split("|")])
    return rows


LEGAL = fixture_rows("legal.txt")
ILLEGAL = fixture_rows("illegal.txt")


def check_message(error: NotationError, text: str) -> None:
    """The NotationError contract (games/base.py): lowercase, ends with ``text!r``."""
    message = str(error)
    assert message[:1].islower(), message
    if len(text) > MAX_LENGTH:
        # Over-long input is echoed only by its beginning (see test_too_long).
        assert message.endswith(f"{text[:MAX_LENGTH]!r}..."), message
    else:
        assert message.endswith(f": {text!r}"), message


# -- fixtures ---------------------------------------------------------------------------------

def test_fixtures_present() -> None:
    assert len(LEGAL) >= 20 and len(ILLEGAL) >= 30
    assert {row[0] for row in LEGAL} == set(VARIANTS)
    assert {row[2] for row in ILLEGAL} == {"syntax", "illegal"}


@pytest.mark.parametrize("variant, text, to_move, moves, winner", LEGAL, ids=[r[1] for r in LEGAL])
def test_legal_fixture(variant: str, text: str, to_move: str, moves: str, winner: str) -> None:
    game = GAMES[variant]
    pos = game.parse(text)
    assert game.format(pos) == text
    assert game.to_move(pos) == to_move
    assert len(game.legal_moves(pos)) == int(moves)
    result = game.result(pos)
    assert (result.winner if result else "-") == winner
    # The naive reference reads the same position the same way.
    ref, state = naive.NaiveSparro(variant), naive.from_text(text)
    assert naive.problem(state, variant) is None
    assert naive.to_move(state[0]) == to_move
    assert len(ref.legal(state)) == int(moves)
    assert (ref.winner(state) or "-") == winner


@pytest.mark.parametrize("variant, text, kind, fragment", ILLEGAL, ids=[f"{r[0]}:{r[1]!r}" for r in ILLEGAL])
def test_illegal_fixture(variant: str, text: str, kind: str, fragment: str) -> None:
    game = GAMES[variant]
    with pytest.raises(NotationError) as info:
        game.parse(text)
    assert fragment in str(info.value)
    assert isinstance(info.value, IllegalPositionError) == (kind == "illegal")
    check_message(info.value, text)
    if kind == "illegal":
        assert naive.problem(naive.from_text(text), variant) is not None


# -- hand-picked bad input ---------------------------------------------------------------------

@pytest.mark.parametrize("text", ["", " ", "\t\n", "   \n  "])
@pytest.mark.parametrize("variant", VARIANTS)
def test_empty(variant: str, text: str) -> None:
    with pytest.raises(NotationError, match="^empty position") as info:
        GAMES[variant].parse(text)
    assert not isinstance(info.value, IllegalPositionError)
    check_message(info.value, text)


@pytest.mark.parametrize("variant", VARIANTS)
def test_too_long(variant: str) -> None:
    text = "............/......../...." + " " * 60 + "B"
    with pytest.raises(NotationError, match=r"^position text too long \(87 characters\)") as info:
        GAMES[variant].parse(text)
    check_message(info.value, text)
    # Exactly the limit is still read (surrounding blanks are fine).
    padded = "............/......../....".ljust(MAX_LENGTH)
    assert GAMES[variant].parse(padded) == GAMES[variant].start()


@pytest.mark.parametrize("text, char, offset", [
    ("....x......./......../....", "x", 4),
    ("   ....x......./......../....", "x", 7),      # leading blanks count
    ("............/.......?/....", "?", 20),
    ("............/......../..é.", "é", 24),
    ("r.........../......../....", "r", 0),         # lowercase colours are not colours
    ("o.........../......../....", "o", 0),         # nor are whites
])
def test_unknown_character(text: str, char: str, offset: int) -> None:
    with pytest.raises(NotationError) as info:
        GAMES["standard"].parse(text)
    assert f"unknown character {char!r} at offset {offset}" in str(info.value)
    assert text[offset] == char
    check_message(info.value, text)


def test_extended_token_is_optional_and_defaults_to_black() -> None:
    game = GAMES["extended"]
    assert game.parse("............/......../....") == game.start()
    assert game.format(game.parse("  ............/......../....\tB ")) == "............/......../.... B"
    pos = game.parse("RRRBB......./......../.... R")
    assert pos.red_has_token and pos.token == "R"


def test_both_lines_token_either_way() -> None:
    # Both have lines: either token is consistent in the extended variants.
    for token in "RB":
        for variant in ("extended", "extended-unrestricted"):
            # Red's fourth marble may complete the line after Black's, or not
            pos = GAMES[variant].parse(f"RRR.B.B.B..R/......../.... {token}")
            assert pos.token == token


def test_illegality_standard_token_direct() -> None:
    # Unreachable through parse (which refuses a written token), so asked directly.
    assert GAMES["standard"].illegality(SparroPosition(0, 0, True)) == "the standard variant has no token"
    assert GAMES["standard"].illegality(SparroPosition(0, 0, False)) is None


# -- hypothesis: round trips and arbitrary text ------------------------------------------------

@st.composite
def reachable(draw: st.DrawFn, variants: tuple[str, ...] = VARIANTS,
              min_moves: int = 0) -> tuple[Sparro, SparroPosition]:
    """A position met along a game whose moves hypothesis chooses, in one of ``variants``."""
    game = GAMES[draw(st.sampled_from(variants))]
    pos = game.start()
    for c in draw(st.lists(st.integers(0, 23), min_size=min_moves, max_size=24)):
        moves = game.legal_moves(pos)
        if not moves:
            break
        pos = game.play(pos, moves[c % len(moves)])
    return game, pos


@settings(deadline=None, max_examples=150)
@given(reachable())
def test_round_trip_reachable(case: tuple[Sparro, SparroPosition]) -> None:
    game, pos = case
    text = game.format(pos)
    assert game.parse(text) == pos
    assert game.format(game.parse(text)) == text
    assert re.fullmatch(r"[RB.]{12}/[RB.]{8}/[RB.]{4}" + (" [RB]" if game.extended else ""), text)
    if game.extended and pos.token == "B":
        assert game.parse(text[:-2]) == pos


def parse_or_notation_error(game: Sparro, text: str) -> SparroPosition | None:
    try:
        pos = game.parse(text)
    except NotationError as error:
        check_message(error, text)
        return None
    assert game.parse(game.format(pos)) == pos
    assert naive.problem(naive.from_text(game.format(pos)), game.variant) is None
    return pos


@settings(deadline=None, max_examples=200)
@given(st.sampled_from(VARIANTS), st.text(max_size=80))
def test_arbitrary_text_only_notation_errors(variant: str, text: str) -> None:
    parse_or_notation_error(GAMES[variant], text)


@settings(deadline=None, max_examples=200)
@given(st.sampled_from(VARIANTS), st.text(alphabet="RB./ \t\nrbx", max_size=40))
def test_near_notation_text_only_notation_errors(variant: str, text: str) -> None:
    parse_or_notation_error(GAMES[variant], text)


@st.composite
def board_texts(draw: st.DrawFn) -> tuple[str, str]:
    """Well-formed board texts: random, or a reachable position with one thing changed."""
    variant = draw(st.sampled_from(VARIANTS))
    if draw(st.integers(0, 3)) == 0:
        chars = draw(st.lists(st.sampled_from("RB.."), min_size=24, max_size=24))
        token = draw(st.sampled_from("RB"))
    else:
        # Extended games run on past their lines: read as `standard`, they often have too many.
        game, pos = draw(reachable(("extended", "extended-unrestricted"), min_moves=6))
        text = game.format(pos)
        chars, token = list(text[:12] + text[13:21] + text[22:26]), pos.token
        i = draw(st.integers(0, 23))
        change = draw(st.sampled_from(["R", "B", ".", "token", "none"]))
        if change == "token":
            token = "R" if token == "B" else "B"
        elif change != "none":
            chars[i] = change
    board = "".join(chars)
    text = f"{board[:12]}/{board[12:20]}/{board[20:]}"
    if variant != "standard":
        text += f" {token}"
    elif token == "R":
        assume(False)  # a standard text with a token is a syntax matter, tested elsewhere
    return variant, text


CATEGORY = {"floating": "floats", "counts": "marbles", "lines": "line", "token": "token"}


@settings(deadline=None, max_examples=300)
@given(board_texts())
def test_legality_agrees_with_naive(case: tuple[str, str]) -> None:
    variant, text = case
    problem = naive.problem(naive.from_text(text), variant)
    event(f"{variant}: {problem}")
    if problem is None:  # legal; whether a game reaches it is tests/test_sparro_reachability.py's matter
        pos = GAMES[variant].parse(text, allow_unreachable=True)
        assert GAMES[variant].format(pos) == text
    else:
        with pytest.raises(IllegalPositionError) as info:
            GAMES[variant].parse(text, allow_unreachable=True)
        assert CATEGORY[problem] in str(info.value)
        check_message(info.value, text)


@settings(deadline=None, max_examples=100)
@given(reachable(), st.integers(0, 25), st.characters(blacklist_characters="RB./", blacklist_categories=("Zs", "Cc")))
def test_unknown_character_offset(case: tuple[Sparro, SparroPosition], where: int, char: str) -> None:
    game, pos = case
    text = game.format(pos)
    offsets = [i for i in range(26) if text[i] not in "/"]
    i = offsets[where % len(offsets)]
    bad = text[:i] + char + text[i + 1:]
    assume(not char.isspace())
    with pytest.raises(NotationError) as info:
        game.parse(bad)
    assert f"unknown character {char!r} at offset {i}" in str(info.value)
    check_message(info.value, bad)


# -- moves ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("index", range(24))
def test_parse_move_names_and_indices(index: int) -> None:
    game = GAMES["standard"]
    name = CELL_NAMES[index]
    assert game.move_name(index) == name
    assert game.parse_move(name) == index
    assert game.parse_move(name.upper()) == index
    assert game.parse_move(f"  {name} ") == index
    assert game.parse_move(str(index)) == index
    assert game.parse_move(f" {index}\n") == index


@pytest.mark.parametrize("text", [
    "", " ", "24", "99", "-1", "+3", "1.5", "3 4", "x", "a1", "0a", "0e1", "0a5", "3a1", "2c1", "1d1",
    "0b2",   # the white (0,1,1)
    "1b2",   # the white (1,1,1)
    "0a1 0b1", "0a1,", "zero",
])
@pytest.mark.parametrize("variant", VARIANTS)
def test_parse_move_rejects(variant: str, text: str) -> None:
    with pytest.raises(NotationError) as info:
        GAMES[variant].parse_move(text)
    check_message(info.value, text)
    assert "0-23" in str(info.value)


@pytest.mark.parametrize("text", ["\u00b2", "\u0663", "\uff11"])  # superscript two, arabic-indic three, fullwidth one
def test_parse_move_rejects_non_ascii_digits(text: str) -> None:
    # str.isdigit() is true for these; an index is written with ASCII digits 0-23.
    with pytest.raises(NotationError) as info:
        GAMES["standard"].parse_move(text)
    check_message(info.value, text)


@settings(deadline=None, max_examples=300)
@given(st.one_of(st.text(max_size=8), st.sampled_from(CELL_NAMES).map(str.upper),
                 st.integers(-5, 40).map(str)))
def test_parse_move_arbitrary_text(text: str) -> None:
    game = GAMES["standard"]
    try:
        move = game.parse_move(text)
    except NotationError as error:
        check_message(error, text)
        return
    assert 0 <= move < 24
    word = text.strip().lower()
    assert word == CELL_NAMES[move] or (word.isascii() and word.isdigit() and int(word) == move)
