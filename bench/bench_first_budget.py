"""Would a weak solve's leaf jobs do better with a larger first budget?

A leaf job that runs out of its node budget runs again with `driver.BUDGET_GROWTH` times
it, going on from the table the failed attempt left. This takes leaves of a stored run
that ran out of the first budget and were then solved (the run file's ``proof_attempts``
joined with ``proof_leaves``; a sample, ``random.Random(seed)``), and searches each for
its value on one thread with the jobs' search settings, twice, each time from a fresh
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
import sqlite3
import statistics
import time

from tablebase.games.smallholder import Smallholder
from tablebase.solver.proof.driver import BUDGET_GROWTH
from tablebase.solver.proof.jobs import JOB_ETC_EMPTY
from tablebase.solver.smallholder_exact import Budget, ExactSearch


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", required=True, help="a weak solve's run file (not compressed)")
    parser.add_argument("--count", type=int, default=10)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--first", type=int, default=30_000_000, help="the run's first budget")
    parser.add_argument("--one", type=int, default=240_000_000, help="the budget of the single attempt")
    parser.add_argument("--table-mb", type=int, default=1024)
    args = parser.parse_args()
    conn = sqlite3.connect(f"file:{args.db}?mode=ro", uri=True)
    runs = conn.execute("SELECT DISTINCT rules FROM proof_runs").fetchall()
    if len(runs) != 1:
        raise SystemExit(f"expected the weak solves of one ruleset in {args.db!r}, found {len(runs)}")
    rules_name = runs[0][0]
    rules, board = rules_name.rsplit("@", 1)  # as stored: RULES@BOARD
    rows = conn.execute(
        "SELECT a.key, a.nodes, l.nodes, l.value FROM proof_attempts a JOIN proof_leaves l USING (game, rules, key)"
        " WHERE a.nodes > 0 AND a.node_budget = ? AND a.rules = ? ORDER BY a.key", [args.first, rules_name]).fetchall()
    sample = random.Random(args.seed).sample(rows, args.count)
    game = Smallholder(board, rules)
    print(f"{board} {rules}: {len(rows):,} leaves ran out of {args.first:,} and were solved; {args.count} of them",
          flush=True)
    totals = {"one": [], "retry": [], "run": []}
    seconds = {"one": 0.0, "retry": 0.0}
    for key, failed, solved, value in sample:
        pos = game.from_key(int(key, 16))
        found = {}
        for how in ("one", "retry"):
            search = ExactSearch(game, table_bytes=args.table_mb << 20, canonical_stones=game.board.size, threads=1,
                                 etc_empty=JOB_ETC_EMPTY)
            started = time.process_time()
            if how == "one":
                found[how] = search.value(pos, Budget(nodes=args.one))
                positions = search.searched()
            else:
                found[how] = search.value(pos, Budget(nodes=args.first))
                positions = search.searched()
                if found[how] is None:
                    found[how] = search.value(pos, Budget(nodes=args.first * BUDGET_GROWTH))
                    positions += search.searched()
            seconds[how] += time.process_time() - started
            totals[how].append(positions)
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
