"""Smallholder solve benchmark: time, peak memory and results per board and ruleset,
the search against the tables, and the search on hex4 endgames.

Run:  python bench/bench_smallholder_solve.py [--limping2] [--hex3 RULESET ...] [--check N]
      [--hex4-endgames N] [--db PATH]
With no option it runs everything: all 120 combinations on limping2 (one child process,
one database), the five named rulesets on hex3 (a child process each, so each peak RSS
is its own), N random reachable hex3 positions per ruleset checked by the search, and
N hex4 endgames (a dozen empty cells) probed by the search. One JSON object per line.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

NAMED = ("gaps-original", "nibbler", "offshore-gaps", "stymie", "hull-setbacks")


def solve_in_child(db: Path, board: str, rulesets: list[str]) -> dict:
    """Solve the rulesets into ``db`` in a fresh process; its totals and peak RSS."""
    code = (
        "import json, resource, sys, time\n"
        "from tablebase.service.smallholder import solve_into\n"
        "from tablebase.db.store import TablebaseStore\n"
        "from tablebase.games.smallholder import parse_rules\n"
        "t = time.perf_counter()\n"
        "out = []\n"
        f"with TablebaseStore({str(db)!r}, create=True) as s:\n"
        f"    for spec in {rulesets!r}:\n"
        "        r = time.perf_counter()\n"
        f"        info = solve_into(s, {board!r}, parse_rules(spec), force=True)\n"
        "        out.append({'rules': info.rules, 'positions': info.positions, 'seconds': round(time.perf_counter() - r, 2),\n"
        "                    **info.summary})\n"
        "print(json.dumps({'seconds': time.perf_counter() - t, 'tables': out,\n"
        "                  'peak_mb': resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True).stdout
    return json.loads(out)


def check_search(db: Path, board: str, ruleset: str, count: int) -> dict:
    """The bounded search against the stored table on random reachable positions."""
    from tablebase.service.smallholder import stored_lookup
    from tablebase.db.store import TablebaseStore
    from tablebase.games.smallholder import Smallholder
    from tablebase.solver.smallholder_search import LocalSearch

    game = Smallholder(board, ruleset)
    rng = random.Random(11)
    checked = unknown = 0
    started = time.perf_counter()
    with TablebaseStore(db) as store:
        lookup = stored_lookup(store, game)
        while checked < count:
            pos = game.start()
            for _ in range(rng.randint(8, 16)):
                moves = game.legal_moves(pos)
                if not moves:
                    break
                pos = game.play(pos, rng.choice(moves))
            found = LocalSearch(game, node_budget=20_000).solve(pos)
            if found is None:
                unknown += 1
                continue
            stored = lookup([game.canonical_key(pos)])[0]
            if stored != found:
                raise SystemExit(f"MISMATCH {game.rules_name} {game.format(pos)}: table {stored}, search {found}")
            checked += 1
    return {"check": game.rules_name, "agree": checked, "over_budget": unknown,
            "seconds": round(time.perf_counter() - started, 1)}


def hex4_endgames(count: int) -> dict:
    """Search timings (the array search of `probe --search`) on hex4 nibbler positions
    with 11-13 empty cells from random games."""
    from tablebase.games.smallholder import Smallholder
    from tablebase.solver.smallholder_search import ArrayLocalSearch

    game = Smallholder("hex4", "nibbler")
    rng = random.Random(3)
    times, nodes, values = [], [], []
    while len(times) < count:
        pos = game.start()
        while game.board.size - (pos.black | pos.white).bit_count() > rng.randint(11, 13):
            moves = game.legal_moves(pos)
            if not moves:
                break
            pos = game.play(pos, rng.choice(moves))
        if not game.legal_moves(pos):
            continue
        search = ArrayLocalSearch(game, node_budget=1_000_000)
        started = time.perf_counter()
        found = search.solve(pos)
        times.append(time.perf_counter() - started)
        nodes.append(search.nodes)
        values.append(None if found is None else found.name)
    times.sort()
    return {"hex4_endgames": count, "median_s": round(times[len(times) // 2], 2), "max_s": round(times[-1], 2),
            "median_positions": sorted(nodes)[len(nodes) // 2], "max_positions": max(nodes),
            "unknown": values.count(None)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--limping2", action="store_true", help="all 120 combinations on limping2")
    parser.add_argument("--hex3", nargs="*", metavar="RULESET", help="named rulesets on hex3 (default: all five)")
    parser.add_argument("--check", type=int, default=None,
                        help="positions per hex3 ruleset checked by search (the tables: --hex3 or --db)")
    parser.add_argument("--hex4-endgames", type=int, default=None, help="hex4 endgames probed by search")
    parser.add_argument("--db", type=Path, default=None, help="database for the hex3 tables (default: a temp file)")
    args = parser.parse_args()
    everything = not (args.limping2 or args.hex3 is not None or args.check or args.hex4_endgames)
    print(json.dumps({"machine": platform.processor() or platform.machine(), "cpus": os.cpu_count(),
                      "python": platform.python_version(), "date": time.strftime("%Y-%m-%d"),
                      "load_average": os.getloadavg()}), flush=True)
    with tempfile.TemporaryDirectory() as tmp:
        if args.limping2 or everything:
            from tablebase.games.smallholder import all_rules

            result = solve_in_child(Path(tmp) / "limping2.sqlite", "limping2", [r.spec for r in all_rules()])
            for table in result.pop("tables"):
                print(json.dumps(table), flush=True)
            print(json.dumps({"limping2_all_120": result}), flush=True)
        db = args.db or Path(tmp) / "hex3.sqlite"
        rulesets = list(NAMED) if args.hex3 is None or not args.hex3 else args.hex3
        if args.hex3 is not None or everything:
            for name in rulesets:
                print(json.dumps(solve_in_child(db, "hex3", [name])), flush=True)
        if args.check or everything:
            for name in rulesets:
                print(json.dumps(check_search(db, "hex3", name, args.check or 50)), flush=True)
        if args.hex4_endgames or everything:
            print(json.dumps(hex4_endgames(args.hex4_endgames or 10)), flush=True)


if __name__ == "__main__":
    main()
