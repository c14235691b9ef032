"""Puzzle storage: a `puzzles` table in the tablebase file.

Rows are deduplicated by (game, rules, canonical key); a key beyond 63 bits (hex4) is
stored as big-endian bytes. Each puzzle is stored in its own
transaction as soon as it is proved (`add`), so a killed generation keeps its work. Schema version 1 of this table
is recorded in `meta` as ``puzzles_schema_version``.
"""

from __future__ import annotations

import json
import sqlite3
import time
from dataclasses import dataclass
from typing import Any

from tablebase.db.store import StoreError, TablebaseStore, explain

PUZZLES_SCHEMA_VERSION = 1


@dataclass(frozen=True)
class StoredPuzzle:
    id: int
    game: str
    rules: str
    position: str
    canonical_key: int
    depth: int
    grade: int
    main_line: list[int]
    tree: dict[str, int]
    features: dict[str, Any]
    source: str  # the command and seed that generated it

    def as_json(self) -> dict[str, Any]:
        return {"id": self.id, "game": self.game, "rules": self.rules, "position": self.position,
                "solution": self.main_line, "depth": self.depth, "grade": self.grade,
                "features": self.features, "source": self.source}


class PuzzleStore:
    """The puzzles of one tablebase file."""

    def __init__(self, store: TablebaseStore) -> None:
        self.store = store
        self.db = store.db
        #: a read-only file that never had puzzles has no table: it reads as holding none
        self.absent = store.readonly and "puzzles" not in self.db.table_names()
        if not self.absent:
            try:
                self._ensure_table()
            except sqlite3.Error as exc:
                raise StoreError(explain(store.path, exc)) from None

    def _ensure_table(self) -> None:
        row = self.db.execute("SELECT value FROM meta WHERE key = 'puzzles_schema_version'").fetchone()
        if row is not None:
            if int(row[0]) != PUZZLES_SCHEMA_VERSION:
                raise StoreError(f"puzzles table has schema version {row[0]}, this program reads "
                                 f"{PUZZLES_SCHEMA_VERSION}")
            return
        with self.store.transaction():
            self.db["puzzles"].create(
                {"id": int, "game": str, "rules": str, "position": str, "canonical_key": int, "depth": int,
                 "grade": int, "main_line": str, "tree": str, "features": str, "source": str, "created": str},
                pk="id", not_null={"game", "rules", "position", "canonical_key"}, if_not_exists=True)
            self.db["puzzles"].create_index(["game", "rules", "canonical_key"], unique=True, if_not_exists=True)
            self.db.execute("INSERT OR REPLACE INTO meta VALUES ('puzzles_schema_version', ?)",
                            [str(PUZZLES_SCHEMA_VERSION)])

    def keys(self, game: str, rules: str) -> set[int]:
        if self.absent:
            return set()
        rows = self.db.execute("SELECT canonical_key FROM puzzles WHERE game = ? AND rules = ?", [game, rules])
        return {_key(row[0]) for row in rows}

    def add(self, puzzle: dict[str, Any]) -> int | None:
        """Store one puzzle in its own transaction, so that a puzzle stays stored however the
        program ends afterwards; its new id, or None if the same puzzle (up to symmetry) was
        already stored.

        The dict has: game, rules, position, canonical_key, depth, grade, main_line, tree,
        features, source.
        """
        p = puzzle
        try:
            with self.store.transaction():
                cursor = self.db.conn.execute(
                    "INSERT OR IGNORE INTO puzzles (game, rules, position, canonical_key, depth, grade, main_line, "
                    "tree, features, source, created) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    [p["game"], p["rules"], p["position"], _stored_key(p["canonical_key"]), p["depth"], p["grade"],
                     " ".join(map(str, p["main_line"])), json.dumps(p["tree"]), json.dumps(p["features"]),
                     p["source"], time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())])
        except sqlite3.Error as exc:
            raise StoreError(explain(self.store.path, exc)) from None
        return cursor.lastrowid if cursor.rowcount else None

    def find(self, game: str | None = None, rules: str | None = None, min_depth: int | None = None,
             max_depth: int | None = None, grade: int | None = None, limit: int | None = None) -> list[StoredPuzzle]:
        if self.absent:
            return []
        where, args = [], []
        for column, op, value in (("game", "=", game), ("rules", "=", rules), ("depth", ">=", min_depth),
                                  ("depth", "<=", max_depth), ("grade", "=", grade)):
            if value is not None:
                where.append(f"{column} {op} ?")
                args.append(_in_sqlite_range(value) if isinstance(value, int) else value)
        sql = "SELECT * FROM puzzles" + (" WHERE " + " AND ".join(where) if where else "") + " ORDER BY id"
        if limit is not None:
            sql += " LIMIT ?"
            args.append(_in_sqlite_range(limit))
        return [self._puzzle(row) for row in self.db.execute(sql, args).fetchall()]

    def get(self, puzzle_id: int) -> StoredPuzzle:
        row = None if self.absent else self.db.execute("SELECT * FROM puzzles WHERE id = ?",
                                                       [_in_sqlite_range(puzzle_id)]).fetchone()
        if row is None:
            raise StoreError(f"no puzzle with id {puzzle_id}")
        return self._puzzle(row)

    @staticmethod
    def _puzzle(row: tuple) -> StoredPuzzle:
        (id_, game, rules, position, key, depth, grade, line, tree, features, source, _created) = row
        return StoredPuzzle(id_, game, rules, position, _key(key), depth, grade, [int(m) for m in line.split()],
                            json.loads(tree), json.loads(features), source)


def _in_sqlite_range(number: int) -> int:
    """``number`` clamped to SQLite's 64-bit integers, which compare with every stored id,
    depth and grade as the number itself does (and a LIMIT beyond them is no limit); a
    bigger Python int would be an OverflowError."""
    return max(-(1 << 63), min(number, (1 << 63) - 1))


def _stored_key(key: int) -> int | bytes:
    """A canonical key as stored: an integer, or big-endian bytes for keys beyond SQLite's
    64-bit integers (hex4 keys need 75 bits; a blob is never converted by column affinity)."""
    return key if key < 1 << 63 else key.to_bytes((key.bit_length() + 7) // 8, "big")


def _key(stored: int | bytes) -> int:
    return int.from_bytes(stored, "big") if isinstance(stored, bytes) else int(stored)
