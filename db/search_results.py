"""Storage of exact search results in the tablebase file: a persistent transposition table.

The search (`solver/smallholder_exact.py`) proves exact results of positions no table
holds; the service (`service/search_results.py`) keeps the ones worth keeping here, per
game and rules, so that later probes and runs start from them. This module stores and
reads arrays; what the columns mean is the service's and the solver's business.

Tables (schema version 1, recorded in `meta` as ``search_schema_version``):

* ``search_sets``: one row per (game, rules): the rules and solver versions the results
  were proved under, when the set was started, a ``record_checksum`` over every other
  column.
* ``search_batches``: the results, one row per save (``batch`` counts up from 0): how
  many ``entries``, their ``data`` (zlib-compressed, column after column, as
  `ENTRY_DTYPE`: the canonical (mover, waiter) bitboard pair, value for the side to move,
  remoteness, work estimate) and a ``checksum`` over the row's place (set id, batch
  number) and every other column.

Each save is one transaction (write-ahead logging while writing, as every writer of the
file), so a batch is either stored whole or not at all. Nothing read is trusted
unchecked: a set row or batch row that does not match its checksum, or whose data does
not decode to the recorded count, is reported as damaged (`read` returns it among the
damaged batches, never its entries), so a damaged row never yields a value.
"""

from __future__ import annotations

import hashlib
import os
import sqlite3
import time
import zlib
from dataclasses import dataclass

import numpy as np

from tablebase.db.store import CHECK_ADVICE, StoreError, TablebaseStore, explain, record_checksum

SEARCH_SCHEMA_VERSION = 1
#: One stored result: the canonical (mover, waiter) pair, the value for the side to move
#: (1 win, 0 draw, -1 loss), the remoteness (plies; 0 for a draw) and the work estimate
#: (log2 of the positions its proof searched).
ENTRY_DTYPE = np.dtype([("mover", "<u8"), ("waiter", "<u8"), ("value", "i1"), ("remoteness", "<i2"),
                        ("work", "i1")])
SET_COLUMNS = ("id", "game", "rules", "rules_version", "solver_version", "started")
#: A batch may hold at most this many entries (a corrupt count cannot ask for gigabytes).
MAX_BATCH = 1 << 24


@dataclass(frozen=True)
class SearchSet:
    """The provenance of the stored search results of one (game, rules)."""

    id: int
    game: str
    rules: str
    rules_version: str
    solver_version: str
    started: str


@dataclass(frozen=True)
class StoredResults:
    """What `SearchResultStore.read` found: the entries of every intact batch, how many
    batches there were, and one message per damaged batch."""

    entries: np.ndarray
    batches: int
    damaged: list[str]


def batch_checksum(set_id: int, batch: int, entries: object, data: bytes) -> str:
    """Checksum of a batch row: its place (set, batch number) and every stored column."""
    digest = hashlib.blake2b(digest_size=16)
    digest.update(f"{set_id}:{batch}:{entries!r}:{len(data)}:".encode())
    digest.update(data)
    return digest.hexdigest()


def encode(entries: np.ndarray) -> bytes:
    """The stored form of entries: each column's little-endian bytes in turn, zlib-compressed."""
    entries = np.asarray(entries, dtype=ENTRY_DTYPE)
    raw = b"".join(np.ascontiguousarray(entries[name]).tobytes() for name in ENTRY_DTYPE.names or ())
    return zlib.compress(raw, 6)


def decode(data: bytes, count: int) -> np.ndarray:
    """The entries of a stored batch (ValueError or zlib.error if it does not decode to ``count``)."""
    raw = zlib.decompress(data)
    if len(raw) != count * ENTRY_DTYPE.itemsize:
        raise ValueError(f"{count} entries recorded but {len(raw)} bytes of data")
    entries = np.empty(count, dtype=ENTRY_DTYPE)
    at = 0
    for name in ENTRY_DTYPE.names or ():
        field = ENTRY_DTYPE[name]
        size = count * field.itemsize
        entries[name] = np.frombuffer(raw[at:at + size], dtype=field)
        at += size
    return entries


class SearchResultStore:
    """The stored search results of one tablebase file (see the module doc)."""

    def __init__(self, store: TablebaseStore) -> None:
        self.store = store
        self.db = store.db
        try:
            self.absent = "search_sets" not in self.db.table_names()
            row = self.db.execute("SELECT value FROM meta WHERE key = 'search_schema_version'").fetchone()
        except sqlite3.Error as exc:
            raise StoreError(explain(store.path, exc)) from None
        if row is not None and row[0] != str(SEARCH_SCHEMA_VERSION):
            raise StoreError(f"the search results in {str(store.path)!r} have schema version {row[0]}, this "
                             f"program reads {SEARCH_SCHEMA_VERSION}")

    @property
    def writable(self) -> bool:
        """Whether results may be added: the file was opened for writing and can be written."""
        return not self.store.readonly and os.access(self.store.path, os.W_OK)

    def _ensure_tables(self) -> None:
        if not self.absent:
            return
        with self.store.transaction():
            self.db.execute(
                "CREATE TABLE IF NOT EXISTS search_sets (id INTEGER PRIMARY KEY, game TEXT NOT NULL, "
                "rules TEXT NOT NULL, rules_version TEXT NOT NULL, solver_version TEXT NOT NULL, started TEXT, "
                "record_checksum TEXT NOT NULL, UNIQUE (game, rules))")
            self.db.execute(
                "CREATE TABLE IF NOT EXISTS search_batches (set_id INTEGER NOT NULL REFERENCES search_sets(id), "
                "batch INTEGER NOT NULL, entries INTEGER NOT NULL, data BLOB NOT NULL, checksum TEXT NOT NULL, "
                "PRIMARY KEY (set_id, batch))")
            self.db.execute("INSERT OR REPLACE INTO meta VALUES ('search_schema_version', ?)",
                            [str(SEARCH_SCHEMA_VERSION)])
        self.absent = False

    # -- reading ---------------------------------------------------------------------

    def sets(self) -> list[SearchSet]:
        """Every stored set (StoreError if a set row is damaged)."""
        if self.absent:
            return []
        rows = self._execute(f"SELECT {', '.join(SET_COLUMNS)}, record_checksum FROM search_sets "
                             "ORDER BY game, rules").fetchall()
        return [self._set(row) for row in rows]

    def find(self, game: str, rules: str) -> SearchSet | None:
        """The set of (game, rules), if any (StoreError if its row is damaged)."""
        if self.absent:
            return None
        row = self._execute(f"SELECT {', '.join(SET_COLUMNS)}, record_checksum FROM search_sets "
                            "WHERE game = ? AND rules = ?", [game, rules]).fetchone()
        if row is None:
            return None
        found = self._set(row)
        if (found.game, found.rules) != (game, rules):
            raise StoreError(f"the record of the search results of {game} {rules} in {str(self.store.path)!r} "
                             f"is damaged (the index leads to {found.game} {found.rules})", CHECK_ADVICE)
        return found

    def _set(self, row: tuple) -> SearchSet:
        *values, recorded = row
        if record_checksum("search_sets", values) != recorded:
            raise StoreError(f"the record of the search results of {values[1]} {values[2]} in "
                             f"{str(self.store.path)!r} is damaged (it does not match its checksum)", CHECK_ADVICE)
        return SearchSet(*values)

    def read(self, found: SearchSet, since: int = 0) -> StoredResults:
        """The entries of every intact batch of a set (from batch number ``since`` on);
        damaged batches are named, not read. ``batches`` counts all of them."""
        rows = self._execute("SELECT batch, entries, data, checksum FROM search_batches WHERE set_id = ? "
                             "AND batch >= ? ORDER BY batch", [found.id, since]).fetchall()
        parts, damaged = [], []
        for batch, count, data, checksum in rows:
            where = (f"batch {batch} of the search results of {found.game} {found.rules} in "
                     f"{str(self.store.path)!r}")
            try:
                if not isinstance(data, bytes) or batch_checksum(found.id, batch, count, data) != checksum:
                    raise ValueError("it does not match its checksum")
                if not (isinstance(count, int) and 0 < count <= MAX_BATCH):
                    raise ValueError(f"bad entry count {count!r}")
                parts.append(decode(data, count))
            except (ValueError, TypeError, zlib.error) as exc:
                damaged.append(f"{where} is damaged ({exc}); it is not used")
        entries = np.concatenate(parts) if parts else np.zeros(0, dtype=ENTRY_DTYPE)
        return StoredResults(entries, since + len(rows), damaged)

    def bytes(self, found: SearchSet) -> int:
        """Bytes of stored data of a set."""
        row = self._execute("SELECT sum(length(data)) FROM search_batches WHERE set_id = ?", [found.id]).fetchone()
        return int(row[0] or 0)

    # -- writing ---------------------------------------------------------------------

    def add(self, game: str, rules: str, rules_version: str, solver_version: str, entries: np.ndarray) -> int:
        """Store ``entries`` as one new batch of (game, rules), in one transaction; a set of
        other versions is deleted first (this program can never use it). Returns the
        batch's bytes of data."""
        if not len(entries):
            return 0
        if len(entries) > MAX_BATCH:
            raise ValueError(f"{len(entries)} entries in one batch: at most {MAX_BATCH}")
        data = encode(entries)
        try:
            self._ensure_tables()
            with self.store.transaction():
                found = self.find(game, rules)
                if found is not None and (found.rules_version, found.solver_version) != (rules_version,
                                                                                         solver_version):
                    self._delete(found.id)
                    found = None
                if found is None:
                    in_use = self.db.execute("SELECT max(id) FROM search_sets").fetchone()[0]
                    set_id = int(in_use or 0) + 1
                    values = [set_id, game, rules, rules_version, solver_version, _now()]
                    self.db.execute(f"INSERT INTO search_sets ({', '.join(SET_COLUMNS)}, record_checksum) "
                                    "VALUES (?, ?, ?, ?, ?, ?, ?)", [*values, record_checksum("search_sets", values)])
                else:
                    set_id = found.id
                last = self.db.execute("SELECT max(batch) FROM search_batches WHERE set_id = ?", [set_id]).fetchone()
                batch = 0 if last[0] is None else int(last[0]) + 1
                self.db.execute("INSERT INTO search_batches VALUES (?, ?, ?, ?, ?)",
                                [set_id, batch, len(entries), data, batch_checksum(set_id, batch, len(entries), data)])
        except sqlite3.Error as exc:
            raise StoreError(explain(self.store.path, exc)) from None
        return len(data)

    def delete(self, game: str, rules: str) -> bool:
        """Delete the stored results of (game, rules), even if their record is damaged."""
        if self.absent:
            return False
        row = self._execute("SELECT id FROM search_sets WHERE game = ? AND rules = ?", [game, rules]).fetchone()
        if row is None:
            return False
        try:
            with self.store.transaction():
                self._delete(row[0])
        except sqlite3.Error as exc:
            raise StoreError(explain(self.store.path, exc)) from None
        return True

    def _delete(self, set_id: int) -> None:
        self.db.execute("DELETE FROM search_batches WHERE set_id = ?", [set_id])
        self.db.execute("DELETE FROM search_sets WHERE id = ?", [set_id])

    def _execute(self, sql: str, args: list | None = None) -> sqlite3.Cursor:
        try:
            return self.db.execute(sql, args or [])
        except sqlite3.Error as exc:
            raise StoreError(explain(self.store.path, exc)) from None


def _now() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
