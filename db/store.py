"""The SQLite tablebase: solved tables stored as compressed blocks of sorted keys.

This is the only module that speaks SQL. It stores arrays and their provenance and
computes nothing about games: a solved table is, per tier, a sorted ``uint64`` array of
canonical keys and a fixed-width ``payload`` array (one entry per key) whose meaning
the solver defines.

Format (schema version 2):

* ``solved_tables``: one row per (game, rules) with provenance: rules and solver
  versions, status (``solving`` or ``complete``), counts, timings, a checksum.
* ``tiers``: one row per stored tier: positions, blocks, seconds, SHA-256 checksum of the
  raw keys and payload bytes.
* ``blocks``: the data, ``BLOCK_SIZE`` positions per row. ``keys`` holds the zlib-
  compressed differences between consecutive keys (the first is ``first_key``),
  ``payload`` the zlib-compressed payload bytes. A lookup reads one block.

Nothing read is trusted unchecked: every row carries a checksum over all its other
columns (``record_checksum`` in ``solved_tables`` and ``tiers``, ``checksum`` in
``blocks``, which also covers the row's place: table, tier and block number). A table's
tier rows must add up to its own record, a tier's blocks to its row, and a block is
verified the first time a lookup reads it (then kept decoded, or remembered as
damaged). So a damaged file gives a `StoreError` naming the tier and block, never a
wrong value; `lookup_partial` answers the keys of intact blocks and reports the others.

Each tier is written in one transaction, so a table is never half-written: an
interrupted solve leaves whole tiers only, and the solver resumes from them. A table is
only used once its status is ``complete``. Table ids are never reused (the last one
handed out is kept in ``meta``), so a reader still holding the info of a table that a
``--force`` solve deleted finds nothing rather than the new, half-written table.

Read-only media: a writer uses write-ahead logging while it writes and puts the file
back into rollback-journal mode when it closes, so the file can be read where nothing
can be written; a file left in WAL mode (a killed solve) on a read-only file system is
opened immutable. Writing there fails with a message saying the file system is
read-only.

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
import threading
import time
import zlib
from collections import OrderedDict
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Concatenate, Iterator, ParamSpec, Sequence, TypeVar

import numpy as np
from sqlite_utils import Database

SCHEMA_VERSION = 2
BLOCK_SIZE = 1 << 12
#: A tier of at least this many blocks is compressed on several threads.
PARALLEL_BLOCKS = 64
BLOCK_CACHE = 1024  # decoded blocks kept in memory for repeated probes (about 37 MB)
#: The columns of ``solved_tables`` and ``tiers`` in stored order; ``record_checksum`` follows.
TABLE_COLUMNS = ("id", "game", "rules", "rules_version", "solver_version", "payload_dtype", "status", "positions",
                 "tiers", "seconds", "checksum", "summary", "started", "finished")
TIER_COLUMNS = ("table_id", "tier", "positions", "blocks", "seconds", "checksum")


#: The advice of a `StoreError` that found the file damaged.
CHECK_ADVICE = "run 'tablebase check'"


class StoreError(ValueError):
    """The database cannot be used as asked (missing, not a tablebase, newer schema, corrupt,
    read-only, disk full, locked by another solve...).

    ``problem`` says what is wrong and ``advice`` (None: none) what to do about it, kept
    apart: ``str()`` joins them ("problem; advice"), the one line every interface shows,
    while a report that is itself the advice's answer (`tablebase check`) shows the
    problem with advice of its own."""

    def __init__(self, problem: str, advice: str | None = None) -> None:
        super().__init__(problem, advice)  # both in args: the error pickles whole
        self.problem = problem
        self.advice = advice

    def __str__(self) -> str:
        return self.problem if self.advice is None else f"{self.problem}; {self.advice}"


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


def record_checksum(kind: str, values: Sequence[object]) -> str:
    """Checksum of a stored row's values (ints, floats, texts, None), in column order."""
    return hashlib.blake2b(json.dumps([kind, *values], default=repr).encode(), digest_size=16).hexdigest()


def block_checksum(table_id: int, tier: int, block: int, first_key: object, positions: object,
                   keys_blob: bytes, payload_blob: bytes) -> str:
    """Checksum of a block row: its place (table, tier, block) and every stored column."""
    digest = hashlib.blake2b(digest_size=16)
    digest.update(f"{table_id}:{tier}:{block}:{first_key!r}:{positions!r}:{len(keys_blob)}:".encode())
    digest.update(keys_blob)
    digest.update(payload_blob)
    return digest.hexdigest()


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
            raise StoreError(explain(self.path, exc)) from None

    return wrapper


def _read_only_file_system(path: Path) -> bool:
    """Whether ``path`` (or, if it does not exist, its folder) is on a file system mounted read-only."""
    try:
        where = path if path.exists() else path.parent
        return bool(os.statvfs(where).f_flag & os.ST_RDONLY)
    except OSError:
        return False


def explain(path: Path, exc: sqlite3.Error) -> str:
    """A one-line message for a SQLite failure, saying what it means for the stored data."""
    text = str(exc)
    name = repr(str(path))
    if "full" in text or "disk I/O" in text:  # a file size limit shows as an I/O error
        return (f"cannot write to {name} ({text}; is the disk full?); nothing half-written was kept, "
                f"stored tiers and tables are intact: free some space and run the same command again")
    if "readonly" in text or "read-only" in text or "unable to open" in text:
        folder = path.parent
        if _read_only_file_system(path):
            return f"cannot write to {name} ({text}): it is on a read-only file system"
        if "unable to open" in text and not folder.is_dir():
            return f"cannot use {name} as a tablebase ({text}): its folder {str(folder)!r} does not exist"
        if path.exists() and not os.access(path, os.R_OK):
            return f"cannot use {name} as a tablebase ({text}): the file cannot be read (permission denied)"
        if path.exists() and not os.access(path, os.W_OK):
            return f"cannot write to {name} ({text}): the file is read-only"
        if not os.access(folder, os.W_OK):
            return (f"cannot write to {name} ({text}): its folder {str(folder)!r} is read-only "
                    f"(SQLite needs to create a journal beside the file)")
        return f"cannot use {name} as a tablebase ({text})"
    if "locked" in text or "busy" in text:
        return f"{name} is busy ({text}); another program holds a write lock on it"
    if "not a database" in text and _gzip_file(path):
        return f"cannot use {name} as a tablebase: it is compressed (gzip); 'gunzip -k' it first"
    if "not a database" in text and _starts_with(path, b"") is not None and not _starts_with(path, SQLITE_HEADER):
        return f"cannot use {name} as a tablebase ({text}): it is not a tablebase file, nor any SQLite database"
    if "malformed" in text or "not a database" in text:
        return f"cannot use {name} as a tablebase ({text}): the file is damaged"
    return f"cannot use {name} as a tablebase ({text})"


#: The first bytes of every SQLite database file.
SQLITE_HEADER = b"SQLite format 3\x00"


def _starts_with(path: Path, prefix: bytes) -> bool | None:
    """Whether the file at ``path`` starts with ``prefix`` (None: it cannot be read)."""
    try:
        with path.open("rb") as handle:
            return handle.read(len(prefix)) == prefix
    except OSError:
        return None


def _gzip_file(path: Path) -> bool:
    return bool(_starts_with(path, b"\x1f\x8b"))


_explain = explain  # the name other db modules imported first


class _SharedBlocks:
    """Decoded blocks of complete tables, shared by every store opened with
    ``share_blocks`` (the threads of one long-running reader), at most BLOCK_CACHE of them.
    Keyed by the table's checksum over all its keys and payload bytes (and the payload's
    type), so a block is the same block whichever file and table id it is read from; a
    damaged block is never put here."""

    def __init__(self) -> None:
        self._blocks: OrderedDict[tuple[str, str, int, int], tuple[np.ndarray, np.ndarray]] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: tuple[str, str, int, int]) -> tuple[np.ndarray, np.ndarray] | None:
        with self._lock:
            found = self._blocks.get(key)
            if found is not None:
                self._blocks.move_to_end(key)
            return found

    def put(self, key: tuple[str, str, int, int], block: tuple[np.ndarray, np.ndarray]) -> None:
        with self._lock:
            self._blocks[key] = block
            while len(self._blocks) > BLOCK_CACHE:
                self._blocks.popitem(last=False)


_SHARED_BLOCKS = _SharedBlocks()


class TablebaseStore:
    """A tablebase file. Open with ``create=True`` to make it if it does not exist, with
    ``readonly=True`` to guarantee that nothing is written (what `check` and `probe` do),
    with ``share_blocks`` to keep the decoded blocks of complete tables in memory shared
    by all stores of the process opened so (a reader serving many threads; a block it
    holds is not read again, so damage done to a file after its blocks were read shows
    only to stores without ``share_blocks``, such as `check`'s).

    A file on a read-only file system opens for reading whatever is asked; writing to
    it then fails with a StoreError saying so.
    """

    def __init__(self, path: str | Path, create: bool = False, readonly: bool = False,
                 share_blocks: bool = False) -> None:
        self.path = Path(path)
        self.share_blocks = share_blocks
        try:
            exists = self.path.is_file()
            if not exists and self.path.exists():
                raise StoreError(f"{str(self.path)!r} is not a file")
        except (OSError, ValueError) as exc:  # a name too long, a NUL byte...
            raise StoreError(f"cannot use {str(self.path)!r} as a tablebase file ({exc})") from None
        if not exists and (readonly or not create):
            raise StoreError(f"no tablebase at {str(self.path)!r}; run 'tablebase solve' first or pass --db")
        if not exists and _read_only_file_system(self.path):
            raise StoreError(f"cannot create {str(self.path)!r}: its folder is on a read-only file system")
        self.readonly = readonly or (exists and _read_only_file_system(self.path))
        self._wal = False  # switched to write-ahead logging by this connection, to undo on close
        try:
            conn = self._connect()
            self.db = Database(conn)
            self._check_schema(create and not self.readonly)
        except sqlite3.Error as exc:
            raise StoreError(explain(self.path, exc)) from None
        except StoreError:
            raise
        except ValueError as exc:  # a NUL byte in the name
            raise StoreError(f"cannot use {str(self.path)!r} as a tablebase file ({exc})") from None
        self._block_cache: OrderedDict[tuple[int, int, int], tuple[np.ndarray, np.ndarray]] = OrderedDict()
        self._damaged: dict[tuple[int, int, int], StoreError] = {}
        self._block_index: dict[tuple[int, int], np.ndarray] = {}
        self._tier_records: dict[int, dict[int, TierInfo]] = {}

    def _connect(self) -> sqlite3.Connection:
        if not self.readonly:
            return sqlite3.connect(self.path, isolation_level=None, timeout=30)
        uri = self.path.resolve().as_uri()
        conn = sqlite3.connect(f"{uri}?mode=ro", uri=True, isolation_level=None, timeout=30)
        try:
            conn.execute("SELECT count(*) FROM sqlite_master").fetchone()
            return conn
        except sqlite3.OperationalError:
            # a file left in WAL mode needs its -shm file, which cannot be made beside it here;
            # nobody can change a file on read-only media, so it may be read as immutable
            conn.close()
            if not (_read_only_file_system(self.path) or not os.access(self.path.parent, os.W_OK)):
                raise
            conn = sqlite3.connect(f"{uri}?immutable=1", uri=True, isolation_level=None, timeout=30)
            conn.execute("SELECT count(*) FROM sqlite_master").fetchone()
            return conn

    def close(self) -> None:
        if self._wal:
            # back to rollback-journal mode, so that the file can be read on read-only media;
            # another open connection prevents it (the file then stays in WAL mode, also readable)
            try:
                self.db.conn.execute("PRAGMA busy_timeout = 200")
                self.db.conn.execute("PRAGMA journal_mode = DELETE")
            except sqlite3.Error:
                pass
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
        if found == 1:
            raise StoreError(f"{str(self.path)!r} was written by an older version of this program (schema "
                             f"version 1, whose blocks carry no checksums); solve into a new file, or delete it")
        if found != SCHEMA_VERSION:
            raise StoreError(f"{str(self.path)!r} has schema version {found}, this program reads {SCHEMA_VERSION}")

    def _create_schema(self) -> None:
        db = self.db
        with self.transaction():
            # two solves creating one new file race to here; the loser finds the schema made
            if "meta" in db.table_names():
                self._check_schema_version()
                return
            db["meta"].create({"key": str, "value": str}, pk="key")
            db["meta"].insert({"key": "schema_version", "value": str(SCHEMA_VERSION)})
            db["solved_tables"].create(
                {"id": int, "game": str, "rules": str, "rules_version": str, "solver_version": str,
                 "payload_dtype": str, "status": str, "positions": int, "tiers": int, "seconds": float,
                 "checksum": str, "summary": str, "started": str, "finished": str, "record_checksum": str},
                pk="id", not_null={"game", "rules", "status"},
            )
            db["solved_tables"].create_index(["game", "rules"], unique=True)
            db["tiers"].create(
                {"table_id": int, "tier": int, "positions": int, "blocks": int, "seconds": float, "checksum": str,
                 "record_checksum": str},
                pk=("table_id", "tier"), foreign_keys=[("table_id", "solved_tables", "id")],
            )
            db["blocks"].create(
                {"table_id": int, "tier": int, "block": int, "first_key": int, "positions": int,
                 "keys": bytes, "payload": bytes, "checksum": str},
                pk=("table_id", "tier", "block"), foreign_keys=[("table_id", "solved_tables", "id")],
            )

    def transaction(self) -> _Transaction:
        """BEGIN IMMEDIATE ... COMMIT around a block of writes (ROLLBACK on any exception).

        Other modules that keep their own tables in the file (puzzles...) write through it
        too, so every writer gets the same journal handling and error messages.
        """
        if self.readonly:
            raise StoreError(self._read_only_reason())
        if not self._wal:
            # write-ahead logging while writing: readers keep reading during a long solve
            self.db.conn.execute("PRAGMA journal_mode = WAL")
            self._wal = True
        return _Transaction(self.db.conn)

    def _read_only_reason(self) -> str:
        if _read_only_file_system(self.path):
            return f"cannot write to {str(self.path)!r}: it is on a read-only file system"
        return f"cannot write to {str(self.path)!r}: it was opened read-only"

    # -- tables ------------------------------------------------------------------

    _TABLE_SELECT = f"SELECT {', '.join(TABLE_COLUMNS)}, record_checksum FROM solved_tables"

    @_sql_errors
    def tables(self) -> list[TableInfo]:
        rows = self.db.execute(f"{self._TABLE_SELECT} ORDER BY game, rules").fetchall()
        return [self._info(row) for row in rows]

    @_sql_errors
    def table_records(self) -> list[tuple[str, str, TableInfo | StoreError]]:
        """(game, rules, info) of every table, where the info of a table whose record is
        damaged is the StoreError saying so (`tables` raises it): the others stay readable."""
        found: list[tuple[str, str, TableInfo | StoreError]] = []
        for row in self.db.execute(f"{self._TABLE_SELECT} ORDER BY game, rules").fetchall():
            try:
                found.append((row[1], row[2], self._info(row)))
            except StoreError as exc:
                found.append((str(row[1]), str(row[2]), exc))
        return found

    @_sql_errors
    def table(self, game: str, rules: str) -> TableInfo | None:
        row = self.db.execute(f"{self._TABLE_SELECT} WHERE game = ? AND rules = ?", [game, rules]).fetchone()
        if row is None:
            return None
        info = self._info(row)
        if (info.game, info.rules) != (game, rules):  # a damaged index led to another row
            raise StoreError(f"the record of table {game} {rules} in {str(self.path)!r} is damaged (the index "
                             f"leads to table {info.game} {info.rules})", CHECK_ADVICE)
        return info

    def _info(self, row: tuple) -> TableInfo:
        *values, recorded = row
        (id_, game, rules, rules_version, solver_version, dtype, status, positions, tiers, seconds, checksum,
         summary, _started, _finished) = values
        if record_checksum("solved_tables", values) != recorded:
            raise StoreError(f"the record of table {game} {rules} in {str(self.path)!r} is damaged (it does not "
                             f"match its checksum)", CHECK_ADVICE)
        try:
            np.dtype(dtype)
            details = json.loads(summary) if summary else {}
        except (TypeError, ValueError) as exc:
            raise StoreError(f"table {game} {rules} has a corrupt provenance row ({exc})", CHECK_ADVICE) \
                from None
        return TableInfo(id_, game, rules, rules_version, solver_version, dtype, status, positions or 0,
                         tiers or 0, seconds or 0.0, checksum, details if isinstance(details, dict) else {})

    def _write_table_row(self, values: dict[str, Any]) -> None:
        row = [values.get(column) for column in TABLE_COLUMNS]
        self.db.execute(f"INSERT OR REPLACE INTO solved_tables ({', '.join(TABLE_COLUMNS)}, record_checksum) "
                        f"VALUES ({', '.join('?' * (len(TABLE_COLUMNS) + 1))})",
                        [*row, record_checksum("solved_tables", row)])

    def _table_row(self, table_id: int) -> dict[str, Any]:
        row = self.db.execute(f"{self._TABLE_SELECT} WHERE id = ?", [table_id]).fetchone()
        if row is None:
            raise StoreError(f"table {table_id} is no longer in {str(self.path)!r} (deleted by another solve?)")
        self._info(row)  # verified
        return dict(zip(TABLE_COLUMNS, row[:-1]))

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
        with self.transaction():
            if old:
                self._delete(old.id)
            row = self.db.execute("SELECT value FROM meta WHERE key = 'last_table_id'").fetchone()
            in_use = self.db.execute("SELECT max(id) FROM solved_tables").fetchone()[0]
            table_id = max(int(row[0]) if row else 0, in_use or 0, old.id if old else 0) + 1
            self.db.execute("INSERT OR REPLACE INTO meta VALUES ('last_table_id', ?)", [str(table_id)])
            self._write_table_row({
                "id": table_id, "game": game, "rules": rules, "rules_version": rules_version,
                "solver_version": solver_version, "payload_dtype": payload_dtype, "status": "solving",
                "positions": 0, "tiers": 0, "seconds": 0.0, "started": _now(),
            })
        info = self.table(game, rules)
        assert info is not None
        return info

    @_sql_errors
    def delete_table(self, game: str, rules: str) -> bool:
        row = self.db.execute("SELECT id FROM solved_tables WHERE game = ? AND rules = ?", [game, rules]).fetchone()
        if row is None:
            return False
        with self.transaction():  # even a table whose record is damaged can be deleted
            self._delete(row[0])
        return True

    def _delete(self, table_id: int) -> None:
        for name in ("blocks", "tiers", "solved_tables"):
            column = "id" if name == "solved_tables" else "table_id"
            self.db.execute(f"DELETE FROM {name} WHERE {column} = ?", [table_id])
        self._block_cache.clear()
        self._damaged.clear()
        self._block_index.clear()
        self._tier_records.clear()

    @_sql_errors
    def finish_table(self, table_id: int, seconds: float, summary: dict[str, Any]) -> TableInfo:
        """Mark a table complete once every tier is stored; record totals and the checksum."""
        rows = self.tier_rows(table_id)
        with self.transaction():
            record = self._table_row(table_id)
            record.update(status="complete", positions=sum(row.positions for row in rows), tiers=len(rows),
                          seconds=float(seconds), checksum=table_checksum([row.checksum for row in rows]),
                          summary=json.dumps(summary), finished=_now())
            self._write_table_row(record)
        self._tier_records.pop(table_id, None)
        result = self.table(record["game"], record["rules"])
        assert result is not None
        return result

    # -- tiers -------------------------------------------------------------------

    @_sql_errors
    def stored_tiers(self, table_id: int) -> dict[int, str]:
        """Tier number -> checksum of every tier already stored."""
        return {row.tier: row.checksum for row in self.tier_rows(table_id)}

    @_sql_errors
    def tier_rows(self, table_id: int) -> list[TierInfo]:
        """The recorded provenance of every stored tier of a table, in ascending tier order,
        each row verified against its checksum."""
        rows = self.db.execute(f"SELECT {', '.join(TIER_COLUMNS)}, record_checksum FROM tiers WHERE table_id = ? "
                               "ORDER BY tier", [table_id]).fetchall()
        infos = []
        for row in rows:
            *values, recorded = row
            if record_checksum("tiers", values) != recorded or values[0] != table_id:
                raise StoreError(f"the record of tier {values[1]} of table {table_id} in {str(self.path)!r} is "
                                 f"damaged (it does not match its checksum)", CHECK_ADVICE)
            infos.append(TierInfo(*values[1:]))
        return infos

    def _verified_tiers(self, table: TableInfo) -> dict[int, TierInfo]:
        """The tier rows of a table, checked once against the table's own record."""
        records = self._tier_records.get(table.id)
        if records is None:
            rows = self.tier_rows(table.id)
            gone = not rows and self.db.execute("SELECT 1 FROM solved_tables WHERE id = ?", [table.id]).fetchone() is None
            if table.status == "complete" and not gone and (
                    len(rows) != table.tiers or sum(row.positions for row in rows) != table.positions
                    or table_checksum([row.checksum for row in rows]) != table.checksum):
                raise StoreError(f"the tiers of table {table.game} {table.rules} in {str(self.path)!r} do not add "
                                 f"up to its record (a tier row is missing or damaged)", CHECK_ADVICE)
            records = {row.tier: row for row in rows}
            self._tier_records[table.id] = records
        return records

    @_sql_errors
    def write_tier(self, table_id: int, tier: int, keys: np.ndarray, payload: np.ndarray, seconds: float) -> None:
        """Store one tier in a single transaction (replacing it if present)."""
        if len(keys) != len(payload):
            raise ValueError(f"tier {tier}: {len(keys)} keys but {len(payload)} payload entries")
        keys = np.ascontiguousarray(keys, dtype=np.uint64)
        payload = np.ascontiguousarray(payload)

        def block_row(block: int) -> tuple:
            start = block * BLOCK_SIZE
            part = keys[start:start + BLOCK_SIZE]
            keys_blob = zlib.compress(np.diff(part).astype("<u8").tobytes(), 6)
            payload_blob = zlib.compress(payload[start:start + BLOCK_SIZE].tobytes(), 6)
            first_key = int(part[0])
            return (table_id, tier, block, first_key, len(part), keys_blob, payload_blob,
                    block_checksum(table_id, tier, block, first_key, len(part), keys_blob, payload_blob))

        blocks = range(-(-len(keys) // BLOCK_SIZE))
        if len(blocks) < PARALLEL_BLOCKS:
            rows = [block_row(block) for block in blocks]
        else:  # zlib releases the interpreter lock: the blocks compress on every core
            with ThreadPoolExecutor(max_workers=os.cpu_count() or 1) as pool:
                rows = list(pool.map(block_row, blocks, chunksize=16))
        record = [table_id, tier, len(keys), len(rows), float(seconds), tier_checksum(keys, payload)]
        with self.transaction():
            self.db.execute("DELETE FROM blocks WHERE table_id = ? AND tier = ?", [table_id, tier])
            self.db.execute("DELETE FROM tiers WHERE table_id = ? AND tier = ?", [table_id, tier])
            self.db.conn.executemany("INSERT INTO blocks VALUES (?, ?, ?, ?, ?, ?, ?, ?)", rows)
            self.db.execute(f"INSERT INTO tiers ({', '.join(TIER_COLUMNS)}, record_checksum) VALUES (?, ?, ?, ?, ?, ?, ?)",
                            [*record, record_checksum("tiers", record)])
        self._block_index.pop((table_id, tier), None)
        self._tier_records.pop(table_id, None)
        for cache_key in [k for k in self._block_cache if k[:2] == (table_id, tier)]:
            del self._block_cache[cache_key]
        for cache_key in [k for k in self._damaged if k[:2] == (table_id, tier)]:
            del self._damaged[cache_key]

    @_sql_errors
    def read_tier(self, table_id: int, tier: int, payload_dtype: str) -> tuple[np.ndarray, np.ndarray]:
        """All keys and payload of a stored tier, each block verified against its checksum
        and the whole against the checksum recorded for the tier: StoreError if anything differs."""
        rows = self.db.execute(
            "SELECT block, first_key, positions, keys, payload, checksum FROM blocks WHERE table_id = ? AND tier = ? "
            "ORDER BY block", [table_id, tier]).fetchall()
        records = {row.tier: row for row in self.tier_rows(table_id)}
        where = f"tier {tier} of table {table_id} in {str(self.path)!r}"
        if not rows and tier not in records:
            return np.zeros(0, dtype=np.uint64), np.zeros(0, dtype=payload_dtype)
        if tier not in records:
            raise StoreError(f"{where} has blocks but no record", CHECK_ADVICE)
        recorded = records[tier]
        if [row[0] for row in rows] != list(range(recorded.blocks)):
            raise StoreError(f"{where} holds blocks {_ranges([row[0] for row in rows])}, but {recorded.blocks} "
                             f"were written", CHECK_ADVICE)
        decoded = [_decode_block(row[1:], payload_dtype, (table_id, tier, block), str(self.path))
                   for block, row in enumerate(rows)]
        keys = np.concatenate([k for k, _ in decoded]) if decoded else np.zeros(0, dtype=np.uint64)
        payload = np.concatenate([p for _, p in decoded]) if decoded else np.zeros(0, dtype=payload_dtype)
        if len(keys) != recorded.positions:
            raise StoreError(f"{where} holds {len(keys)} positions in {len(rows)} blocks, but {recorded.positions} "
                             f"in {recorded.blocks} were written", CHECK_ADVICE)
        if tier_checksum(keys, payload) != recorded.checksum:
            raise StoreError(f"{where} does not match its checksum: the stored data changed since it was "
                             f"written", CHECK_ADVICE)
        return keys, payload

    # -- lookups -----------------------------------------------------------------

    def lookup(self, table: TableInfo, tier: int, keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(found, payload) for sorted-or-not canonical ``keys`` of one tier.

        ``payload`` entries where ``found`` is False are zero. StoreError (naming the tier
        and block) if a key lies in a damaged block.
        """
        found, payload, damaged = self.lookup_partial(table, tier, keys)
        if damaged:
            raise next(iter(damaged.values()))
        return found, payload

    @_sql_errors
    def lookup_partial(self, table: TableInfo, tier: int,
                       keys: np.ndarray) -> tuple[np.ndarray, np.ndarray, dict[int, StoreError]]:
        """`lookup` that answers the keys of intact blocks and reports the others:
        (found, payload, {index in ``keys``: the StoreError of its damaged block}).

        A key is only said to be absent when the blocks on both sides of it verify, so a
        damaged block index cannot hide a stored key either.
        """
        keys = np.asarray(keys, dtype=np.uint64)
        found = np.zeros(len(keys), dtype=bool)
        payload = np.zeros(len(keys), dtype=table.payload_dtype)
        damaged: dict[int, StoreError] = {}
        if len(keys) == 0:
            return found, payload, damaged
        try:
            index = self._tier_index(table, tier)
        except StoreError as exc:
            return found, payload, dict.fromkeys(range(len(keys)), exc)
        if len(index) == 0:
            return found, payload, damaged
        blocks = np.searchsorted(index, keys, side="right") - 1
        for block in np.unique(blocks):
            which = np.flatnonzero(blocks == block)
            if block >= 0:
                try:
                    block_keys, block_payload = self._block(table, tier, int(block))
                except StoreError as exc:
                    damaged.update(dict.fromkeys(which.tolist(), exc))
                    continue
                at = np.minimum(np.searchsorted(block_keys, keys[which]), len(block_keys) - 1)
                hit = block_keys[at] == keys[which]
                found[which[hit]] = True
                payload[which[hit]] = block_payload[at[hit]]
                missed = which[~hit]
            else:
                missed = which
            # an absent key: the next block must verify too, or its first key may be a damaged one
            if len(missed) and block + 1 < len(index):
                try:
                    self._block(table, tier, int(block) + 1)
                except StoreError as exc:
                    damaged.update(dict.fromkeys(missed.tolist(), exc))
        return found, payload, damaged

    def _tier_index(self, table: TableInfo, tier: int) -> np.ndarray:
        """The first keys of a tier's blocks, checked against the tier's verified record."""
        cached = self._block_index.get((table.id, tier))
        if cached is not None:
            return cached
        record = self._verified_tiers(table).get(tier)
        rows = self.db.execute("SELECT block, first_key FROM blocks WHERE table_id = ? AND tier = ? ORDER BY block",
                               [table.id, tier]).fetchall()
        if record is None:
            if rows:
                raise StoreError(f"tier {tier} of table {table.game} {table.rules} in {str(self.path)!r} has "
                                 f"blocks but no record", CHECK_ADVICE)
            index = np.zeros(0, dtype=np.uint64)
        else:
            numbers = [row[0] for row in rows]
            try:
                index = np.array([row[1] for row in rows], dtype=np.uint64)
                ordered = bool(np.all(index[1:] > index[:-1]))
            except (TypeError, ValueError, OverflowError):
                ordered = False
            if numbers != list(range(record.blocks)) or not ordered:
                raise StoreError(f"the block index of tier {tier} of table {table.game} {table.rules} in "
                                 f"{str(self.path)!r} is damaged (blocks {_ranges(numbers)} found, "
                                 f"{record.blocks} written{'' if ordered else ', first keys out of order'})",
                                 CHECK_ADVICE)
        self._block_index[(table.id, tier)] = index
        return index

    def _block(self, table: TableInfo, tier: int, block: int) -> tuple[np.ndarray, np.ndarray]:
        shared = self.share_blocks and table.status == "complete" and table.checksum
        shared_key = (str(table.checksum), table.payload_dtype, tier, block) if shared else None
        if shared_key is not None:
            found = _SHARED_BLOCKS.get(shared_key)
            if found is not None:
                return found
        cache_key = (table.id, tier, block)
        cached = self._block_cache.get(cache_key)
        if cached is not None:
            self._block_cache.move_to_end(cache_key)
            return cached
        if cache_key in self._damaged:
            raise self._damaged[cache_key]
        where = f"block {block} of tier {tier} of table {table.game} {table.rules} in {str(self.path)!r}"
        try:
            row = self.db.execute(
                "SELECT first_key, positions, keys, payload, checksum FROM blocks "
                "WHERE table_id = ? AND tier = ? AND block = ?", [table.id, tier, block]).fetchone()
            if row is None:  # deleted under us (a --force solve), or a lost row
                raise StoreError(f"{where} is missing; the table changed while reading or is damaged", CHECK_ADVICE)
            decoded = _decode_block(row, table.payload_dtype, (table.id, tier, block), str(self.path), where)
        except sqlite3.DatabaseError as exc:
            error = StoreError(f"{where} cannot be read ({exc}): the file is damaged", CHECK_ADVICE)
            self._damaged[cache_key] = error
            raise error from None
        except StoreError as exc:
            self._damaged[cache_key] = exc
            raise
        if shared_key is not None:
            _SHARED_BLOCKS.put(shared_key, decoded)
            return decoded
        self._block_cache[cache_key] = decoded
        if len(self._block_cache) > BLOCK_CACHE:
            self._block_cache.popitem(last=False)
        return decoded

    def size_bytes(self) -> int:
        return self.path.stat().st_size if self.path.exists() else 0

    @_sql_errors
    def backup_to(self, target: Path) -> None:
        """A consistent copy of the whole file into a new SQLite file at ``target`` (which
        must not exist), by SQLite's online backup, which starts over when another process
        writes meanwhile; then compacted (VACUUM). Only reads this file."""
        copy = sqlite3.connect(target, isolation_level=None)
        try:
            self.db.conn.backup(copy)
            copy.execute("PRAGMA journal_mode = DELETE")  # a copy in WAL mode would need its -wal file
            copy.execute("VACUUM")
        finally:
            copy.close()

    @_sql_errors
    def table_bytes(self) -> dict[int, int]:
        """Bytes of stored blocks (keys and payload) per table id."""
        rows = self.db.execute("SELECT table_id, sum(length(keys) + length(payload)) FROM blocks "
                               "GROUP BY table_id").fetchall()
        return {int(table_id): int(size or 0) for table_id, size in rows}

    # -- integrity ---------------------------------------------------------------

    @_sql_errors
    def integrity_problems(self, limit: int = 20) -> list[str]:
        """SQLite's own structural check of the file (pages, b-trees, indexes); [] if sound.

        It cannot see a changed byte inside a stored value: the row checksums do that.
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
        if self.readonly:
            raise StoreError(self._read_only_reason())
        lock_path = Path(f"{self.path}.lock")
        try:
            handle = open(lock_path, "a+")
        except OSError as exc:
            cause = ("its folder is on a read-only file system" if exc.errno == errno.EROFS
                     else "is its folder read-only?" if exc.errno in (errno.EACCES, errno.EPERM) else "")
            raise StoreError(f"cannot create the solve lock {str(lock_path)!r} ({exc.strerror})"
                             + (f"; {cause}" if cause else "")) from None
        with handle:
            if not _try_flock(handle, fcntl.LOCK_EX, lock_path, attempts=LOCK_ATTEMPTS):
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

    def writer(self) -> str | None:
        """The pid (as the lock file gives it) of the process that holds this file's solve
        lock (`solve_lock`) now, or None when nobody does: what tells a weak solve that is
        running from one that was killed before it could mark itself unfinished. It takes
        the lock shared for an instant, which any reader may do (a solve starting in that
        instant tries again, `LOCK_ATTEMPTS`); a file without a lock file has no writer."""
        lock_path = Path(f"{self.path}.lock")
        try:
            handle = open(lock_path, "r")
        except OSError:
            return None  # never locked (or not readable here: then nobody can be told apart)
        with handle:
            if _try_flock(handle, fcntl.LOCK_SH, lock_path):
                fcntl.flock(handle, fcntl.LOCK_UN)
                return None
            return handle.read().strip() or "unknown"


#: Tries, 50 ms apart, to take a lock that is held: a reader asking who writes the file
#: (`TablebaseStore.writer`) holds it shared for an instant, and a solve starting then
#: must not take that for another solve.
LOCK_ATTEMPTS = 20


def _try_flock(handle: Any, kind: int, lock_path: Path, attempts: int = 1) -> bool:
    """Take ``kind`` (LOCK_EX or LOCK_SH) on ``handle`` without waiting, ``attempts`` times
    50 ms apart; False if someone else holds it all along."""
    for attempt in range(attempts):
        if attempt:
            time.sleep(0.05)
        try:
            fcntl.flock(handle, kind | fcntl.LOCK_NB)
            return True
        except OSError as exc:
            if exc.errno not in (errno.EAGAIN, errno.EACCES, errno.EWOULDBLOCK):
                raise StoreError(f"cannot lock {str(lock_path)!r} ({exc.strerror})") from None
    return False


def _decode_block(row: tuple, payload_dtype: str, place: tuple[int, int, int], path: str,
                  where: str | None = None) -> tuple[np.ndarray, np.ndarray]:
    """The keys and payload of one stored block row (first_key, positions, keys, payload,
    checksum) at ``place`` (table id, tier, block); StoreError naming it if it is damaged.

    The checksum over the row's place and every column is verified first; the shape is
    checked before anything is allocated, so a corrupt count cannot ask for terabytes.
    """
    first_key, positions, keys_blob, payload_blob, checksum = row
    table_id, tier, block = place
    where = where or f"block {block} of tier {tier} of table {table_id} in {path!r}"
    try:
        if not (isinstance(keys_blob, bytes) and isinstance(payload_blob, bytes)):
            raise ValueError("a blob column holds another type")
        if block_checksum(table_id, tier, block, first_key, positions, keys_blob, payload_blob) != checksum:
            raise StoreError(f"{where} is damaged: it does not match its checksum", CHECK_ADVICE)
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
        if isinstance(exc, StoreError):
            raise
        raise StoreError(f"{where} is damaged: it is corrupt ({exc})", CHECK_ADVICE) from None
    return keys, payload


def _ranges(numbers: list[Any]) -> str:
    """'0-3, 5' for [0, 1, 2, 3, 5]; 'none' for []."""
    runs: list[list[Any]] = []
    for n in numbers:
        if runs and isinstance(n, int) and isinstance(runs[-1][1], int) and runs[-1][1] == n - 1:
            runs[-1][1] = n
        else:
            runs.append([n, n])
    return ", ".join(f"{a!r}" if a == b else f"{a}-{b}" for a, b in runs) or "none"


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
