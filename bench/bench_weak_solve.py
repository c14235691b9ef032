"""Weak solve timings: limping2's five named rulesets, in-process and on a 2-worker local
Dask cluster, with the subgraph, the compiled exact and the compiled value-only leaf
solvers; proof rows, the time of the export (which finds the remoteness of value-only
leaves) and of `check --proof` on each exported proof.

    python bench/bench_weak_solve.py [--board limping2] [--budget 2000] [--solvers exact,value] [--workers 0,2]

Prints one Markdown table row per run (for BENCHMARKS.md), with `uptime` load first.
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from pathlib import Path

from tablebase.db.proofs import ProofStore
from tablebase.db.store import TablebaseStore
from tablebase.games.smallholder import RULESETS, Smallholder
from tablebase.service.proof import export_proof
from tablebase.solver.proof.certificate import check_proof
from tablebase.solver.proof.driver import SearchSettings, weak_solve
from tablebase.solver.proof.executors import open_executor


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--board", default="limping2")
    parser.add_argument("--budget", type=int, default=2_000)
    parser.add_argument("--solvers", default="subgraph,exact,value", help="leaf solvers, comma-separated")
    parser.add_argument("--workers", default="0,2", help="executors: 0 in-process, N a local cluster of N")
    args = parser.parse_args()
    print(f"load: {os.getloadavg()}")
    print("| ruleset | leaf solver | executor | value | seconds | jobs | master nodes | proof rows | export s "
          "| check s |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for solver in args.solvers.split(","):
        for workers in [int(w) or None for w in args.workers.split(",")]:
            with open_executor(workers) as (executor, slots):
                for ruleset in RULESETS:
                    game = Smallholder(args.board, ruleset)
                    with tempfile.TemporaryDirectory() as folder:
                        db = Path(folder) / "tb.sqlite"
                        with TablebaseStore(db, create=True) as store:
                            started = time.perf_counter()
                            result = weak_solve(game, game.start(), executor, slots,
                                                SearchSettings(node_budget=args.budget, solver=solver),
                                                ProofStore(store))
                            seconds = time.perf_counter() - started
                            exported = time.perf_counter()
                            lines = list(export_proof(store, args.board, game.rules))
                            export_seconds = time.perf_counter() - exported
                        checked = time.perf_counter()
                        check_proof(lines)
                        check_seconds = time.perf_counter() - checked
                    jobs = sum(g.jobs for g in result.goals)
                    nodes = max(g.nodes for g in result.goals)
                    rows = sum(1 for line in lines if not line.startswith("#")) - 1
                    print(f"| {ruleset} | {solver} | {'in-process' if workers is None else f'{workers} workers'} | "
                          f"{result.value_name} for Black | {seconds:.1f} | {jobs} | {nodes} | {rows} | "
                          f"{export_seconds:.1f} | {check_seconds:.1f} |", flush=True)


if __name__ == "__main__":
    main()
