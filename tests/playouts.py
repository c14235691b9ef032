"""Positions met along random games, for tests that compare two implementations on
reachable positions (works for any game following `tablebase.games.base.Game`)."""

from __future__ import annotations

import random
from typing import Any


def playout_positions(game: Any, rng: random.Random, games: int) -> list[Any]:
    """Every position of ``games`` random games, from the start to the end."""
    found = []
    for _ in range(games):
        pos = game.start()
        while True:
            found.append(pos)
            moves = game.legal_moves(pos)
            if not moves:
                break
            pos = game.play(pos, rng.choice(moves))
    return found
