"""Smallholder solve benchmark: time, peak memory and results per board and ruleset,
the search against the tables, and the search on hex4 endgames.

Run:  python bench/bench_smallholder_solve.py [--limping2] [--hex3 RULESET ...] [--check N]
      [--hex4-endgames N] [--db PATH] [--repeat N] [--reference-path DIR --reference-python EXE]
With no option it runs everything: all 120 combinations on limping2 (one child process,
one database), the five named rulesets on hex3 (a child process each, so each peak RSS
is its own), N random reachable hex3 positions per ruleset checked by the search, and
N hex4 endgames (a dozen empty cells) probed by the search. One JSON object per line.

Side by side: with ``--reference-path`` (a directory holding another checkout's
``tablebase`` package, put first on PYTHONPATH of ``--reference-python``, an interpreter
without this checkout installed) every solve also runs on that code, alternating with
this checkout's, ``--repeat`` times each; each run prints its time, peak RSS and the
stored table's checksum, then one line of medians per solver, so the tables can be
compared as well as the times. The machine's load average is printed with every run,
and the CPU seconds of each solving process (on a shared machine the wall time is
mostly other people's work).
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
from statistics import median

NAMED = ("gaps-original", "nibbler", "offshore-gaps", "stymie", "hull-setbacks")


def solve_in_child(db: Path, board: str, rulesets: list[str], python: str = sys.executable,
                   pythonpath: str | None = None) -> dict:
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
        "                    'checksum': info.checksum, **info.summary})\n"
        "usage = resource.getrusage(resource.RUSAGE_SELF)\n"
        "print(json.dumps({'seconds': time.perf_counter() - t, 'tables': out, 'peak_mb': usage.ru_maxrss / 1024,\n"
        "                  'cpu_seconds': round(usage.ru_utime + usage.ru_stime, 2)}))\n"
    )
    env = dict(os.environ)
    if pythonpath:
        env["PYTHONPATH"] = pythonpath
    # run in the database's folder, so that no checkout in the working directory shadows the package
    out = subprocess.run([python, "-c", code], check=True, capture_output=True, text=True, env=env, cwd=db.parent).stdout
    return json.loads(out)


def side_by_side(db: Path, board: str, rulesets: list[str], repeat: int, reference: tuple[str, str] | None) -> None:
    """Solve ``repeat`` times with this checkout (and the reference, alternating); print
    every run and the medians per solver."""
    solvers = [("current", sys.executable, None)] + ([("reference", reference[1], reference[0])] if reference else [])
    runs: dict[str, list[dict]] = {name: [] for name, _, _ in solvers}
    for _ in range(repeat):
        for name, python, path in solvers:
            result = solve_in_child(db, board, rulesets, python, path)
            result.update(solver=name, load_average=os.getloadavg())
            runs[name].append(result)
            print(json.dumps(result), flush=True)
    for name, results in runs.items():
        print(json.dumps({"solver": name, "board": board, "rulesets": rulesets if len(rulesets) < 6 else len(rulesets),
                          "runs": len(results), "median_seconds": round(median(r["seconds"] for r in results), 2),
                          "median_peak_mb": round(median(r["peak_mb"] for r in results)),
                          "median_cpu_seconds": round(median(r.get("cpu_seconds", float("nan")) for r in results), 2),
                          "checksums": sorted({t["checksum"] for r in results for t in r["tables"]})
                          if len(rulesets) < 6 else None}), flush=True)


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
    parser.add_argument("--repeat", type=int, default=1, help="solves per ruleset and solver (medians reported)")
    parser.add_argument("--reference-path", default=None, help="PYTHONPATH of the reference checkout's package")
    parser.add_argument("--reference-python", default=None, help="interpreter for the reference solves")
    args = parser.parse_args()
    reference = (args.reference_path, args.reference_python or sys.executable) if args.reference_path else None
    everything = not (args.limping2 or args.hex3 is not None or args.check or args.hex4_endgames)
    print(json.dumps({"machine": platform.processor() or platform.machine(), "cpus": os.cpu_count(),
                      "python": platform.python_version(), "date": time.strftime("%Y-%m-%d"),
                      "load_average": os.getloadavg()}), flush=True)
    with tempfile.TemporaryDirectory() as tmp:
        if args.limping2 or everything:
            from tablebase.games.smallholder import all_rules

            side_by_side(Path(tmp) / "limping2.sqlite", "limping2", [r.spec for r in all_rules()], args.repeat,
                         reference)
        db = args.db or Path(tmp) / "hex3.sqlite"
        rulesets = list(NAMED) if args.hex3 is None or not args.hex3 else args.hex3
        if args.hex3 is not None or everything:
            for name in rulesets:
                side_by_side(db, "hex3", [name], args.repeat, reference)
        if args.check or everything:
            for name in rulesets:
                print(json.dumps(check_search(db, "hex3", name, args.check or 50)), flush=True)
        if args.hex4_endgames or everything:
            print(json.dumps(hex4_endgames(args.hex4_endgames or 10)), flush=True)


if __name__ == "__main__":
    main()
