"""Stored tables: lookups of exact outcomes and the version policy, in one place.

A table is used only when it is complete and its rules, solver and payload versions are
this program's (`current`); everything that reads values (probe, check, verify, puzzles)
goes through `stored_lookup` or `current`.
"""

from __future__ import annotations

from typing import Any, Callable, Sequence

import numpy as np

from tablebase.db.store import TableInfo, TablebaseStore
from tablebase.games.base import DRAW
from tablebase.service.description import Decode, GameDescription
from tablebase.service.errors import NotSolved, ServiceError, WrongVersion
from tablebase.solver.probe import Lookup, Outcome


def tiered_lookup(store: TablebaseStore, table: TableInfo, tier_of: Callable[[np.ndarray], np.ndarray],
                  decode: Decode) -> Lookup:
    """Exact outcomes of canonical keys from a stored table (None where absent; the
    StoreError naming the block where a key lies in a damaged block, so that a batch
    still answers everything stored intact)."""

    def lookup(keys: Sequence[int]) -> list[Outcome | Exception | None]:
        array = np.array(keys, dtype=np.uint64)
        outcomes: list[Outcome | Exception | None] = [None] * len(keys)
        tiers = tier_of(array)
        for tier in np.unique(tiers):
            which = np.flatnonzero(tiers == tier)
            found, payload, damaged = store.lookup_partial(table, int(tier), array[which])
            for at, error in damaged.items():
                outcomes[int(which[at])] = error
            values, remoteness = decode(payload)
            for i, hit, value, plies in zip(which.tolist(), found.tolist(), values.tolist(), remoteness.tolist()):
                if hit:
                    outcomes[i] = Outcome(value, None if value == DRAW else plies)
        return outcomes

    return lookup


def table_lookup(store: TablebaseStore, description: GameDescription, table: TableInfo) -> Lookup:
    """The lookup into one stored table (no version check: see `stored_lookup`)."""
    game = description.rules(table.rules)
    return tiered_lookup(store, table, description.tier_of(game), description.decode)


def is_current(description: GameDescription, table: TableInfo) -> bool:
    """The version policy: a table is usable only if this program made it."""
    return (table.rules_version, table.solver_version, table.payload_dtype) == description.versions


def usable_table(store: TablebaseStore, description: GameDescription, game: Any) -> TableInfo:
    """The complete, current table of ``game`` in ``store``; a `ServiceError` saying what
    to run otherwise."""
    why = description.cannot_solve(game)
    if why:
        raise ServiceError(f"{why}; use search instead (--search)")
    table = store.table(description.name, game.rules_name)
    where = repr(str(store.path))
    command = description.solve_command(game)
    if table is None or table.status != "complete":
        raise NotSolved(f"{description.name} {game.rules_name} is not solved in {where}; "
                        f"run '{command}' or use --search")
    if not is_current(description, table):
        raise WrongVersion(f"the {description.name} {game.rules_name} table in {where} was made by another "
                           f"version; run '{command} --force'")
    return table


def stored_lookup(store: TablebaseStore, description: GameDescription, game: Any) -> Lookup:
    """The lookup into ``game``'s usable table (see `usable_table`)."""
    return table_lookup(store, description, usable_table(store, description, game))


def solved_lookup(store: TablebaseStore, description: GameDescription, game: Any,
                  progress: Any = None) -> Lookup:
    """The lookup into ``game``'s table, solving it first if it is not stored yet."""
    why = description.cannot_solve(game)
    if why:
        raise ServiceError(why)
    table = description.solve(store, game, progress)
    return table_lookup(store, description, table)


def solve_json(table: TableInfo) -> dict[str, Any]:
    """The object `solve --json` prints for a solved table (both games): game, rules, the
    solver's summary (``edges`` counts the move graph's edges), positions, seconds, checksum."""
    summary = {("edges" if key == "moves" else key): value for key, value in table.summary.items()}
    return {"game": table.game, "rules": table.rules, **summary, "positions": table.positions,
            "seconds": round(table.seconds, 2), "checksum": table.checksum}
