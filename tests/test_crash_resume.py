"""Crash safety, with real processes: a solve SIGKILLed at random moments resumes to the
same checksums as an uninterrupted one; a second solve into the same file is refused
while the first runs (and not after it was killed); probes keep answering while a solve
writes and never see its unfinished table; a full disk (a file size limit) is a clean
error that keeps the stored tables. `bench/soak_sparro.py` runs the long version."""

from __future__ import annotations

import json
import random
import resource
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from tablebase.cli.main import main
from tablebase.db.store import TablebaseStore

#: The `tablebase` command of this interpreter (the console script may be another's).
TABLEBASE = [sys.executable, "-c", "from tablebase.cli.main import main; main()"]
START = "............/......../...."


def solve_command(db: Path, variant: str = "standard") -> list[str]:
    return TABLEBASE + ["solve", "sparro", "--variant", variant, "--db", str(db), "-s", "--json"]


def checksum(db: Path, variant: str = "standard") -> str | None:
    with TablebaseStore(db, readonly=True) as store:
        table = store.table("sparro", variant)
        return table.checksum if table and table.status == "complete" else None


def assert_whole_tiers(db: Path) -> None:
    """Whatever a killed solve left: a readable file whose stored tiers all verify (or,
    killed before it made the schema, an empty file, which the next solve adopts)."""
    if db.stat().st_size == 0:
        return
    with TablebaseStore(db, readonly=True) as store:
        for table in store.tables():
            for tier in store.stored_tiers(table.id):
                store.read_tier(table.id, tier, table.payload_dtype)  # raises if not as written


@pytest.mark.slow
def test_sigkill_at_random_moments_then_resume(sparro_db: Path, tmp_path: Path) -> None:
    clean = checksum(sparro_db)
    db = tmp_path / "killed.sqlite"
    rng = random.Random(8)
    for _ in range(3):
        solver = subprocess.Popen(solve_command(db), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        time.sleep(rng.uniform(0.3, 3.5))
        solver.kill()
        solver.wait()
        if db.exists():
            assert_whole_tiers(db)
    resumed = subprocess.run(solve_command(db), capture_output=True, text=True, timeout=120)
    assert resumed.returncode == 0, resumed.stderr
    assert json.loads(resumed.stdout)["checksum"] == clean == checksum(db)
    result = CliRunner().invoke(main, ["check", "--db", str(db), "--sample", "20", "--seed", "4"])
    assert result.exit_code == 0, result.output


def wait_for_lock(db: Path, pid: int, timeout: float = 30) -> None:
    """Until the solve ``pid`` holds the file's solve lock (it writes its pid there)."""
    lock = Path(f"{db}.lock")
    deadline = time.monotonic() + timeout
    while not (lock.exists() and lock.read_text().strip() == str(pid)):
        assert time.monotonic() < deadline, "the solve never took its lock"
        time.sleep(0.02)


@pytest.mark.slow
def test_second_solve_is_refused_until_the_first_is_gone(tmp_path: Path) -> None:
    db = tmp_path / "busy.sqlite"
    first = subprocess.Popen(solve_command(db), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        wait_for_lock(db, first.pid)
        second = CliRunner().invoke(main, ["solve", "sparro", "--variant", "standard", "--db", str(db), "-s"])
        assert second.exit_code == 1
        assert second.stderr == (f"Error: another solve (pid {first.pid}) is writing to {str(db)!r}; wait for it "
                                 f"to finish (two solves into one file are never interleaved)\n")
    finally:
        first.kill()  # SIGKILL: the kernel drops its lock, nothing stale is left behind
        first.wait()
    again = subprocess.run(solve_command(db), capture_output=True, text=True, timeout=120)
    assert again.returncode == 0, again.stderr


def probe_start(db: Path, variant: str) -> tuple[int, str]:
    result = CliRunner().invoke(main, ["probe", "sparro", START, "--variant", variant, "--db", str(db), "--json"])
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    return result.exit_code, result.stdout if result.exit_code == 0 else result.stderr


@pytest.mark.slow
def test_probes_during_a_solve_see_complete_tables_only(sparro_db: Path, tmp_path: Path) -> None:
    db = tmp_path / "shared.sqlite"
    shutil.copy(sparro_db, db)
    expected = {variant: probe_start(db, variant) for variant in ("standard", "extended")}
    assert all(code == 0 for code, _ in expected.values())
    with TablebaseStore(db) as store:
        store.delete_table("sparro", "standard")
    solver = subprocess.Popen(solve_command(db), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    probes_during = 0
    while solver.poll() is None:
        assert probe_start(db, "extended") == expected["extended"]
        code, text = probe_start(db, "standard")
        if code == 0:  # finished in between: then the answer is the complete table's
            assert text == expected["standard"][1]
        else:
            assert "sparro standard is not solved" in text and text.count("\n") == 1
        probes_during += 1
    assert solver.returncode == 0, solver.stderr.read()
    assert probes_during >= 3
    assert probe_start(db, "standard") == expected["standard"]


@pytest.mark.slow
def test_full_disk_is_a_clean_error_and_keeps_the_tables(sparro_db: Path, tmp_path: Path) -> None:
    """RLIMIT_FSIZE stands in for a full disk: writes past it fail with EFBIG (Python
    ignores SIGXFSZ), as they would with ENOSPC, without root or a special filesystem.
    The file must stay small: the limit applies to the write-ahead log too."""
    db = tmp_path / "full.sqlite"
    keys, payload = np.arange(1, 5000, 3, dtype=np.uint64), np.arange(1, 5000, 3).astype("u1")
    with TablebaseStore(db, create=True) as store:  # data that must survive: a small finished table
        other = store.begin_table("other", "x", "1", "1", "u1")
        store.write_tier(other.id, 0, keys, payload, 0.0)
        store.finish_table(other.id, 0.0, {})
    limit = db.stat().st_size + 256 * 1024

    def limit_file_size() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    full = subprocess.run(solve_command(db), capture_output=True, text=True, timeout=120,
                          preexec_fn=limit_file_size)
    assert full.returncode == 1, full.stderr
    assert full.stderr.startswith(f"Error: cannot write to {str(db)!r}") and full.stderr.count("\n") == 1
    assert "is the disk full?" in full.stderr
    assert_whole_tiers(db)
    with TablebaseStore(db, readonly=True) as store:
        assert store.table("sparro", "standard").status == "solving"
        again_keys, again_payload = store.read_tier(other.id, 0, "u1")
        assert np.array_equal(again_keys, keys) and np.array_equal(again_payload, payload)
    resumed = subprocess.run(solve_command(db), capture_output=True, text=True, timeout=120)
    assert resumed.returncode == 0, resumed.stderr
    assert checksum(db) == checksum(sparro_db)


@pytest.mark.slow
def test_killed_puzzle_generation_keeps_the_puzzles_found(sparro_db: Path, tmp_path: Path) -> None:
    """Puzzles are committed as they are proved: those printed before a SIGKILL are stored,
    and a rerun with the same seed skips them."""
    from tablebase.db.puzzles import PuzzleStore

    db = tmp_path / "puzzles.sqlite"
    shutil.copy(sparro_db, db)
    # far more than a minute of work: kept only if stored as found
    command = TABLEBASE + ["puzzles", "generate", "sparro", "--count", "10000", "--seed", "5", "--db", str(db),
                           "--json", "-s"]
    generator = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert generator.stdout is not None
    printed = []
    started = time.monotonic()
    reader = threading.Thread(target=lambda: printed.extend(json.loads(line) for line in generator.stdout),
                              daemon=True)  # type: ignore[union-attr]
    reader.start()
    while len(printed) < 3 and time.monotonic() - started < 90 and generator.poll() is None:
        time.sleep(0.05)
    generator.kill()
    generator.wait()
    reader.join()
    assert generator.returncode == -9 and len(printed) >= 3, "no puzzle was printed (and stored) as it was found"
    with TablebaseStore(db, readonly=True) as store:
        kept = {p.id: p.position for p in PuzzleStore(store).find(game="sparro")}
    assert {p["id"]: p["position"] for p in printed}.items() <= kept.items()
    rerun = subprocess.run(TABLEBASE + ["puzzles", "generate", "sparro", "--count", "2", "--seed", "5", "--db",
                                        str(db), "--json", "-s"], capture_output=True, text=True, timeout=300)
    assert rerun.returncode == 0, rerun.stderr
    assert not {json.loads(line)["position"] for line in rerun.stdout.splitlines()} & set(kept.values())
