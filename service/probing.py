"""Probe answers: the value of a position and of each of its moves, as JSON-ready dicts,
for one position text or a batch (one lookup per batch), from a table or a search."""

from __future__ import annotations

from inspect import signature
from typing import Any, Callable, Generic, TypeVar

from tablebase.db.store import TablebaseStore
from tablebase.games.base import Game
from tablebase.service.description import GameDescription
from tablebase.service.errors import NotationError, ServiceError
from tablebase.service.progress import Progress
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
                 unknown: str = "position not in the table", answer_unknown: bool = False,
                 source: str | None = None,
                 strict_parse: Callable[[str], tuple[Game[P], P]] | None = None) -> None:
        self.parse = parse
        #: a stricter reading, asked only of texts the lookup does not know: its error says why
        self.strict_parse = strict_parse
        self.lookup_for = lookup_for
        self.unknown = unknown
        #: answer "unknown" (e.g. a search out of budget) instead of raising NotInTable
        self.answer_unknown = answer_unknown
        #: where the values come from: "table" or "search" (a search is what answers "unknown")
        self.source = source or ("search" if answer_unknown else "table")

    def one(self, text: str) -> dict:
        game, pos = self.parse(text)
        try:
            lookup = self.lookup_for(game)
        except Exception:  # no table to ask (not solved...): the strict reading's error comes first
            if self.strict_parse is not None:
                self.strict_parse(text)
            raise
        try:
            result = probe_position(game, pos, lookup, self.unknown)
        except NotInTable as exc:
            if not (self.answer_unknown or self.source_of(game) == "search"):
                raise self._why_unknown(text, exc) from None
            return unknown_json(game, pos, self.source_of(game))
        return self.answer(game, result, principal_variations(game, [pos], lookup)[0])

    def source_of(self, game: Game[P]) -> str:
        """Where ``game``'s values come from ("table" or "search")."""
        per_game = getattr(self.lookup_for, "source", None)
        return per_game(game) if per_game is not None else self.source

    def _why_unknown(self, text: str, missing: NotInTable) -> Exception:
        """The strict reading's error for a text the lookup does not know (say, a
        position no game reaches), else the NotInTable itself."""
        if self.strict_parse is not None:
            try:
                self.strict_parse(text)
            except NotationError as exc:
                return exc
        return missing

    def many(self, texts: list[str]) -> list[dict | Exception]:
        if self.answer_unknown:  # a search: one lookup per position, so that its budget is per position
            return [self._one_or_error(text) for text in texts]
        results: list[dict | Exception] = []
        by_game: dict[tuple[str, str], tuple[Game[P], list[tuple[int, P]]]] = {}
        for i, text in enumerate(texts):
            try:
                game, pos = self.parse(text)
            except NotationError as exc:
                results.append(exc)
                continue
            results.append({})
            # one lookup per rules, however many rules objects the reading made
            by_game.setdefault((type(game).__name__, game.rules_name), (game, []))[1].append((i, pos))
        for game, items in by_game.values():
            try:
                lookup = self.lookup_for(game)
            except Exception:
                if self.strict_parse is None:
                    raise
                # no table to ask: read every text strictly, as without the shortcut
                return ProbeAnswers(self.strict_parse, self.lookup_for, self.unknown, self.answer_unknown,
                                    self.source).many(texts)
            probed = probe_many(game, [pos for _, pos in items], lookup, self.unknown)
            known = [(i, pos, found) for (i, pos), found in zip(items, probed) if not isinstance(found, Exception)]
            lines = principal_variations(game, [pos for _, pos, _ in known], lookup)
            for (i, _, found), line in zip(known, lines):
                results[i] = self.answer(game, found, line)
            for (i, pos), missing in zip(items, probed):
                if isinstance(missing, NotInTable):
                    searched = self.answer_unknown or self.source_of(game) == "search"
                    results[i] = (unknown_json(game, pos, self.source_of(game)) if searched
                                  else self._why_unknown(texts[i], missing))
                elif isinstance(missing, Exception):  # damaged data: this line only
                    results[i] = missing
        return results

    def _one_or_error(self, text: str) -> dict | Exception:
        try:
            return self.one(text)
        except NotationError as exc:
            return exc

    def answer(self, game: Game[P], result: ProbeResult[P], pv: list[str]) -> dict:
        """The probe JSON of one position: see `probe_json`."""
        return probe_json(game, result, self.source_of(game), pv)


def probe_json(game: Game[P], result: ProbeResult[P], source: str, pv: list[str]) -> dict:
    """The object `probe --json` prints: position, to_move, rules, source, value,
    remoteness (null for a draw), moves best first, pv (move names to the end)."""
    return {
        "position": result.position,
        "to_move": result.to_move,
        "rules": game.rules_name,
        "source": source,
        "value": result.outcome.name,
        "remoteness": result.outcome.remoteness,
        "moves": [{"cell": m.cell, "name": m.name, "value": m.outcome.name, "remoteness": m.outcome.remoteness}
                  for m in result.moves],
        "pv": pv,
    }


def unknown_json(game: Game[P], pos: P, source: str = "search") -> dict:
    """The probe answer of a position whose value is not known: the same shape, with
    ``"value": "unknown"``, null remoteness for it and for each move, and no pv."""
    return {
        "position": game.format(pos),
        "to_move": game.to_move(pos),
        "rules": game.rules_name,
        "source": source,
        "value": UNKNOWN,
        "remoteness": None,
        "moves": [{"cell": m, "name": game.move_name(m), "value": UNKNOWN, "remoteness": None}
                  for m in game.legal_moves(pos)],
        "pv": [],
    }


#: Plies a principal variation may run before it stops (a drawn line may never end).
MAX_PV = 1000


def principal_variations(game: Game[P], positions: list[P], lookup: Lookup) -> list[list[str]]:
    """Per position, the best moves to the end of the game under perfect play (the
    first of the best moves, as `probe` orders them, at each ply). A drawn line stops
    when it comes back to a position it has seen; a line the lookup cannot follow
    stops where it cannot. All lines advance together, one lookup per ply."""
    lines: list[list[str]] = [[] for _ in positions]
    seen: list[set[int]] = [{game.canonical_key(pos)} for pos in positions]
    active = [(i, pos) for i, pos in enumerate(positions) if game.terminal_value(pos) is None]
    for _ in range(MAX_PV):
        if not active:
            break
        probed = probe_many(game, [pos for _, pos in active], lookup)
        going = []
        for (i, pos), result in zip(active, probed):
            if isinstance(result, Exception) or not result.moves:  # not in the table, or damaged
                continue
            best = result.moves[0]
            lines[i].append(best.name)
            after = game.play(pos, best.cell)
            key = game.canonical_key(after)
            if game.terminal_value(after) is None and key not in seen[i]:
                seen[i].add(key)
                going.append((i, after))
        active = going
    return lines


class Lookups:
    """The lookup of each rules object a batch meets, made once: a search, or the
    usable stored table (the version policy applies)."""

    def __init__(self, description: GameDescription, store: TablebaseStore | None, search: bool,
                 budget: int | None = None, seconds: float | None = None, progress: Progress | None = None,
                 fallback: bool = False) -> None:
        #: search rules no usable table holds, where the game's description allows it
        self.fallback = fallback and description.search_without_table
        if store is None and not search and not self.fallback:
            raise ValueError("a table lookup needs a store")
        self.description = description
        self.store = store
        self.search = search
        self.budget = budget or description.search_budget
        self.seconds = seconds
        self.progress = progress
        self.made: dict[str, Lookup] = {}
        self.sources: dict[str, str] = {}

    def __call__(self, game: Any) -> Lookup:
        if game.rules_name not in self.made:
            lookup: Lookup | None = None
            if not self.search and self.store is not None:
                try:
                    lookup = stored_lookup(self.store, self.description, game)
                except ServiceError:
                    if not self.fallback:
                        raise
            self.sources[game.rules_name] = "table" if lookup is not None else "search"
            if lookup is None:
                lookup = self.description.search_lookup(game, self.budget, self.seconds, self.progress)
            self.made[game.rules_name] = lookup
        return self.made[game.rules_name]

    def source(self, game: Any) -> str:
        """Where ``game``'s answers come from: "table" or "search"."""
        self(game)
        return self.sources[game.rules_name]


def probe_answers(description: GameDescription, store: TablebaseStore | None, search: bool = False,
                  budget: int | None = None, seconds: float | None = None, progress: Progress | None = None,
                  fallback: bool = False, **options: Any) -> ProbeAnswers:
    """Probe answers for position texts of one game under ``options`` (see
    `GameDescription.read`), from ``store``'s tables or, with ``search`` (or
    ``fallback``, for rules no usable table holds, where the game's description allows
    it), by search within ``budget`` positions and ``seconds`` (a search out of budget
    answers "unknown"); each answer's "source" says which."""

    def parse(text: str) -> tuple[Any, Any]:
        return description.read(text, **options)

    lookups = Lookups(description, store, search, budget, seconds, progress, fallback)
    if (search or fallback or options.get("allow_unreachable")
            or "allow_unreachable" not in signature(description.read).parameters):
        return ProbeAnswers(parse, lookups, answer_unknown=search)

    def lenient(text: str) -> tuple[Any, Any]:
        game, pos = description.read(text, **{**options, "allow_unreachable": True})
        if game.terminal_value(pos) is not None:  # answered without the table: read strictly
            return parse(text)
        return game, pos

    # The tables hold exactly the reachable positions: one found there needs no proof that
    # a game reaches it (for Sparro a search), and one missing is read strictly for the reason.
    # A finished game is not looked up, so it is read strictly at once.
    return ProbeAnswers(lenient, lookups, strict_parse=parse)
