"""Reachable Sparro positions: the rules engine's `unreachability` against the solver's
forward enumeration (the exact set of positions some game passes through) on samples of
every tier, and against the naive reference's retraction search (tests/sparro_naive.py).
Unreachable positions are refused with the reason, unless asked for."""

from __future__ import annotations

import random
import sys
from functools import cache
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).parent))
import sparro_naive as naive  # noqa: E402

from tablebase.games.base import IllegalPositionError  # noqa: E402
from tablebase.games.sparro import VARIANTS, Sparro  # noqa: E402
from tablebase.games.sparro.geometry import NUM_CELLS  # noqa: E402
from tablebase.games.sparro.rules import SparroPosition  # noqa: E402
from tablebase.solver.sparro_arrays import SparroArrays  # noqa: E402
from tablebase.solver.tiered import enumerate_tiers  # noqa: E402

#: Positions an earlier version accepted in `standard` although the game ends at the first line.
TWO_SEPARATE_LINES = "RRRBB..BRRRB/B......./...."
PLAYED_AFTER_THE_LINE = "RRRBBB..BR.R/RB....../...."


@cache
def tiers(variant: str) -> list[np.ndarray]:
    return enumerate_tiers(SparroArrays(variant))


def random_legal(game: Sparro, tier: int, rng: random.Random) -> SparroPosition:
    """A random legal position with ``tier`` marbles (most are unreachable in high tiers)."""
    while True:
        cells = rng.sample(range(NUM_CELLS), tier)
        reds, blacks = cells[:(tier + 1) // 2], cells[(tier + 1) // 2:]
        pos = SparroPosition(sum(1 << c for c in reds), sum(1 << c for c in blacks),
                             game.extended and rng.random() < 0.5)
        if game.illegality(pos) is None:
            return pos


def check_tiers(variant: str, enumerated_per_tier: int, random_per_tier: int, seed: int) -> dict[str, int]:
    """accepted = enumerated: every enumerated position sampled is accepted (and a random
    symmetry image of it), every random legal position is accepted exactly when its
    canonical key is enumerated."""
    game = Sparro(variant)
    rng = random.Random(seed)
    counts = {"enumerated": 0, "random accepted": 0, "random refused": 0}
    for tier, keys in enumerate(tiers(variant)):
        for key in rng.sample(keys.tolist(), min(enumerated_per_tier, len(keys))):
            pos = game.from_key(key)
            image = game.symmetric(pos, rng.randrange(8))
            assert game.unreachability(pos) is None, game.format(pos)
            assert game.unreachability(image) is None, game.format(image)
            counts["enumerated"] += 1
        known = set(keys.tolist())
        for _ in range(random_per_tier):
            pos = random_legal(game, tier, rng)
            problem = game.unreachability(pos)
            assert (problem is None) == (game.canonical_key(pos) in known), (game.format(pos), problem)
            counts["random accepted" if problem is None else "random refused"] += 1
    return counts


@pytest.mark.slow
def test_standard_accepted_is_enumerated() -> None:
    counts = check_tiers("standard", 10, 20, seed=1)
    assert counts["random refused"] > 40 and counts["random accepted"] > 100, counts


@pytest.mark.exhaustive
def test_standard_accepted_is_enumerated_more() -> None:
    counts = check_tiers("standard", 40, 100, seed=4)
    assert counts["random refused"] > 200 and counts["random accepted"] > 400, counts


@pytest.mark.exhaustive
@pytest.mark.parametrize("variant", ["extended", "extended-unrestricted"])
def test_extended_accepted_is_enumerated(variant: str) -> None:
    counts = check_tiers(variant, 30, 60, seed=2)
    assert counts["random refused"] > 50 and counts["random accepted"] > 100, counts


@pytest.mark.slow
@pytest.mark.parametrize("variant", [pytest.param(v, marks=[pytest.mark.exhaustive] if v != "standard" else [])
                                     for v in VARIANTS])
def test_agrees_with_the_naive_retraction_search(variant: str) -> None:
    game = Sparro(variant)
    rng = random.Random(3)
    outcomes = set()
    for tier in range(13):  # the naive search is slow on large unreachable positions
        for _ in range(6):
            pos = random_legal(game, tier, rng)
            expected = naive.reachable(naive.from_text(game.format(pos)), variant)
            assert (game.unreachability(pos) is None) == expected, game.format(pos)
            outcomes.add(expected)
    for tier in (16, 20, 23, 24):  # reachable ones deep in the game
        for key in rng.sample(tiers("standard").__getitem__(tier).tolist() if variant == "standard"
                              else enumerated_sample(variant, tier, rng), 3):
            pos = game.from_key(key)
            assert naive.reachable(naive.from_text(game.format(pos)), variant), game.format(pos)
    for text in UNREACHABLE[variant]:
        pos = game.parse(text, allow_unreachable=True)
        assert game.unreachability(pos) and not naive.reachable(naive.from_text(text), variant), text
        outcomes.add(False)
    assert outcomes == {True, False}


UNREACHABLE = {
    "standard": [TWO_SEPARATE_LINES, PLAYED_AFTER_THE_LINE, "RRRBRBR.B.BB/R......./....", "RBB........./.R....../...."],
    "extended": ["R..B......../......../.... B", "RRR.B.B.B.../......../.... R", "RBB........./.R....../.... B"],
    "extended-unrestricted": ["RRR.B.B.B.../......../.... R", "RBB........./.R....../.... B"],
}


def enumerated_sample(variant: str, tier: int, rng: random.Random) -> list[int]:
    """Keys of positions reached by random games (no enumeration needed)."""
    game = Sparro(variant)
    keys = []
    while len(keys) < 3:
        pos = game.start()
        while pos.marbles < tier:
            pos = game.play(pos, rng.choice(game.legal_moves(pos)))
        keys.append(game.key(pos))
    return keys


@pytest.mark.parametrize("text, reason", [
    (TWO_SEPARATE_LINES, "red has lines that share no marble, and the game ends at the first line"),
    (PLAYED_AFTER_THE_LINE, "marbles rest on each of 0a1, 0b1, 0c1, the marbles that could have completed red's "
                            "line: one was played after the game ended"),
    # lines along the north row and the west column share 0a1, and 1a1 rests on it
    ("RRRBRBR.B.BB/R......./....", "a marble rests on 0a1, the last marble of red's lines: it was played after"),
])
def test_standard_refuses_lines_that_cannot_end_the_game(text: str, reason: str) -> None:
    game = Sparro("standard")
    with pytest.raises(IllegalPositionError, match="position cannot arise in play under standard") as info:
        game.parse(text)
    assert reason in str(info.value) and str(info.value).endswith(f": {text!r}")
    pos = game.parse(text, allow_unreachable=True)  # for analysis
    assert game.format(pos) == text and game.result(pos) is not None
    assert not naive.reachable(naive.from_text(text), "standard")


def test_a_line_completed_last_is_reachable() -> None:
    game = Sparro("standard")
    for text in ("RRRBB......./......../....", "RRRBBB.R..B./R......./...."):
        assert game.unreachability(game.parse(text, allow_unreachable=True)) is None, text
        assert naive.reachable(naive.from_text(text), "standard"), text


def test_extended_reasons() -> None:
    extended = Sparro("extended")
    with pytest.raises(IllegalPositionError, match="first marble must be on an edge-centre cell after a red corner"):
        extended.parse("R..B......../......../.... B")  # corner, then corner
    Sparro("extended-unrestricted").parse("R..B......../......../.... B")
    # both have lines, Black moved last and completed its line with its last marble
    with pytest.raises(IllegalPositionError, match="red holds the token, but in every game reaching it black"):
        extended.parse("RRR.B.B.B.../......../.... R")
    with pytest.raises(IllegalPositionError, match="cannot be placed in turn, Red first"):
        extended.parse("RBB........./.R....../.... B")  # 1b1 needs 0b1 and 0c1, both Black's, before Red's 2nd
