"""Would a weak solve's leaf jobs do better with a larger first budget?

A leaf job that runs out of its node budget runs again with `driver.BUDGET_GROWTH` times
it, going on from the table the failed attempt left. This takes leaves of a stored run
that ran out of the first budget and were then solved (the run file's out-of-budget
attempts and leaf results; a sample, ``random.Random(seed)``), and searches each for its
value on one thread by the jobs' own leaf solver (`jobs.value_leaf`), twice, each from a fresh
table: as the run does (``--first``, then the retry on the same search) and as one
attempt of ``--one`` positions. On one thread the positions searched do not depend on
the machine's load. Both values must agree with the stored one.

    python bench/bench_first_budget.py --db RUN.sqlite [--count 10] [--seed 1]
                                       [--first 30000000] [--one 240000000] [--table-mb 1024]

(``gunzip -k proofs/limping3-offshore-gaps.sqlite.gz`` gives a run file.) Prints a line per
leaf (its positions both ways and what the run's own jobs searched), then the totals.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

from tablebase.db.proofs import ProofStore
from tablebase.db.store import TablebaseStore
from tablebase.service.smallholder import game_for_rules_name
from tablebase.solver.proof import jobs
from tablebase.solver.proof.driver import BUDGET_GROWTH


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", required=True, help="a weak solve's run file (not compressed)")
    parser.add_argument("--count", type=int, default=10)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--first", type=int, default=30_000_000, help="the run's first budget")
    parser.add_argument("--one", type=int, default=240_000_000, help="the budget of the single attempt")
    parser.add_argument("--table-mb", type=int, default=1024)
    args = parser.parse_args()
    with TablebaseStore(args.db, readonly=True) as store:
        proofs = ProofStore(store)
        names = sorted({run.rules for run in proofs.runs(game="smallholder")})
        if len(names) != 1:
            raise SystemExit(f"expected the weak solves of one ruleset in {args.db!r}, found {len(names)}")
        leaves = proofs.leaves("smallholder", names[0])
        budgets = proofs.attempts("smallholder", names[0])
        solved_cost, failed_cost = proofs.job_costs("smallholder", names[0])
    game = game_for_rules_name(names[0])
    # out of the first budget (not the 0-node marks of positions too big for a job), then solved;
    # in the order of their stored (hexadecimal) keys, so that a seed always picks the same ones
    keys = sorted((key for key, budget in budgets.items()
                   if budget == args.first and failed_cost[key][0] > 0 and key in leaves), key=lambda k: format(k, "x"))
    sample = random.Random(args.seed).sample(keys, args.count)
    print(f"{game.rules_name}: {len(keys):,} leaves ran out of {args.first:,} and were solved; {args.count} of them",
          flush=True)
    totals: dict[str, list[int]] = {"one": [], "retry": [], "run": []}
    seconds = {"one": 0.0, "retry": 0.0}
    for key in sample:
        pos, value = game.from_key(key), leaves[key][0]
        found = {}
        for how in ("one", "retry"):
            jobs._exact_search.cache_clear()  # a fresh table; the retry below goes on from the first attempt's
            started = time.process_time()
            leaf, positions = jobs.value_leaf(game, pos, args.one if how == "one" else args.first, 1, args.table_mb << 20)
            if leaf is None and how == "retry":
                leaf, more = jobs.value_leaf(game, pos, args.first * BUDGET_GROWTH, 1, args.table_mb << 20)
                positions += more
            seconds[how] += time.process_time() - started
            totals[how].append(positions)
            found[how] = None if leaf is None else leaf[0]
        failed, solved = failed_cost[key][0], solved_cost[key][0]
        totals["run"].append(failed + solved)
        agreed = {v for v in found.values() if v is not None}
        assert agreed <= {value}, f"{game.format(pos)}: stored {value}, found {found}"
        print(f"{game.format(pos)}  value {value}: one attempt {totals['one'][-1]:,}"
              f"{'' if found['one'] is not None else ' (ran out)'}; first then retry {totals['retry'][-1]:,}"
              f"{'' if found['retry'] is not None else ' (ran out)'}; the run's jobs {failed:,} + {solved:,}",
              flush=True)
    for how, label in (("one", "one attempt"), ("retry", "first then retry"), ("run", "the run's jobs")):
        cpu = f", {seconds[how]:.0f} CPU s" if how in seconds else ""
        print(f"{label}: {sum(totals[how]):,} positions in all, median {statistics.median(totals[how]):,.0f}{cpu}")
    print(f"ratio one attempt / first then retry: {sum(totals['one']) / sum(totals['retry']):.2f}")


if __name__ == "__main__":
    main()
