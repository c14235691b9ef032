"""The registry of games: one `GameDescription` per game, found by its name."""

from __future__ import annotations

from tablebase.service import smallholder, sparro
from tablebase.service.description import GameDescription
from tablebase.service.errors import NotationError

GAMES: dict[str, GameDescription] = {d.name: d for d in (sparro.DESCRIPTION, smallholder.DESCRIPTION)}


def describe(name: str) -> GameDescription:
    """The description of the game called ``name``; NotationError if there is none."""
    try:
        return GAMES[name]
    except KeyError:
        raise NotationError(f"unknown game (expected one of {', '.join(GAMES)}): {name!r}") from None
