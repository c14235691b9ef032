"""Time `tablebase moves sparro - --json` on 10,000 positions from random games.

Run:  python bench/bench_sparro_moves.py [COUNT]
"""

from __future__ import annotations

import random
import subprocess
import sys
import time

from tablebase.games.sparro import Sparro


def main() -> None:
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 10_000
    game = Sparro("standard")
    rng = random.Random(11)
    lines = []
    while len(lines) < count:
        pos = game.start()
        while game.legal_moves(pos) and len(lines) < count:
            lines.append(game.format(pos))
            pos = game.play(pos, rng.choice(game.legal_moves(pos)))
    started = time.perf_counter()
    out = subprocess.run(["tablebase", "moves", "sparro", "-", "--json"], input="\n".join(lines) + "\n",
                         capture_output=True, text=True, check=True).stdout
    seconds = time.perf_counter() - started
    assert len(out.splitlines()) == count
    print(f"tablebase moves sparro - --json: {count} positions in {seconds:.2f} s ({count / seconds:,.0f}/s)")


if __name__ == "__main__":
    main()
