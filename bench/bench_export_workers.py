"""`tablebase proof export` in-process against a local Dask cluster, side by side.

The export of a proof on value-only leaves finds each leaf's remoteness by the exact
search: in-process one leaf at a time on both cores (the split search), with
``workers=N`` one leaf per single-threaded worker process. This bench takes a run file
whose proof has every remoteness stored (``proofs/limping3-hull-setbacks.sqlite.gz``),
forgets the remoteness of ``--leaves`` of its proof's leaves (the first ones the walk
meets), and exports it in-process and on a local cluster of ``--workers`` processes,
alternating which goes first, ``--rounds`` times each, each time from a fresh copy and
with fresh searches. Every export must give the committed proof file's lines. Prints
each export's seconds, then the median of each setting and their ratio.

    python bench/bench_export_workers.py [--run proofs/limping3-hull-setbacks.sqlite.gz] [--leaves 12]
        [--workers 2] [--rounds 1]
"""

from __future__ import annotations

import argparse
import gzip
import shutil
import sqlite3
import statistics
import tempfile
import time
from pathlib import Path

from tablebase.db.store import TablebaseStore
from tablebase.games.smallholder import RULESETS, Smallholder
from tablebase.service import smallholder as smallholder_service
from tablebase.service.proof import export_proof

ROOT = Path(__file__).resolve().parent.parent


def prepared(run: Path, folder: Path, leaves: int) -> tuple[Path, str, str, list[str]]:
    """A copy of the run file with the remoteness of ``leaves`` proof leaves forgotten;
    its board, ruleset and the proof's lines (from the committed export beside it)."""
    board, ruleset = run.name.removesuffix(".sqlite.gz").split("-", 1)
    with gzip.open(run, "rb") as packed, open(folder / "run.sqlite", "wb") as unpacked:
        shutil.copyfileobj(packed, unpacked)
    with gzip.open(run.with_name(run.name.replace(".sqlite.gz", ".proof.tsv.gz")), "rt", encoding="utf-8") as f:
        lines = f.read().splitlines()
    game = Smallholder(board, ruleset)
    keys: dict[int, None] = {}
    for line in lines:
        fields = line.split("\t")
        if len(fields) == 5 and fields[1] == "leaf" and len(keys) < leaves:
            keys.setdefault(game.canonical_key(game.parse(fields[0])))
    db = sqlite3.connect(folder / "run.sqlite")
    with db:
        db.executemany("UPDATE proof_leaves SET remoteness = NULL WHERE game = 'smallholder' AND rules = ? AND key = ?",
                       [(game.rules_name, format(key, "x")) for key in keys])
    db.close()
    return folder / "run.sqlite", board, ruleset, lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--run", type=Path, default=ROOT / "proofs" / "limping3-hull-setbacks.sqlite.gz")
    parser.add_argument("--leaves", type=int, default=12)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--rounds", type=int, default=1)
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="bench-export-"))
    source, board, ruleset, expected = prepared(args.run, folder, args.leaves)
    print(f"{board} {ruleset}: {len(expected)} lines, {args.leaves} leaves to search", flush=True)
    times: dict[str, list[float]] = {"in-process": [], f"{args.workers} workers": []}
    for round_ in range(args.rounds):
        for setting in list(times) if round_ % 2 == 0 else list(reversed(times)):
            copy = folder / "copy.sqlite"
            shutil.copyfile(source, copy)
            smallholder_service.exact_search.cache_clear()  # a fresh in-process search, as a new process has
            workers = None if setting == "in-process" else args.workers
            with TablebaseStore(copy) as store:
                started = time.perf_counter()
                lines = list(export_proof(store, board, RULESETS[ruleset], workers=workers))
                seconds = time.perf_counter() - started
            assert lines == expected, f"{setting}: the export differs from the committed proof"
            times[setting].append(seconds)
            print(f"{setting}: {seconds:.1f} s", flush=True)
    medians = {setting: statistics.median(values) for setting, values in times.items()}
    a, b = medians.values()
    print(" | ".join(f"{setting}: median {value:.1f} s" for setting, value in medians.items())
          + f" | ratio {b / a:.2f}")
    shutil.rmtree(folder)


if __name__ == "__main__":
    main()
