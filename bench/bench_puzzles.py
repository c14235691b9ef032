"""Time the generation of 100 puzzles per solved Sparro variant.

Run:  python bench/bench_puzzles.py DB
DB must hold the solved Sparro tables (e.g. after `tablebase demo`); it is copied, so
the puzzles found here are not added to it.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def main() -> None:
    source = Path(sys.argv[1] if len(sys.argv) > 1 else "tablebase.sqlite")
    db = Path(tempfile.mkdtemp()) / "bench.sqlite"
    shutil.copy(source, db)
    for variant in ("standard", "extended", "extended-unrestricted"):
        started = time.perf_counter()
        out = subprocess.run(["tablebase", "puzzles", "generate", "sparro", "--variant", variant, "--count", "100",
                              "--seed", "1", "--db", str(db), "-s"], check=True, capture_output=True, text=True)
        seconds = time.perf_counter() - started
        print(f"{variant}: {len(out.stdout.splitlines())} puzzles in {seconds:.1f} s (target: 100 in under 60 s)")


if __name__ == "__main__":
    main()
