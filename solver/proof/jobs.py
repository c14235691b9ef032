"""Frontier positions as jobs for an exact leaf solver.

A `Job` names a position by its canonical key and the rules by their spec text, so it
pickles small and means the same on every worker. `run_job` is the function workers
execute: it looks the named leaf solver up in `LEAF_SOLVERS`, solves the position
exactly within the job's node budget and returns a `JobResult` (an exact `Leaf`, or
``leaf=None`` when the budget ran out: "unknown", never a guess).

A leaf solver is any callable ``(game, position, node_budget) -> (Leaf | None, nodes
explored)`` whose answers are exact, cycles included (infinite play is a draw). A `Leaf`
is the value for the side to move and its remoteness, which is None for a draw and for
a win or loss whose value alone was proved (the ``value`` solver):

* ``exact`` (the default): the compiled pruning search of `solver/smallholder_exact.py`
  (MTD(f) alpha-beta with a transposition table of true bounds, repetitions handled
  exactly); each worker keeps its search from job to job (one: the latest rules and
  table size, ``Job.table_bytes``), so later jobs reuse what earlier ones proved;
* ``value``: the same search for the value alone (`ExactSearch.value`: one or two
  null-window searches instead of pinning down the remoteness), which is all a proof
  needs of a leaf; the export then finds the remoteness of the leaves the proof uses;
* ``subgraph``: the bounded reachable-subgraph solve of `solver/smallholder_search.py`
  with the array rules (no pruning: only endgames fit its budget);
* ``reference``: the same with the per-position rules engine (what checks use).
"""

from __future__ import annotations

import functools
import os
import time
from dataclasses import dataclass
from typing import Any, Callable

from tablebase.games.smallholder import Position, Smallholder
from tablebase.solver.probe import Outcome
from tablebase.solver.proof.tree import Leaf
from tablebase.solver.smallholder_search import ArrayLocalSearch, LocalSearch

#: (game, position, node budget, threads, table bytes) -> (exact leaf result or None when
#: out of budget, nodes explored); only the compiled search uses more than one thread and
#: keeps a table between jobs
LeafSolver = Callable[[Smallholder, Position, int, int | None, int], tuple[Leaf | None, int]]


@dataclass(frozen=True)
class Job:
    """One frontier position to solve exactly."""

    board: str
    rules: str  # the full option spec (`Rules.spec`), so workers need no name table
    key: int  # canonical key of the position
    node_budget: int
    solver: str = "subgraph"
    #: threads the leaf solver may use: 1 on a cluster (a worker per core), None for the
    #: search's default (one per core, at most two) when the jobs run in the master's process
    threads: int | None = 1
    #: size limit of the transposition table the compiled search keeps for the jobs
    table_bytes: int = 1 << 28


@dataclass(frozen=True)
class JobResult:
    key: int
    leaf: Leaf | None  # exact, for the side to move; None: out of budget ("unknown")
    nodes: int
    seconds: float
    worker: str  # host:pid of the process that ran it (progress and benchmarks only)


@functools.cache
def _game(board: str, rules: str) -> Smallholder:
    return Smallholder(board, rules)


#: Default transposition-table size of each worker's exact search (`Job.table_bytes`).
EXACT_TABLE_BYTES = Job.table_bytes
#: The jobs' searches look a position's children up in the table before searching one
#: only at positions with more empty cells than this (`ExactSearch.etc_empty`; analyses
#: do from 5 empty cells on):
#: twelve limping3 value jobs in a row took 0.88-0.93x the time with a 6.6 GB table and
#: 0.90-0.92x with 256 MB, while 20-empty hex4 analyses took 1.01-1.12x (BENCHMARKS.md).
JOB_ETC_EMPTY = 8


@functools.lru_cache(maxsize=1)
def _exact_search(board: str, rules: str, threads: int | None, table_bytes: int) -> Any:
    """The worker's one search: the latest rules and settings' (a run of other rules or
    another table size replaces it, so a worker never holds two tables of gigabytes)."""
    from tablebase.solver.smallholder_exact import ExactSearch  # compiles on first use

    game = _game(board, rules)
    # jobs are early positions: merging symmetric images everywhere pays (BENCHMARKS.md)
    if threads is None:
        return ExactSearch(game, table_bytes=table_bytes, canonical_stones=game.board.size, etc_empty=JOB_ETC_EMPTY)
    return ExactSearch(game, table_bytes=table_bytes, canonical_stones=game.board.size, threads=threads,
                       etc_empty=JOB_ETC_EMPTY)


def _leaf(outcome: Outcome | None) -> Leaf | None:
    return None if outcome is None else (outcome.value, outcome.remoteness)


def exact_leaf(game: Smallholder, pos: Position, node_budget: int, threads: int | None = 1,
               table_bytes: int = EXACT_TABLE_BYTES) -> tuple[Leaf | None, int]:
    """The compiled exact search, stopped after ``node_budget`` positions; with more than
    one thread, split over them from 16 empty cells on."""
    from tablebase.solver.smallholder_exact import Budget

    search = _exact_search(game.board.name, game.rules.spec, threads, table_bytes)
    outcome = search.solve(pos, Budget(nodes=node_budget))
    return _leaf(outcome), search.searched()


def value_leaf(game: Smallholder, pos: Position, node_budget: int, threads: int | None = 1,
               table_bytes: int = EXACT_TABLE_BYTES) -> tuple[Leaf | None, int]:
    """The compiled exact search for the value alone, stopped after ``node_budget``
    positions; with more than one thread, split over them from 16 empty cells on."""
    from tablebase.solver.smallholder_exact import Budget

    search = _exact_search(game.board.name, game.rules.spec, threads, table_bytes)
    value = search.value(pos, Budget(nodes=node_budget))
    return (None if value is None else (value, None)), search.searched()


#: Transposition-table size of an export worker's search (`leaf_remoteness`).
REMOTENESS_TABLE_BYTES = 1 << 30


def leaf_remoteness(board: str, rules: str, position: str, guess: Outcome) -> tuple[Outcome | None, float]:
    """A value-only leaf's exact outcome (value and remoteness) by the compiled search on
    one thread, without a budget, MTD(f) starting from ``guess``, and the seconds it took
    (the function export workers run: `proof export --workers`)."""
    started = time.perf_counter()
    search = _exact_search(board, rules, 1, REMOTENESS_TABLE_BYTES)
    return search.solve(_game(board, rules).parse(position), guess=guess), time.perf_counter() - started


@functools.cache
def _array_search(board: str, rules: str) -> ArrayLocalSearch:
    return ArrayLocalSearch(_game(board, rules), node_budget=None)


def subgraph_leaf(game: Smallholder, pos: Position, node_budget: int, threads: int | None = 1,
                  table_bytes: int = EXACT_TABLE_BYTES) -> tuple[Leaf | None, int]:
    """The array-rules subgraph solve (boards up to 63 cells)."""
    search = _array_search(game.board.name, game.rules.spec)
    search.node_budget = node_budget
    search.table.clear()  # one job's subgraph says nothing about the next one's root
    outcome = search.solve(pos)
    search.table.clear()
    return _leaf(outcome), search.nodes


def reference_leaf(game: Smallholder, pos: Position, node_budget: int, threads: int | None = 1,
                   table_bytes: int = EXACT_TABLE_BYTES) -> tuple[Leaf | None, int]:
    """The same solve with the per-position rules engine only (slow; what checks use)."""
    search = LocalSearch(game, node_budget=node_budget)
    return _leaf(search.solve(pos)), search.nodes


#: leaf solvers by name (a Job names one, so master and workers agree)
LEAF_SOLVERS: dict[str, LeafSolver] = {"exact": exact_leaf, "value": value_leaf, "subgraph": subgraph_leaf,
                                       "reference": reference_leaf}


def run_job(job: Job) -> JobResult:
    """Solve one job (the function the executors run, in-process or on a Dask worker)."""
    started = time.perf_counter()
    game = _game(job.board, job.rules)
    leaf, nodes = LEAF_SOLVERS[job.solver](game, game.from_key(job.key), job.node_budget, job.threads,
                                           job.table_bytes)
    return JobResult(job.key, leaf, nodes, time.perf_counter() - started, f"{os.uname().nodename}:{os.getpid()}")
