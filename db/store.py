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
interrupted solve leaves whole tiers only, and the solver resumes from them. A table is
only used once its status is ``complete``. Table ids are never reused (the last one
handed out is kept in ``meta``), so a reader still holding the info of a table that a
``--force`` solve deleted finds nothing rather than the new, half-written table.

Every SQLite or decoding failure leaves this module as a `StoreError` naming the file, so
the CLI can print it as one line.
"""

from __future__ import annotations

import errno
import fcntl
import functools
import hashlib
import json
import os
import sqlite3
import time
import zlib
from collections import OrderedDict
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Concatenate, Iterator, ParamSpec, TypeVar

import numpy as np
from sqlite_utils import Database

SCHEMA_VERSION = 1
BLOCK_SIZE = 1 << 12
BLOCK_CACHE = 1024  # decoded blocks kept in memory for repeated probes (about 37 MB)


class StoreError(ValueError):
    """The database cannot be used as asked (missing, not a tablebase, newer schema, corrupt,
    read-only, disk full, locked by another solve...)."""


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


@dataclass(frozen=True)
class TierInfo:
    """Provenance of one stored tier, as recorded when it was written."""

    tier: int
    positions: int
    blocks: int
    seconds: float
    checksum: str


def tier_checksum(keys: np.ndarray, payload: np.ndarray) -> str:
    """SHA-256 of a tier's raw little-endian keys followed by its raw payload bytes."""
    digest = hashlib.sha256()
    digest.update(np.ascontiguousarray(keys, dtype="<u8").tobytes())
    digest.update(np.ascontiguousarray(payload).tobytes())
    return digest.hexdigest()


def table_checksum(tier_checksums: list[str]) -> str:
    """SHA-256 of the tiers' checksums, in ascending tier order."""
    return hashlib.sha256("".join(tier_checksums).encode()).hexdigest()


S = TypeVar("S", bound="TablebaseStore")
A = ParamSpec("A")
R = TypeVar("R")


def _sql_errors(method: Callable[Concatenate[S, A], R]) -> Callable[Concatenate[S, A], R]:
    """Turn SQLite failures (malformed file, read-only, disk full, locked) into StoreError."""

    @functools.wraps(method)
    def wrapper(self: S, *args: A.args, **kwargs: A.kwargs) -> R:
        try:
            return method(self, *args, **kwargs)
        except sqlite3.Error as exc:
            raise StoreError(_explain(self.path, exc)) from None

    return wrapper


def _explain(path: Path, exc: sqlite3.Error) -> str:
    """A one-line message for a SQLite failure, saying what it means for the stored data."""
    text = str(exc)
    if "full" in text or "disk I/O" in text:  # a file size limit shows as an I/O error
        return (f"cannot write to {str(path)!r} ({text}; is the disk full?); nothing half-written was kept, "
                f"stored tiers and tables are intact: free some space and run the same command again")
    if "readonly" in text or "read-only" in text:
        return f"cannot write to {str(path)!r} ({text}): the file or its directory is read-only"
    if "locked" in text or "busy" in text:
        return f"{str(path)!r} is busy ({text}); another program holds a write lock on it"
    if "unable to open" in text:
        return f"cannot use {str(path)!r} as a tablebase ({text}): does its folder exist, can it be written?"
    if "malformed" in text:
        return f"cannot use {str(path)!r} as a tablebase ({text}): the file is damaged"
    return f"cannot use {str(path)!r} as a tablebase ({text})"


class TablebaseStore:
    """A tablebase file. Open with ``create=True`` to make it if it does not exist, with
    ``readonly=True`` to guarantee that nothing is written (what `check` does)."""

    def __init__(self, path: str | Path, create: bool = False, readonly: bool = False) -> None:
        self.path = Path(path)
        try:
            exists = self.path.is_file()
            if not exists and self.path.exists():
                raise StoreError(f"{str(self.path)!r} is not a file")
        except (OSError, ValueError) as exc:  # a name too long, a NUL byte...
            raise StoreError(f"cannot use {str(self.path)!r} as a tablebase file ({exc})") from None
        if not exists and (readonly or not create):
            raise StoreError(f"no tablebase at {str(self.path)!r}; run 'tablebase solve' first or pass --db")
        try:
            if readonly:
                conn = sqlite3.connect(f"{self.path.resolve().as_uri()}?mode=ro", uri=True,
                                       isolation_level=None, timeout=30)
            else:
                conn = sqlite3.connect(self.path, isolation_level=None, timeout=30)
            self.db = Database(conn)
            self._check_schema(create and not readonly)
            if not readonly:
                # only now: switching a file that is not a tablebase to WAL would change it
                conn.execute("PRAGMA journal_mode=WAL")
        except sqlite3.Error as exc:
            raise StoreError(_explain(self.path, exc)) from None
        except ValueError as exc:  # a NUL byte in the name
            raise StoreError(f"cannot use {str(self.path)!r} as a tablebase file ({exc})") from None
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
        names = self.db.table_names()
        if "meta" in names:
            self._check_schema_version()
            return
        if not create:
            raise StoreError(f"{str(self.path)!r} is not a tablebase (no meta table)")
        if names:  # someone else's database: never add our tables to it
            raise StoreError(f"{str(self.path)!r} is an SQLite database but not a tablebase "
                             f"(it has tables {', '.join(names[:5])}); pass another --db")
        self._create_schema()

    def _check_schema_version(self) -> None:
        row = self.db.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()
        try:
            found = int(row[0]) if row else 0
        except (TypeError, ValueError):
            found = 0
        if found != SCHEMA_VERSION:
            raise StoreError(f"{str(self.path)!r} has schema version {found}, this program reads {SCHEMA_VERSION}")

    def _create_schema(self) -> None:
        db = self.db
        with self._transaction():
            # two solves creating one new file race to here; the loser finds the schema made
            if "meta" in db.table_names():
                self._check_schema_version()
                return
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

    @_sql_errors
    def tables(self) -> list[TableInfo]:
        rows = self.db.execute("SELECT * FROM solved_tables ORDER BY game, rules").fetchall()
        return [self._info(row) for row in rows]

    @_sql_errors
    def table(self, game: str, rules: str) -> TableInfo | None:
        row = self.db.execute("SELECT * FROM solved_tables WHERE game = ? AND rules = ?", [game, rules]).fetchone()
        return self._info(row) if row else None

    @staticmethod
    def _info(row: tuple) -> TableInfo:
        (id_, game, rules, rules_version, solver_version, dtype, status, positions, tiers, seconds, checksum,
         summary, _started, _finished) = row
        try:
            np.dtype(dtype)
            details = json.loads(summary) if summary else {}
        except (TypeError, ValueError) as exc:
            raise StoreError(f"table {game} {rules} has a corrupt provenance row ({exc}); run 'tablebase check'") \
                from None
        return TableInfo(id_, game, rules, rules_version, solver_version, dtype, status, positions or 0,
                         tiers or 0, seconds or 0.0, checksum, details if isinstance(details, dict) else {})

    @_sql_errors
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
            row = self.db.execute("SELECT value FROM meta WHERE key = 'last_table_id'").fetchone()
            in_use = self.db.execute("SELECT max(id) FROM solved_tables").fetchone()[0]
            table_id = max(int(row[0]) if row else 0, in_use or 0, old.id if old else 0) + 1
            self.db.execute("INSERT OR REPLACE INTO meta VALUES ('last_table_id', ?)", [str(table_id)])
            self.db["solved_tables"].insert({
                "id": table_id, "game": game, "rules": rules, "rules_version": rules_version, "solver_version": solver_version,
                "payload_dtype": payload_dtype, "status": "solving", "positions": 0, "tiers": 0, "seconds": 0.0,
                "started": _now(),
            })
        info = self.table(game, rules)
        assert info is not None
        return info

    @_sql_errors
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

    @_sql_errors
    def finish_table(self, table_id: int, seconds: float, summary: dict[str, Any]) -> TableInfo:
        """Mark a table complete once every tier is stored; record totals and the checksum."""
        rows = self.tier_rows(table_id)
        with self._transaction():
            self.db.execute(
                "UPDATE solved_tables SET status = 'complete', positions = ?, tiers = ?, seconds = ?, checksum = ?, "
                "summary = ?, finished = ? WHERE id = ?",
                [sum(row.positions for row in rows), len(rows), seconds, table_checksum([row.checksum for row in rows]),
                 json.dumps(summary), _now(), table_id])
        info = self.db.execute("SELECT game, rules FROM solved_tables WHERE id = ?", [table_id]).fetchone()
        result = self.table(*info)
        assert result is not None
        return result

    # -- tiers -------------------------------------------------------------------

    @_sql_errors
    def stored_tiers(self, table_id: int) -> dict[int, str]:
        """Tier number -> checksum of every tier already stored."""
        rows = self.db.execute("SELECT tier, checksum FROM tiers WHERE table_id = ?", [table_id]).fetchall()
        return {tier: checksum for tier, checksum in rows}

    @_sql_errors
    def tier_rows(self, table_id: int) -> list[TierInfo]:
        """The recorded provenance of every stored tier of a table, in ascending tier order."""
        rows = self.db.execute("SELECT tier, positions, blocks, seconds, checksum FROM tiers WHERE table_id = ? "
                               "ORDER BY tier", [table_id]).fetchall()
        return [TierInfo(*row) for row in rows]

    @_sql_errors
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

    @_sql_errors
    def read_tier(self, table_id: int, tier: int, payload_dtype: str) -> tuple[np.ndarray, np.ndarray]:
        """All keys and payload of a stored tier, verified against the checksum recorded when
        it was written: StoreError if a block does not decode or anything differs."""
        rows = self.db.execute(
            "SELECT first_key, positions, keys, payload FROM blocks WHERE table_id = ? AND tier = ? ORDER BY block",
            [table_id, tier]).fetchall()
        recorded = self.db.execute("SELECT positions, blocks, checksum FROM tiers WHERE table_id = ? AND tier = ?",
                                   [table_id, tier]).fetchone()
        if not rows and recorded is None:
            return np.zeros(0, dtype=np.uint64), np.zeros(0, dtype=payload_dtype)
        decoded = [_decode_block(row, payload_dtype, (table_id, tier, block)) for block, row in enumerate(rows)]
        keys = np.concatenate([k for k, _ in decoded]) if decoded else np.zeros(0, dtype=np.uint64)
        payload = np.concatenate([p for _, p in decoded]) if decoded else np.zeros(0, dtype=payload_dtype)
        where = f"tier {tier} of table {table_id} in {str(self.path)!r}"
        if recorded is None:
            raise StoreError(f"{where} has blocks but no record; run 'tablebase check'")
        positions, blocks, checksum = recorded
        if (len(keys), len(rows)) != (positions, blocks):
            raise StoreError(f"{where} holds {len(keys)} positions in {len(rows)} blocks, but {positions} in "
                             f"{blocks} were written; run 'tablebase check'")
        if tier_checksum(keys, payload) != checksum:
            raise StoreError(f"{where} does not match its checksum: the stored data changed since it was "
                             f"written; run 'tablebase check'")
        return keys, payload

    # -- lookups -----------------------------------------------------------------

    @_sql_errors
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
        if row is None:  # deleted under us (a --force solve), or a lost row
            raise StoreError(f"block {block} of tier {tier} of table {table.game} {table.rules} is missing from "
                             f"{str(self.path)!r}; the table changed while reading or is damaged, "
                             f"run 'tablebase check'")
        decoded = _decode_block(row, table.payload_dtype, (table.id, tier, block))
        self._block_cache[cache_key] = decoded
        if len(self._block_cache) > BLOCK_CACHE:
            self._block_cache.popitem(last=False)
        return decoded

    def size_bytes(self) -> int:
        return self.path.stat().st_size if self.path.exists() else 0

    # -- integrity ---------------------------------------------------------------

    @_sql_errors
    def integrity_problems(self, limit: int = 20) -> list[str]:
        """SQLite's own structural check of the file (pages, b-trees, indexes); [] if sound.

        It cannot see a changed byte inside a stored blob: the tier checksums do that.
        """
        rows = self.db.execute(f"PRAGMA integrity_check({int(limit)})").fetchall()
        problems = [str(row[0]) for row in rows]
        return [] if problems == ["ok"] else problems

    # -- the solve lock ----------------------------------------------------------

    @contextmanager
    def solve_lock(self) -> Iterator[None]:
        """Hold the one-writer lock of this file: a second solve into it raises StoreError.

        The lock is an exclusive ``flock`` on the side file ``PATH.lock``, not a row in the
        database, because the kernel drops it when its process dies, however it dies: a
        SIGKILLed solve leaves no stale lock to detect, where a pid recorded in a row can
        be reused by another process or mean nothing in another pid namespace (two
        containers sharing the file), and writing the row could itself be interrupted.
        It is a side file and not the database itself because SQLite holds POSIX locks on
        the database, which NFS implements with the same mechanism as flock. The side
        file stays after the solve: removing it would let a waiting solve lock an
        unlinked file while a third one creates a new one.
        """
        lock_path = Path(f"{self.path}.lock")
        try:
            handle = open(lock_path, "a+")
        except OSError as exc:
            raise StoreError(f"cannot create the solve lock {str(lock_path)!r} ({exc.strerror}); "
                             f"is the directory read-only?") from None
        with handle:
            try:
                fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError as exc:
                if exc.errno not in (errno.EAGAIN, errno.EACCES, errno.EWOULDBLOCK):
                    raise StoreError(f"cannot lock {str(lock_path)!r} ({exc.strerror})") from None
                handle.seek(0)
                holder = handle.read().strip() or "unknown"
                raise StoreError(f"another solve (pid {holder}) is writing to {str(self.path)!r}; "
                                 f"wait for it to finish (two solves into one file are never interleaved)") from None
            # the pid only serves the message above; the lock itself is the flock
            handle.seek(0)
            handle.truncate()
            handle.write(str(os.getpid()))
            handle.flush()
            try:
                yield
            finally:
                fcntl.flock(handle, fcntl.LOCK_UN)


def _decode_block(row: tuple, payload_dtype: str, where: tuple[int, int, int]) -> tuple[np.ndarray, np.ndarray]:
    """The keys and payload of one stored block; StoreError if it is damaged.

    Its shape is checked before anything is allocated, so a corrupt count cannot ask for
    terabytes; zlib's own Adler-32 catches most changed bytes in the compressed data.
    """
    first_key, positions, keys_blob, payload_blob = row
    try:
        if not (isinstance(positions, int) and 0 < positions <= BLOCK_SIZE):
            raise ValueError(f"bad position count {positions!r}")
        deltas = np.frombuffer(zlib.decompress(keys_blob), dtype="<u8")
        payload = np.frombuffer(zlib.decompress(payload_blob), dtype=payload_dtype)
        if len(deltas) != positions - 1 or len(payload) != positions:
            raise ValueError(f"{positions} positions but {len(deltas) + 1} keys and {len(payload)} payload entries")
        keys = np.empty(positions, dtype=np.uint64)
        keys[0] = first_key
        np.cumsum(deltas, out=keys[1:])
        keys[1:] += np.uint64(first_key)
    except (zlib.error, ValueError, TypeError, OverflowError) as exc:
        table_id, tier, block = where
        raise StoreError(f"block {block} of tier {tier} of table {table_id} is corrupt ({exc}); "
                         f"run 'tablebase check'") from None
    return keys, payload


class _Transaction:
    """BEGIN IMMEDIATE ... COMMIT, or ROLLBACK on any exception (the connection is in autocommit mode).

    A failed COMMIT (disk full) is rolled back too, so the connection is never left inside
    a transaction; SQLite may already have rolled back by itself (after SQLITE_FULL), hence
    the ``in_transaction`` tests rather than an unconditional ROLLBACK that would fail
    and hide the original error.
    """

    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn

    def __enter__(self) -> None:
        self.conn.execute("BEGIN IMMEDIATE")

    def __exit__(self, exc_type: object, *exc: object) -> None:
        if exc_type is None:
            try:
                self.conn.execute("COMMIT")
                return
            except sqlite3.Error:
                self._rollback()
                raise
        self._rollback()

    def _rollback(self) -> None:
        if self.conn.in_transaction:
            self.conn.execute("ROLLBACK")


def _now() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
