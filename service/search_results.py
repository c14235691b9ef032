"""The exact search's persistent transposition table: what it proved, kept in the file.

The exact search (`solver/smallholder_exact.py`) keeps exact, path-independent results
in its in-memory table. Where a probe (or puzzle generation) searches with a tablebase
file, the results stored for its (board, rules) are loaded into that table first, and,
when the file was opened for writing, the results the search proved since are added
to it (`db/search_results.py`), so later probes, puzzles and runs start from them.

What is kept: every exact entry of the table whose proof searched at least
2**MIN_WORK positions (the search's work estimate). The root and each move of an
analysis are such entries whenever they cost anything; cheaper results are re-proved
faster than they are read back, and leaving them out keeps the file small (see
docs/solver.md for the measured rows and bytes per probe).

Version policy: a stored set is used only when its rules version (the Smallholder rules
engine's, as for the tables) and solver version (`SEARCH_VERSION`) are this program's;
a set of other versions is ignored by reads and replaced by the next write. A damaged
batch is never used (the search proves its positions again); `check` reports it, and
re-proves a sample of the stored results by a fresh search with an empty table.
"""

from __future__ import annotations

import random
import weakref
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Sequence

import numpy as np

from tablebase.db.search_results import ENTRY_DTYPE, SearchResultStore, SearchSet
from tablebase.db.store import StoreError, TablebaseStore
from tablebase.service.check import TableReport
from tablebase.service.progress import Progress, report
from tablebase.solver.probe import Outcome
from tablebase.solver.smallholder_solve import RULES_VERSION

if TYPE_CHECKING:
    from tablebase.solver.smallholder_exact import Budget, ExactSearch, Progress as SearchProgress

GAME = "smallholder"
#: Entries whose proof searched fewer than 2**MIN_WORK positions are not stored.
MIN_WORK = 8
#: Positions searched since the last save before the next lookup saves again.
SAVE_AFTER_NODES = 20_000
#: Stored results `check` re-proves per set at most (each by a fresh search).
CHECK_SAMPLE = 30
#: Positions a fresh search may spend re-proving one sampled result in `check`.
CHECK_NODE_BUDGET = 2_000_000
#: The size of the fresh search's table in `check` (one per sampled result).
CHECK_TABLE_BYTES = 1 << 24

#: search -> {(file, set id): batches already put into its table}
_loaded: weakref.WeakKeyDictionary[ExactSearch, dict[tuple[str, int], int]] = weakref.WeakKeyDictionary()


def versions() -> tuple[str, str]:
    """(rules version, solver version) of the search results this program writes and reads."""
    from tablebase.solver.smallholder_exact import SEARCH_VERSION
    return RULES_VERSION, SEARCH_VERSION


def is_current(found: SearchSet) -> bool:
    return (found.rules_version, found.solver_version) == versions()


@dataclass(frozen=True)
class Saved:
    """One save: how many results were added and the bytes of data they take."""

    rows: int
    bytes: int


def load(store: TablebaseStore, search: ExactSearch, progress: Progress | None = None) -> int:
    """Put the stored results of the search's rules into its table (those not put there
    before from this file); returns how many. Results of other versions and damaged
    batches are not used (`progress` hears why)."""
    from tablebase.solver.smallholder_exact import scores_of
    results = SearchResultStore(store)
    game = search.game
    task = f"search {game.rules_name}"
    try:
        found = results.find(GAME, game.rules_name)
    except StoreError as exc:
        report(progress, task, f"stored search results not used: {exc}")
        return 0
    if found is None:
        return 0
    if not is_current(found):
        report(progress, task, f"stored search results not used: made by rules/solver version "
                               f"{found.rules_version}/{found.solver_version}, this program is {'/'.join(versions())}")
        return 0
    loaded = _loaded.setdefault(search, {})
    place = (str(store.path.resolve()), found.id)
    done = loaded.get(place, 0)
    stored = results.read(found, since=done)
    for problem in stored.damaged:
        report(progress, task, problem)
    entries = stored.entries
    if len(entries):
        search.preload(entries["mover"], entries["waiter"], scores_of(entries["value"], entries["remoteness"]))
        report(progress, task, f"{len(entries):,} stored search results loaded")
    loaded[place] = stored.batches
    return len(entries)


def save(store: TablebaseStore, search: ExactSearch, min_work: int = MIN_WORK) -> Saved:
    """Add the results the search proved (not loaded, not saved before) whose proof
    searched at least 2**min_work positions, as one batch; nothing when the file is
    read-only."""
    from tablebase.solver.smallholder_exact import values_of
    results = SearchResultStore(store)
    if not results.writable:
        return Saved(0, 0)
    movers, waiters, scores, work = search.proved(min_work)
    if not len(movers):
        return Saved(0, 0)
    entries = np.zeros(len(movers), dtype=ENTRY_DTYPE)
    order = np.lexsort((waiters, movers))  # sorted keys compress better
    entries["mover"], entries["waiter"], entries["work"] = movers[order], waiters[order], work[order]
    entries["value"], entries["remoteness"] = values_of(scores[order])
    written = results.add(GAME, search.game.rules_name, *versions(), entries)
    # (`proved` gives each entry once); their canonical forms join the table too, where an
    # analysis looks its moves up (`ExactSearch.preload`)
    search.preload(movers, waiters, scores)
    found = results.find(GAME, search.game.rules_name)
    if found is not None:  # this batch is in the search's table already
        loaded = _loaded.setdefault(search, {})
        place = (str(store.path.resolve()), found.id)
        loaded[place] = loaded.get(place, 0) + 1
    return Saved(len(entries), written)


def persistent_lookup(store: TablebaseStore, search: ExactSearch, budget: Budget,
                      progress: Progress | None = None, search_progress: SearchProgress | None = None
                      ) -> PersistentLookup:
    """The search's lookup (`solver.smallholder_exact.search_lookup`) starting from the
    results stored in ``store``, adding what it proves to them when ``store`` is
    writable (after any call that searched SAVE_AFTER_NODES positions since the last save).
    A save that fails (disk full, file locked) leaves the answers as they are and is
    reported to ``progress``."""
    from tablebase.solver.smallholder_exact import search_lookup
    load(store, search, progress)
    return PersistentLookup(store, search, search_lookup(search, budget, search_progress), progress)


class PersistentLookup:
    """A search's `Lookup` (and its principal variation, `line`) that adds what the
    search proves to the stored results; see `persistent_lookup`."""

    def __init__(self, store: TablebaseStore, search: ExactSearch, inner: Any, progress: Progress | None) -> None:
        self.store = store
        self.search = search
        self.inner = inner
        self.progress = progress
        self.writable = SearchResultStore(store).writable
        self.unsaved = 0

    def __call__(self, keys: Sequence[int]) -> list[Outcome | None]:
        answers = self.inner(keys)
        self._searched()
        return answers

    def line(self, pos: Any) -> list[int]:
        """The principal variation's cells from ``pos`` (see `SearchLookup.line`)."""
        cells = self.inner.line(pos)
        self._searched()
        return cells

    def _searched(self) -> None:
        self.unsaved += self.search.searched()
        if not self.writable or self.unsaved < SAVE_AFTER_NODES:
            return
        self.unsaved = 0
        task = f"search {self.search.game.rules_name}"
        try:
            saved = save(self.store, self.search)
        except StoreError as exc:  # the answers stand; only their keeping failed
            report(self.progress, task, f"search results not stored: {exc}")
        else:
            if saved.rows:
                report(self.progress, task, f"{saved.rows:,} search results stored ({saved.bytes:,} bytes)")


# -- check ---------------------------------------------------------------------------


@dataclass
class SearchResultsReport(TableReport):
    """What checking the stored search results of one (game, rules) found."""

    batches: int = 0

    def as_json(self) -> dict[str, Any]:
        return {"game": self.game, "rules": self.rules, "kind": "search results", "status": self.status,
                "batches": self.batches, "positions": self.positions, "sampled": self.sampled,
                "searched": self.searched, "beyond_search_budget": self.beyond_budget,
                "failure_count": len(self.failures), "failures": self.failures[:20]}

    def text(self) -> str:
        head = (f"{self.status.upper() if self.failures else self.status}: {self.game} {self.rules} search results: "
                f"{self.batches} batches, {self.positions:,} positions")
        if self.sampled:
            head += (f"; {self.sampled} sampled results re-proved by a fresh search: {self.searched} agree"
                     f"{'' if not self.beyond_budget else f', {self.beyond_budget} beyond its node budget'}")
        return "\n".join([head] + [f"  - {problem}" for problem in self.failures[:20]])


def check_results(store: TablebaseStore, sample: int, seed: int, node_budget: int = CHECK_NODE_BUDGET,
                  progress: Progress | None = None) -> list[SearchResultsReport]:
    """The audit of every stored set of search results: records and batches against
    their checksums, versions, one value per position, and a sample re-proved."""
    results = SearchResultStore(store)
    try:
        sets = results.sets()
    except StoreError as exc:
        failed = SearchResultsReport(GAME, "(search results)")
        failed.fail(exc.problem)
        return [failed]
    return [_check_set(store, results, found, sample, random.Random(f"{seed}/search/{found.rules}"), node_budget,
                       progress) for found in sets]


def _check_set(store: TablebaseStore, results: SearchResultStore, found: SearchSet, sample: int,
               rng: random.Random, node_budget: int, progress: Progress | None) -> SearchResultsReport:
    from tablebase.service.smallholder import game_for_rules_name
    from tablebase.solver.smallholder_exact import MAX_CELLS, Budget, ExactSearch, outcome_of_score, scores_of
    checked = SearchResultsReport(found.game, found.rules)
    stored = results.read(found)
    entries = stored.entries
    checked.batches, checked.positions = stored.batches, len(entries)
    for problem in stored.damaged:
        checked.fail(problem)
    if not is_current(found):
        checked.fail(f"made by rules/solver version {found.rules_version}/{found.solver_version}, this program is "
                     f"{'/'.join(versions())}: probes ignore them; the next search that stores results replaces them")
        return checked
    try:
        game = game_for_rules_name(found.rules)
    except ValueError:
        checked.not_checked = f"unknown {found.game} rules {found.rules!r}"
        return checked
    if game.board.size > MAX_CELLS:
        checked.fail(f"{game.board.name} is too big for the exact search, whose results these claim to be")
        return checked
    scores = scores_of(entries["value"], entries["remoteness"]).astype(np.int64)
    _check_consistent(entries, scores, checked)
    chosen = rng.sample(range(len(entries)), min(sample, CHECK_SAMPLE, len(entries)))
    task = f"check {found.game} {found.rules} search results"
    for done, i in enumerate(chosen, start=1):
        report(progress, task, "re-proving sampled results", done, len(chosen))
        fresh = ExactSearch(game, table_bytes=CHECK_TABLE_BYTES)
        pos = fresh.position_of_pair(int(entries["mover"][i]), int(entries["waiter"][i]))
        checked.sampled += 1
        outcome = fresh.solve(pos, Budget(nodes=node_budget))
        if outcome is None:
            checked.beyond_budget += 1
            continue
        claimed = outcome_of_score(int(scores[i]))
        if outcome != claimed:
            checked.fail(f"{game.format(pos)!r} is stored as {_name(claimed)}, a fresh search proves "
                         f"{_name(outcome)}")
        else:
            checked.searched += 1
    return checked


def _check_consistent(entries: np.ndarray, scores: np.ndarray, checked: SearchResultsReport) -> None:
    """A position stored twice (two saves) must have one value."""
    if len(entries) < 2:
        return
    order = np.lexsort((scores, entries["waiter"], entries["mover"]))
    m, w, s = entries["mover"][order], entries["waiter"][order], scores[order]
    same = (m[1:] == m[:-1]) & (w[1:] == w[:-1])
    clash = np.flatnonzero(same & (s[1:] != s[:-1]))
    for at in clash[:5]:
        checked.fail(f"position ({int(m[at])}, {int(w[at])}) is stored with two values ({int(s[at])}, "
                     f"{int(s[at + 1])})")


def _name(outcome: Outcome) -> str:
    return outcome.name if outcome.remoteness is None else f"{outcome.name} in {outcome.remoteness}"
