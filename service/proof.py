"""Weak solutions of The Smallholder: run the proof search, export its proof, check a proof file.

* `weak_solve_into(store, board, rules, ...)`: the job-level proof-number search of
  `solver/proof` on the chosen executor (in-process, ``workers`` = a local Dask cluster,
  ``scheduler`` = a running Dask cluster), committed to the tablebase file as it goes;
  the same call resumes an interrupted run;
* `export_proof(store, board, rules)`: the proved strategy as TSV lines;
* `check_proof_file(path)`: verification of such a file by the rules alone (with a
  ``journal`` file, a stopped check resumes: `db.check_journal`).
"""

from __future__ import annotations

import gzip
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator

from tablebase.db.check_journal import CheckJournal
from tablebase.db.proofs import ProofStore
from tablebase.db.store import StoreError, TablebaseStore
from tablebase.games.base import LOSS, WIN, NotationError
from tablebase.games.smallholder import COLOUR_NAMES, Position, Rules, Smallholder, get_board, opponent
from tablebase.service.errors import ServiceError, SolveNotAsked
from tablebase.service.progress import Progress, ProgressEvent
from tablebase.service.smallholder import exact_search, game_for_rules_name, game_of
from tablebase.solver.probe import Outcome
from tablebase.solver.proof.certificate import (
    DEFAULT_CHECK_BUDGET, DEFAULT_LEAF_CHECK, LEAF_CHECKS, LEAF_ROLE, CheckReport, LeafSearchNeeded, ProofError,
    check_proof, draw_lines, Row, format_rows, holding_rows, proof_header, proof_rows)
from tablebase.solver.proof.driver import GoalResult, SearchProgress, SearchSettings, weak_solve
from tablebase.solver.proof.executors import ExecutorError, InlineExecutor, as_finished, describe, open_executor
from tablebase.solver.proof.jobs import LEAF_SOLVERS, leaf_remoteness
from tablebase.solver.proof.tree import INF

__all__ = ["CheckReport", "DEFAULT_CHECK_BUDGET", "DEFAULT_JOB_BUDGET", "DEFAULT_JOB_RETRIES",
           "DEFAULT_JOB_TABLE_MB", "DEFAULT_LEAF_CHECK", "DEFAULT_LEAF_SOLVER", "LEAF_CHECKS",
           "LEAF_SOLVERS", "MAX_JOB_TABLE_MB", "MIN_JOB_TABLE_MB", "WeakSolveReport", "check_proof_file",
           "check_proof_lines", "export_proof", "weak_solve_into", "weak_solve_status",
           "weak_solve_status_lines"]

#: Positions one leaf job may explore before it answers "unknown".
DEFAULT_JOB_BUDGET = 200_000
#: Times a job out of budget is run again, with 4 times the budget each time, before the
#: master expands its position (`SearchSettings.job_retries`).
DEFAULT_JOB_RETRIES = SearchSettings.job_retries
#: Megabytes of the table each worker's leaf search keeps from job to job
#: (`SearchSettings.job_table_bytes`).
DEFAULT_JOB_TABLE_MB = SearchSettings.job_table_bytes >> 20
MIN_JOB_TABLE_MB, MAX_JOB_TABLE_MB = 1, 1 << 20
#: The leaf solver of `solve smallholder --weak` (a name of `LEAF_SOLVERS`).
DEFAULT_LEAF_SOLVER = "exact"
#: Boards the weak solve takes (the leaf solvers' limit: one colour's stones in 63 bits).
MAX_WEAK_CELLS = 63


@dataclass
class WeakSolveReport:
    game: str
    rules: str
    root: str
    executor: str
    value: str  # for the side to move at the root: win, loss, draw, or unknown (unfinished)
    winner: str | None
    goals: list[GoalResult]
    seconds: float
    first_moves: dict[str, str] = field(default_factory=dict)

    def as_json(self) -> dict[str, Any]:
        return {"game": "smallholder", "rules": self.rules, "root": self.root, "executor": self.executor,
                "value": self.value, "winner": self.winner, "seconds": round(self.seconds, 2),
                "first_moves": self.first_moves, "goals": [g.as_json() for g in self.goals]}

    def text(self) -> str:
        mover = COLOUR_NAMES[self.root.split()[-1]]
        if self.winner is not None:
            head = f"{COLOUR_NAMES[self.winner]} wins (proved)"
        elif self.value == "draw":
            head = "a draw: neither side can force a win (both disproved)"
        else:
            head = "not settled yet (progress below; run the same command to go on)"
        lines = [f"smallholder {self.rules} from {self.root!r} ({mover} to move): {head}"]
        for goal in self.goals:
            pn = "inf" if goal.root_pn >= INF else goal.root_pn
            dn = "inf" if goal.root_dn >= INF else goal.root_dn
            length = f", proof length {goal.proof_length} plies" if goal.proof_length is not None else ""
            lines.append(f"  {COLOUR_NAMES[goal.goal]} wins? {goal.status}: {goal.jobs:,} jobs, {goal.nodes:,} "
                         f"nodes, {goal.settled:,} settled, root pn {pn} dn {dn}{length}, {goal.seconds:.1f} s")
        if self.first_moves:
            wins = [move for move, state in self.first_moves.items() if state == "win"]
            open_moves = [move for move, state in self.first_moves.items() if state == "open"]
            lines.append(f"  winning first moves: {' '.join(wins) or 'none'}"
                         + (f" (not settled: {' '.join(open_moves)})" if open_moves else ""))
        lines.append(f"  executor: {self.executor}, {self.seconds:.1f} s")
        return "\n".join(lines)


def _root(game: Smallholder, root_text: str | None) -> Position:
    return game.start() if root_text is None else game.parse(root_text)


def _progress_event(game: Smallholder, progress: Progress) -> Any:
    def report(p: SearchProgress) -> None:
        pn = "inf" if p.root_pn >= INF else f"{p.root_pn:,}"
        dn = "inf" if p.root_dn >= INF else f"{p.root_dn:,}"
        line = " ".join(p.line) or "-"
        counts = [f"after {' '.join(p.line[:i + 1])}: {proved} of its {children} next positions"
                  + (" up to symmetry" if i == 0 else "") + f" proved, {disproved} disproved"
                  for i, (children, proved, disproved) in enumerate(p.after_moves)]
        how_far = f" ({'; '.join(counts)})" if counts else ""
        progress(ProgressEvent(f"weak solve {game.rules_name}, {COLOUR_NAMES[p.goal]} wins?",
                               f"{p.settled:,} settled, {p.nodes:,} nodes, root pn {pn} dn {dn}, {p.jobs:,} jobs "
                               f"({p.jobs_per_second:.2f}/s, {p.in_flight} running), {p.seconds:.0f} s, "
                               f"most-proving line: {line}{how_far}"))
    return report


def weak_solve_into(store: TablebaseStore, board: str, rules: Rules, *, root_text: str | None = None,
                    node_budget: int = DEFAULT_JOB_BUDGET, job_retries: int = DEFAULT_JOB_RETRIES,
                    solver: str = DEFAULT_LEAF_SOLVER, workers: int | None = None,
                    scheduler: str | None = None, job_max_empty: int | None = None,
                    time_limit: float | None = None, first_moves: bool = False,
                    job_table_mb: int = DEFAULT_JOB_TABLE_MB,
                    progress: Progress | None = None) -> WeakSolveReport:
    """Weakly solve ``root_text`` (default: the empty board) and commit the search to ``store``."""
    if get_board(board).size > MAX_WEAK_CELLS:
        raise ServiceError(f"the weak solve handles boards of at most {MAX_WEAK_CELLS} cells: {board!r}")
    if not isinstance(job_table_mb, int) or not MIN_JOB_TABLE_MB <= job_table_mb <= MAX_JOB_TABLE_MB:
        raise ServiceError(f"the job table must be {MIN_JOB_TABLE_MB} to {MAX_JOB_TABLE_MB} MB: {job_table_mb!r}")
    if solver not in LEAF_SOLVERS:
        raise ServiceError(f"unknown leaf solver (known: {', '.join(LEAF_SOLVERS)}): {solver!r}")
    game = game_of(board, rules)
    root = _root(game, root_text)
    if not game.moves(root):
        raise ServiceError(f"the game is already over in {game.format(root)!r}: nothing to solve")
    in_process = scheduler is None and not workers  # then a leaf job may use every core
    settings = SearchSettings(node_budget=node_budget, job_retries=job_retries, solver=solver, job_max_empty=job_max_empty,
                              time_limit=time_limit, first_moves=first_moves, job_threads=None if in_process else 1,
                              job_table_bytes=job_table_mb << 20)
    started = time.perf_counter()
    callback = _progress_event(game, progress) if progress else None
    try:
        # one writer: a second weak solve (or any solve) into the file is refused while this
        # one runs, so a run still marked running in it was killed
        with store.solve_lock(), open_executor(workers, scheduler) as (executor, slots):
            proofs = ProofStore(store)
            proofs.mark_interrupted()
            result = weak_solve(game, root, executor, slots, settings, proofs, callback)
    except ExecutorError as exc:
        raise ServiceError(str(exc)) from None
    value = result.value_name
    winner = None
    if result.value == WIN:
        winner = root.to_move
    elif result.value == LOSS:
        winner = opponent(root.to_move)
    moves = result.goals[0].first_moves if result.value == WIN else {}
    return WeakSolveReport("smallholder", game.rules_name, game.format(root), describe(workers, scheduler), value,
                           winner, result.goals, time.perf_counter() - started, moves)


def weak_solve_status(store: TablebaseStore) -> list[dict[str, Any]]:
    """Every weak-solve run stored in the file as it stands (nothing is searched, nothing
    written): its rules, root (``from_start``: the empty board) and goal (the colour whose
    win it tries to prove), status (``proved``, ``disproved``, ``unknown``, ``running``, or
    ``unfinished``: stopped before the end, also a run killed before it could mark itself
    so, which the file's solve lock tells apart from one running now), for a running run
    the ``pid`` of the process writing the file (as its lock file gives it; else None),
    when it started and when it last committed (``started``, ``updated``: UTC, ISO 8601; a
    running search commits each time a job ends), the nodes it settled, its jobs and
    seconds, the root's last proof and disproof numbers (counts, or "inf"; None before the first
    commit), for a proved run how far its export is (``proof``: the positions and leaves
    of the proof as `export_proof` writes it, the leaves up to symmetry, and how many of
    those still need their remoteness from the exact search: 0 when an export searches
    nothing; ``{"error": ...}`` when the stored nodes make no proof, a damaged file; None
    for other runs), what the leaf jobs of the run's rules cost (``leaf_jobs``, shared by
    every run of those rules in the file: the positions ``solved`` and their jobs' seconds,
    those on which a job ``ran_out`` of its node budget and the seconds of the last such
    job of each, and how many of those a retry with a larger budget solved), and for each
    move from the root up to symmetry (``moves``: the move, its images, its status
    ``proved`` / ``disproved`` / ``open`` towards the goal) how many of the positions after
    it, up to symmetry, are proved and disproved."""
    proofs = ProofStore(store)
    writer = store.writer()  # a run marked running with nobody writing the file was killed
    runs = []
    for run in proofs.runs(game="smallholder"):
        game = game_for_rules_name(run.rules)
        try:
            root = game.parse(run.root)
        except NotationError as exc:
            raise ServiceError(f"the file's weak solve of {run.rules} is damaged: its root is not a position "
                               f"({exc})") from None
        settled = proofs.settled(run.id)
        names = {1: "proved", -1: "disproved"}
        moves: dict[int, dict[str, Any]] = {}
        for move, child in game.children(root):
            key = game.canonical_key(child)
            if key in moves:
                moves[key]["images"].append(game.move_name(move.cell))
                continue
            after = {game.canonical_key(grandchild) for _, grandchild in game.children(child)}
            statuses = [settled[k][0] for k in after if k in settled]
            moves[key] = {"move": game.move_name(move.cell), "images": [],
                          "status": names.get(settled[key][0], "open") if key in settled else "open",
                          "next_positions": len(after), "proved": statuses.count(1),
                          "disproved": statuses.count(-1)}
        proof: dict[str, Any] | None = None
        if run.status == "proved":
            rows: list[Row] = []
            try:
                pending = _without_remoteness(game, lambda distance: rows.extend(
                    proof_rows(game, root, run.goal, settled, proofs.leaves("smallholder", run.rules), distance)))
            except ProofError as exc:  # a damaged file: said, and the other runs still reported
                proof = {"error": str(exc)}
            else:
                leaves = [game.parse(row.position) for row in rows if row.role == LEAF_ROLE]
                proof = {"positions": len(rows), "leaves": len(leaves),
                         "distinct_leaves": len({game.canonical_key(leaf) for leaf in leaves}),
                         "leaves_without_remoteness": len(pending)}
        solved, attempts = proofs.job_costs("smallholder", run.rules)
        ran_out = {key: cost for key, cost in attempts.items() if cost[0]}  # not the ones no job was sent for
        leaf_jobs = {"solved": len(solved), "solved_seconds": round(sum(s for _, s in solved.values()), 1),
                     "ran_out": len(ran_out), "ran_out_seconds": round(sum(s for _, s in ran_out.values()), 1),
                     "ran_out_then_solved": len(ran_out.keys() & solved.keys())}
        runs.append({"board": game.board.name, "rules": game.rules_name, "spec": game.rules.spec,
                     "named": game.rules.name if game.rules.name != game.rules.spec else None,
                     "root": run.root, "from_start": run.root_key == game.canonical_key(game.start()),
                     "goal": run.goal, "status": run_status(run, writer),
                     "pid": writer if run.status == "running" else None,
                     "started": run.started, "updated": run.updated,
                     "settled": run.settled,
                     "jobs": run.jobs, "seconds": round(run.seconds, 1),
                     "root_pn": run.summary.get("root_pn"), "root_dn": run.summary.get("root_dn"),
                     "proof": proof, "leaf_jobs": leaf_jobs, "moves": list(moves.values())})
    return runs


def weak_solve_status_lines(runs: list[dict[str, Any]]) -> list[str]:
    """`weak_solve_status` as text: a line per run, then a line per move from its root."""
    def count(number: int | str) -> str:  # a proof or disproof number as stored: a count, or "inf"
        return f"{number:,}" if isinstance(number, int) else str(number)

    lines = []
    for run in runs:
        named = run["rules"]
        numbers = "" if run["root_pn"] is None else f"; root pn {count(run['root_pn'])} dn {count(run['root_dn'])}"
        root = "the empty board" if run["from_start"] else run["root"]
        committed = run["updated"].replace("T", " ").removesuffix("Z")[:16]  # to the minute
        writer = f"pid {run['pid']}, " if run["pid"] is not None else ""
        lines.append(f"{named}, {COLOUR_NAMES[run['goal']].capitalize()} wins from {root}? {run['status']} "
                     f"({writer}last commit {committed} UTC): "
                     f"{run['settled']:,} nodes settled, {run['jobs']:,} jobs, {run['seconds']:,.0f} s{numbers}")
        if run["proof"] is not None and "error" in run["proof"]:
            lines.append(f"  proof: none can be exported: {run['proof']['error']}")
        elif run["proof"] is not None:
            proof = run["proof"]
            todo = proof["leaves_without_remoteness"]
            lines.append(f"  proof: {proof['positions']:,} positions, {proof['leaves']:,} leaves "
                         f"({proof['distinct_leaves']:,} up to symmetry); "
                         + (f"{todo:,} of them still need their remoteness ('proof export' searches them)" if todo
                            else "each with its remoteness ('proof export' searches nothing)"))
        jobs = run["leaf_jobs"]
        if jobs["solved"] or jobs["ran_out"]:
            lines.append(f"  leaf jobs of these rules in the file: {jobs['solved']:,} positions solved "
                         f"({jobs['solved_seconds']:,.0f} s); {jobs['ran_out']:,} ran out of a budget "
                         f"({jobs['ran_out_seconds']:,.0f} s, the last attempt of each), "
                         f"{jobs['ran_out_then_solved']:,} of them solved by a retry")
        for move in run["moves"]:
            images = f" (or {', '.join(move['images'])})" if move["images"] else ""
            lines.append(f"  {move['move']}{images}: {move['status']}, {move['proved']} of its "
                         f"{move['next_positions']} next positions proved, {move['disproved']} disproved")
    return lines


def _without_remoteness(game: Smallholder, walk: Callable[[Callable[[Position], int]], object]) -> dict[int, Position]:
    """The leaves a walk of a stored proof meets without a remoteness (canonical key -> the
    first position met): ``walk`` is given a leaf's distance function that searches
    nothing."""
    pending: dict[int, Position] = {}

    def note_pending(pos: Position) -> int:
        pending.setdefault(game.canonical_key(pos), pos)
        return 0

    walk(note_pending)
    return pending


def _export_task(game: Smallholder) -> str:
    return f"proof export {game.rules_name}"


class _LeafRemoteness:
    """The exact remoteness of a proof's leaves whose value alone was proved (the ``value``
    leaf solver), by the exact search without a budget (a leaf job proved the value within
    its budget; the remoteness takes a few times that, BENCHMARKS.md). Each search starts
    from the leaf's proved value and the remoteness of the leaf found last (the proof's
    neighbouring leaves are alike), which saves null-window searches. Each one found is
    stored at once unless the file is read-only, so an export stopped midway goes on from
    there; progress reports each leaf, of the ``pending`` ones, and the time left at the
    pace so far. `distance` searches in-process as the walk asks; `on_cluster` searches
    them all on a Dask cluster's workers first."""

    def __init__(self, game: Smallholder, proofs: ProofStore, leaves: dict[int, tuple[int, int | None]],
                 progress: Progress | None, pending: int) -> None:
        self.game, self.proofs, self.leaves, self.progress, self.pending = game, proofs, leaves, progress, pending
        self.found: dict[int, int] = {}  # canonical key -> remoteness (a leaf the proof reaches twice)
        self.storing = not proofs.store.readonly
        self.started: float | None = None  # when the first search began

    def guess(self, key: int, pos: Position) -> Outcome:
        """Where a leaf's search starts: its proved value, the last leaf's remoteness (or,
        for the first, its empty cells)."""
        if self.started is None:
            self.started = time.perf_counter()
        last = next(reversed(self.found.values())) if self.found else (
            self.game.board.size - (pos.black | pos.white).bit_count())
        return Outcome(self.leaves[key][0], last)

    def keep(self, key: int, pos: Position, outcome: Outcome | None, seconds: float) -> int:
        """Record what a leaf's search found (stored, reported); its remoteness."""
        if outcome is None or outcome.remoteness is None:
            raise ProofError(f"the exact search found no remoteness for the leaf {self.game.format(pos)!r}")
        self.found[key] = outcome.remoteness
        note = ""
        if self.storing:
            try:
                self.proofs.record_remoteness("smallholder", self.game.rules_name, key, outcome.remoteness)
            except StoreError as exc:  # the export goes on; only a later one redoes the search
                self.storing = False
                note = f"; not stored: {exc}"
        if self.progress is not None:
            assert self.started is not None
            left = (time.perf_counter() - self.started) / len(self.found) * max(self.pending - len(self.found), 0)
            self.progress(ProgressEvent(_export_task(self.game),
                                        f"leaf {self.game.format(pos)}: remoteness {outcome.remoteness} in "
                                        f"{seconds:.1f} s (about {left / 60:.0f} min left){note}",
                                        len(self.found), self.pending))
        return outcome.remoteness

    def distance(self, pos: Position) -> int:
        """A leaf's remoteness: found before, or by the search in-process now."""
        key = self.game.canonical_key(pos)
        if key in self.found:
            return self.found[key]
        guess = self.guess(key, pos)
        started = time.perf_counter()
        outcome = exact_search(self.game).solve(pos, guess=guess)
        return self.keep(key, pos, outcome, time.perf_counter() - started)

    def on_cluster(self, positions: dict[int, Position], workers: int | None, scheduler: str | None) -> None:
        """Find the remoteness of ``positions`` (canonical key -> a position) on the cluster
        (`open_executor`), twice as many at a time as it has slots; the master stores them."""
        game = self.game
        calls = (((key, pos), leaf_remoteness,
                  (game.board.name, game.rules.spec, game.format(pos), self.guess(key, pos)))
                 for key, pos in positions.items())
        with open_executor(workers, scheduler) as (executor, slots):
            for (key, pos), (outcome, seconds) in as_finished(executor, slots, calls):
                self.keep(key, pos, outcome, seconds)


def run_status(run: Any, writer: str | None) -> str:
    """A stored run's status as the user is told it: one marked ``running`` while no
    process writes the file (``writer``, `TablebaseStore.writer`) was killed: "unfinished"."""
    return "unfinished" if run.status == "running" and writer is None else run.status


def export_proof(store: TablebaseStore, board: str, rules: Rules, root_text: str | None = None,
                 progress: Progress | None = None, workers: int | None = None,
                 scheduler: str | None = None) -> Iterator[str]:
    """The TSV lines of the stored proof of ``root_text`` (default: the empty board). A
    leaf whose value alone was proved gets its remoteness from the exact search, which is
    stored in ``store`` (unless opened read-only) for later exports; with ``workers`` (a
    local Dask cluster) or ``scheduler`` (a cluster's address) those searches run on the
    cluster's workers, one leaf per worker thread at a time."""
    game = game_of(board, rules)
    root = _root(game, root_text)
    proofs = ProofStore(store)
    key = game.canonical_key(root)
    runs = [run for colour in (root.to_move, opponent(root.to_move))
            if (run := proofs.find_run("smallholder", game.rules_name, key, colour)) is not None]
    proved = [run for run in runs if run.status == "proved"]
    disproved = [run for run in runs if run.status == "disproved"]
    leaves = proofs.leaves("smallholder", game.rules_name)
    drawn = not proved and len(disproved) == 2  # a draw: each disproof is the other side's drawing strategy
    if not proved and not drawn:
        writer = store.writer()
        what = (", ".join(f"{COLOUR_NAMES[run.goal]} wins? {run_status(run, writer)}" for run in runs)
                or "no weak solve stored")
        raise ServiceError(f"no proof of {game.format(root)!r} under {game.rules_name} in {str(store.path)!r} "
                           f"({what}); run 'tablebase solve smallholder --weak' first (a stored run goes on "
                           f"where it stopped)")

    def strategies(distance: Callable[[Position], int]) -> dict[str, list[Row]]:
        """The rows of each strategy (the winner's, or both sides' in a draw) by holder."""
        try:
            if drawn:
                return {opponent(run.goal): list(holding_rows(game, root, opponent(run.goal), proofs.settled(run.id),
                                                              leaves, distance))
                        for run in sorted(disproved, key=lambda run: run.goal == root.to_move)}
            return {proved[0].goal: list(proof_rows(game, root, proved[0].goal, proofs.settled(proved[0].id),
                                                    leaves, distance))}
        except ProofError as exc:
            raise ServiceError(str(exc)) from None

    pending = _without_remoteness(game, strategies)
    if pending and progress is not None:
        progress(ProgressEvent(_export_task(game), f"{len(pending):,} leaves to give a remoteness by the exact search"
                               + (f" ({describe(workers, scheduler)})" if workers or scheduler else "")))
    remoteness = _LeafRemoteness(game, proofs, leaves, progress, len(pending))
    if pending and (workers or scheduler):
        try:
            remoteness.on_cluster(pending, workers, scheduler)
        except ExecutorError as exc:
            raise ServiceError(str(exc)) from None
    found = strategies(remoteness.distance)
    if drawn:
        yield from draw_lines(game, root, found, _notes(disproved, sum(len(rows) for rows in found.values())))
        return
    rows = found[proved[0].goal]
    yield from proof_header(game, root, proved[0].goal, _notes(proved[:1], len(rows)))
    yield from format_rows(rows)


def _notes(runs: list[Any], rows: int) -> list[str]:
    """The export's comment lines on how its runs were found."""
    run = runs[0]
    return [f"leaves: exact results of the {run.solver} leaf solver (node budget {run.node_budget:,})"
            + ("; their remoteness by the exact search" if run.solver == "value" else ""),
            f"positions: {rows:,} rows; search: {sum(r.jobs for r in runs):,} jobs, {sum(r.seconds for r in runs):.0f} s"]


def _lines(path: Path) -> Iterator[str]:
    opener = gzip.open if path.suffix == ".gz" else open
    try:
        with opener(path, "rt", encoding="utf-8") as handle:  # type: ignore[operator]
            yield from handle
    except (OSError, UnicodeDecodeError, EOFError) as exc:
        raise ServiceError(f"cannot read the proof file {str(path)!r} ({exc})") from None


def check_proof_file(path: str | Path, check_budget: int = DEFAULT_CHECK_BUDGET,
                     progress: Progress | None = None, leaf_check: str = DEFAULT_LEAF_CHECK,
                     journal: str | Path | None = None, workers: int | None = None,
                     scheduler: str | None = None, search: bool = True) -> CheckReport:
    """Verify a proof file (plain or .gz) by the rules alone; ServiceError names the problem
    (see `check_proof_lines`)."""
    path = Path(path)
    if not path.is_file():
        raise ServiceError(f"no proof file at {str(path)!r}")
    if journal is not None and Path(journal).resolve() == path.resolve():
        raise ServiceError(f"the check journal cannot be the proof file itself: {str(path)!r}")
    return check_proof_lines(_lines(path), str(path), check_budget, progress, leaf_check, journal, workers, scheduler,
                             search)


def check_proof_lines(lines: Iterable[str], name: str, check_budget: int = DEFAULT_CHECK_BUDGET,
                      progress: Progress | None = None, leaf_check: str = DEFAULT_LEAF_CHECK,
                      journal: str | Path | None = None, workers: int | None = None,
                      scheduler: str | None = None, search: bool = True) -> CheckReport:
    """Verify a proof given as its lines (``name`` says where they come from, in errors);
    with ``journal`` (a file's path), what big leaves' re-checks find is kept there and
    taken from there by a later check of the same rules, board and leaf check
    (`db.check_journal`). With ``workers`` (a local Dask cluster) or ``scheduler`` (a
    cluster's address), the compiled re-solves of big leaves run on its workers. With
    ``search`` False, a big leaf the journal does not answer is a `SolveNotAsked` error
    instead of a search (minutes or hours): the check then takes seconds."""

    def report(text: str) -> None:
        if progress:
            progress(ProgressEvent(f"check --proof {Path(name).name}", text))

    if (workers or scheduler) and leaf_check != "search":
        raise ServiceError(f"a cluster runs the compiled re-solves of big leaves (leaf check 'search'), "
                           f"not the leaf check {leaf_check!r}")
    try:
        with open_executor(workers, scheduler) as (executor, slots):
            return check_proof(lines, check_budget, report, leaf_check,
                               None if journal is None else CheckJournal(journal),
                               None if isinstance(executor, InlineExecutor) else executor, slots, search)
    except LeafSearchNeeded as exc:
        raise SolveNotAsked(f"checking the proof {name!r} would re-solve a leaf by the search ({exc}): give --solve "
                            f"to go ahead, or run 'tablebase check --proof {name} --journal FILE' first") from None
    except ExecutorError as exc:
        raise ServiceError(str(exc)) from None
    except (ProofError, NotationError) as exc:
        raise ServiceError(f"{name!r} is not a valid proof: {exc}") from None
    except StoreError as exc:
        raise ServiceError(str(exc)) from None
