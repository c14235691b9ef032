"""`tablebase check --proof` in-process against a local Dask cluster, side by side.

In-process, the check re-solves one big leaf at a time on both cores (the split search);
with ``workers=N`` each of N single-threaded worker processes re-solves a leaf of its
own. This bench cuts a sub-proof out of a proof file (the strategy below one ``loser``
row: its every reply, the winner's answer to each, down to the leaves), so that the
check has a few dozen big leaves, and checks it in-process and on a local cluster of
``--workers`` processes, alternating which goes first, ``--rounds`` times each. Every
check must pass with the same counts. Prints each check's seconds, then the median of
each setting and their ratio.

    python bench/bench_check_workers.py --proof FILE [--loser 1] [--workers 2] [--rounds 1]

``--loser K`` picks the K-th ``loser`` row of the file (0: the first one, which holds
nearly the whole proof of a win's start).
"""

from __future__ import annotations

import argparse
import gzip
import statistics
import time

from tablebase.games.smallholder import Smallholder, parse_rules
from tablebase.solver.proof.certificate import check_proof, proof_header
from tablebase.solver.proof.executors import open_executor


def sub_proof(path: str, loser: int) -> list[str]:
    """The lines of the proof of the ``loser``-th loser row's position, from ``path``."""
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt", encoding="utf-8") as handle:  # type: ignore[operator]
        lines = handle.read().splitlines()
    meta = dict(line[2:].split(": ", 1) for line in lines if line.startswith("# ") and ": " in line)
    game = Smallholder(meta["board"], parse_rules(meta["rules"]))
    rows = {line.split("\t", 1)[0]: line for line in lines if "\t" in line and not line.startswith("position\t")}
    root = [text for text, line in rows.items() if line.split("\t")[1] == "loser"][loser]
    winner = meta["claim"][-2]
    kept: dict[str, str] = {}
    stack = [root]
    while stack:
        text = stack.pop()
        if text in kept:
            continue
        kept[text] = rows[text]
        _, role, move, _, _ = rows[text].split("\t")
        pos = game.parse(text)
        if role == "winner":
            stack.append(game.format(game.play(pos, game.parse_move(move))))
        elif role == "loser":
            stack.extend(game.format(child) for _, child in game.children(pos))
    return proof_header(game, game.parse(root), winner) + list(kept.values())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--proof", required=True)
    parser.add_argument("--loser", type=int, default=1)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--rounds", type=int, default=1)
    args = parser.parse_args()
    lines = sub_proof(args.proof, args.loser)
    rows = sum(1 for line in lines if "\t" in line) - 1
    print(f"sub-proof of {lines[3][len('# root: '):]}: {rows} rows", flush=True)
    times: dict[str, list[float]] = {"in-process": [], f"{args.workers} workers": []}
    counts = set()
    for round_ in range(args.rounds):
        for setting in list(times) if round_ % 2 == 0 else list(reversed(times)):
            # a fresh cluster each time: its workers keep their search's table from leaf to leaf
            with open_executor(workers=None if setting == "in-process" else args.workers) as (executor, slots):
                spread = {} if setting == "in-process" else {"executor": executor, "slots": slots}
                started = time.perf_counter()
                report = check_proof(lines, check_budget=1, **spread)  # every leaf to the compiled search
                seconds = time.perf_counter() - started
            times[setting].append(seconds)
            counts.add((report.leaves, report.searched_leaves, report.image_leaves, report.depth))
            print(f"{setting}: {seconds:.1f} s ({report.searched_leaves} leaves re-solved, "
                  f"{report.image_leaves} images)", flush=True)
    assert len(counts) == 1, counts
    medians = {setting: statistics.median(values) for setting, values in times.items()}
    a, b = medians.values()
    print(" | ".join(f"{setting}: median {value:.1f} s" for setting, value in medians.items()) + f" | ratio {b / a:.2f}")


if __name__ == "__main__":
    main()
