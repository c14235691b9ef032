"""Atlas sweep benchmark: every option combination of one board, resumable.

Run:  python bench/bench_atlas.py --board hex3 --db PATH [--limit N] [--reverse] [--named-first]
Computes the atlas row of each combination not yet stored in PATH (see
`solver/atlas.py`), storing each as soon as it is done, so a killed run continues
with the rest when started again. One JSON object per line on stdout: each computed
row with its seconds, then the run's totals (wall time, peak RSS of this process, the
machine's load average before and after) and the sum of the stored rows' seconds.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import sys
import time

from tablebase.db.atlas import AtlasRows
from tablebase.db.store import TablebaseStore
from tablebase.games.smallholder.options import RULESETS, all_rules
from tablebase.solver.atlas import VERSIONS, sweep

GAME = "smallholder"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--board", default="limping2")
    parser.add_argument("--db", required=True)
    parser.add_argument("--limit", type=int, default=None, help="compute at most N rows in this run")
    parser.add_argument("--reverse", action="store_true",
                        help="take the combinations last first (a second run into the same file then "
                             "works from the other end)")
    parser.add_argument("--named-first", action="store_true", help="take the five named rulesets first")
    args = parser.parse_args()
    load_before = os.getloadavg()
    started = time.perf_counter()
    computed = 0
    with TablebaseStore(args.db, create=True) as store:
        rows = AtlasRows(store)

        def stored(rules):  # type: ignore[no-untyped-def]
            found = rows.get(GAME, args.board, rules.spec, VERSIONS)
            return None if found is None else found.row

        def save(rules, row, seconds):  # type: ignore[no-untyped-def]
            rows.save(GAME, args.board, rules.spec, VERSIONS, row, seconds)

        combos = all_rules()[::-1] if args.reverse else all_rules()
        if args.named_first:
            named = set(RULESETS.values())
            combos = [r for r in combos if r in named] + [r for r in combos if r not in named]
        if args.limit is not None:
            have = {r.rules for r in rows.all(GAME, args.board, VERSIONS)}
            combos = [r for r in combos if r.spec in have] + [r for r in combos if r.spec not in have][:args.limit]
        for step in sweep(args.board, combos, stored, save):
            if step.computed:
                computed += 1
                print(json.dumps({"index": step.index, "seconds": round(step.seconds, 2),
                                  "peak_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024),
                                  "load": os.getloadavg()[0], **step.row}), flush=True)
        total = sum(r.seconds for r in rows.all(GAME, args.board, VERSIONS))
        stored_count = len(rows.all(GAME, args.board, VERSIONS))
    print(json.dumps({
        "board": args.board, "computed_now": computed, "stored": stored_count,
        "wall_seconds": round(time.perf_counter() - started, 1), "stored_rows_seconds": round(total, 1),
        "peak_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024),
        "load_before": load_before, "load_after": os.getloadavg(),
        "machine": f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}",
        "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}), flush=True)


if __name__ == "__main__":
    sys.exit(main())
