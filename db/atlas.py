"""Stored atlas rows: one JSON row per (game, board, rules), in the tablebase file.

The table ``atlas_rows`` lives next to the solved tables (see `db/store.py`) and is
created the first time a row is saved. A row is written by one statement, so it is
stored whole or not at all: a sweep killed at any moment keeps every row it finished.
``versions`` records what made the row; a reader asks for the versions it accepts.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from typing import Any

from tablebase.db.store import StoreError, TablebaseStore, _sql_errors

TABLE = "atlas_rows"


@dataclass(frozen=True)
class StoredRow:
    rules: str
    row: dict[str, Any]
    seconds: float  # time the row took to compute
    computed: str  # UTC time it was stored


class AtlasRows:
    """The atlas rows of one tablebase file."""

    def __init__(self, store: TablebaseStore) -> None:
        self.store = store
        self.path = store.path

    @_sql_errors
    def _exists(self) -> bool:
        return TABLE in self.store.db.table_names()

    @_sql_errors
    def get(self, game: str, board: str, rules: str, versions: str) -> StoredRow | None:
        """The stored row of one combination made with ``versions``, or None."""
        if not self._exists():
            return None
        found = self.store.db.execute(
            f"SELECT rules, row, seconds, computed FROM {TABLE} WHERE game = ? AND board = ? AND rules = ? "
            "AND versions = ?", [game, board, rules, versions]).fetchone()
        return self._decode(found) if found else None

    @_sql_errors
    def all(self, game: str, board: str, versions: str) -> list[StoredRow]:
        """Every stored row of a board made with ``versions``, by rules."""
        if not self._exists():
            return []
        found = self.store.db.execute(
            f"SELECT rules, row, seconds, computed FROM {TABLE} WHERE game = ? AND board = ? AND versions = ? "
            "ORDER BY rules", [game, board, versions]).fetchall()
        return [self._decode(row) for row in found]

    @_sql_errors
    def save(self, game: str, board: str, rules: str, versions: str, row: dict[str, Any], seconds: float) -> None:
        """Store (or replace) one row, in one statement."""
        if not self._exists():
            self.store.db.execute(
                f"CREATE TABLE IF NOT EXISTS {TABLE} (game TEXT NOT NULL, board TEXT NOT NULL, rules TEXT NOT NULL, "
                "versions TEXT NOT NULL, row TEXT NOT NULL, seconds REAL, computed TEXT, "
                "PRIMARY KEY (game, board, rules))")
        self.store.db.execute(f"INSERT OR REPLACE INTO {TABLE} VALUES (?, ?, ?, ?, ?, ?, ?)",
                              [game, board, rules, versions, json.dumps(row), seconds,
                               time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())])

    def _decode(self, found: tuple) -> StoredRow:
        rules, text, seconds, computed = found
        try:
            row = json.loads(text)
            if not isinstance(row, dict):
                raise ValueError("not a JSON object")
        except (TypeError, ValueError) as exc:
            raise StoreError(f"the stored atlas row of {rules} in {str(self.path)!r} is damaged ({exc}); "
                             f"delete it or solve into another --db") from None
        return StoredRow(rules, row, float(seconds or 0.0), str(computed))
