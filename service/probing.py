"""Probe answers: the value of a position and of each of its moves, as JSON-ready dicts,
for one position text or a batch (one lookup per batch), from a table or a search."""

from __future__ import annotations

from typing import Any, Callable, Generic, TypeVar

from tablebase.db.store import TablebaseStore
from tablebase.games.base import Game
from tablebase.service.description import GameDescription
from tablebase.service.errors import NotationError
from tablebase.service.tables import stored_lookup
from tablebase.solver.probe import Lookup, NotInTable, ProbeResult, probe as probe_position, probe_many

P = TypeVar("P")

#: The probe value of a position no table or search could decide.
UNKNOWN = "unknown"


class ProbeAnswers(Generic[P]):
    """Probe answers as JSON-ready dicts, for one text or a batch (one lookup per batch).

    ``parse`` reads a text into (the rules object, the position); a batch may mix rules
    objects (e.g. boards), each gets its own ``lookup_for(game)``.
    """

    def __init__(self, parse: Callable[[str], tuple[Game[P], P]], lookup_for: Callable[[Game[P]], Lookup],
                 unknown: str = "position not in the table", answer_unknown: bool = False) -> None:
        self.parse = parse
        self.lookup_for = lookup_for
        self.unknown = unknown
        #: answer "unknown" (e.g. a search out of budget) instead of raising NotInTable
        self.answer_unknown = answer_unknown

    def one(self, text: str) -> dict:
        game, pos = self.parse(text)
        try:
            return self.answer(game, probe_position(game, pos, self.lookup_for(game), self.unknown))
        except NotInTable:
            if not self.answer_unknown:
                raise
            return unknown_json(game, pos)

    def many(self, texts: list[str]) -> list[dict | Exception]:
        results: list[dict | Exception] = []
        by_game: dict[int, tuple[Game[P], list[tuple[int, P]]]] = {}
        for i, text in enumerate(texts):
            try:
                game, pos = self.parse(text)
            except NotationError as exc:
                results.append(exc)
                continue
            results.append({})
            by_game.setdefault(id(game), (game, []))[1].append((i, pos))
        for game, items in by_game.values():
            probed = probe_many(game, [pos for _, pos in items], self.lookup_for(game), self.unknown)
            for (i, pos), result in zip(items, probed):
                if not isinstance(result, NotInTable):
                    results[i] = self.answer(game, result)
                else:
                    results[i] = unknown_json(game, pos) if self.answer_unknown else result
        return results

    def answer(self, game: Game[P], result: ProbeResult[P]) -> dict:
        return result.as_json()


def unknown_json(game: Game[P], pos: P) -> dict:
    """The probe answer of a position whose value is not known: the same shape, with
    ``"value": "unknown"`` and null remoteness for it and for each move."""
    return {
        "position": game.format(pos),
        "to_move": game.to_move(pos),
        "value": UNKNOWN,
        "remoteness": None,
        "moves": [{"cell": m, "name": game.move_name(m), "value": UNKNOWN, "remoteness": None}
                  for m in game.legal_moves(pos)],
    }


class Lookups:
    """The lookup of each rules object a batch meets, made once: a search, or the
    usable stored table (the version policy applies)."""

    def __init__(self, description: GameDescription, store: TablebaseStore | None, search: bool,
                 budget: int | None = None) -> None:
        if store is None and not search:
            raise ValueError("a table lookup needs a store")
        self.description = description
        self.store = store
        self.search = search
        self.budget = budget or description.search_budget
        self.made: dict[str, Lookup] = {}

    def __call__(self, game: Any) -> Lookup:
        if game.rules_name not in self.made:
            if self.search:
                self.made[game.rules_name] = self.description.search_lookup(game, self.budget)
            else:
                assert self.store is not None
                self.made[game.rules_name] = stored_lookup(self.store, self.description, game)
        return self.made[game.rules_name]


def probe_answers(description: GameDescription, store: TablebaseStore | None, search: bool = False,
                  budget: int | None = None, **options: Any) -> ProbeAnswers:
    """Probe answers for position texts of one game under ``options`` (see
    `GameDescription.read`), from ``store``'s tables or, with ``search``, by search
    (a search out of budget answers "unknown")."""

    def parse(text: str) -> tuple[Any, Any]:
        return description.read(text, **options)

    return ProbeAnswers(parse, Lookups(description, store, search, budget), answer_unknown=search)
