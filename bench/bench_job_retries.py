"""Weak solves of middlegame positions under different job settings, side by side.

A job out of budget either runs again with 4 times the budget (`--job-retries`) or makes
the master expand its position at once; the leaf search keeps a table of a given size
from job to job (`--job-table-mb`). Each setting is a pair (retries, table MB) from the
two lists given. The roots are positions with ``--empty`` empty
cells from random games (the buckets of `bench_smallholder_search.py`); each root is
proved once per setting, the settings alternating root by root, in-process (a job uses
both cores) or with ``--workers`` on a new local Dask cluster per run, each run in a fresh tablebase file and with a fresh leaf search (its
transposition table would otherwise carry one run's work into the next). The values must
agree.

    python bench/bench_job_retries.py [--board limping3] [--rules hull-setbacks] [--empty 22] [--count 8]
                                      [--seed 7] [--budget 300000] [--retries 0,1] [--table-mb 256]
                                      [--solver value] [--workers N]

Prints one line per run, then per setting the total and median seconds, and the ratios
of the totals to the first setting's; in-process also the positions the jobs searched.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_smallholder_search import bucket_positions  # noqa: E402

from tablebase.db.proofs import ProofStore  # noqa: E402
from tablebase.db.store import TablebaseStore  # noqa: E402
from tablebase.games.smallholder import Smallholder  # noqa: E402
from tablebase.solver.proof import jobs  # noqa: E402
from tablebase.solver.proof.driver import SearchSettings, weak_solve  # noqa: E402
from tablebase.solver.proof.executors import open_executor  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--board", default="limping3")
    parser.add_argument("--rules", default="hull-setbacks")
    parser.add_argument("--empty", type=int, default=22)
    parser.add_argument("--count", type=int, default=8)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--budget", type=int, default=300_000)
    parser.add_argument("--retries", default="0,1", help="settings of job_retries, comma-separated")
    parser.add_argument("--table-mb", default="256", help="sizes of the leaf search's table, comma-separated")
    parser.add_argument("--solver", default="value")
    parser.add_argument("--workers", type=int, default=0,
                        help="run the jobs on a local Dask cluster of N one-thread workers, a new one per run "
                             "(default 0: in-process, a job on both cores)")
    args = parser.parse_args()
    game = Smallholder(args.board, args.rules)
    settings = [(int(r), int(mb)) for r in args.retries.split(",") for mb in args.table_mb.split(",")]
    roots = bucket_positions(game, args.empty, args.count, random.Random(f"{args.seed}-{args.empty}"))
    print(f"load: {os.getloadavg()}", flush=True)
    searched = [0]  # positions the leaf jobs searched in-process (the machine's load does not change it)
    solver = jobs.LEAF_SOLVERS[args.solver]

    def counting(*job_args):  # type: ignore[no-untyped-def]
        leaf, nodes = solver(*job_args)
        searched[0] += nodes
        return leaf, nodes

    jobs.LEAF_SOLVERS[args.solver] = counting
    positions: dict[tuple[int, int], list[int]] = {r: [] for r in settings}
    seconds: dict[tuple[int, int], list[float]] = {r: [] for r in settings}
    for i, root in enumerate(roots):
        values = set()
        for retries, mb in settings if i % 2 == 0 else settings[::-1]:  # who goes first alternates
            jobs._exact_search.cache_clear()  # nothing learnt in one run helps the next
            searched[0] = 0
            with tempfile.TemporaryDirectory() as folder, \
                    TablebaseStore(Path(folder) / "tb.sqlite", create=True) as store, \
                    open_executor(args.workers or None) as (executor, slots):
                started = time.perf_counter()
                result = weak_solve(game, root, executor, slots,
                                    SearchSettings(node_budget=args.budget, job_retries=retries, solver=args.solver,
                                                   job_threads=1 if args.workers else None,
                                                   job_table_bytes=mb << 20), ProofStore(store))
                took = time.perf_counter() - started
            seconds[retries, mb].append(took)
            positions[retries, mb].append(searched[0])
            values.add(result.value_name)
            print(f"root {i} {game.format(root)} retries {retries} table {mb} MB: {result.value_name} in {took:.1f} s, "
                  + (f"{searched[0]:,} positions searched, " if not args.workers else "")
                  + f"{sum(g.jobs for g in result.goals)} jobs, {max(g.nodes for g in result.goals)} master nodes",
                  flush=True)
        assert len(values) == 1, f"the settings disagree on root {i}: {values}"
    first = sum(seconds[settings[0]])
    for retries, mb in settings:
        total = sum(seconds[retries, mb])
        searched_total = sum(positions[retries, mb])
        print(f"retries {retries} table {mb} MB: total {total:.1f} s, median {statistics.median(seconds[retries, mb]):.1f} s, "
              f"ratio of totals {total / first:.2f}"
              + ("" if args.workers else f"; {searched_total:,} positions searched, median "
                 f"{statistics.median(positions[retries, mb]):,.0f}"), flush=True)


if __name__ == "__main__":
    main()
