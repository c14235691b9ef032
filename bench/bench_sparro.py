"""Sparro benchmark: solve time and peak memory per variant, database size, probe latency.

Run:  python bench/bench_sparro.py [--db PATH]
Each variant is solved in a fresh child process (so its peak RSS is its own), into a
fresh database; then single and batch probes are timed in-process.
"""

from __future__ import annotations

import argparse
import json
import platform
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

VARIANTS = ("standard", "extended", "extended-unrestricted")


def solve_in_child(db: Path, variant: str) -> dict:
    code = (
        "import json, resource, sys, time\n"
        "from tablebase.service.sparro import solve_into\n"
        "from tablebase.db.store import TablebaseStore\n"
        "t = time.perf_counter()\n"
        f"with TablebaseStore({str(db)!r}, create=True) as s: info = solve_into(s, {variant!r}, progress=False)\n"
        "print(json.dumps({'seconds': time.perf_counter() - t, 'positions': info.positions,"
        " 'peak_mb': resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True).stdout
    return json.loads(out)


def probe_timings(db: Path) -> dict:
    from tablebase.service.sparro import table_lookup
    from tablebase.db.store import TablebaseStore
    from tablebase.games.sparro import Sparro
    from tablebase.cli.app import BATCH_SIZE
    from tablebase.solver.probe import probe, probe_many

    game = Sparro("extended")
    rng = random.Random(7)
    positions = []
    while len(positions) < 10000:
        pos = game.start()
        for _ in range(rng.randint(0, 23)):
            pos = game.play(pos, rng.choice(game.legal_moves(pos)))
        positions.append(pos)
    with TablebaseStore(db) as store:
        lookup = table_lookup(store, store.table("sparro", "extended"))
        singles = []
        for pos in positions[:200]:
            store._block_cache.clear()  # cold block cache: every probe reads from SQLite
            started = time.perf_counter()
            probe(game, pos, lookup)
            singles.append(time.perf_counter() - started)
        started = time.perf_counter()
        for start in range(0, len(positions), BATCH_SIZE):  # as `probe sparro -` does
            probe_many(game, positions[start:start + BATCH_SIZE], lookup)
        batch = time.perf_counter() - started
    singles.sort()
    lines = "".join(game.format(pos) + "\n" for pos in positions)
    started = time.perf_counter()
    subprocess.run(["tablebase", "probe", "sparro", "-", "--variant", "extended", "--db", str(db), "--json"],
                   input=lines, capture_output=True, text=True, check=True)
    cli_batch = time.perf_counter() - started
    return {"cli_batch_positions_per_s": len(positions) / cli_batch,
            "single_probe_ms_median": 1000 * singles[len(singles) // 2],
            "single_probe_ms_p95": 1000 * singles[int(len(singles) * 0.95)],
            "batch_positions_per_s": len(positions) / batch}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--db", type=Path, default=None)
    args = parser.parse_args()
    db = args.db or Path(tempfile.mkdtemp()) / "bench.sqlite"
    report = {"machine": f"{platform.machine()}, {platform.processor() or 'cpu'}, "
                         f"{len(__import__('os').sched_getaffinity(0))} cores, Python {platform.python_version()}",
              "date": time.strftime("%Y-%m-%d")}
    for variant in VARIANTS:
        result = solve_in_child(db, variant)
        result["positions_per_s"] = result["positions"] / result["seconds"]
        report[variant] = result
        print(variant, json.dumps(result), flush=True)
    report["database_mb"] = db.stat().st_size / 2**20
    report.update(probe_timings(db))
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
