"""Tablebases on read-only media: a solved file is left in rollback-journal mode, so
readers need nothing beside it; one left in WAL mode (a killed solve) still opens; and
writing there fails with a message naming the read-only file system.

The media is a read-only bind mount inside a private mount namespace (``unshare``), so
the test means the same for root, whom file permissions do not stop.
"""

from __future__ import annotations

import json
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from tablebase.db.store import TablebaseStore

TABLEBASE = [sys.executable, "-c", "from tablebase.cli.main import main; main()"]
START = "............/......../...."


def _unshare_prefix() -> list[str] | None:
    """The command prefix that gives a private mount namespace, or None if none is permitted."""
    if shutil.which("unshare") is None or shutil.which("mount") is None:
        return None
    for prefix in (["unshare", "-m"], ["unshare", "-rm"]):
        try:
            done = subprocess.run(prefix + ["true"], capture_output=True, timeout=10)
        except (OSError, subprocess.TimeoutExpired):
            continue
        if done.returncode == 0:
            return prefix
    return None


UNSHARE = _unshare_prefix()
needs_mounts = pytest.mark.skipif(UNSHARE is None, reason="no private mount namespace (unshare) permitted here")


def on_readonly_mount(folder: Path, command: list[str], timeout: float = 300) -> subprocess.CompletedProcess:
    """Run ``command`` with ``folder`` bind-mounted read-only onto ``folder/../ro`` (its path
    inside the command); the mount vanishes with the namespace."""
    target = folder.parent / "ro"
    target.mkdir(exist_ok=True)
    script = 'mount --bind "$1" "$2" && mount -o remount,bind,ro "$2" && shift 2 && exec "$@"'
    assert UNSHARE is not None
    return subprocess.run(UNSHARE + ["sh", "-c", script, "sh", str(folder), str(target), *command],
                          capture_output=True, text=True, timeout=timeout)


def journal_mode_on_disk(path: Path) -> str:
    """What the file header says: bytes 18 and 19 are 2 in WAL mode, 1 in rollback mode."""
    header = path.read_bytes()[:20]
    return "wal" if header[18:20] == b"\x02\x02" else "rollback" if header[18:20] == b"\x01\x01" else "?"


def small_table(path: Path) -> None:
    import numpy as np

    with TablebaseStore(path, create=True) as store:
        info = store.begin_table("g", "r", "rv", "sv", "u1")
        keys = np.arange(10, 5000, 3, dtype=np.uint64)
        store.write_tier(info.id, 0, keys, (keys % np.uint64(7)).astype("u1"), 0.0)
        store.finish_table(info.id, 0.1, {})


def test_a_written_file_is_left_in_rollback_journal_mode(tmp_path: Path) -> None:
    path = tmp_path / "t.sqlite"
    small_table(path)
    assert journal_mode_on_disk(path) == "rollback"
    assert not Path(f"{path}-wal").exists() and not Path(f"{path}-shm").exists()


def test_reading_never_changes_the_file(tmp_path: Path) -> None:
    path = tmp_path / "t.sqlite"
    small_table(path)
    before = path.read_bytes()
    for readonly in (False, True):
        with TablebaseStore(path, readonly=readonly) as store:
            info = store.table("g", "r")
            store.read_tier(info.id, 0, "u1")
    assert path.read_bytes() == before


READ_SCRIPT = """
import json, sys
import numpy as np
from tablebase.db.store import StoreError, TablebaseStore
out = {}
for readonly in (True, False):
    with TablebaseStore(sys.argv[1], readonly=readonly) as store:
        info = store.table("g", "r")
        found, payload = store.lookup(info, 0, np.array([10, 13, 11], dtype=np.uint64))
        out[str(readonly)] = [found.tolist(), payload.tolist()]
        try:
            store.delete_table("g", "r")
            out["write " + str(readonly)] = "written"
        except StoreError as exc:
            out["write " + str(readonly)] = str(exc)
print(json.dumps(out))
"""


@needs_mounts
@pytest.mark.parametrize("left_in", ["rollback", "wal"])
def test_store_reads_on_a_readonly_mount(tmp_path: Path, left_in: str) -> None:
    folder = tmp_path / "media"
    folder.mkdir()
    path = folder / "t.sqlite"
    small_table(path)
    if left_in == "wal":  # as a killed solve leaves it
        with sqlite3.connect(path) as conn:
            conn.execute("PRAGMA journal_mode = WAL")
        conn.close()
        assert journal_mode_on_disk(path) == "wal"
    done = on_readonly_mount(folder, [sys.executable, "-c", READ_SCRIPT, str(tmp_path / "ro" / "t.sqlite")])
    assert done.returncode == 0, done.stderr
    answers = json.loads(done.stdout)
    assert answers["True"] == answers["False"] == [[True, True, False], [3, 6, 0]]
    for readonly in ("True", "False"):
        assert "read-only file system" in answers[f"write {readonly}"], answers


@pytest.mark.slow
@needs_mounts
def test_commands_on_a_readonly_mount(sparro_db: Path, tmp_path: Path) -> None:
    """check and probe answer; solve says why it cannot write."""
    folder = tmp_path / "media"
    folder.mkdir()
    shutil.copy(sparro_db, folder / "t.sqlite")
    with sqlite3.connect(folder / "t.sqlite") as conn:  # the worst case: left in WAL mode
        conn.execute("PRAGMA journal_mode = WAL")
    conn.close()
    db = str(tmp_path / "ro" / "t.sqlite")
    probe = on_readonly_mount(folder, TABLEBASE + ["probe", "sparro", START, "--db", db, "--json"])
    assert probe.returncode == 0, probe.stderr
    assert json.loads(probe.stdout)["value"] == "win"  # standard: Red wins in 21 plies
    check = on_readonly_mount(folder, TABLEBASE + ["check", "--db", db, "--sample", "3", "--json"])
    assert check.returncode == 0, check.stderr
    assert json.loads(check.stdout)["ok"] is True
    solve = on_readonly_mount(folder, TABLEBASE + ["solve", "sparro", "--variant", "standard", "--db", db,
                                                   "--force", "-s"])
    assert solve.returncode == 1
    assert solve.stderr.count("\n") == 1 and "read-only file system" in solve.stderr, solve.stderr
    new = on_readonly_mount(folder, TABLEBASE + ["solve", "sparro", "--db", str(tmp_path / "ro" / "new.sqlite"),
                                                 "-s"])
    assert new.returncode == 1 and "read-only file system" in new.stderr, new.stderr
