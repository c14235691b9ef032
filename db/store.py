"""The SQLite tablebase: solved tables stored as compressed blocks of sorted keys.

This is the only module that speaks SQL. It stores arrays and their provenance and
computes nothing about games: a solved table is, per tier, a sorted ``uint64`` array of
canonical keys and a fixed-width ``payload`` array (one entry per key) whose meaning
the solver defines.

Format (schema version 1):

* ``solved_tables``: one row per (game, rules) with provenance: rules and solver
  versions, status (``solving`` or ``complete``), counts, timings, a checksum.
* ``tiers``: one row per stored tier: positions, blocks, seconds, SHA-256 checksum of the
  raw keys and payload bytes.
* ``blocks``: the data, ``BLOCK_SIZE`` positions per row. ``keys`` holds the zlib-
  compressed differences between consecutive keys (the first is ``first_key``),
  ``payload`` the zlib-compressed payload bytes. A lookup reads one block.

Each tier is written in one transaction, so a table is never half-written: an
interrupted solve leaves whole tiers only, and the solver resumes from them.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import time
import zlib
from collections import OrderedDict
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from sqlite_utils import Database

SCHEMA_VERSION = 1
BLOCK_SIZE = 1 << 12
BLOCK_CACHE = 1024  # decoded blocks kept in memory for repeated probes (about 37 MB)


class StoreError(ValueError):
    """The database cannot be used as asked (missing, not a tablebase, newer schema...)."""


@dataclass(frozen=True)
class TableInfo:
    """Provenance of one solved table."""

    id: int
    game: str
    rules: str
    rules_version: str
    solver_version: str
    payload_dtype: str
    status: str
    positions: int
    tiers: int
    seconds: float
    checksum: str | None
    summary: dict[str, Any]


def tier_checksum(keys: np.ndarray, payload: np.ndarray) -> str:
    digest = hashlib.sha256()
    digest.update(np.ascontiguousarray(keys, dtype="<u8").tobytes())
    digest.update(np.ascontiguousarray(payload).tobytes())
    return digest.hexdigest()


class TablebaseStore:
    """A tablebase file. Open with ``create=True`` to make it if it does not exist."""

    def __init__(self, path: str | Path, create: bool = False) -> None:
        self.path = Path(path)
        if not create and not self.path.exists():
            raise StoreError(f"no tablebase at {str(self.path)!r}; run 'tablebase solve' first or pass --db")
        try:
            conn = sqlite3.connect(self.path, isolation_level=None, timeout=30)
            conn.execute("PRAGMA journal_mode=WAL")
            self.db = Database(conn)
            self._check_schema(create)
        except sqlite3.DatabaseError as exc:
            raise StoreError(f"cannot use {str(self.path)!r} as a tablebase ({exc})") from None
        self._block_cache: OrderedDict[tuple[int, int, int], tuple[np.ndarray, np.ndarray]] = OrderedDict()
        self._block_index: dict[tuple[int, int], np.ndarray] = {}

    def close(self) -> None:
        self.db.conn.close()

    def __enter__(self) -> TablebaseStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- schema ------------------------------------------------------------------

    def _check_schema(self, create: bool) -> None:
        if "meta" in self.db.table_names():
            row = self.db.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()
            found = int(row[0]) if row else 0
            if found != SCHEMA_VERSION:
                raise StoreError(f"{str(self.path)!r} has schema version {found}, this program reads {SCHEMA_VERSION}")
            return
        if not create:
            raise StoreError(f"{str(self.path)!r} is not a tablebase (no meta table)")
        self._create_schema()

    def _create_schema(self) -> None:
        db = self.db
        with self._transaction():
            db["meta"].create({"key": str, "value": str}, pk="key")
            db["meta"].insert({"key": "schema_version", "value": str(SCHEMA_VERSION)})
            db["solved_tables"].create(
                {"id": int, "game": str, "rules": str, "rules_version": str, "solver_version": str,
                 "payload_dtype": str, "status": str, "positions": int, "tiers": int, "seconds": float,
                 "checksum": str, "summary": str, "started": str, "finished": str},
                pk="id", not_null={"game", "rules", "status"},
            )
            db["solved_tables"].create_index(["game", "rules"], unique=True)
            db["tiers"].create(
                {"table_id": int, "tier": int, "positions": int, "blocks": int, "seconds": float, "checksum": str},
                pk=("table_id", "tier"), foreign_keys=[("table_id", "solved_tables", "id")],
            )
            db["blocks"].create(
                {"table_id": int, "tier": int, "block": int, "first_key": int, "positions": int,
                 "keys": bytes, "payload": bytes},
                pk=("table_id", "tier", "block"), foreign_keys=[("table_id", "solved_tables", "id")],
            )

    def _transaction(self) -> _Transaction:
        return _Transaction(self.db.conn)

    # -- tables ------------------------------------------------------------------

    def tables(self) -> list[TableInfo]:
        rows = self.db.execute("SELECT * FROM solved_tables ORDER BY game, rules").fetchall()
        return [self._info(row) for row in rows]

    def table(self, game: str, rules: str) -> TableInfo | None:
        row = self.db.execute("SELECT * FROM solved_tables WHERE game = ? AND rules = ?", [game, rules]).fetchone()
        return self._info(row) if row else None

    @staticmethod
    def _info(row: tuple) -> TableInfo:
        (id_, game, rules, rules_version, solver_version, dtype, status, positions, tiers, seconds, checksum,
         summary, _started, _finished) = row
        return TableInfo(id_, game, rules, rules_version, solver_version, dtype, status, positions or 0,
                         tiers or 0, seconds or 0.0, checksum, json.loads(summary) if summary else {})

    def begin_table(self, game: str, rules: str, rules_version: str, solver_version: str,
                    payload_dtype: str) -> TableInfo:
        """The table to solve into: the existing one if its versions match, else a fresh one.

        A stored table of other versions is deleted (it can never be used for these rules).
        """
        old = self.table(game, rules)
        if old and (old.rules_version, old.solver_version, old.payload_dtype) == (
                rules_version, solver_version, payload_dtype):
            return old
        with self._transaction():
            if old:
                self._delete(old.id)
            self.db["solved_tables"].insert({
                "game": game, "rules": rules, "rules_version": rules_version, "solver_version": solver_version,
                "payload_dtype": payload_dtype, "status": "solving", "positions": 0, "tiers": 0, "seconds": 0.0,
                "started": _now(),
            })
        info = self.table(game, rules)
        assert info is not None
        return info

    def delete_table(self, game: str, rules: str) -> bool:
        old = self.table(game, rules)
        if old is None:
            return False
        with self._transaction():
            self._delete(old.id)
        return True

    def _delete(self, table_id: int) -> None:
        for name in ("blocks", "tiers", "solved_tables"):
            column = "id" if name == "solved_tables" else "table_id"
            self.db.execute(f"DELETE FROM {name} WHERE {column} = ?", [table_id])
        self._block_cache.clear()
        self._block_index.clear()

    def finish_table(self, table_id: int, seconds: float, summary: dict[str, Any]) -> TableInfo:
        """Mark a table complete once every tier is stored; record totals and the checksum."""
        rows = self.db.execute(
            "SELECT tier, positions, checksum FROM tiers WHERE table_id = ? ORDER BY tier", [table_id]).fetchall()
        checksum = hashlib.sha256("".join(row[2] for row in rows).encode()).hexdigest()
        with self._transaction():
            self.db.execute(
                "UPDATE solved_tables SET status = 'complete', positions = ?, tiers = ?, seconds = ?, checksum = ?, "
                "summary = ?, finished = ? WHERE id = ?",
                [sum(row[1] for row in rows), len(rows), seconds, checksum, json.dumps(summary), _now(), table_id])
        info = self.db.execute("SELECT game, rules FROM solved_tables WHERE id = ?", [table_id]).fetchone()
        result = self.table(*info)
        assert result is not None
        return result

    # -- tiers -------------------------------------------------------------------

    def stored_tiers(self, table_id: int) -> dict[int, str]:
        """Tier number -> checksum of every tier already stored."""
        rows = self.db.execute("SELECT tier, checksum FROM tiers WHERE table_id = ?", [table_id]).fetchall()
        return {tier: checksum for tier, checksum in rows}

    def write_tier(self, table_id: int, tier: int, keys: np.ndarray, payload: np.ndarray, seconds: float) -> None:
        """Store one tier in a single transaction (replacing it if present)."""
        if len(keys) != len(payload):
            raise ValueError(f"tier {tier}: {len(keys)} keys but {len(payload)} payload entries")
        keys = np.ascontiguousarray(keys, dtype=np.uint64)
        payload = np.ascontiguousarray(payload)
        rows = []
        for block, start in enumerate(range(0, len(keys), BLOCK_SIZE)):
            part = keys[start:start + BLOCK_SIZE]
            rows.append((table_id, tier, block, int(part[0]), len(part),
                         zlib.compress(np.diff(part).astype("<u8").tobytes(), 6),
                         zlib.compress(payload[start:start + BLOCK_SIZE].tobytes(), 6)))
        with self._transaction():
            self.db.execute("DELETE FROM blocks WHERE table_id = ? AND tier = ?", [table_id, tier])
            self.db.execute("DELETE FROM tiers WHERE table_id = ? AND tier = ?", [table_id, tier])
            self.db.conn.executemany("INSERT INTO blocks VALUES (?, ?, ?, ?, ?, ?, ?)", rows)
            self.db.execute("INSERT INTO tiers VALUES (?, ?, ?, ?, ?, ?)",
                            [table_id, tier, len(keys), len(rows), seconds, tier_checksum(keys, payload)])
        self._block_index.pop((table_id, tier), None)

    def read_tier(self, table_id: int, tier: int, payload_dtype: str) -> tuple[np.ndarray, np.ndarray]:
        """All keys and payload of a stored tier."""
        rows = self.db.execute(
            "SELECT first_key, positions, keys, payload FROM blocks WHERE table_id = ? AND tier = ? ORDER BY block",
            [table_id, tier]).fetchall()
        if not rows:
            return np.zeros(0, dtype=np.uint64), np.zeros(0, dtype=payload_dtype)
        decoded = [_decode_block(row, payload_dtype) for row in rows]
        return np.concatenate([k for k, _ in decoded]), np.concatenate([p for _, p in decoded])

    # -- lookups -----------------------------------------------------------------

    def lookup(self, table: TableInfo, tier: int, keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(found, payload) for sorted-or-not canonical ``keys`` of one tier.

        ``payload`` entries where ``found`` is False are zero.
        """
        keys = np.asarray(keys, dtype=np.uint64)
        found = np.zeros(len(keys), dtype=bool)
        payload = np.zeros(len(keys), dtype=table.payload_dtype)
        index = self._tier_index(table.id, tier)
        if len(index) == 0 or len(keys) == 0:
            return found, payload
        blocks = np.searchsorted(index, keys, side="right") - 1
        for block in np.unique(blocks[blocks >= 0]):
            which = np.flatnonzero(blocks == block)
            block_keys, block_payload = self._block(table, tier, int(block))
            at = np.minimum(np.searchsorted(block_keys, keys[which]), len(block_keys) - 1)
            hit = block_keys[at] == keys[which]
            found[which[hit]] = True
            payload[which[hit]] = block_payload[at[hit]]
        return found, payload

    def _tier_index(self, table_id: int, tier: int) -> np.ndarray:
        index = self._block_index.get((table_id, tier))
        if index is None:
            rows = self.db.execute("SELECT first_key FROM blocks WHERE table_id = ? AND tier = ? ORDER BY block",
                                   [table_id, tier]).fetchall()
            index = np.array([row[0] for row in rows], dtype=np.uint64)
            self._block_index[(table_id, tier)] = index
        return index

    def _block(self, table: TableInfo, tier: int, block: int) -> tuple[np.ndarray, np.ndarray]:
        cache_key = (table.id, tier, block)
        cached = self._block_cache.get(cache_key)
        if cached is not None:
            self._block_cache.move_to_end(cache_key)
            return cached
        row = self.db.execute(
            "SELECT first_key, positions, keys, payload FROM blocks WHERE table_id = ? AND tier = ? AND block = ?",
            [table.id, tier, block]).fetchone()
        decoded = _decode_block(row, table.payload_dtype)
        self._block_cache[cache_key] = decoded
        if len(self._block_cache) > BLOCK_CACHE:
            self._block_cache.popitem(last=False)
        return decoded

    def size_bytes(self) -> int:
        return self.path.stat().st_size if self.path.exists() else 0


def _decode_block(row: tuple, payload_dtype: str) -> tuple[np.ndarray, np.ndarray]:
    first_key, positions, keys_blob, payload_blob = row
    deltas = np.frombuffer(zlib.decompress(keys_blob), dtype="<u8")
    keys = np.empty(positions, dtype=np.uint64)
    keys[0] = first_key
    np.cumsum(deltas, out=keys[1:])
    keys[1:] += np.uint64(first_key)
    payload = np.frombuffer(zlib.decompress(payload_blob), dtype=payload_dtype)
    return keys, payload


class _Transaction:
    """BEGIN IMMEDIATE ... COMMIT, or ROLLBACK on any exception (the connection is in autocommit mode)."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn

    def __enter__(self) -> None:
        self.conn.execute("BEGIN IMMEDIATE")

    def __exit__(self, exc_type: object, *exc: object) -> None:
        self.conn.execute("ROLLBACK" if exc_type else "COMMIT")


def _now() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
