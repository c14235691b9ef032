"""Stored tables: lookups of exact outcomes and the version policy, in one place.

A table is used only when it is complete and its rules, solver and payload versions are
this program's (`current`); everything that reads values (probe, check, verify, puzzles)
goes through `stored_lookup` or `current`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable, Iterable, Sequence

import numpy as np

from tablebase.db.store import TableInfo, TablebaseStore
from tablebase.service.description import Decode, GameDescription
from tablebase.service.errors import NotSolved, ServiceError, SolveNotAsked, WrongVersion
from tablebase.solver.probe import Lookup, Outcome
from tablebase.solver.probe import outcomes as solved_outcomes


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
            for i, hit, outcome in zip(which.tolist(), found.tolist(), solved_outcomes(*decode(payload))):
                if hit:
                    outcomes[i] = outcome
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
        raise ServiceError(f"{why}; a search answers it instead (probe --search, search=True in Python)")
    table = store.table(description.name, game.rules_name)
    where = repr(str(store.path))
    command = description.solve_command(game)
    if table is None or table.status != "complete":
        raise NotSolved(f"{description.name} {game.rules_name} is not solved in {where}; "
                        f"run '{command}', or search instead (probe --search, search=True in Python)")
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


def solve_json(table: TableInfo, reused: bool) -> dict[str, Any]:
    """The object `solve --json` prints for a solved table (both games): game, rules, the
    start's ``{"value", "remoteness"}`` as the atlas and compare give it, the rest of the
    solver's summary (``edges`` counts the move graph's edges), positions, seconds (the
    solve that made the table), checksum, and ``reused`` (the table was complete already)."""
    summary = dict(table.summary)
    start = {"value": summary.pop("start_value", None), "remoteness": summary.pop("start_remoteness", None)}
    rest = {("edges" if key == "moves" else key): value for key, value in summary.items()}
    return {"game": table.game, "rules": table.rules, "start": start, **rest, "positions": table.positions,
            "seconds": round(table.seconds, 2), "checksum": table.checksum, "reused": reused}


def has_usable_table(store: TablebaseStore, description: GameDescription, game: Any) -> bool:
    """Whether ``store`` holds a complete, current table of ``game``."""
    table = store.table(description.name, game.rules_name)
    return table is not None and table.status == "complete" and is_current(description, table)


def _duration(seconds: float) -> str:
    if seconds < 90:
        return f"about {max(1, round(seconds))} s"
    return f"about {round(seconds / 60)} minutes"


def refuse_unasked_solve(path: str | Path, command: str, wanted: Iterable[tuple[GameDescription, Any]]) -> None:
    """The `--solve` gate of commands that solve what they need (play, puzzles generate,
    verify): a `SolveNotAsked` error saying what ``command`` would solve into the file
    at ``path`` and roughly how long it takes (`GameDescription.solve_seconds`), unless
    every table wanted is already there. Reading the file writes nothing to it."""
    wanted = [(d, game) for d, game in wanted if d.cannot_solve(game) is None]
    if Path(path).exists():
        with TablebaseStore(path) as store:
            missing = [(d, game) for d, game in wanted if not has_usable_table(store, d, game)]
    else:
        missing = wanted
    if not missing:
        return
    names = ", ".join(f"{d.name} {game.rules_name}" for d, game in missing)
    count = f"{len(missing)} tables" if len(missing) > 1 else "the table"
    seconds = sum(d.solve_seconds(game) for d, game in missing)
    raise SolveNotAsked(f"{command} would first solve {count} it needs into {str(path)!r} ({_duration(seconds)}): "
                        f"{names}; give --solve to go ahead")
