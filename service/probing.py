"""Probe answers: the value of a position and of each of its moves, as JSON-ready dicts,
for one position text or a batch (one lookup per batch), from a table or a search."""

from __future__ import annotations

import threading
from collections import OrderedDict
from inspect import signature
from typing import Any, Callable, Generic, Hashable, NamedTuple, Sequence, TypeVar

from tablebase.db.store import TableInfo, TablebaseStore
from tablebase.games.base import Game
from tablebase.service.description import GameDescription
from tablebase.service.errors import NotationError, ServiceError
from tablebase.service.progress import Progress
from tablebase.service.tables import table_lookup, usable_table
from tablebase.solver.probe import Lookup, MoveOutcome, NotInTable, Outcome, ProbeResult, probe_many

P = TypeVar("P")
K = TypeVar("K", bound=Hashable)
V = TypeVar("V")

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
                 strict_parse: Callable[[str], tuple[Game[P], P]] | None = None, pv: bool = True) -> None:
        self.parse = parse
        #: whether answers carry the principal variation ("pv"): a search's costs extra searches
        self.pv = pv
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
        step = probe_steps(game, [pos], lookup, self.unknown)[0]
        if isinstance(step, NotInTable):
            if not (self.answer_unknown or self.source_of(game) == "search"):
                raise self._why_unknown(text, step) from None
            return unknown_json(game, pos, self.source_of(game), step.settled)
        if isinstance(step, Exception):
            raise step
        return self.answer(game, step, principal_variations(game, [pos], lookup, [step])[0] if self.pv else None)

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
                                    self.source, pv=self.pv).many(texts)
            if self.source_of(game) == "search":  # rules no table holds: a budget per position, as above
                for i, _ in items:
                    results[i] = self._one_or_error(texts[i])
                continue
            probed = probe_steps(game, [pos for _, pos in items], lookup, self.unknown)
            known = [(i, pos, found) for (i, pos), found in zip(items, probed) if not isinstance(found, Exception)]
            lines: Sequence[list[str] | None] = (
                principal_variations(game, [pos for _, pos, _ in known], lookup, [found for _, _, found in known])
                if self.pv else [None] * len(known))
            for (i, _, found), line in zip(known, lines):
                results[i] = self.answer(game, found, line)
            for (i, _), missing in zip(items, probed):
                if isinstance(missing, NotInTable):  # not in the table: the strict reading says why
                    results[i] = self._why_unknown(texts[i], missing)
                elif isinstance(missing, Exception):  # damaged data: this line only
                    results[i] = missing
        return results

    def _one_or_error(self, text: str) -> dict | Exception:
        try:
            return self.one(text)
        except NotationError as exc:
            return exc

    def answer(self, game: Game[P], step: Step, pv: list[str] | None) -> dict:
        """The probe JSON of one position: see `probe_json`."""
        return probe_json(game, step, self.source_of(game), pv)


def probe_json(game: Game[P], step: Step, source: str, pv: list[str] | None) -> dict:
    """The object `probe --json` prints: position, to_move, rules, source, value,
    remoteness (null for a draw), moves best first, pv (move names to the end; left out
    when ``pv`` is None, i.e. not asked for)."""
    answer: dict[str, Any] = {
        "position": step.position,
        "to_move": step.to_move,
        "rules": game.rules_name,
        "source": source,
        "value": step.value,
        "remoteness": step.remoteness,
        "moves": [move_json(*move) for move in step.moves],
    }
    if pv is not None:
        answer["pv"] = pv
    return answer


def move_json(cell: int, name: str, value: str, remoteness: int | None) -> dict:
    """One move of a probe answer (its value and remoteness for the player making it)."""
    return {"cell": cell, "name": name, "value": value, "remoteness": remoteness}


def unknown_json(game: Game[P], pos: P, source: str = "search", settled: Sequence[MoveOutcome] = ()) -> dict:
    """The probe answer of a position whose value is not known: the same shape, with
    ``"value": "unknown"`` and null remoteness, and no pv. The moves ``settled`` (a
    search that ran out of budget before it settled them all) come first, best first,
    with their exact value and remoteness; the others follow, ``"unknown"``.

    One key more: ``"at_least"``, what the settled moves prove of the position, since the
    side to move can always choose the best of them: that move's value and remoteness,
    a lower bound in the tables' order of preference (quick wins, slow wins, draws, slow
    losses, quick losses). ``{"value": "win", "remoteness": 9}`` proves the position a win
    in at most 9 plies, ``{"value": "draw", ...}`` at least a draw; null when no move is
    settled."""
    done = {m.cell for m in settled}
    best = min(settled, key=lambda m: m.outcome.preference(), default=None)
    return {
        "position": game.format(pos),
        "to_move": game.to_move(pos),
        "rules": game.rules_name,
        "source": source,
        "value": UNKNOWN,
        "remoteness": None,
        "moves": [move_json(m.cell, m.name, m.outcome.name, m.outcome.remoteness) for m in settled]
                 + [move_json(m, game.move_name(m), UNKNOWN, None) for m in game.legal_moves(pos) if m not in done],
        "pv": [],
        "at_least": None if best is None else {"value": best.outcome.name, "remoteness": best.outcome.remoteness},
    }


def _knows_nothing(keys: Sequence[int]) -> list[Outcome | Exception | None]:
    """The lookup of no table and no search: only the rules answer (a finished game)."""
    return [None] * len(keys)


def rules_json(game: Game[P], pos: P, why: str) -> dict:
    """The probe answer of a position no table holds, from the rules alone (no table, no
    search): the shape `probe --json` prints, with ``"source": "rules"``. Only a finished
    game has a value (the rules', remoteness 0); any other position, even one whose every
    move ends the game, is ``"value": "unknown"`` as in `unknown_json`, with the moves that
    end the game settled (first, best first) and ``at_least`` what they prove. One key more:
    ``"no_table"``, ``why`` no table answers (the one-line message a table probe raised)."""
    answers = ProbeAnswers(lambda _: (game, pos), lambda _: _knows_nothing, answer_unknown=True, source="rules")
    return {**answers.one(game.format(pos)), "no_table": why}


#: Default wall-clock bound of a search probe, in seconds (both games).
DEFAULT_SEARCH_SECONDS = 30.0
#: Plies a principal variation may run before it stops (a drawn line may never end).
MAX_PV = 1000


class Step(NamedTuple):
    """What a probe found of one position, in plain values only (so that thousands of
    remembered steps cost the garbage collector nothing): the position's notation, the
    side to move, its value and remoteness, its moves best first as (cell, name, value,
    remoteness) for the player making them, and for the best move the canonical key of
    the position it reaches and whether that ends the game (0 and True without a move)."""

    position: str
    to_move: str
    value: str
    remoteness: int | None
    moves: tuple[tuple[int, str, str, int | None], ...]
    after_key: int
    after_over: bool


def _step(game: Game[P], pos: P, result: ProbeResult[P]) -> Step:
    moves = tuple((m.cell, m.name, m.outcome.name, m.outcome.remoteness) for m in result.moves)
    after_key, after_over = 0, True
    if moves:
        after = game.play(pos, moves[0][0])
        after_key, after_over = game.canonical_key(after), game.terminal_value(after) is not None
    return Step(result.position, result.to_move, result.outcome.name, result.outcome.remoteness, moves,
                after_key, after_over)


def probe_steps(game: Game[P], positions: Sequence[P], lookup: Lookup,
                unknown: str = "position not in the table") -> list[Step | Exception]:
    """`solver.probe.probe_many` of ``positions`` as Steps, with one call of ``lookup``
    for the positions a `MemoLookup` does not remember (those it remembers cost nothing)."""
    memo = lookup if isinstance(lookup, MemoLookup) else None
    steps: list[Step | Exception | None] = [None] * len(positions)
    keys = [game.key(pos) for pos in positions] if memo is not None else []
    if memo is not None:
        steps[:] = memo.steps(keys)
    todo = [i for i, step in enumerate(steps) if step is None]
    if todo:
        probed = probe_many(game, [positions[i] for i in todo], lookup, unknown)
        made: list[tuple[int, Step]] = []
        for i, found in zip(todo, probed):
            if isinstance(found, Exception):
                steps[i] = found
                continue
            step = steps[i] = _step(game, positions[i], found)
            if memo is not None:
                made.append((keys[i], step))
        if memo is not None:
            memo.remember(made)
    return [step for step in steps if step is not None]


def principal_variations(game: Game[P], positions: list[P], lookup: Lookup,
                         first: Sequence[Step] | None = None) -> list[list[str]]:
    """Per position, the best moves to the end of the game under perfect play (the
    first of the best moves, as `probe` orders them, at each ply). A drawn line stops
    when it comes back to a position it has seen; a line the lookup cannot follow
    stops where it cannot. All lines advance together, one lookup per ply; ``first``
    are the positions' own steps when the caller has them already."""
    line_of = getattr(lookup, "line", None)
    if line_of is not None:
        # a search that finds the line itself, cheaper than probing every move of every ply
        return [[game.move_name(cell) for cell in line_of(pos)] for pos in positions]
    lines: list[list[str]] = [[] for _ in positions]
    seen: list[set[int]] = [{game.canonical_key(pos)} for pos in positions]
    active = [(i, pos) for i, pos in enumerate(positions) if game.terminal_value(pos) is None]
    known: Sequence[Step | Exception] | None = (
        None if first is None else [first[i] for i, _ in active])
    for _ in range(MAX_PV):
        if not active:
            break
        probed = known if known is not None else probe_steps(game, [pos for _, pos in active], lookup)
        known = None
        going = []
        for (i, pos), step in zip(active, probed):
            if isinstance(step, Exception) or not step.moves:  # not in the table, or damaged
                continue
            cell, name = step.moves[0][:2]
            lines[i].append(name)
            if not step.after_over and step.after_key not in seen[i]:
                seen[i].add(step.after_key)
                going.append((i, game.play(pos, cell)))
        active = going
    return lines


class _Memo(Generic[K, V]):
    """A bounded map, least recently used entries forgotten first, safe for many threads."""

    def __init__(self, size: int) -> None:
        self.size = size
        self._entries: OrderedDict[K, V] = OrderedDict()
        self._lock = threading.Lock()

    def get_many(self, keys: Sequence[K]) -> list[V | None]:
        entries = self._entries
        found: list[V | None] = []
        with self._lock:
            for key in keys:
                value = entries.get(key)
                if value is not None:
                    entries.move_to_end(key)
                found.append(value)
        return found

    def put_many(self, items: Sequence[tuple[K, V]]) -> None:
        entries = self._entries
        with self._lock:
            for key, value in items:
                entries[key] = value
                entries.move_to_end(key)
            while len(entries) > self.size:
                entries.popitem(last=False)

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()

    def __len__(self) -> int:
        return len(self._entries)


#: Outcomes of canonical keys and steps of positions (by `Game.key`) read from complete
#: tables, shared by every lookup of the process (the web explorer's threads); about 150
#: and 1,500 bytes an entry. Keys and steps are tuples of plain values and the outcomes
#: are shared (`_OUTCOME`), so the garbage collector has nothing to traverse in them.
OUTCOMES: _Memo[tuple[int, int], Outcome] = _Memo(200_000)
STEPS: _Memo[tuple[int, int], tuple[Any, ...]] = _Memo(20_000)
_OUTCOME: dict[Outcome, Outcome] = {}
_TABLES: dict[tuple[Any, ...], int] = {}
_TABLES_LOCK = threading.Lock()


def table_identity(table: TableInfo) -> tuple[Any, ...] | None:
    """What decides every answer of a stored table: its rules, the versions of the
    program that made it and its checksum over every stored key and payload byte; None
    for a table that is not complete (it has no checksum yet, and it may still change)."""
    if table.status != "complete" or not table.checksum:
        return None
    return (table.game, table.rules, table.rules_version, table.solver_version, table.payload_dtype,
            table.positions, table.checksum)


def forget_tables() -> None:
    """Forget every remembered answer (`MemoLookup`)."""
    OUTCOMES.clear()
    STEPS.clear()


class MemoLookup:
    """The lookup of a complete stored table that remembers what it read, in memory shared
    by every lookup of a table with the same `table_identity`.

    A complete table never changes: a re-solve or a replacement is a new table, with a
    new checksum, so the identity of the table a probe found in the file (read again for
    every lookup made) names answers that are still its answers. Only values are
    remembered, never an error (a damaged block is asked again)."""

    def __init__(self, lookup: Lookup, identity: tuple[Any, ...]) -> None:
        self.lookup = lookup
        with _TABLES_LOCK:
            self.token = _TABLES.setdefault(identity, len(_TABLES))

    def __call__(self, keys: Sequence[int]) -> list[Outcome | Exception | None]:
        token = self.token
        found: list[Outcome | Exception | None] = list(OUTCOMES.get_many([(token, key) for key in keys]))
        missing = [i for i, outcome in enumerate(found) if outcome is None]
        if missing:
            read = self.lookup([keys[i] for i in missing])
            for i, outcome in zip(missing, read):
                found[i] = outcome
            OUTCOMES.put_many([((token, keys[i]), _OUTCOME.setdefault(outcome, outcome))
                               for i, outcome in zip(missing, read) if isinstance(outcome, Outcome)])
        return found

    def steps(self, keys: Sequence[int]) -> list[Step | None]:
        """The remembered `Step` of each position, by its `Game.key` (None where there is none)."""
        return [None if found is None else Step._make(found)
                for found in STEPS.get_many([(self.token, key) for key in keys])]

    def remember(self, steps: Sequence[tuple[int, Step]]) -> None:
        # kept as plain tuples: the collector stops tracking those holding plain values only
        STEPS.put_many([((self.token, key), tuple(step)) for key, step in steps])


class Lookups:
    """The lookup of each rules object a batch meets, made once: a search, or the
    usable stored table (the version policy applies)."""

    def __init__(self, description: GameDescription, store: TablebaseStore | None, search: bool,
                 budget: int | None = None, seconds: float | None = None, progress: Progress | None = None,
                 fallback: bool = False, memo: bool = False, since: float | None = None) -> None:
        #: remember what complete tables answered (`MemoLookup`), for every lookup of the process
        self.memo = memo
        #: search rules no usable table holds, where the game's description allows it
        self.fallback = fallback and description.search_without_table
        if store is None and not search and not self.fallback:
            raise ValueError("a table lookup needs a store")
        self.description = description
        self.store = store
        self.search = search
        self.budget = budget or description.search_budget
        self.seconds = seconds
        self.since = since
        self.progress = progress
        self.made: dict[str, Lookup] = {}
        self.sources: dict[str, str] = {}

    def __call__(self, game: Any) -> Lookup:
        if game.rules_name not in self.made:
            lookup: Lookup | None = None
            if not self.search and self.store is not None:
                try:
                    table = usable_table(self.store, self.description, game)
                except ServiceError:
                    if not self.fallback:
                        raise
                else:
                    lookup = table_lookup(self.store, self.description, table)
                    identity = table_identity(table)
                    if self.memo and identity is not None:
                        lookup = MemoLookup(lookup, identity)
            self.sources[game.rules_name] = "table" if lookup is not None else "search"
            if lookup is None:
                lookup = self.description.search_lookup(game, self.budget, self.seconds, self.progress,
                                                        store=self.store, since=self.since)
            self.made[game.rules_name] = lookup
        return self.made[game.rules_name]

    def source(self, game: Any) -> str:
        """Where ``game``'s answers come from: "table" or "search"."""
        self(game)
        return self.sources[game.rules_name]


def probe_answers(description: GameDescription, store: TablebaseStore | None, search: bool = False,
                  budget: int | None = None, seconds: float | None = None, progress: Progress | None = None,
                  fallback: bool = False, memo: bool = False, pv: bool = True, since: float | None = None,
                  **options: Any) -> ProbeAnswers:
    """Probe answers for position texts of one game under ``options`` (see
    `GameDescription.read`), from ``store``'s tables or, with ``search`` (or
    ``fallback``, for rules no usable table holds, where the game's description allows
    it), by search within ``budget`` positions and ``seconds`` (a search out of budget
    answers "unknown"; with ``since``, a `time.perf_counter` instant, the seconds count
    from it for all the searching, not from each search's start); each answer's "source"
    says which. With ``memo``, what complete
    tables answered is remembered for every later probe of the process (`MemoLookup`).
    Without ``pv`` the answers leave out the principal variation (for a search, its
    extra searches)."""

    def parse(text: str) -> tuple[Any, Any]:
        return description.read(text, **options)

    lookups = Lookups(description, store, search, budget, seconds, progress, fallback, memo, since)
    if (search or fallback or options.get("allow_unreachable")
            or "allow_unreachable" not in signature(description.read).parameters):
        return ProbeAnswers(parse, lookups, answer_unknown=search, pv=pv)

    def lenient(text: str) -> tuple[Any, Any]:
        game, pos = description.read(text, **{**options, "allow_unreachable": True})
        if game.terminal_value(pos) is not None:  # answered without the table: read strictly
            return parse(text)
        return game, pos

    # The tables hold exactly the reachable positions: one found there needs no proof that
    # a game reaches it (for Sparro a search), and one missing is read strictly for the reason.
    # A finished game is not looked up, so it is read strictly at once.
    return ProbeAnswers(lenient, lookups, strict_parse=parse, pv=pv)
