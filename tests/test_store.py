"""The SQLite store on its own, with synthetic tiers: round trips, the checksum every read
verifies, the solve lock, and hostile files (missing, not SQLite, truncated, someone
else's database, read-only, full). Every failure must be a StoreError with a message,
and must leave the data already stored intact.

Tampering with a file goes through ``sqlite3`` directly, on purpose: it plays the part of
a damaged disk or a careless user, not of the program.
"""

from __future__ import annotations

import os
import sqlite3
import zlib
from pathlib import Path

import numpy as np
import pytest

from tablebase.db.store import (
    BLOCK_SIZE,
    SCHEMA_VERSION,
    StoreError,
    TablebaseStore,
    block_checksum,
    table_checksum,
    tier_checksum,
)

DTYPE = "u1"
#: Positions per synthetic tier: tier t has TIER_SIZES[t], a few spanning several blocks.
TIER_SIZES = [1, 100, BLOCK_SIZE + 7, 3 * BLOCK_SIZE]


def synthetic_tier(tier: int, size: int) -> tuple[np.ndarray, np.ndarray]:
    """Sorted distinct keys and a payload that depends on them, different per tier."""
    rng = np.random.default_rng(tier)
    keys = np.unique(rng.integers(0, 1 << 50, size=2 * size, dtype=np.uint64))[:size]
    return keys, (keys % np.uint64(251)).astype(DTYPE)


def fill(store: TablebaseStore, rules: str = "r", game: str = "g") -> int:
    """A complete synthetic table; its id."""
    info = store.begin_table(game, rules, "rv", "sv", DTYPE)
    for tier, size in enumerate(TIER_SIZES):
        store.write_tier(info.id, tier, *synthetic_tier(tier, size), seconds=0.1)
    return store.finish_table(info.id, 1.0, {"note": "synthetic"}).id


@pytest.fixture
def db(tmp_path: Path) -> Path:
    path = tmp_path / "t.sqlite"
    with TablebaseStore(path, create=True) as store:
        fill(store)
    return path


def snapshot(path: Path) -> list[tuple]:
    """Everything stored, for before/after comparisons."""
    with TablebaseStore(path, readonly=True) as store:
        info = store.table("g", "r")
        assert info is not None and info.status == "complete"
        return [(tier, *map(bytes, store.read_tier(info.id, tier, DTYPE))) for tier in range(len(TIER_SIZES))]


# -- round trips and checksums ---------------------------------------------------------


def test_round_trip_and_checksums(db: Path) -> None:
    with TablebaseStore(db) as store:
        info = store.table("g", "r")
        assert info.positions == sum(TIER_SIZES) and info.tiers == len(TIER_SIZES)
        rows = store.tier_rows(info.id)
        assert [row.tier for row in rows] == list(range(len(TIER_SIZES)))
        assert info.checksum == table_checksum([row.checksum for row in rows])
        for tier, size in enumerate(TIER_SIZES):
            keys, payload = synthetic_tier(tier, size)
            got_keys, got_payload = store.read_tier(info.id, tier, DTYPE)
            assert np.array_equal(got_keys, keys) and np.array_equal(got_payload, payload)
            assert rows[tier].checksum == tier_checksum(keys, payload)
            found, looked_up = store.lookup(info, tier, keys[::7])
            assert found.all() and np.array_equal(looked_up, payload[::7])


def test_table_ids_are_never_reused(db: Path) -> None:
    """A reader holding a deleted table's info must find nothing, not its successor."""
    with TablebaseStore(db) as store:
        old = store.table("g", "r")
        store.delete_table("g", "r")
        new = store.begin_table("g", "r", "rv", "sv", DTYPE)
        assert new.id > old.id
        keys, payload = synthetic_tier(0, 1)
        store.write_tier(new.id, 0, keys, payload, 0.0)
        found, _ = store.lookup(old, 0, keys)
        assert not found.any()


def tamper(path: Path, sql: str, params: tuple = ()) -> None:
    with sqlite3.connect(path) as conn:
        conn.execute(sql, params)
    conn.close()


def test_changed_payload_fails_its_checksum(db: Path) -> None:
    keys, payload = synthetic_tier(2, TIER_SIZES[2])
    changed = payload[:BLOCK_SIZE].copy()
    changed[5] ^= 1  # one bit, recompressed so that zlib cannot notice
    tamper(db, "UPDATE blocks SET payload = ? WHERE tier = 2 AND block = 0", (zlib.compress(changed.tobytes()),))
    with TablebaseStore(db) as store:
        info = store.table("g", "r")
        with pytest.raises(StoreError, match="does not match its checksum"):
            store.read_tier(info.id, 2, DTYPE)
        store.read_tier(info.id, 1, DTYPE)  # the other tiers are still readable


@pytest.mark.parametrize("column, value, message", [
    ("payload", b"not zlib", "is corrupt"),
    ("keys", zlib.compress(b"\0" * 8), "is corrupt"),  # too few keys for the count
    ("positions", 1 << 40, "bad position count"),  # must not try to allocate that much
])
def test_corrupt_block_is_a_store_error(db: Path, column: str, value: object, message: str) -> None:
    """With the block's checksum refreshed to fit, so that the decoding checks must catch it."""
    tamper(db, f"UPDATE blocks SET {column} = ? WHERE tier = 3 AND block = 1", (value,))
    with sqlite3.connect(db) as conn:
        row = conn.execute("SELECT table_id, tier, block, first_key, positions, keys, payload FROM blocks "
                           "WHERE tier = 3 AND block = 1").fetchone()
        conn.execute("UPDATE blocks SET checksum = ? WHERE tier = 3 AND block = 1", (block_checksum(*row),))
    conn.close()
    with TablebaseStore(db) as store:
        info = store.table("g", "r")
        with pytest.raises(StoreError, match=message):
            store.read_tier(info.id, 3, DTYPE)
        keys, _ = synthetic_tier(3, TIER_SIZES[3])
        with pytest.raises(StoreError, match=message):
            store.lookup(info, 3, keys[BLOCK_SIZE:BLOCK_SIZE + 1])


def test_missing_tier_record_is_a_store_error(db: Path) -> None:
    tamper(db, "DELETE FROM tiers WHERE tier = 1")
    with TablebaseStore(db) as store:
        with pytest.raises(StoreError, match="no record"):
            store.read_tier(store.table("g", "r").id, 1, DTYPE)


# -- the solve lock --------------------------------------------------------------------


def test_second_solve_lock_is_refused_then_free(db: Path) -> None:
    with TablebaseStore(db) as first, TablebaseStore(db) as second:
        with first.solve_lock():
            with pytest.raises(StoreError, match=rf"another solve \(pid {os.getpid()}\) is writing"):
                with second.solve_lock():
                    pass
        with second.solve_lock():  # released on exit
            pass


def test_writer_names_the_holder_of_the_solve_lock(db: Path) -> None:
    with TablebaseStore(db) as store:
        assert store.writer() is None  # never locked: no lock file yet
        with TablebaseStore(db) as solving, solving.solve_lock():
            assert store.writer() == str(os.getpid())
        assert store.writer() is None  # let go (the lock file stays)
        assert Path(f"{db}.lock").exists()


def test_a_solve_starting_while_a_reader_asks_who_writes_is_not_refused(db: Path) -> None:
    """`writer` holds the lock shared for an instant; a solve starting in that instant
    tries again rather than take the reader for another solve."""
    import fcntl
    import threading

    with TablebaseStore(db) as store:
        with store.solve_lock():
            pass  # the lock file exists
        reader = open(f"{db}.lock")
        fcntl.flock(reader, fcntl.LOCK_SH)  # a reader's instant, drawn out to 0.2 s
        threading.Timer(0.2, fcntl.flock, (reader, fcntl.LOCK_UN)).start()
        with store.solve_lock():
            assert store.writer() == str(os.getpid())
        reader.close()


# -- hostile files ---------------------------------------------------------------------


@pytest.mark.parametrize("name, message", [
    ("missing.sqlite", "no tablebase at"),
    ("bad\0name", "cannot use|no tablebase at"),
    ("x" * 5000, "cannot use"),
    (".", "is not a file"),
])
def test_unusable_paths(tmp_path: Path, name: str, message: str) -> None:
    for create in (False, True):
        if create and name == "missing.sqlite":
            continue
        with pytest.raises(StoreError, match=message):
            TablebaseStore(tmp_path / name, create=create)


@pytest.mark.parametrize("content", [b"hello, this is not a database\n" * 100, os.urandom(20000),
                                     b"SQLite format 3\0" + os.urandom(5000)])
def test_not_a_database(tmp_path: Path, content: bytes) -> None:
    path = tmp_path / "junk.sqlite"
    path.write_bytes(content)
    for create in (False, True):
        with pytest.raises(StoreError, match="cannot use|not a tablebase"):
            TablebaseStore(path, create=create)
    assert path.read_bytes() == content  # untouched


@pytest.mark.parametrize("content, says", [(b"hello, this is not a database\n" * 100, "it is not a tablebase file"),
                                           (b"SQLite format 3\0" + b"\xff" * 5000, "the file is damaged")],
                         ids=["text", "sqlite-header-then-junk"])
def test_a_file_that_is_no_database_is_not_called_damaged(tmp_path: Path, content: bytes, says: str) -> None:
    """Only a file that starts as an SQLite database and then is not one is damaged; any
    other file is simply not a tablebase file."""
    path = tmp_path / "file.sqlite"
    path.write_bytes(content)
    with pytest.raises(StoreError) as info:
        TablebaseStore(path)
    assert says in str(info.value) and ("damaged" in str(info.value)) == (says == "the file is damaged")


def test_someone_elses_database_is_not_adopted(tmp_path: Path) -> None:
    path = tmp_path / "other.sqlite"
    tamper(path, "CREATE TABLE accounts (name TEXT)")
    before = path.read_bytes()
    with pytest.raises(StoreError, match="not a tablebase"):
        TablebaseStore(path, create=True)
    assert path.read_bytes() == before


def test_newer_schema_is_refused(db: Path) -> None:
    tamper(db, "UPDATE meta SET value = ? WHERE key = 'schema_version'", (str(SCHEMA_VERSION + 1),))
    with pytest.raises(StoreError, match="schema version"):
        TablebaseStore(db)


@pytest.mark.parametrize("fraction", [0.0, 0.3, 0.7, 0.95])
def test_truncated_file(db: Path, fraction: float) -> None:
    """Opening may work (SQLite reads lazily); any use then fails with a StoreError."""
    data = db.read_bytes()
    db.write_bytes(data[:int(len(data) * fraction)])
    try:
        with TablebaseStore(db) as store:
            info = store.table("g", "r")
            for tier in range(len(TIER_SIZES)):
                store.read_tier(info.id, tier, DTYPE)
    except StoreError as exc:
        assert str(exc)
    else:
        pytest.fail("a truncated file read without error")


def test_empty_file_becomes_a_tablebase_only_when_solving(tmp_path: Path) -> None:
    path = tmp_path / "empty.sqlite"
    path.touch()
    with pytest.raises(StoreError, match="not a tablebase"):
        TablebaseStore(path)
    assert path.stat().st_size == 0
    with TablebaseStore(path, create=True) as store:
        assert store.tables() == []


def test_readonly_store_never_writes(db: Path) -> None:
    before = snapshot(db)
    with TablebaseStore(db, readonly=True) as store:
        with pytest.raises(StoreError, match="read-only|readonly"):
            store.begin_table("g", "other", "rv", "sv", DTYPE)
        with pytest.raises(StoreError, match="read-only|readonly"):
            store.delete_table("g", "r")
    assert snapshot(db) == before


needs_permissions = pytest.mark.skipif(os.geteuid() == 0, reason="root ignores file permissions")


@needs_permissions
def test_readonly_file(db: Path) -> None:
    before = snapshot(db)
    db.chmod(0o444)
    try:
        with TablebaseStore(db) as store:
            with pytest.raises(StoreError, match="read-only|readonly"):
                store.delete_table("g", "r")
    except StoreError as exc:  # or refused already on opening
        assert "read" in str(exc)
    finally:
        db.chmod(0o644)
    assert snapshot(db) == before


@needs_permissions
def test_readonly_directory(tmp_path: Path) -> None:
    folder = tmp_path / "locked"
    folder.mkdir()
    folder.chmod(0o555)
    try:
        with pytest.raises(StoreError):
            TablebaseStore(folder / "new.sqlite", create=True)
    finally:
        folder.chmod(0o755)


def test_full_disk_keeps_what_was_stored(db: Path) -> None:
    """A tiny page quota stands in for a full disk: the failing write is rolled back
    whole, and everything stored before it, complete table or finished tiers, survives."""
    before = snapshot(db)
    with TablebaseStore(db) as store:
        pages = store.db.execute("PRAGMA page_count").fetchone()[0]
        store.db.execute(f"PRAGMA max_page_count = {pages + 8}")
        info = store.begin_table("g", "big", "rv", "sv", DTYPE)
        small_keys, small_payload = synthetic_tier(0, 10)
        store.write_tier(info.id, 0, small_keys, small_payload, 0.0)
        keys = np.unique(np.random.default_rng(9).integers(0, 1 << 60, 200_000, dtype=np.uint64))
        with pytest.raises(StoreError, match="full"):
            store.write_tier(info.id, 1, keys, (keys % np.uint64(256)).astype(DTYPE), 0.0)
        assert sorted(store.stored_tiers(info.id)) == [0]
        assert not store.db.conn.in_transaction
        store.write_tier(info.id, 2, small_keys, small_payload, 0.0)  # the store still works
    assert snapshot(db) == before
    with TablebaseStore(db) as store:
        assert sorted(store.stored_tiers(store.table("g", "big").id)) == [0, 2]
