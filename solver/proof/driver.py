"""The job loop of the weak solve: keep the executor busy, feed results back, commit.

`ProofSearch.run` proves or disproves one goal ("the attacker wins from the root"):
it selects most-proving frontier nodes of the `ProofGraph`, submits each as a `Job`
to the executor (in-process or Dask, see `executors`), applies each result as it
arrives and commits every settled node, leaf result and unknown attempt to the
`ProofStore` in one transaction per batch of results. A run with the same settings
resumes from what is stored. `weak_solve` runs the goals a value needs: the mover
wins; else the opponent wins; else it is a draw.
"""

from __future__ import annotations

import time
from concurrent.futures import Executor, Future
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Protocol
from tablebase.games.base import DRAW, LOSS, WIN
from tablebase.games.smallholder import Position, Smallholder, opponent
from tablebase.solver.proof.executors import uninterrupted, wait_first
from tablebase.solver.proof.jobs import Job, JobResult, run_job
from tablebase.solver.proof.tree import DISPROVED, EXPANDED, INF, PROVED, SETTLED, TRIED, Known, Leaf, Node, ProofGraph

#: How often `ProofSearch` reports progress (seconds).
PROGRESS_INTERVAL = 2.0
#: Positions the master expands in a row before it looks at finished jobs, reports and commits.
MAX_EXPANSIONS_PER_ROUND = 200
#: Failed jobs (a worker died...) tolerated per run before giving up.
MAX_JOB_FAILURES = 20
#: A job out of budget is run again with this many times its budget (`SearchSettings.job_retries`).
BUDGET_GROWTH = 4
#: The progress reports say how far this many of the most-proving line's first moves are.
COUNTED_MOVES = 2


class RunRecord(Protocol):
    id: int
    jobs: int
    seconds: float


class ProofRecorder(Protocol):
    """Where a search commits what it settles (`db.proofs.ProofStore`)."""

    def open_run(self, game: str, rules: str, root: str, root_key: int, goal: str, solver: str,
                 node_budget: int) -> Any: ...

    def leaves(self, game: str, rules: str) -> dict[int, Leaf]: ...

    def attempts(self, game: str, rules: str) -> dict[int, int]: ...

    def settled(self, run_id: int) -> dict[int, tuple[int, str, int | None, int]]: ...

    def commit(self, run: Any, game: str, rules: str, solver: str,
               leaves: Iterable[tuple[int, int, int | None, int, float]],
               attempts: Iterable[tuple[int, int, int, float]],
               settled: Iterable[tuple[int, int, str, int | None, int]],
               jobs: int, seconds: float, status: str, summary: dict[str, Any]) -> None: ...


@dataclass(frozen=True)
class SearchSettings:
    node_budget: int = 200_000  # positions one leaf job may explore before it answers "unknown"
    #: a job out of budget is run again with `BUDGET_GROWTH` times its budget, up to this
    #: many times, before the master expands its position (BENCHMARKS.md: 0.69x the time
    #: of limping3 middlegame proofs with 1 against 0)
    job_retries: int = 1
    solver: str = "subgraph"  # a name of `jobs.LEAF_SOLVERS`
    in_flight: int | None = None  # jobs kept submitted at once (default: twice the executor's slots)
    #: positions with more empty cells than this are expanded by the master, never sent as
    #: jobs (None: every frontier position is tried as a job first)
    job_max_empty: int | None = None
    time_limit: float | None = None  # stop (resumably) after this many seconds of this call
    first_moves: bool = False  # also settle every first move (which ones win)
    #: selection tie-break: "first" (ascending cells) or "last" (a different move order)
    order: str = "first"
    #: threads a leaf job may use (`jobs.Job.threads`): 1 on a cluster, None in-process
    job_threads: int | None = 1
    #: size limit of the table each worker's leaf search keeps from job to job
    job_table_bytes: int = Job.table_bytes


@dataclass(frozen=True)
class SearchProgress:
    goal: str  # the attacker's colour
    seconds: float
    jobs: int
    jobs_per_second: float
    in_flight: int
    nodes: int  # nodes of the master graph
    settled: int  # nodes settled so far (this call), leaves included
    root_pn: int
    root_dn: int
    line: list[str]  # the current most-proving line from the root, as move names
    #: how far the line's first moves are: for each of its first `COUNTED_MOVES` moves in turn
    #: whose node is expanded, the positions after it up to symmetry, and how many of them
    #: are proved and disproved
    after_moves: tuple[tuple[int, int, int], ...] = ()


@dataclass
class GoalResult:
    goal: str
    status: str  # "proved", "disproved" (untainted), "unknown" (tainted by a loop), "unfinished"
    seconds: float
    jobs: int
    nodes: int
    settled: int
    root_pn: int
    root_dn: int
    #: plies of the longest line of the proof (or disproof); None if unsettled or if a leaf's
    #: value was proved without its remoteness (the export then works the lengths out)
    proof_length: int | None
    #: first move name -> "win" / "no win" / "open" (when asked for)
    first_moves: dict[str, str] = field(default_factory=dict)
    run_id: int | None = None

    def as_json(self) -> dict[str, Any]:
        return {"goal": self.goal, "status": self.status, "seconds": round(self.seconds, 3), "jobs": self.jobs,
                "nodes": self.nodes, "settled": self.settled, "root_pn": _number(self.root_pn),
                "root_dn": _number(self.root_dn), "proof_length": self.proof_length,
                "first_moves": self.first_moves}


def _number(value: int) -> int | str:
    return "inf" if value >= INF else value


class ProofSearch:
    """One goal's search (see the module doc)."""

    def __init__(self, game: Smallholder, root: Position, attacker: str, executor: Executor, slots: int = 1,
                 settings: SearchSettings = SearchSettings(), proofs: ProofRecorder | None = None,
                 progress: Callable[[SearchProgress], None] | None = None) -> None:
        self.game = game
        self.root_pos = root
        self.attacker = attacker
        self.executor = executor
        self.settings = settings
        self.in_flight = settings.in_flight or (1 if slots <= 1 else 2 * slots)
        self.proofs = proofs
        self.progress = progress
        self.rules_label = game.rules_name
        self.run_record: RunRecord | None = None
        self._leaves: dict[int, Leaf] = {}
        self._attempts: dict[int, int] = {}
        self._settled: dict[int, tuple[int, str, int | None, int]] = {}
        self.previous_jobs = 0
        self.previous_seconds = 0.0
        if proofs is not None:
            self.run_record = proofs.open_run("smallholder", self.rules_label, game.format(root),
                                              game.canonical_key(root), attacker, settings.solver,
                                              settings.node_budget)
            self._leaves = proofs.leaves("smallholder", self.rules_label)
            self._attempts = proofs.attempts("smallholder", self.rules_label)
            self._settled = proofs.settled(self.run_record.id)
            self.previous_jobs = self.run_record.jobs
            self.previous_seconds = self.run_record.seconds
        #: the budget of a position's last job before the master expands it instead
        self.largest_budget = settings.node_budget * BUDGET_GROWTH ** settings.job_retries
        self.graph = ProofGraph(game, root, attacker, self._known, self.largest_budget, settings.order)
        if any(value != DRAW and remoteness is None for value, remoteness in self._leaves.values()):
            self.graph.lengths_exact = False  # stored lengths may count such leaves as 0 plies
        self._pending: dict[Future, tuple[Node, int]] = {}  # a running job: its node and its budget
        self._new_leaves: list[tuple[int, int, int | None, int, float]] = []
        self._new_attempts: list[tuple[int, int, int, float]] = []
        self.jobs = 0
        self.failures = 0
        self.settled = 0
        self._started = time.perf_counter()
        self._last_report = 0.0
        self._line: list[Node] = []

    def _known(self, key: int) -> Known | None:
        leaf = self._leaves.get(key)
        if leaf is not None:
            return Known(leaf=leaf)
        settled = self._settled.get(key)
        if settled is not None:
            status, _source, best, length = settled
            return Known(settled=(status, best, length))
        budget = self._attempts.get(key)
        if budget is not None:
            return Known(tried_budget=budget)
        return None

    # -- the loop ---------------------------------------------------------------------

    def run(self) -> GoalResult:
        deadline = None if self.settings.time_limit is None else self._started + self.settings.time_limit
        try:
            finished = self._settle(self.graph.root, deadline)
            if finished and self.settings.first_moves and self.graph.root.status == PROVED:
                # every first move, also when the root itself was settled by one leaf job
                keys = dict.fromkeys(self.game.canonical_key(child) for _, child in self.game.children(self.root_pos))
                for key in keys:
                    if not self._settle(self.graph.node_for(key), deadline):
                        break
        finally:
            with uninterrupted():  # a second Ctrl-C takes effect once the work done is committed
                for future in self._pending:
                    future.cancel()
                self._pending.clear()
                self._commit(final=True)
        return self.result()

    def _settle(self, target: Node, deadline: float | None) -> bool:
        """Work until ``target`` is settled; False if the time limit came first."""
        graph = self.graph
        while target.state != SETTLED:
            if deadline is not None and time.perf_counter() > deadline:
                return False
            expansions = 0
            while len(self._pending) < self.in_flight and expansions < MAX_EXPANSIONS_PER_ROUND:
                path = graph.select(target)
                if path is None:
                    break
                node = path[-1]
                self._line = path
                if node.state == TRIED:  # expanded before this run was resumed
                    graph.expand(node)
                    expansions += 1
                    continue
                if self._too_big(node):  # no job: the master expands it, and records that
                    self._new_attempts.append((node.key, self.largest_budget, 0, 0.0))
                    graph.expand(node)
                    expansions += 1
                    continue
                graph.start_job(node)
                self._submit(node)
            if target.state == SETTLED:
                break
            busy = expansions >= MAX_EXPANSIONS_PER_ROUND  # more to expand here while the jobs run
            if self._pending:
                timeout = 0.0 if busy else None if deadline is None else max(0.0, deadline - time.perf_counter())
                done, _ = wait_first(list(self._pending), timeout)
                for future in done:
                    self._apply(future, *self._pending.pop(future))
            elif not busy:
                raise AssertionError("the proof search has no job to run and nothing running")
            self._commit()
        return True

    def _too_big(self, node: Node) -> bool:
        limit = self.settings.job_max_empty
        return limit is not None and self.game.board.size - node.stones > limit

    def _submit(self, node: Node) -> None:
        """Send a pending node's job: the first budget, or `BUDGET_GROWTH` times the one a
        job last ran out of on it (at most `largest_budget`)."""
        budget = min(BUDGET_GROWTH * node.tried, self.largest_budget) if node.tried else self.settings.node_budget
        job = Job(self.game.board.name, self.game.rules.spec, node.key, budget, self.settings.solver,
                  self.settings.job_threads, self.settings.job_table_bytes)
        self._pending[self.executor.submit(run_job, job)] = (node, budget)

    def _apply(self, future: Future, node: Node, budget: int) -> None:
        try:
            result: JobResult = future.result()
        except Exception as exc:  # noqa: BLE001 - a lost worker; the job is simply run again
            self.failures += 1
            if self.failures > MAX_JOB_FAILURES:
                raise RuntimeError(f"{self.failures} leaf jobs failed; the last one: {exc}") from exc
            self.graph.abandon_job(node)
            return
        self.jobs += 1
        if result.leaf is None:
            self._new_attempts.append((result.key, budget, result.nodes, result.seconds))
            node.tried = max(node.tried, budget)
            if node.tried < self.largest_budget:  # the same position again, with more
                self._submit(node)
                return
        else:
            self._new_leaves.append((result.key, *result.leaf, result.nodes, result.seconds))
        self.graph.finish_job(node, result.leaf)

    def _commit(self, final: bool = False) -> None:
        settled = self.graph.take_settled()
        self.settled += len(settled)
        if self.proofs is not None and self.run_record is not None:
            self.proofs.commit(
                self.run_record, "smallholder", self.rules_label, self.settings.solver, self._new_leaves,
                self._new_attempts, [(s.key, s.status, s.source, s.best, s.length) for s in settled],
                self.previous_jobs + self.jobs, self.previous_seconds + time.perf_counter() - self._started,
                self.status() if final else "running", self.summary())
        self._new_leaves, self._new_attempts = [], []
        now = time.perf_counter()
        if self.progress is not None and (final or now - self._last_report >= PROGRESS_INTERVAL):
            self._last_report = now
            self.progress(self.snapshot())

    # -- reports ----------------------------------------------------------------------

    def status(self) -> str:
        root = self.graph.root
        if root.state != SETTLED:
            return "unfinished"
        if root.status == PROVED:
            return "proved"
        return "unknown" if root.tainted else "disproved"

    def _line_after_root(self) -> list[Node]:
        """The current most-proving line's nodes after the root: a path from the root, or
        from the first move being settled (`SearchSettings.first_moves`), which it starts with."""
        path = self._line
        return path[1:] if path and path[0] is self.graph.root else path

    def line_names(self, nodes: list[Node]) -> list[str]:
        """Canonical nodes, each a child of the one before and the first of the root, as
        the moves that play them from the real root."""
        game, pos, names = self.game, self.root_pos, []
        for node in nodes:
            for move, child in game.children(pos):
                if game.canonical_key(child) == node.key:
                    names.append(game.move_name(move.cell))
                    pos = child
                    break
            else:
                break
        return names

    def snapshot(self) -> SearchProgress:
        seconds = time.perf_counter() - self._started
        pn, dn = self.graph.root.pn, self.graph.root.dn
        line = self._line_after_root()
        names = self.line_names(line)
        after: list[tuple[int, int, int]] = []
        for node in line[:min(COUNTED_MOVES, len(names))]:
            if node.state != EXPANDED:
                break
            statuses = [child.status for child in node.children]
            after.append((len(statuses) + node.loops, statuses.count(PROVED), statuses.count(DISPROVED) + node.loops))
        return SearchProgress(self.attacker, seconds, self.jobs, self.jobs / seconds if seconds else 0.0,
                              len(self._pending), len(self.graph.nodes), self.settled, pn, dn, names, tuple(after))

    def summary(self) -> dict[str, Any]:
        root = self.graph.root
        return {"nodes": len(self.graph.nodes), "root_pn": _number(root.pn), "root_dn": _number(root.dn),
                "loop_edges": self.graph.loop_edges, "node_budget": self.settings.node_budget,
                "job_retries": self.settings.job_retries, "job_table_bytes": self.settings.job_table_bytes}

    def first_moves(self) -> dict[str, str]:
        """Each legal first move of the real root: whether it wins for the attacker."""
        game, out = self.game, dict[str, str]()
        if self.root_pos.to_move != self.attacker:
            return out
        for move, child in game.children(self.root_pos):
            node = self.graph.nodes.get(game.canonical_key(child))
            state = "open"
            if node is not None and node.state == SETTLED:
                state = "win" if node.status == PROVED else ("no win" if not node.tainted else "open")
            out[game.move_name(move.cell)] = state
        return out

    def result(self) -> GoalResult:
        root = self.graph.root
        seconds = time.perf_counter() - self._started
        return GoalResult(self.attacker, self.status(), seconds, self.jobs, len(self.graph.nodes), self.settled,
                          root.pn, root.dn,
                          root.length if root.state == SETTLED and self.graph.lengths_exact else None,
                          self.first_moves() if self.settings.first_moves else {},
                          self.run_record.id if self.run_record else None)


@dataclass
class WeakResult:
    """The value of the root for its side to move, when the goals settled it."""

    value: int | None  # WIN / LOSS / DRAW, or None: not settled (unfinished or unknown)
    goals: list[GoalResult]

    @property
    def value_name(self) -> str:
        return {WIN: "win", LOSS: "loss", DRAW: "draw", None: "unknown"}[self.value]


def weak_solve(game: Smallholder, root: Position, executor: Executor, slots: int = 1,
               settings: SearchSettings = SearchSettings(), proofs: ProofRecorder | None = None,
               progress: Callable[[SearchProgress], None] | None = None) -> WeakResult:
    """Prove a win for the side to move, else for the opponent, else it is a draw."""
    mover = root.to_move
    first = ProofSearch(game, root, mover, executor, slots, settings, proofs, progress).run()
    if first.status == "proved":
        return WeakResult(WIN, [first])
    if first.status != "disproved":
        return WeakResult(None, [first])
    second = ProofSearch(game, root, opponent(mover), executor, slots, settings, proofs, progress).run()
    if second.status == "proved":
        return WeakResult(LOSS, [first, second])
    if second.status == "disproved":
        return WeakResult(DRAW, [first, second])
    return WeakResult(None, [first, second])


__all__ = ["DISPROVED", "EXPANDED", "GoalResult", "ProofSearch", "SearchProgress", "SearchSettings",
           "WeakResult", "weak_solve"]
