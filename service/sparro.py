"""Sparro as the service sees it: solving and resuming its tiered tables, search, drawing."""

from __future__ import annotations

import time
from typing import Any, Callable, Iterable, Sequence

import numpy as np

from tablebase.db.store import TableInfo, TablebaseStore
from tablebase.games.sparro import NAMED_VARIANTS, NUM_CELLS, SYMMETRIES, VARIANTS, Sparro, SparroPosition
from tablebase.games.sparro.rules import RULES_VERSION
from tablebase.render.svg import sparro_svg
from tablebase.render.text import sparro_text
from tablebase.service.description import GameDescription, SolvedTable
from tablebase.service.errors import ServiceError
from tablebase.service import tables
from tablebase.service.progress import Progress, report
from tablebase.solver.probe import Lookup, Outcome, outcomes
from tablebase.solver.search import Search, SearchBudgetExceeded
from tablebase.solver.sparro_arrays import SparroArrays
from tablebase.solver.keys import stone_counts
from tablebase.solver.tiered import (
    PAYLOAD_DTYPE, SOLVER_VERSION, TIERS, SolvedTier, TableMismatch, pack_results, solve_variant, unpack_results)

GAME = "sparro"
START_TEXT = "............/......../...."


class SparroDescription(GameDescription):
    name = GAME
    colours = ("R", "B")
    options = ("variant",)
    #: the published variants (what "all" solves) and every variant the rules know
    #: (the published ones and the hypothetical standard-no-compensation)
    variants: tuple[str, ...] = VARIANTS
    named_variants: tuple[str, ...] = NAMED_VARIANTS
    default_variant = "standard"
    rules_version = RULES_VERSION
    solver_version = SOLVER_VERSION
    payload_dtype = PAYLOAD_DTYPE
    searchable = True
    search_budget = 2_000_000

    def rules(self, label: str) -> Sparro:
        return Sparro(label)  # NotationError for an unknown variant

    def default_game(self, variant: str | None = None, **options: Any) -> Sparro:
        _no_options(options)
        return self.rules("standard" if variant is None else variant)

    def read(self, text: str | None, variant: str | None = None, allow_unreachable: bool = False,
             **options: Any) -> tuple[Sparro, SparroPosition]:
        """A position of the variant; one no game reaches is refused with the reason
        (`Sparro.unreachability`) unless ``allow_unreachable``."""
        game = self.default_game(variant, **options)
        return game, game.start() if text is None else game.parse(text, allow_unreachable=allow_unreachable)

    def tier_of(self, game: Any) -> Callable[[np.ndarray], np.ndarray]:
        return lambda keys: stone_counts(keys, NUM_CELLS)

    def cannot_solve(self, game: Any) -> str | None:
        return None

    def solve(self, store: TablebaseStore, game: Sparro, progress: Progress | None = None,
              force: bool = False) -> TableInfo:
        return solve_into(store, game.variant, progress, force)

    def solve_seconds(self, game: Sparro) -> float:
        # BENCHMARKS.md ("Sparro"): standard 2.2 s, extended 19.7 s, extended-unrestricted 19.3 s
        return 3.0 if game.variant.startswith("standard") else 20.0

    def solve_command(self, game: Sparro) -> str:
        return f"tablebase solve sparro --variant {game.variant}"

    def search_lookup(self, game: Sparro, budget: int, seconds: float | None = None,
                      progress: Progress | None = None, store: TablebaseStore | None = None,
                      since: float | None = None) -> Lookup:
        return search_lookup(game, budget, seconds, progress, since)

    def images(self, game: Sparro, pos: SparroPosition) -> Iterable[tuple[SparroPosition, Sequence[int]]]:
        return ((game.symmetric(pos, s), perm) for s, perm in enumerate(SYMMETRIES))

    def text(self, game: Sparro, pos: SparroPosition) -> str:
        return sparro_text(game, pos)

    def svg(self, game: Sparro, pos: SparroPosition, faces: bool = False) -> str:
        return sparro_svg(game, pos, faces=faces)

    def moves(self, game: Sparro, pos: SparroPosition) -> dict[str, Any]:
        result = game.result(pos)
        return {
            "position": game.format(pos),
            "to_move": pos.to_move,
            "moves": [{"cell": m, "name": game.move_name(m)} for m in game.legal_moves(pos)],
            "result": None if result is None else {
                "winner": result.winner, "lines": {"R": result.red_lines, "B": result.black_lines}},
        }


def _no_options(options: dict[str, Any]) -> None:
    given = [name for name, value in options.items() if value is not None]
    if given:
        raise ServiceError(f"Sparro has no option {given[0]!r} (its rules are chosen by variant=)")


def solve_into(store: TablebaseStore, variant: str, progress: Progress | None = None,
               force: bool = False) -> SolvedTable:
    """Solve a variant into ``store`` (resuming or reusing a stored table) and return its info.

    The whole solve holds the file's solve lock: a second solve into the same file fails
    at once with a StoreError instead of interleaving its tiers with this one's.
    """
    with store.solve_lock():
        if force:
            store.delete_table(GAME, variant)
        table = store.begin_table(GAME, variant, RULES_VERSION, SOLVER_VERSION, PAYLOAD_DTYPE)
        if table.status == "complete":
            return SolvedTable.of(table, reused=True)
        stored = {tier: _loader(store, table, tier) for tier in store.stored_tiers(table.id)}
        started = time.perf_counter()
        steps = 2 * TIERS - 1 - len(stored)
        task = f"sparro {variant}"
        done = 0

        def save(solved: SolvedTier, seconds: float) -> None:
            store.write_tier(table.id, solved.tier, solved.keys, pack_results(solved), seconds)

        def step(stage: str, tier: int) -> None:
            nonlocal done
            done += 1
            report(progress, task, f"{stage} tier {tier}", done, steps)

        try:
            start = solve_variant(SparroArrays(variant), stored, save, step)
        except TableMismatch as exc:
            raise ServiceError(f"cannot resume the sparro {variant} table in {str(store.path)!r} ({exc}); "
                               f"run 'tablebase solve sparro --variant {variant} --force'") from None
        seconds = time.perf_counter() - started + table.seconds
        outcome = outcomes(start.values[:1], start.remoteness[:1])[0]
        summary = {"start_value": outcome.name, "start_remoteness": outcome.remoteness}
        return SolvedTable.of(store.finish_table(table.id, seconds, summary), reused=False)


def _loader(store: TablebaseStore, table: TableInfo, tier: int) -> Callable[[], SolvedTier]:
    return lambda: unpack_results(tier, *store.read_tier(table.id, tier, table.payload_dtype))


def search_lookup(game: Sparro, budget: int | None, seconds: float | None = None, progress: Progress | None = None,
                  since: float | None = None) -> Lookup:
    """Exact outcomes by search from the rules engine alone (None past the budget).

    ``budget`` bounds the nodes of one call (a probe asks for a position and all its
    moves at once), not of each key: a key asked once the budget is spent is unknown.
    ``seconds`` bounds the wall-clock time of one call likewise, counted from ``since``
    (a `time.perf_counter` instant, e.g. the command's start) when given, else from the
    call's start. ``progress`` hears the positions searched every 16,384. The
    transposition table is kept between calls.
    """
    task = f"sparro {game.variant} search"
    search = Search(game, node_budget=budget,
                    progress=None if progress is None else
                    lambda nodes: report(progress, task, f"{spent + nodes:,} positions"))
    spent = 0

    def lookup(keys: Sequence[int]) -> list[Outcome | Exception | None]:
        nonlocal spent
        outcomes: list[Outcome | Exception | None] = []
        spent = 0
        out_of_budget = False
        if seconds is not None:
            search.deadline = (time.perf_counter() if since is None else since) + seconds
        for key in keys:
            if budget is not None:
                out_of_budget = out_of_budget or spent >= budget
                search.node_budget = budget - spent
            if out_of_budget:  # nodes or time spent: the keys left are unknown
                outcomes.append(None)
                continue
            try:
                result = search.solve(game.from_key(key))
            except SearchBudgetExceeded:
                out_of_budget = True
                outcomes.append(None)
                continue
            spent += result.nodes
            outcomes.append(result.outcome)
        return outcomes

    return lookup


def read_tier(store: TablebaseStore, table: TableInfo, tier: int) -> SolvedTier:
    """One stored tier of a Sparro table, decoded."""
    return unpack_results(tier, *store.read_tier(table.id, tier, table.payload_dtype))


DESCRIPTION = SparroDescription()


def table_lookup(store: TablebaseStore, table: TableInfo) -> Lookup:
    """Exact outcomes of canonical keys from a stored Sparro table (None where absent)."""
    return tables.table_lookup(store, DESCRIPTION, table)
