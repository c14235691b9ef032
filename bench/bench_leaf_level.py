"""Where a weak solve's jobs could sit, measured on a stored run: two alternatives to its value leaves.

A weak solve with ``--leaf-solver value`` sends the defender-to-move positions one ply
above ``--job-max-empty`` as jobs and asks each for its value: "a win?" and, when that
fails, "a loss?" (`ExactSearch.value`, up to two null-window searches). This bench takes
positions a stored run (``--db``, the run of ``--board`` and ``--ruleset``) settled and
measures, each in a fresh search of its own (``--table-mb``, both cores, no budget):

* ``--loss-leaves N``: the first N defender-to-move leaves the attacker wins (the
  leaves that prove), by `value` against the one null-window search the goal needs
  ("a loss?" for the defender): what a goal-directed leaf would save;
* ``--or-nodes N``: the first N attacker-to-move nodes one ply above the leaves that the
  run settled (or the ``--node`` positions given), each searched whole with one null-window
  search ("a win?") against what the run's leaf jobs spent on its children (the stored
  positions and seconds of each child's solving job and of the largest job that ran out
  of budget on it before, all with the run's warm table, so a comparison in the run's
  favour): what jobs one ply higher would cost;
* ``--ladder-from S,...`` (no search: a replay of the stored costs): what the attacker's
  nodes one ply above the leaves cost as the run tried their children (fewest replies
  first, then the moves' order, each child solved whole), what they would have cost had
  the proving child come first (an oracle: the floor of any move order), and under a
  ladder of budgets (every unsettled child tried with S seconds of search in that order,
  then every one left with 4 times as much, and so on; a child's cost is its stored one,
  an earlier attempt's work counted once as lost and once as kept), children the run never
  tried drawn from the costs of the run's refuting leaves (the mean of 20 draws).

    python bench/bench_leaf_level.py --db FILE [--board limping3] [--ruleset nibbler]
                                     [--loss-leaves 4] [--or-nodes 0 [--node POSITION ...]] [--table-mb 4096]
                                     [--min-seconds 4] [--max-seconds 40] [--ladder-from 4,16,64]

Leaves are taken in the order of their stored (hexadecimal) keys, those whose job took
from ``--min-seconds`` to ``--max-seconds``. Prints the run's settled nodes by level and what the child jobs of the attacker's nodes
one ply above the leaves cost, then one line per position measured and the median ratios.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from collections import Counter

from tablebase.db.proofs import ProofStore
from tablebase.db.store import TablebaseStore
from tablebase.games.base import LOSS
from tablebase.games.smallholder import RULESETS, Position, Smallholder
from tablebase.solver.proof.jobs import JOB_ETC_EMPTY
from tablebase.solver.smallholder_exact import ExactSearch


def children_spent(game: Smallholder, pos: Position, leaves: dict[int, tuple[int, int, float]],
                   attempts: dict[int, tuple[int, float]]) -> list[tuple[int, int, float]]:
    """(key, positions, seconds) of each child of ``pos`` the run ran a job on: the job that
    solved it and the largest one that ran out of budget before (what is stored)."""
    children = {game.canonical_key(child) for _, child in game.children(pos)}
    spent = []
    for key in children:
        jobs = ([leaves[key][1:]] if key in leaves else []) + ([attempts[key]] if key in attempts else [])
        if jobs:
            spent.append((key, sum(n for n, _ in jobs), sum(s for _, s in jobs)))
    return spent


def summarise_run(game: Smallholder, attacker: str, settled: dict[int, tuple[int, str]],
                  leaves: dict[int, tuple[int, int, float]], attempts: dict[int, tuple[int, float]],
                  leaf_stones: int) -> None:
    """The run's settled nodes by stones, side to move, result and source; then what the
    child jobs of the attacker's nodes one ply above the leaves cost, by result, and for
    the proved ones how many moves were refuted before the proving one, at what cost."""
    counts = Counter()
    cost: dict[int, list[tuple[int, float]]] = {1: [], -1: []}
    tries = Counter()  # proved nodes by their children refuted first
    refuted_seconds = proving_seconds = 0.0
    for key, (status, source) in settled.items():
        pos = game.from_key(key)
        stones = (pos.black | pos.white).bit_count()
        counts[stones, pos.to_move, "proved" if status > 0 else "disproved", source] += 1
        if pos.to_move == attacker and stones == leaf_stones - 1:
            spent = children_spent(game, pos, leaves, attempts)
            cost[status].append((sum(n for _, n, _ in spent), sum(s for _, _, s in spent)))
            if status > 0:
                refuted = [s for child, _, s in spent if settled.get(child, (0, ""))[0] < 0]
                tries[len(refuted)] += 1
                refuted_seconds += sum(refuted)
                proving_seconds += sum(s for child, _, s in spent if settled.get(child, (0, ""))[0] > 0)
    for (stones, mover, status, source), count in sorted(counts.items()):
        print(f"settled: {stones} stones, {mover} to move, {status} ({source}): {count}")
    for status, spent in cost.items():
        if spent:
            print(f"{attacker}-to-move nodes of {leaf_stones - 1} stones {'proved' if status > 0 else 'disproved'}: "
                  f"{len(spent)}, their child jobs a median {statistics.median(n for n, _ in spent):,.0f} positions "
                  f"({statistics.median(s for _, s in spent):.1f} s)", flush=True)
    if tries:
        print(f"proved ones by their children refuted first (count: nodes): {dict(sorted(tries.items()))}; "
              f"{refuted_seconds:,.0f} s on the refuted children, {proving_seconds:,.0f} s on the proving ones")


def ladder_cost(costs: list[float], proving: int | None, first: float, reuse: bool, growth: float = 4.0) -> float:
    """Seconds a node costs when its children (``costs``: each one's solving cost, in the
    order tried) are tried on a ladder of budgets from ``first``; the node is settled by its
    ``proving`` child (None: every child must be refuted). With ``reuse`` a child's next
    attempt costs only what exceeds its last one (the table kept all of that work)."""
    left, budget, last, spent = list(range(len(costs))), first, 0.0, 0.0
    while left:
        unsettled = []
        for i in left:
            if costs[i] <= budget:
                spent += costs[i] - (last if reuse else 0.0)
                if i == proving:
                    return spent
            else:
                spent += budget - (last if reuse else 0.0)
                unsettled.append(i)
        left, last, budget = unsettled, budget, budget * growth
    return spent


def replay_orders(game: Smallholder, attacker: str, settled: dict[int, tuple[int, str, int | None, int]],
                  leaves: dict[int, tuple[int, int, float]], attempts: dict[int, tuple[int, float]],
                  leaf_stones: int, ladders: list[float]) -> None:
    """The attacker's nodes one ply above the leaves, replayed from the stored job costs:
    as the run tried their children, with an oracle's order, and on ladders of budgets."""
    refuting = [seconds for key, (value, _, seconds) in leaves.items()
                if value != LOSS and game.from_key(key).to_move != attacker]
    nodes: list[tuple[list[float | None], int | None]] = []  # children's costs in the run's order, the proving one
    as_run = oracle = 0.0
    in_order = 0
    for key, (status, _, best, _) in settled.items():
        pos = game.from_key(key)
        if pos.to_move != attacker or (pos.black | pos.white).bit_count() != leaf_stones - 1:
            continue
        children, seen = [], set()
        for _, child in game.children(pos):
            child_key = game.canonical_key(child)
            if child_key not in seen:
                seen.add(child_key)
                children.append((len(game.moves(child)), len(children), child_key))
        order = [child_key for _, _, child_key in sorted(children)]  # the selection's: fewest replies first
        costs: list[float | None] = []
        for child_key in order:
            spent = (leaves[child_key][2] if child_key in leaves else 0.0) + attempts.get(child_key, (0, 0.0))[1]
            costs.append(spent if spent > 0 or child_key in settled else None)  # None: never tried
        proving = order.index(best) if status > 0 and best in order else None
        if status > 0 and proving is None:
            continue  # proved otherwise (a transposition): nothing to replay
        tried = costs[:proving + 1] if proving is not None else costs
        in_order += all(cost is not None for cost in tried)
        as_run += sum(cost or 0.0 for cost in tried)
        oracle += (costs[proving] or 0.0) if proving is not None else sum(cost or 0.0 for cost in costs)
        nodes.append((costs, proving))
    if not nodes:
        return
    print(f"replay of {len(nodes)} {attacker}-to-move nodes of {leaf_stones - 1} stones ({in_order} of them tried "
          f"their children in the selection's order as modelled): as run {as_run:,.0f} s, with the proving "
          f"child first {oracle:,.0f} s ({oracle / as_run:.2f})", flush=True)
    for first in ladders:
        for reuse in (False, True):
            draws = []
            for seed in range(20):
                rnd = random.Random(seed)
                draws.append(sum(ladder_cost([rnd.choice(refuting) if cost is None else cost for cost in costs],
                                             proving, first, reuse) for costs, proving in nodes))
            mean = statistics.mean(draws)
            print(f"ladder of budgets from {first:g} s ({'each attempt from where the last stopped' if reuse else 'earlier attempts lost'}): "
                  f"{mean:,.0f} s ({mean / as_run:.2f}; draws {min(draws):,.0f}-{max(draws):,.0f} s)", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", required=True)
    parser.add_argument("--board", default="limping3")
    parser.add_argument("--ruleset", default="nibbler", choices=sorted(RULESETS))
    parser.add_argument("--loss-leaves", type=int, default=4)
    parser.add_argument("--or-nodes", type=int, default=0)
    parser.add_argument("--node", action="append", default=[], metavar="POSITION",
                        help="with --or-nodes: these settled nodes (repeatable) instead of the first ones")
    parser.add_argument("--table-mb", type=int, default=4096)
    parser.add_argument("--min-seconds", type=float, default=4.0)
    parser.add_argument("--max-seconds", type=float, default=40.0)
    parser.add_argument("--ladder-from", default="", metavar="S,...",
                        help="replay the attacker's nodes above the leaves on ladders of budgets from S seconds")
    args = parser.parse_args()
    ladders = [float(x) for x in args.ladder_from.split(",") if x]
    game = Smallholder(args.board, args.ruleset)
    label = f"{args.ruleset}@{args.board}"
    with TablebaseStore(args.db, readonly=True) as store:
        proofs = ProofStore(store)
        run = proofs.runs("smallholder", label)[0]
        solved, attempts = proofs.job_costs("smallholder", label)
        leaves = {key: (value, *solved[key]) for key, (value, _) in proofs.leaves("smallholder", label).items()}
        settled_full = dict(sorted(proofs.settled(run.id).items()))
        settled_status = {key: (status, source) for key, (status, source, _, _) in settled_full.items()}
        settled = list(settled_status)
    attacker = run.goal

    def fresh() -> ExactSearch:
        return ExactSearch(game, table_bytes=args.table_mb << 20, canonical_stones=game.board.size,
                           etc_empty=JOB_ETC_EMPTY)

    ratios = []
    proving = [key for key, (value, _, seconds) in sorted(leaves.items(), key=lambda item: format(item[0], "x"))
               if value == LOSS and args.min_seconds <= seconds <= args.max_seconds
               and game.from_key(key).to_move != attacker]
    for key in proving[:args.loss_leaves]:
        pos = game.from_key(key)
        both, one = fresh(), fresh()
        started = time.perf_counter()
        value = both.value(pos)
        took = time.perf_counter() - started
        started = time.perf_counter()
        bound = one.null_window(pos, 0)
        took_one = time.perf_counter() - started
        assert value == LOSS and bound is not None and bound < 0, (game.format(pos), value, bound)
        ratios.append(took_one / took)
        print(f"leaf {game.format(pos)} (its job in the run: {leaves[key][2]:.1f} s): "
              f"value {took:.1f} s ({both.searched():,} positions), "
              f"'a loss?' alone {took_one:.1f} s ({one.searched():,}), ratio {took_one / took:.2f}", flush=True)
    if ratios:
        print(f"loss leaves: median ratio of time {statistics.median(ratios):.2f}", flush=True)

    leaf_stones = statistics.mode((game.from_key(k).black | game.from_key(k).white).bit_count() for k in leaves)
    summarise_run(game, attacker, settled_status, leaves, attempts, leaf_stones)
    if ladders:
        replay_orders(game, attacker, settled_full, leaves, attempts, leaf_stones, ladders)
    ratios = []
    above = [key for key in settled if game.from_key(key).to_move == attacker
             and (game.from_key(key).black | game.from_key(key).white).bit_count() == leaf_stones - 1]
    named = [game.canonical_key(game.parse(text)) for text in args.node]
    for key in (named or above)[:args.or_nodes]:
        assert key in settled, f"the run did not settle {game.format(game.from_key(key))}"
        pos = game.from_key(key)
        spent = children_spent(game, pos, leaves, attempts)
        search = fresh()
        started = time.perf_counter()
        bound = search.null_window(pos, 1)
        took = time.perf_counter() - started
        assert bound is not None
        run_nodes, run_seconds = sum(n for _, n, _ in spent), sum(s for _, _, s in spent)
        ratios.append(search.searched() / run_nodes)
        print(f"node {game.format(pos)} ({'win' if bound >= 1 else 'no win'}): whole {took:.1f} s "
              f"({search.searched():,} positions); the run's {len(spent)} child jobs {run_seconds:.1f} s "
              f"({run_nodes:,}), ratio of positions {search.searched() / run_nodes:.2f}", flush=True)
    if ratios:
        print(f"attacker nodes: median ratio of positions {statistics.median(ratios):.2f}", flush=True)


if __name__ == "__main__":
    main()
