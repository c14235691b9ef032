"""Time `tablebase moves smallholder - --json` on positions from random hex4 playouts.

The target (issue 4) is 10,000 hex4 positions in under 20 s, measured end to end: one
subprocess, positions on stdin, one JSON line per position on stdout.

    python bench/bench_smallholder_moves.py [--count 10000] [--board hex4] [--ruleset nibbler]
"""

from __future__ import annotations

import argparse
import random
import shutil
import subprocess
import sys
import time

from tablebase.games.smallholder import Smallholder

TARGET_SECONDS = 20.0


def playout_positions(game: Smallholder, count: int, seed: int) -> list[str]:
    """``count`` positions: every position of random games, in order, until enough."""
    rng = random.Random(seed)
    out: list[str] = []
    while len(out) < count:
        pos = game.start()
        for _ in range(3 * game.board.size):
            out.append(game.format(pos))
            found = game.moves(pos)
            if not found or len(out) >= count:
                break
            pos = game.result(pos, rng.choice(found))
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=10_000)
    parser.add_argument("--board", default="hex4")
    parser.add_argument("--ruleset", default="nibbler")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()

    game = Smallholder(args.board, args.ruleset)
    positions = playout_positions(game, args.count, args.seed)
    # The installed console script when there is one, exactly what a user runs.
    entry = shutil.which("tablebase")
    launcher = [entry] if entry else [sys.executable, "-c", "from tablebase.cli.main import main; main()"]
    command = [*launcher, "moves", "smallholder", "-", "--json", "--ruleset", args.ruleset]
    started = time.perf_counter()
    done = subprocess.run(command, input="\n".join(positions) + "\n", capture_output=True, text=True)
    elapsed = time.perf_counter() - started
    answers = done.stdout.count("\n")
    if done.returncode != 0 or answers != len(positions):
        print(f"failed: exit {done.returncode}, {answers} answers for {len(positions)} positions\n{done.stderr}",
              file=sys.stderr)
        return 1
    verdict = "ok" if elapsed < TARGET_SECONDS * len(positions) / 10_000 else "TOO SLOW"
    print(f"{len(positions)} {args.board} positions ({game.rules_name}): {elapsed:.2f} s, "
          f"{1000 * elapsed / len(positions):.3f} ms each, {verdict} (target {TARGET_SECONDS:.0f} s per 10,000)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
