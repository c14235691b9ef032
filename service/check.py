"""`tablebase check`: is a tablebase file intact, current and right?

Three layers, cheapest first:

1. the file: SQLite's own integrity check (pages, b-trees, indexes);
2. every table: each tier re-read from its blocks and compared with the position count,
   block count and checksum recorded when it was written (`TablebaseStore.read_tier`
   verifies them), the table checksum recomputed from the tier checksums, and the rules
   and solver versions compared with this program's;
3. a random sample of positions per table, judged by the game's rules engine: each value
   consistent with its children's (the retrograde invariant, through `solver.probe`
   and the same table lookup that `probe` uses), equal under every symmetry, and equal to
   the independent search (`solver.search.Search`) where that finishes within a node
   budget.

The exact search's stored results (`service/search_results.py`) are checked the same
way: every batch against its checksum, the versions, and a sample re-proved by a fresh
search.

Layers 1 and 2 know nothing about games, so they cover every table. Layer 3 asks the
game's description in the registry (`service.games.GAMES`); a table of a game without
one is reported as "not checked: unknown game" (its checksums are still verified), not
as a failure, so that a new game's tables can be stored before `check` learns about them.

The report names each problem a `StoreError` found by its ``problem`` alone: the error's
advice elsewhere ("run 'tablebase check'") is what this report answers.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any

from tablebase.db.atlas import AtlasRows
from tablebase.db.store import StoreError, TableInfo, TablebaseStore, table_checksum
from tablebase.games.base import DRAW, NotationError
from tablebase.service.description import GameDescription
from tablebase.service.games import GAMES
from tablebase.service.progress import Progress, report as report_progress
from tablebase.service.tables import is_current, table_lookup
from tablebase.solver.probe import Lookup, NotInTable, Outcome, ProbeResult, probe
from tablebase.solver.search import Search, SearchBudgetExceeded

DEFAULT_SAMPLE = 200
#: Nodes the search may spend on one sampled position before it counts as "too deep".
DEFAULT_SEARCH_BUDGET = 20_000
#: Failures listed per table; more only add to the count (one corrupt tier fails many probes).
MAX_LISTED = 20


@dataclass
class TableReport:
    """What checking one table found."""

    game: str
    rules: str
    tiers: int = 0
    positions: int = 0
    failures: list[str] = field(default_factory=list)
    #: Why the sampled checks did not run (None when they did, or when the table failed before).
    not_checked: str | None = None
    incomplete: bool = False
    sampled: int = 0
    searched: int = 0
    beyond_budget: int = 0

    @property
    def status(self) -> str:
        if self.failures:
            return "failed"
        if self.incomplete:
            return "incomplete"
        return f"not checked: {self.not_checked}" if self.not_checked else "ok"

    def fail(self, problem: str) -> None:
        self.failures.append(problem)

    def as_json(self) -> dict[str, Any]:
        return {"game": self.game, "rules": self.rules, "status": self.status, "tiers": self.tiers,
                "positions": self.positions, "sampled": self.sampled, "searched": self.searched,
                "beyond_search_budget": self.beyond_budget, "failure_count": len(self.failures),
                "failures": self.failures[:MAX_LISTED]}

    def text(self) -> str:
        head = f"{self.status.upper() if self.failures else self.status}: {self.game} {self.rules}: " \
               f"{self.tiers} tiers, {self.positions:,} positions"
        if self.incomplete:
            head += " (still being solved or interrupted; never used until complete)"
        if self.sampled:
            head += (f"; {self.sampled} sampled positions checked against their children and symmetry images, "
                     f"{self.searched} against the search ({self.beyond_budget} beyond its node budget)")
        lines = [head] + [f"  - {problem}" for problem in self.failures[:MAX_LISTED]]
        if len(self.failures) > MAX_LISTED:
            lines.append(f"  - ... and {len(self.failures) - MAX_LISTED} more")
        return "\n".join(lines)


@dataclass
class DatabaseReport:
    path: str
    seed: int
    sample: int
    integrity: list[str]
    tables: list[TableReport]
    atlas_rows: list[str] = field(default_factory=list)  # the damaged stored atlas rows
    atlas_rows_checked: int = 0

    @property
    def failures(self) -> int:
        return len(self.integrity) + sum(len(t.failures) for t in self.tables) + len(self.atlas_rows)

    def as_json(self) -> dict[str, Any]:
        return {"db": self.path, "ok": self.failures == 0, "failures": self.failures, "seed": self.seed,
                "sample": self.sample, "integrity": self.integrity or "ok",
                "tables": [t.as_json() for t in self.tables],
                "atlas_rows": {"checked": self.atlas_rows_checked, "damaged": self.atlas_rows}}

    def text(self) -> str:
        lines = [f"check of {self.path!r} (sample of {self.sample} positions per table, seed {self.seed})",
                 "file: " + ("ok (SQLite integrity check)" if not self.integrity else
                             "FAILED SQLite integrity check: " + "; ".join(self.integrity))]
        lines += [t.text() for t in self.tables] or ["no tables stored"]
        if self.atlas_rows_checked:
            lines.append(f"atlas rows: {self.atlas_rows_checked:,} checked, " +
                         ("all whole" if not self.atlas_rows else
                          f"FAILED: {len(self.atlas_rows)} damaged: " + "; ".join(self.atlas_rows)))
        lines.append("result: " + (f"ok ({len(self.tables)} table(s))" if not self.failures
                                   else f"FAILED ({self.failures} problem(s))"))
        return "\n".join(lines)


def check_database(store: TablebaseStore, sample: int, seed: int, search_budget: int = DEFAULT_SEARCH_BUDGET,
                   progress: Progress | None = None) -> DatabaseReport:
    """Check every layer of every table; every problem found is in the report, none raised.

    ``progress`` hears of each tier read and of every hundredth sampled position (a sample
    is at most the whole table)."""
    integrity = store.integrity_problems()
    try:
        records = store.table_records()
    except StoreError as exc:  # the list of tables itself is damaged: nothing more to check
        return DatabaseReport(str(store.path), seed, sample, integrity + [exc.problem], [])
    reports = []
    for game, rules, info in records:
        if isinstance(info, StoreError):  # this table's record: the others are checked all the same
            damaged = TableReport(game, rules)
            damaged.fail(f"{info.problem}; solve it again with --force")
            reports.append(damaged)
            continue
        reports.append(check_table(store, info, sample, random.Random(f"{seed}/{info.game}/{info.rules}"),
                                   search_budget, progress))
    from tablebase.service.search_results import check_results  # it builds on TableReport
    reports += check_results(store, sample, seed, progress=progress)
    rows_checked, damaged_rows = AtlasRows(store).check()
    return DatabaseReport(str(store.path), seed, sample, integrity, reports,
                          [f"{e.problem}; run 'tablebase atlas smallholder --board {board}' to compute it again"
                           for board, e in damaged_rows], rows_checked)


def check_table(store: TablebaseStore, info: TableInfo, sample: int, rng: random.Random,
                search_budget: int, progress: Progress | None = None) -> TableReport:
    report = TableReport(info.game, info.rules, info.tiers, info.positions)
    keys = _check_stored_data(store, info, report, sample, rng, progress)
    checker = GAMES.get(info.game)
    if checker is None:
        report.not_checked = "unknown game"
        return report
    found = (info.rules_version, info.solver_version, info.payload_dtype)
    current = checker.versions
    if not is_current(checker, info):
        report.fail(f"made by rules/solver/payload {'/'.join(found)}, this program is {'/'.join(current)}: "
                    f"probe refuses it; solve it again with --force")
    if report.failures or report.incomplete:
        return report  # the values of a damaged, foreign or unfinished table mean nothing
    try:
        game = checker.rules(info.rules)
    except NotationError:
        report.not_checked = f"unknown {info.game} rules {info.rules!r}"
        return report
    try:
        _check_sample(game, checker, table_lookup(store, checker, info), keys, report, search_budget, progress)
    except StoreError as exc:  # a block that decodes in read_tier cannot fail here, but a changing file can
        report.fail(exc.problem)
    return report


def _check_stored_data(store: TablebaseStore, info: TableInfo, report: TableReport, sample: int,
                       rng: random.Random, progress: Progress | None = None) -> list[int]:
    """Verify every tier against its recorded checksum and the table against its tiers;
    return the keys of ``sample`` positions drawn uniformly from the whole table."""
    try:
        rows = store.tier_rows(info.id)
    except StoreError as exc:
        report.fail(exc.problem)
        return []
    total = sum(row.positions for row in rows)
    chosen = sorted(rng.sample(range(total), min(sample, total)))
    keys: list[int] = []
    first = 0
    for done, row in enumerate(rows, start=1):
        last, first = first, first + row.positions  # this tier's slice of the table's positions
        report_progress(progress, f"check {info.game} {info.rules}", f"verifying tier {row.tier}", done, len(rows))
        try:
            tier_keys, _ = store.read_tier(info.id, row.tier, info.payload_dtype)
        except StoreError as exc:
            report.fail(exc.problem)
            continue
        keys += [int(tier_keys[i - last]) for i in chosen if last <= i < first]
    if info.status != "complete":
        report.incomplete = True
        report.tiers, report.positions = len(rows), total
        return keys
    if (info.tiers, info.positions) != (len(rows), total):
        report.fail(f"the table records {info.tiers} tiers and {info.positions} positions, "
                    f"but {len(rows)} tiers of {total} positions are stored")
    if info.checksum != table_checksum([row.checksum for row in rows]):
        report.fail("the table checksum does not match its tiers' checksums")
    return keys


def _same(a: Outcome | None, b: Outcome | None) -> bool:
    """Equal results (one draw convention: a draw's remoteness is None everywhere)."""
    return a == b


def _check_sample(game: Any, checker: GameDescription, lookup: Lookup, keys: list[int], report: TableReport,
                  search_budget: int, progress: Progress | None = None) -> None:
    search = Search(game, node_budget=search_budget) if checker.searchable else None
    if not keys:
        return
    start_key = game.canonical_key(game.start())  # always judged: the value everyone asks for
    order = [start_key] + [k for k in keys if k != start_key]
    for key in order:
        pos = game.from_key(key)
        where = game.format(pos)
        report.sampled += 1
        if report.sampled % 100 == 0:
            report_progress(progress, f"check {checker.name} {game.rules_name}", "sampled positions",
                            report.sampled, len(order))
        if game.canonical_key(pos) != key:
            report.fail(f"stored key {key} is not canonical ({where!r})")
            continue
        stored = lookup([key])[0]
        try:
            if isinstance(stored, Exception):  # a damaged block
                raise stored
            answer = probe(game, pos, lookup)
        except NotInTable:
            report.fail(f"{where!r} or one of its children is missing from the table")
            continue
        except StoreError as exc:
            report.fail(f"{where!r}: {exc.problem}")
            continue
        _check_children(game, pos, where, stored, answer, report)
        _check_symmetry(game, checker, pos, where, answer, lookup, report)
        if search is not None:
            try:
                result = search.solve(pos)
            except SearchBudgetExceeded:
                report.beyond_budget += 1
                continue
            report.searched += 1
            if not _same(result.outcome, answer.outcome):
                report.fail(f"{where!r}: the table says {_name(answer.outcome)}, the search "
                            f"{_name(result.outcome)}")


def _check_children(game: Any, pos: Any, where: str, stored: Outcome | None, answer: ProbeResult,
                    report: TableReport) -> None:
    """The retrograde invariant: a position's value is its best move's (or the game's end)."""
    terminal = game.terminal_value(pos)
    if terminal is not None:
        if stored is not None and stored.value != terminal:
            report.fail(f"{where!r} is over ({_name(Outcome(terminal, 0))}) but stored as {_name(stored)}")
        return
    if not answer.moves:
        report.fail(f"{where!r} is not over but has no legal move")
    elif not _same(stored, answer.moves[0].outcome):
        report.fail(f"{where!r} is stored as {_name(stored)} but its best move gives "
                    f"{_name(answer.moves[0].outcome)}")


def _check_symmetry(game: Any, checker: GameDescription, pos: Any, where: str, answer: ProbeResult, lookup: Lookup,
                    report: TableReport) -> None:
    for image, perm in checker.images(game, pos):
        try:
            seen = probe(game, image, lookup)
        except NotInTable:
            report.fail(f"{game.format(image)!r}, a symmetry image of {where!r}, is missing from the table")
            continue
        moved = {perm[m.cell]: m.outcome for m in answer.moves}
        if not _same(seen.outcome, answer.outcome) or set(moved) != {m.cell for m in seen.moves} or not all(
                _same(moved[m.cell], m.outcome) for m in seen.moves):
            report.fail(f"{game.format(image)!r}, a symmetry image of {where!r}, probes differently")


def _name(outcome: Outcome | None) -> str:
    if outcome is None:
        return "nothing"
    return outcome.name if outcome.value == DRAW else f"{outcome.name} in {outcome.remoteness}"


__all__ = ["DatabaseReport", "TableReport", "check_database", "check_table", "DEFAULT_SAMPLE",
           "DEFAULT_SEARCH_BUDGET"]
