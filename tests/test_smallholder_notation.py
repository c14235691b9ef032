"""Position notation, move names, ruleset specs and the reachability status."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tablebase.games.base import IllegalPositionError, NotationError
from tablebase.games.smallholder import (
    BLACK, BOARD_ROWS, RULESETS, WHITE, Position, Rules, Smallholder, format_position, get_board, parse_position,
    parse_rules)
from tablebase.games.smallholder.position import MAX_TEXT

FIXTURES = Path(__file__).resolve().parent.parent / "positions" / "smallholder"


def _lines(name: str) -> list[str]:
    return [line for line in (FIXTURES / name).read_text().splitlines() if line and not line.startswith("#")]


REACHABLE = [tuple(line.split(" ", 1)) for line in _lines("reachable.txt")]
MALFORMED = [tuple(line.split("\t")) for line in _lines("malformed.txt")]


@pytest.mark.parametrize("board, text", REACHABLE)
def test_reachable_fixtures_round_trip(board: str, text: str) -> None:
    game = Smallholder(board)
    pos = game.parse(text)
    assert game.format(pos) == text
    assert game.status(pos) == ()
    found, same = parse_position(text)
    assert (found.name, same) == (board, pos)


@pytest.mark.parametrize("text, fragment", MALFORMED)
def test_malformed_text_is_rejected_with_a_named_problem(text: str, fragment: str) -> None:
    with pytest.raises(NotationError) as info:
        parse_position(text)
    message = str(info.value)
    assert fragment in message
    assert message.endswith(repr(text))
    assert message[0].islower()


def test_limping2_empty_board_example_from_the_rules() -> None:
    board, pos = parse_position("../.../..../... B")
    assert board.name == "limping2"
    assert pos == Position(0, 0, BLACK)


def test_wrong_row_lengths_list_the_known_boards() -> None:
    with pytest.raises(NotationError, match="known: hex3 3/4/5/4/3; .*limping2 2/3/4/3"):
        parse_position("../.. B")


def test_requested_board_must_match() -> None:
    with pytest.raises(NotationError, match="position is on limping2, not on the requested board hex4"):
        Smallholder("hex4").parse("../.../..../... B")


def test_huge_text_is_refused_early() -> None:
    text = "." * (MAX_TEXT + 1) + " B"
    with pytest.raises(NotationError, match="too long") as info:
        parse_position(text)
    assert len(str(info.value)) < 200


def test_surrounding_whitespace_is_ignored() -> None:
    assert parse_position("  ../.../..../... W \n")[1] == Position(0, 0, WHITE)


@st.composite
def positions(draw: st.DrawFn) -> tuple[str, Position]:
    name = draw(st.sampled_from(list(BOARD_ROWS)))
    size = get_board(name).size
    cells = draw(st.lists(st.sampled_from("BW."), min_size=size, max_size=size))
    black = sum(1 << i for i, c in enumerate(cells) if c == "B")
    white = sum(1 << i for i, c in enumerate(cells) if c == "W")
    return name, Position(black, white, draw(st.sampled_from([BLACK, WHITE])))


@pytest.mark.slow
@settings(max_examples=300, deadline=None)
@given(positions())
def test_notation_round_trip(case: tuple[str, Position]) -> None:
    name, pos = case
    board = get_board(name)
    text = format_position(board, pos)
    assert parse_position(text) == (board, pos)
    game = Smallholder(board)
    assert game.parse(text, allow_unreachable=True) == pos
    assert game.from_key(game.key(pos)) == pos


@settings(max_examples=100, deadline=None)
@given(positions())
def test_canonical_key_is_the_smallest_symmetric_key(case: tuple[str, Position]) -> None:
    name, pos = case
    game = Smallholder(name)
    t = game.board.transform
    keys = [game.key(Position(t(pos.black, s), t(pos.white, s), pos.to_move))
            for s in range(len(game.board.symmetries))]
    assert game.canonical_key(pos) == min(keys)


# -- status: positions that cannot arise ----------------------------------------------------

@pytest.mark.parametrize("text, problem", [
    ("../.../..../... W", "black has just moved but has no stone"),
    ("B./.../..../... B", "white has just moved but has no stone"),
])
def test_last_mover_has_a_stone(text: str, problem: str) -> None:
    game = Smallholder("limping2")
    assert game.status(game.parse(text, allow_unreachable=True)) == (problem,)
    with pytest.raises(IllegalPositionError, match=problem):
        game.parse(text)


@pytest.mark.parametrize("rules, before, move, after", [
    ("nibbler", "../.../..../... B", None, "../.../..../... B"),  # the start
    # Black b2 wipes out White: a side may have no stones at all.
    ("groups=must-create-if-one,territory=hull", "BW/B.B/.BWB/BWW B", "b2", "B./BBB/.B.B/B.. W"),
    # Nor do the counts say whose turn it is: 8 black stones, none white, White to move.
    ("groups=priority-create-if-one,territory=hull", ".B/.BB/BBBW/WW. B", "d3", ".B/.BB/BBB./..B W"),
])
def test_reachable_positions_are_accepted(rules: str, before: str, move: str | None, after: str) -> None:
    game = Smallholder("limping2", rules)
    pos = game.parse(before)
    if move:
        pos = game.play(pos, game.parse_move(move))
    assert game.format(pos) == after
    assert game.status(game.parse(after)) == ()


# -- move names ----------------------------------------------------------------------------

def test_move_names() -> None:
    game = Smallholder("hex4")
    assert game.move_name(0) == "a1"
    assert game.move_name(36) == "g4"
    assert game.parse_move("D4") == game.parse_move("18") == 18
    with pytest.raises(NotationError, match="unknown cell on hex4 .*a1-g4.*'h1'"):
        game.parse_move("h1")


# -- ruleset names and specs -----------------------------------------------------------------

def test_named_rulesets() -> None:
    assert parse_rules("nibbler") == Rules()
    assert parse_rules("stymie") == Rules("priority-create-if-one-live", "smallest", "gap", "groupwise-reentry")
    assert set(RULESETS) == {"gaps-original", "nibbler", "offshore-gaps", "stymie", "hull-setbacks"}


def test_spec_defaults_to_nibbler_and_round_trips() -> None:
    assert parse_rules("territory=hull") == Rules(territory="hull")
    rules = parse_rules(" capture = groupwise , groups=priority-create ")
    assert rules == Rules(groups="priority-create", capture="groupwise")
    assert parse_rules(rules.spec) == rules
    assert parse_rules("capture=groupwise", base=RULESETS["stymie"]).groups == "priority-create-if-one-live"


@pytest.mark.parametrize("spec, fragment", [
    ("colour=red", "unknown rules key 'colour' (allowed: groups, adjacent, territory, capture)"),
    ("territory=square", "unknown territory option 'square' (allowed: gap, hull)"),
    ("groups=must", "allowed: must-create-if-one, must-create-if-one-live"),
    ("capture=", "unknown capture option ''"),
    ("capture=piecewise,capture=groupwise", "given twice"),
    ("nibler", "unknown ruleset (known: gaps-original, nibbler"),
])
def test_bad_specs(spec: str, fragment: str) -> None:
    with pytest.raises(NotationError) as info:
        parse_rules(spec)
    assert fragment in str(info.value)
    assert str(info.value).endswith(repr(spec))


def test_bad_rules_value_in_code() -> None:
    with pytest.raises(NotationError, match="unknown capture option"):
        Rules(capture="all")
