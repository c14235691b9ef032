"""Weak solve timings: limping2's five named rulesets, in-process and on a 2-worker local
Dask cluster, with the subgraph and the compiled exact leaf solvers; proof rows and the
time of `check --proof` on each exported proof.

    python bench/bench_weak_solve.py [--board limping2] [--budget 2000]

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
from tablebase.solver.proof.certificate import check_proof, format_rows, proof_header, proof_rows
from tablebase.solver.proof.driver import SearchSettings, weak_solve
from tablebase.solver.proof.executors import open_executor


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--board", default="limping2")
    parser.add_argument("--budget", type=int, default=2_000)
    args = parser.parse_args()
    print(f"load: {os.getloadavg()}")
    print("| ruleset | leaf solver | executor | value | seconds | jobs | master nodes | proof rows | check s |")
    print("|---|---|---|---|---|---|---|---|---|")
    for solver in ("subgraph", "exact"):
        for workers in (None, 2):
            with open_executor(workers) as (executor, slots):
                for ruleset in RULESETS:
                    game = Smallholder(args.board, ruleset)
                    with tempfile.TemporaryDirectory() as folder:
                        db = Path(folder) / "tb.sqlite"
                        with TablebaseStore(db, create=True) as store:
                            proofs = ProofStore(store)
                            started = time.perf_counter()
                            result = weak_solve(game, game.start(), executor, slots,
                                                SearchSettings(node_budget=args.budget, solver=solver), proofs)
                            seconds = time.perf_counter() - started
                            goal = result.goals[-1]
                            run = proofs.find_run("smallholder", game.rules_name, 0, goal.goal)
                            assert run is not None
                            rows = list(proof_rows(game, game.start(), goal.goal, proofs.settled(run.id),
                                                   proofs.leaves("smallholder", game.rules_name)))
                        lines = proof_header(game, game.start(), goal.goal) + list(format_rows(rows))
                        checked = time.perf_counter()
                        check_proof(lines)
                        check_seconds = time.perf_counter() - checked
                    jobs = sum(g.jobs for g in result.goals)
                    nodes = max(g.nodes for g in result.goals)
                    print(f"| {ruleset} | {solver} | {'in-process' if workers is None else f'{workers} workers'} | "
                          f"{result.value_name} for Black | {seconds:.1f} | {jobs} | {nodes} | {len(rows)} | "
                          f"{check_seconds:.1f} |", flush=True)


if __name__ == "__main__":
    main()
