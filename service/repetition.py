"""Can play repeat? A line of play that comes back to a position, found by search.

`find_repetition` answers for one board and rules: from random games (seeded) or from one
position, a line that returns to a position it passed (`solver.repetition`), played again
by the reference rules engine before it is reported. A line found proves that play can
repeat; none found proves nothing (the answer says so). The one JSON meaning
(`tablebase cycle smallholder --json`, `tablebase.find_repetition`):

``{"rules", "found", "from", "moves_to_position", "position", "cycle", "games",
"positions_searched", "plies", "slack", "seed"}``: ``from`` is the position the search
started from (the empty board for random games), ``moves_to_position`` the moves from it
to ``position``, and ``cycle`` the moves from ``position`` back to it (names); the three
are null when nothing was found. ``games`` is the number of random games played (null
from a given position); ``positions_searched`` the positions the lines were followed from.
"""

from __future__ import annotations

from typing import Any

from tablebase.games.smallholder import Position, Rules
from tablebase.service.errors import ServiceError
from tablebase.service.progress import Progress, report
from tablebase.service.smallholder import read
from tablebase.solver.repetition import (
    DEFAULT_GAMES, DEFAULT_PLIES, DEFAULT_SLACK, Repetition, repetition_from, search_repetition)
from tablebase.solver.smallholder_arrays import MAX_MASK_CELLS

__all__ = ["DEFAULT_GAMES", "DEFAULT_PLIES", "DEFAULT_SLACK", "MAX_GAMES", "MAX_PLIES", "MAX_SLACK",
           "find_repetition"]

#: Bounds of the search's settings (beyond them a search cannot finish or means nothing).
MAX_GAMES = 10_000_000
MAX_PLIES = 40
MAX_SLACK = 10


def find_repetition(board: str | None, rules: Rules, position: str | None = None, games: int = DEFAULT_GAMES,
                    plies: int = DEFAULT_PLIES, slack: int = DEFAULT_SLACK, seed: int = 0,
                    progress: Progress | None = None) -> dict[str, Any]:
    """Look for a repetition under ``rules``: from ``position`` (text; its board, or
    ``board``) if given, else in ``games`` random games on ``board``. The answer is the
    JSON object of the module's text. The settings are whole numbers within the MAX_
    bounds (the interfaces check them)."""
    game, pos = read(position, board, rules)
    if game.board.size > MAX_MASK_CELLS:
        raise ServiceError(f"{game.board.name} has {game.board.size} cells; the search for repetitions runs on the "
                           f"compiled rules (boards of at most {MAX_MASK_CELLS} cells: up to hex5 and limping4)")
    task = f"repetitions {game.rules_name}"
    if position is None:
        def each_game(played: int, searched: int) -> None:
            report(progress, task, f"game {played:,} of {games:,}, {searched:,} positions searched from",
                   played, games)

        search = search_repetition(game, games, seed, plies, slack, progress=each_game if progress else None)
        found, played, searched = search.found, search.games, search.positions
    else:
        report(progress, task, f"following the lines of up to {plies} plies from {game.format(pos)}")
        found, played, searched = repetition_from(game, pos, plies, slack, seed=seed), None, 1
    return {"rules": game.rules_name, "found": found is not None, **_lines(game, pos, found), "games": played,
            "positions_searched": searched, "plies": plies, "slack": slack, "seed": seed}


def _lines(game: Any, start: Position, found: Repetition | None) -> dict[str, Any]:
    if found is None:
        return {"from": game.format(start), "moves_to_position": None, "position": None, "cycle": None}
    return {"from": game.format(found.start), "moves_to_position": [game.move_name(m) for m in found.lead],
            "position": game.format(found.position), "cycle": [game.move_name(m) for m in found.cycle]}
