"""The exact search of a proof's leaves from three first guesses of MTD(f), side by side.

A proof exported from a weak solve with value-only leaves gets each leaf's remoteness
from the exact search (`tablebase proof export`), and `tablebase check --proof` re-solves
each big leaf with the exact search in another move order. MTD(f) converges in fewer
null-window searches from a guess near the answer: the export knows the leaf's value
and the remoteness of the leaf before it, the check knows the row's claim. This bench
takes proof leaves whose remoteness a tablebase file already holds (an export found it)
and solves each one three times, each in a search of its own on one thread: from no
guess (score 0), from the export's guess (the proved value, the previous leaf's
remoteness) and from the truth (the check's guess). The answers must agree.

    python bench/bench_leaf_guess.py --db FILE [--board limping3] [--ruleset hull-setbacks]
                                     [--count 4] [--skip 0] [--check-order]

``--check-order`` searches as the check does (no reply-count ordering), otherwise as the
export does. Prints one line per leaf and guess (positions searched, seconds), then the
totals and the median ratios of positions to the no-guess search.
"""

from __future__ import annotations

import argparse
import statistics
import time

from tablebase.db.proofs import ProofStore
from tablebase.db.store import TablebaseStore
from tablebase.games.smallholder import RULESETS, Smallholder
from tablebase.solver.probe import Outcome
from tablebase.solver.proof.certificate import proof_rows
from tablebase.solver.smallholder_exact import ExactSearch

GUESSES = ("none", "export", "truth")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", required=True)
    parser.add_argument("--board", default="limping3")
    parser.add_argument("--ruleset", default="hull-setbacks", choices=sorted(RULESETS))
    parser.add_argument("--count", type=int, default=4)
    parser.add_argument("--skip", type=int, default=0)
    parser.add_argument("--check-order", action="store_true")
    args = parser.parse_args()

    game = Smallholder(args.board, RULESETS[args.ruleset])
    proofs = ProofStore(TablebaseStore(args.db, readonly=True))
    root = game.start()
    run = proofs.find_run("smallholder", game.rules_name, game.canonical_key(root), root.to_move)
    if run is None or run.status != "proved":
        raise SystemExit(f"no proved weak solve of {args.board} {args.ruleset} in {args.db}")
    leaves = proofs.leaves("smallholder", game.rules_name)
    rows = proof_rows(game, root, run.goal, proofs.settled(run.id), leaves, lambda pos: -1)
    known = [game.parse(row.position) for row in rows if row.role == "leaf" and (row.remoteness or 0) > 0]
    chosen = known[args.skip:args.skip + args.count]
    nodes: dict[str, list[int]] = {g: [] for g in GUESSES}
    seconds: dict[str, list[float]] = {g: [] for g in GUESSES}
    # the export's first leaf starts from its number of empty cells
    previous = (leaves[game.canonical_key(known[args.skip - 1])][1] if args.skip
                else game.board.size - (chosen[0].black | chosen[0].white).bit_count() if chosen else None)
    for pos in chosen:
        value, remoteness = leaves[game.canonical_key(pos)]
        truth = Outcome(value, remoteness)
        starts = {"none": None, "export": Outcome(value, previous), "truth": truth}
        for name in GUESSES:
            search = ExactSearch(game, threads=1, mobility=not args.check_order)
            started = time.perf_counter()
            found = search.solve(pos, guess=starts[name])
            seconds[name].append(time.perf_counter() - started)
            nodes[name].append(search.searched())
            if found != truth:
                raise SystemExit(f"{game.format(pos)}: {found} from the guess {name}, the file says {truth}")
            print(f"{game.format(pos)}  remoteness {remoteness}  guess {name:6}  {nodes[name][-1]:>12,} positions"
                  f"  {seconds[name][-1]:7.1f} s", flush=True)
        previous = remoteness
    for name in GUESSES:
        ratios = [n / base for n, base in zip(nodes[name], nodes["none"])]
        print(f"guess {name:6}: {sum(nodes[name]):,} positions, {sum(seconds[name]):.1f} s in all; "
              f"median ratio of positions {statistics.median(ratios):.2f}")


if __name__ == "__main__":
    main()
