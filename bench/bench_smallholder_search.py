"""Exact-search benchmark: positions from random full-length games, bucketed by empty cells.

Run:  python bench/bench_smallholder_search.py [--board hex4] [--rules nibbler]
      [--buckets 16,20,24] [--count 30] [--seconds 60] [--nodes N] [--seed 1] [--threads T]
      [--value | --solve]
For each bucket, ``count`` random games are played from the start (uniform random legal
moves) and the first position with that many empty cells is taken (a game that ends
sooner is replaced by another); each position gets a full analysis (value, remoteness,
every move) with a fresh transposition table and a wall-clock budget of ``--seconds``, on
``--threads`` threads (default: the search's, one per core up to two). With ``--value``
only the value is searched (`ExactSearch.value`, split over the threads from 16 empty
cells on), keyed as the weak solve's value leaves are; with ``--solve`` the exact result
of the position alone (`ExactSearch.solve`, split likewise).
One JSON object per position and a summary per bucket, one per line. ``start`` as a
bucket means the empty board.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import statistics
import time

from tablebase.games.smallholder import Smallholder
from tablebase.solver.probe import VALUE_NAMES
from tablebase.solver.smallholder_exact import DEFAULT_TABLE_BYTES, DEFAULT_THREADS, Budget, ExactSearch


def empty_cells(game: Smallholder, pos) -> int:
    return (game.board.full & ~(pos.black | pos.white)).bit_count()


def bucket_positions(game: Smallholder, empty: int | None, count: int, rng: random.Random) -> list:
    """``count`` positions with ``empty`` empty cells from random games (None: the start)."""
    if empty is None:
        return [game.start()] * min(count, 1)
    found = []
    while len(found) < count:
        pos = game.start()
        while True:
            if empty_cells(game, pos) == empty and game.legal_moves(pos):
                found.append(pos)
                break
            moves = game.legal_moves(pos)
            if not moves:
                break  # ended before reaching the bucket: play another game
            pos = game.play(pos, rng.choice(moves))
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--board", default="hex4")
    parser.add_argument("--rules", default="nibbler")
    parser.add_argument("--buckets", default="16,20,24")
    parser.add_argument("--count", type=int, default=30)
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--nodes", type=int, default=None,
                        help="also a node budget per position (comparable across machine loads)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--table-mb", type=int, default=DEFAULT_TABLE_BYTES >> 20,
                        help="size limit of each analysis's table in MB (default: the search's own, as a probe "
                             "gets it; runs before 2026-12-07 used 512 by default)")
    parser.add_argument("--threads", type=int, default=DEFAULT_THREADS, help="threads of each analysis")
    parser.add_argument("--value", action="store_true",
                        help="the value alone (ExactSearch.value, as the weak solve's value leaves: every "
                             "position keyed by its canonical form), not every move's exact result")
    parser.add_argument("--solve", action="store_true",
                        help="the exact result of the position alone (ExactSearch.solve, split over the threads "
                             "from 16 empty cells on), not every move's")
    parser.add_argument("--creep", type=int, default=None,
                        help="MTD(f) tests in a row moving one bound before the value is tested (ExactSearch's mtd_creep)")
    parser.add_argument("--quiet", action="store_true", help="summaries only")
    args = parser.parse_args()
    game = Smallholder(args.board, args.rules)
    ExactSearch(game, table_bytes=1 << 20).solve(game.start(), Budget(nodes=1))  # compile / load cache
    print(json.dumps({"machine": platform.node(), "cpus": os.cpu_count(), "load": os.getloadavg(),
                      "board": args.board, "rules": args.rules, "value_only": args.value, "position_only": args.solve,
                      "threads": args.threads, "seconds_budget": args.seconds, "nodes_budget": args.nodes,
                      "table_mb": args.table_mb,
                      "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())}), flush=True)
    for token in args.buckets.split(","):
        empty = None if token == "start" else int(token)
        rng = random.Random(f"{args.seed}-{token}")
        times, cpus, nodes, tests, exact = [], [], [], [], 0
        for pos in bucket_positions(game, empty, args.count, rng):
            canonical = {"canonical_stones": game.board.size} if args.value else {}
            creep = {} if args.creep is None else {"mtd_creep": args.creep}
            search = ExactSearch(game, table_bytes=args.table_mb << 20, threads=args.threads, **canonical, **creep)
            budget = Budget(seconds=args.seconds, nodes=args.nodes)
            cpu = time.process_time()
            if args.value:
                started = time.perf_counter()
                value = search.value(pos, budget)
                seconds, found = time.perf_counter() - started, value is not None
                line = {"value": None if value is None else VALUE_NAMES[value]}
            elif args.solve:
                started = time.perf_counter()
                outcome = search.solve(pos, budget)
                seconds, found = time.perf_counter() - started, outcome is not None
                line = {"value": outcome and outcome.name, "remoteness": outcome and outcome.remoteness}
            else:
                result = search.analyse(pos, budget)
                seconds, found = result.seconds, result.exact
                line = {"value": result.outcome and result.outcome.name,
                        "remoteness": result.outcome and result.outcome.remoteness}
            cpu = time.process_time() - cpu
            cpus.append(cpu)
            times.append(seconds)
            nodes.append(search.searched())
            tests.append(search.tests)
            exact += found
            if not args.quiet:
                print(json.dumps({"bucket": token, "position": game.format(pos), "exact": found, **line,
                                  "seconds": round(seconds, 3), "cpu_s": round(cpu, 3),
                                  "nodes": search.searched(), "tests": search.tests}), flush=True)
        times.sort()
        print(json.dumps({"bucket": token, "positions": len(times), "exact": exact,
                          "median_s": round(statistics.median(times), 3),
                          "p90_s": round(times[int(0.9 * (len(times) - 1))], 3), "max_s": round(times[-1], 3),
                          "median_cpu_s": round(statistics.median(cpus), 3),
                          "median_nodes": int(statistics.median(nodes)), "total_nodes": sum(nodes),
                          "total_tests": sum(tests), "load": os.getloadavg()}), flush=True)


if __name__ == "__main__":
    main()
