"""Damaged files never give a wrong value: every stored column of a tablebase is changed
in turn, and every lookup must then answer exactly what was written or report the damage,
naming the tier and block. A batch answers what lies in intact blocks and reports the rest.

Tampering goes through ``sqlite3`` directly, on purpose: it plays the part of a damaged
disk, not of the program.
"""

from __future__ import annotations

import sqlite3
import struct
from pathlib import Path

import numpy as np
import pytest

from tablebase.db.store import BLOCK_SIZE, StoreError, TablebaseStore

DTYPE = "u1"
#: Positions per synthetic tier, several spanning more than one block.
TIER_SIZES = [1, 100, BLOCK_SIZE + 7, 3 * BLOCK_SIZE]
#: Rows whose meaning no reader depends on: changing them cannot change an answer.
UNREAD = {("meta", "value", "last_table_id"), ("meta", "key", "last_table_id")}


def synthetic_tier(tier: int, size: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(100 + tier)
    keys = np.unique(rng.integers(0, 1 << 50, size=2 * size, dtype=np.uint64))[:size]
    return keys, (keys % np.uint64(251)).astype(DTYPE)


def absent_keys(tier: int) -> np.ndarray:
    """Keys that were never written to the tier: around, between and beyond its keys."""
    keys, _ = synthetic_tier(tier, TIER_SIZES[tier])
    candidates = np.concatenate([keys + np.uint64(1), keys - np.uint64(1), [np.uint64(0), np.uint64(1 << 55)]])
    return np.setdiff1d(candidates, keys)[::5]


def make_db(path: Path) -> Path:
    with TablebaseStore(path, create=True) as store:
        info = store.begin_table("g", "r", "rv", "sv", DTYPE)
        for tier, size in enumerate(TIER_SIZES):
            store.write_tier(info.id, tier, *synthetic_tier(tier, size), seconds=0.25)
        store.finish_table(info.id, 1.5, {"start_value": "win"})
    return path


@pytest.fixture(scope="module")
def pristine(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_db(tmp_path_factory.mktemp("integrity") / "pristine.sqlite")


def changed(value: object, bit: int) -> object:
    """``value`` with one bit flipped, keeping its SQLite type."""
    if isinstance(value, bool) or value is None:
        return 1
    if isinstance(value, int):
        return value ^ (1 << bit)
    if isinstance(value, float):
        (raw,) = struct.unpack("<q", struct.pack("<d", value))
        return struct.unpack("<d", struct.pack("<q", raw ^ (1 << (bit + 40))))[0]
    if isinstance(value, str):
        at = len(value) // 2
        return value[:at] + chr(ord(value[at]) ^ 1) + value[at + 1:] if value else "x"
    data = bytearray(value)  # type: ignore[arg-type]
    data[len(data) // 2] ^= 1 << (bit % 8)
    return bytes(data)


def stored_cells(path: Path) -> list[tuple[str, str, int, str]]:
    """(table, column, rowid, label) of one or two rows of every column of every table."""
    cells = []
    with sqlite3.connect(path) as conn:
        tables = [row[0] for row in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
        for table in tables:
            columns = [row[1] for row in conn.execute(f"PRAGMA table_info({table})")]
            if table == "blocks":  # the first block of a one-block tier, a middle block of a big one
                rows = [conn.execute("SELECT rowid, tier, block FROM blocks WHERE tier = 0").fetchone(),
                        conn.execute("SELECT rowid, tier, block FROM blocks WHERE tier = 3 AND block = 1").fetchone()]
                labels = [(rowid, f"tier {tier}, block {block}") for rowid, tier, block in rows]
            elif table == "meta":
                labels = [(rowid, key) for rowid, key in conn.execute("SELECT rowid, key FROM meta")]
            else:
                labels = [(row[0], f"row {row[0]}") for row in conn.execute(f"SELECT rowid FROM {table} LIMIT 2")]
            for column in columns:
                for rowid, label in labels:
                    cells.append((table, column, rowid, label))
    conn.close()
    return cells


def lookup_everything(path: Path) -> tuple[bool, list[str]]:
    """(was any damage reported, wrong answers) over every written key and some absent ones."""
    wrong: list[str] = []
    try:
        with TablebaseStore(path) as store:
            info = store.table("g", "r")
            if info is None:
                return True, []  # the table is gone: no answer at all, hence no wrong one
            reported = False
            for tier, size in enumerate(TIER_SIZES):
                keys, payload = synthetic_tier(tier, size)
                probe_keys = np.concatenate([keys, absent_keys(tier)])
                try:
                    found, got = store.lookup(info, tier, probe_keys)
                except StoreError:
                    reported = True
                    continue
                if not found[:size].all():
                    wrong.append(f"tier {tier}: {int((~found[:size]).sum())} stored keys not found")
                if found[size:].any():
                    wrong.append(f"tier {tier}: {int(found[size:].sum())} absent keys found")
                bad = found[:size] & (got[:size] != payload)
                if bad.any():
                    wrong.append(f"tier {tier}: {int(bad.sum())} wrong payloads")
            return reported, wrong
    except StoreError:
        return True, []


def test_the_pristine_file_answers_everything(pristine: Path) -> None:
    assert lookup_everything(pristine) == (False, [])


@pytest.mark.slow
def test_every_stored_column_changed_is_reported_never_answered_wrong(pristine: Path, tmp_path: Path) -> None:
    cells = stored_cells(pristine)
    assert {(t, c) for t, c, _, _ in cells} >= {("blocks", "first_key"), ("blocks", "keys"), ("blocks", "payload"),
                                                ("tiers", "blocks"), ("solved_tables", "id")}
    failures = []
    for n, (table, column, rowid, label) in enumerate(cells):
        for bit in (0, 5):
            path = tmp_path / f"c{n}-{bit}.sqlite"
            path.write_bytes(pristine.read_bytes())
            with sqlite3.connect(path) as conn:
                (value,) = conn.execute(f"SELECT {column} FROM {table} WHERE rowid = ?", [rowid]).fetchone()
                try:
                    conn.execute(f"UPDATE {table} SET {column} = ? WHERE rowid = ?", [changed(value, bit), rowid])
                except sqlite3.IntegrityError:  # it would collide with another row's key: a higher bit
                    conn.execute(f"UPDATE {table} SET {column} = ? WHERE rowid = ?", [changed(value, bit + 20), rowid])
            conn.close()
            reported, wrong = lookup_everything(path)
            what = f"{table}.{column} ({label}, bit {bit})"
            if wrong:
                failures.append(f"{what}: {'; '.join(wrong)}")
            elif not reported and (table, column, label) not in UNREAD:
                failures.append(f"{what}: changed without being noticed")
            path.unlink()
    assert not failures, "\n".join(failures)


def test_a_damaged_block_is_named_and_the_others_still_answer(pristine: Path, tmp_path: Path) -> None:
    path = tmp_path / "damaged.sqlite"
    path.write_bytes(pristine.read_bytes())
    with sqlite3.connect(path) as conn:
        conn.execute("UPDATE blocks SET first_key = first_key + 2 WHERE tier = 3 AND block = 1")
    conn.close()
    keys, payload = synthetic_tier(3, TIER_SIZES[3])
    with TablebaseStore(path) as store:
        info = store.table("g", "r")
        with pytest.raises(StoreError, match=r"block 1 of tier 3 of table g r in .* is damaged"):
            store.lookup(info, 3, keys)
        found, got, damaged = store.lookup_partial(info, 3, keys)
        in_block_1 = np.zeros(len(keys), dtype=bool)
        in_block_1[BLOCK_SIZE:2 * BLOCK_SIZE] = True
        assert sorted(damaged) == np.flatnonzero(in_block_1).tolist()  # every key of block 1, no other
        assert all("block 1 of tier 3 of table g r" in str(error) for error in damaged.values())
        assert np.array_equal(found, ~in_block_1)  # blocks 0 and 2 still answer, exactly
        assert np.array_equal(got[found], payload[found])
        # the damage is remembered, not re-read: the same answer again
        assert store.lookup_partial(info, 3, keys)[2].keys() == damaged.keys()
