"""Stored atlas rows: one JSON row per (game, board, rules), in the tablebase file.

The table ``atlas_rows`` lives next to the solved tables (see `db/store.py`) and is
created the first time a row is saved. A row is written by one statement, so it is
stored whole or not at all: a sweep killed at any moment keeps every row it finished.
``versions`` records what made the row; a reader asks for the versions it accepts.
``checksum`` is the SHA-256 of the row's JSON text, checked on every read, so a damaged
row is an error rather than a wrong figure.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import time
from dataclasses import dataclass
from typing import Any

from tablebase.db.store import StoreError, TablebaseStore, _explain

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

    def _sql(self, sql: str, params: list[Any] | None = None) -> list[tuple]:
        """The rows of one statement; a SQLite failure becomes a StoreError naming the file."""
        try:
            return self.store.db.execute(sql, params or []).fetchall()
        except sqlite3.Error as exc:
            raise StoreError(_explain(self.path, exc)) from None

    def _exists(self) -> bool:
        return bool(self._sql("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", [TABLE]))

    def get(self, game: str, board: str, rules: str, versions: str) -> StoredRow | None:
        """The stored row of one combination made with ``versions``, or None."""
        if not self._exists():
            return None
        found = self._sql(
            f"SELECT rules, row, checksum, seconds, computed FROM {TABLE} WHERE game = ? AND board = ? AND rules = ? "
            "AND versions = ?", [game, board, rules, versions])
        return self._decode(found[0]) if found else None

    def all(self, game: str, board: str, versions: str) -> list[StoredRow]:
        """Every stored row of a board made with ``versions``, by rules."""
        if not self._exists():
            return []
        found = self._sql(
            f"SELECT rules, row, checksum, seconds, computed FROM {TABLE} WHERE game = ? AND board = ? AND versions = ? "
            "ORDER BY rules", [game, board, versions])
        return [self._decode(row) for row in found]

    def check(self) -> tuple[int, list[tuple[str, StoreError]]]:
        """How many rows are stored, and the board and error of each whose checksum or
        JSON does not hold (every game, board and version)."""
        if not self._exists():
            return 0, []
        found = self._sql(f"SELECT board, rules, row, checksum, seconds, computed FROM {TABLE}")
        damaged = []
        for board, *row in found:
            try:
                self._decode(tuple(row))
            except StoreError as exc:
                damaged.append((str(board), exc))
        return len(found), damaged

    def save(self, game: str, board: str, rules: str, versions: str, row: dict[str, Any], seconds: float) -> None:
        """Store (or replace) one row, in one statement."""
        if not self._exists():
            self._sql(
                f"CREATE TABLE IF NOT EXISTS {TABLE} (game TEXT NOT NULL, board TEXT NOT NULL, rules TEXT NOT NULL, "
                "versions TEXT NOT NULL, row TEXT NOT NULL, checksum TEXT NOT NULL, seconds REAL, computed TEXT, "
                "PRIMARY KEY (game, board, rules))")
        text = json.dumps(row)
        self._sql(f"INSERT OR REPLACE INTO {TABLE} (game, board, rules, versions, row, checksum, seconds, computed) "
                  "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                  [game, board, rules, versions, text, row_checksum(text), seconds,
                   time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())])

    def _decode(self, found: tuple) -> StoredRow:
        rules, text, checksum, seconds, computed = found
        try:
            if not isinstance(text, str) or row_checksum(text) != checksum:
                raise ValueError("it does not match its checksum")
            row = json.loads(text)
            if not isinstance(row, dict):
                raise ValueError("not a JSON object")
        except (TypeError, ValueError) as exc:
            raise StoreError(f"the stored atlas row of {rules} in {str(self.path)!r} is damaged ({exc})",
                             "run the atlas without --stored-only to compute it again") from None
        return StoredRow(rules, row, float(seconds or 0.0), str(computed))


def row_checksum(text: str) -> str:
    """SHA-256 of a row's JSON text."""
    return hashlib.sha256(text.encode()).hexdigest()
