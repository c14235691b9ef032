"""Through-the-CLI benchmark: `tablebase probe smallholder POSITION` as a user runs it.

Run:  python bench/bench_smallholder_cli_probe.py [--board hex4] [--rules nibbler]
      [--empty 20] [--count 9] [--seed 1] [--json] [--tablebase PATH]
The positions are those of bench_smallholder_search.py (the first position with
``--empty`` empty cells in each of ``--count`` seeded random games); each is probed by a
fresh `tablebase` process (start-up, loading the compiled code and the search included,
no tablebase file), the whole process timed from outside. With ``--json`` the probe
prints JSON, principal variation included; without it, the text line (no variation).
One JSON object per position and a summary, one per line.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(__file__))
from bench_smallholder_search import bucket_positions  # noqa: E402

from tablebase.games.smallholder import Smallholder  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--board", default="hex4")
    parser.add_argument("--rules", default="nibbler")
    parser.add_argument("--empty", type=int, default=20)
    parser.add_argument("--count", type=int, default=9)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", action="store_true", help="probe with --json (the variation included)")
    parser.add_argument("--tablebase", default=shutil.which("tablebase") or "tablebase",
                        help="the tablebase command to time")
    args = parser.parse_args()
    game = Smallholder(args.board, args.rules)
    positions = bucket_positions(game, args.empty, args.count, random.Random(f"{args.seed}-{args.empty}"))
    print(json.dumps({"machine": os.uname().nodename, "cpus": os.cpu_count(), "load": os.getloadavg(),
                      "board": args.board, "rules": args.rules, "empty": args.empty, "json": args.json,
                      "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())}), flush=True)
    times = []
    with tempfile.TemporaryDirectory() as where:  # no tablebase file: every probe searches
        for pos in positions:
            command = [args.tablebase, "probe", "smallholder", "--board", args.board, "--ruleset", args.rules,
                       "--silent", "--time", "60", game.format(pos)] + (["--json"] if args.json else [])
            started = time.perf_counter()
            done = subprocess.run(command, cwd=where, capture_output=True, text=True, check=True)
            seconds = time.perf_counter() - started
            times.append(seconds)
            print(json.dumps({"position": game.format(pos), "seconds": round(seconds, 3),
                              "answer": done.stdout.strip()[:80]}), flush=True)
    print(json.dumps({"positions": len(times), "median_s": round(statistics.median(times), 3),
                      "min_s": round(min(times), 3), "max_s": round(max(times), 3),
                      "load": os.getloadavg()}), flush=True)


if __name__ == "__main__":
    main()
