"""Persistent search results: rows, bytes and the time a second probe saves.

Run:  python bench/bench_search_results.py [--board hex4] [--rules nibbler]
      [--empty 18] [--count 10] [--seconds 60] [--seed 1] [--min-work 8]
Positions come from random games as in bench_smallholder_search.py (the first with
``--empty`` empty cells). Each is probed (the position and every move: `solver.probe`)
by the exact search with a fresh in-memory table into a fresh file, whose results are
then stored (service/search_results.py); a second fresh search, started from what the
file holds, probes it again. Prints one JSON object per position (CPU seconds of both
probes, rows and bytes stored, whether the answers agree) and a summary with medians.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import statistics
import tempfile
import time
from pathlib import Path

from bench_smallholder_search import bucket_positions

from tablebase.db.search_results import SearchResultStore
from tablebase.db.store import TablebaseStore
from tablebase.games.smallholder import Smallholder
from tablebase.service import search_results
from tablebase.solver.probe import NotInTable, probe
from tablebase.solver.smallholder_exact import Budget, ExactSearch


def probed(game: Smallholder, pos, store: TablebaseStore, seconds: float, table_bytes: int):
    search = ExactSearch(game, table_bytes=table_bytes)
    started = time.process_time()
    lookup = search_results.persistent_lookup(store, search, Budget(seconds))
    try:
        answer = probe(game, pos, lookup)
        result = (answer.outcome, [(m.cell, m.outcome) for m in answer.moves])
    except NotInTable:
        result = None
    search_results.save(store, search)
    return result, time.process_time() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--board", default="hex4")
    parser.add_argument("--rules", default="nibbler")
    parser.add_argument("--empty", type=int, default=18)
    parser.add_argument("--count", type=int, default=10)
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--min-work", type=int, default=search_results.MIN_WORK)
    parser.add_argument("--table-mb", type=int, default=256)
    args = parser.parse_args()
    search_results.MIN_WORK = args.min_work
    search_results.save.__defaults__ = (args.min_work,)
    game = Smallholder(args.board, args.rules)
    ExactSearch(game, table_bytes=1 << 20).solve(game.start(), Budget(nodes=10))  # compile first
    rows = []
    for pos in bucket_positions(game, args.empty, args.count, random.Random(args.seed)):
        with tempfile.TemporaryDirectory() as folder:
            path = Path(folder) / "results.sqlite"
            with TablebaseStore(path, create=True) as store:
                first, first_cpu = probed(game, pos, store, args.seconds, args.table_mb << 20)
                results = SearchResultStore(store)
                found = results.find("smallholder", game.rules_name)
                stored_rows = len(results.read(found).entries) if found else 0
                data_bytes = results.bytes(found) if found else 0
                second, second_cpu = probed(game, pos, store, args.seconds, args.table_mb << 20)
            size = os.path.getsize(path)
        row = {"position": game.format(pos), "exact": first is not None, "agree": None if first is None or second is None else first == second,
               "first_cpu": round(first_cpu, 3), "second_cpu": round(second_cpu, 3), "rows": stored_rows,
               "data_bytes": data_bytes, "file_bytes": size}
        rows.append(row)
        print(json.dumps(row), flush=True)
    exact = [r for r in rows if r["exact"]]
    print(json.dumps({
        "summary": f"{args.board} {args.rules}, {args.empty} empty, min work {args.min_work}",
        "positions": len(rows), "exact": len(exact), "all_agree": all(r["agree"] is not False for r in rows),
        "second_exact": sum(1 for r in rows if r["agree"] is not None or r["exact"]),
        "median_first_cpu": statistics.median(r["first_cpu"] for r in exact) if exact else None,
        "median_second_cpu": statistics.median(r["second_cpu"] for r in exact) if exact else None,
        "median_rows": statistics.median(r["rows"] for r in exact) if exact else None,
        "median_data_bytes": statistics.median(r["data_bytes"] for r in exact) if exact else None,
        "machine": platform.processor() or platform.machine(), "load": os.getloadavg()[0],
        "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())}))


if __name__ == "__main__":
    main()
