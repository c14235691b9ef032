"""First-call cost of the compiled Smallholder rules: numba compiling them (cold, an
empty cache directory) and loading them from the on-disk cache (warm).

Run:  python bench/bench_smallholder_compile.py [--repeat N]
Each measurement is a fresh process with its own NUMBA_CACHE_DIR: the first compiles
and fills the cache, the next ones load it. The process solves limping2 nibbler (the
rules, the array kernels and the solver's kernels all run) and reports the first
solve's time minus a second solve's (the compile or load cost), wall and CPU seconds.
One JSON object per line, with the load average.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from statistics import median

CHILD = """
import json, time
t0, c0 = time.perf_counter(), time.process_time()
from tablebase.solver.smallholder_solve import solve_ruleset
solve_ruleset("limping2", "nibbler")
t1, c1 = time.perf_counter(), time.process_time()
solve_ruleset("limping2", "nibbler")
t2, c2 = time.perf_counter(), time.process_time()
print(json.dumps({"first_call_s": round((t1 - t0) - (t2 - t1), 2), "first_call_cpu_s": round((c1 - c0) - (c2 - c1), 2)}))
"""


def run(cache: str) -> dict:
    env = dict(os.environ, NUMBA_CACHE_DIR=cache)
    out = subprocess.run([sys.executable, "-c", CHILD], check=True, capture_output=True, text=True, env=env,
                         cwd=cache).stdout
    return json.loads(out)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeat", type=int, default=3, help="cold and warm measurements each (medians)")
    args = parser.parse_args()
    print(json.dumps({"machine": platform.processor() or platform.machine(), "cpus": os.cpu_count(),
                      "python": platform.python_version(), "date": time.strftime("%Y-%m-%d")}), flush=True)
    cold, warm = [], []
    for _ in range(args.repeat):
        with tempfile.TemporaryDirectory() as cache:
            cold.append(run(cache) | {"cache": "cold", "load_average": os.getloadavg()})
            print(json.dumps(cold[-1]), flush=True)
            warm.append(run(cache) | {"cache": "warm", "load_average": os.getloadavg()})
            print(json.dumps(warm[-1]), flush=True)
    for name, runs in (("cold", cold), ("warm", warm)):
        print(json.dumps({"cache": name, "median_first_call_s": median(r["first_call_s"] for r in runs),
                          "median_first_call_cpu_s": median(r["first_call_cpu_s"] for r in runs)}), flush=True)


if __name__ == "__main__":
    main()
