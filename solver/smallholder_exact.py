"""Exact Smallholder results for positions no table holds: a pruning search.

`ExactSearch(game).analyse(pos, budget)` gives the value of ``pos`` for the side to move,
its exact remoteness in the tables' convention (the winner hurries, the loser holds
out) and the value and remoteness of every legal move, or "unknown" when a budget runs
out. The work is MTD(f): a sequence of null-window alpha-beta searches on
remoteness-encoded scores (`solver/smallholder_exact_kernel.py`, compiled with numba),
sharing a transposition table of bounds keyed by canonical position.

Exact on cyclic graphs: a repetition of the current line scores as a draw, and only
results that relied on no repetition above them are kept, so the table holds true
bounds of positions, never path-dependent ones. docs/solver.md gives the argument that
the root's score in this game-with-repetition-draws is the position's true value and
remoteness, draws included.

Budgets: ``seconds`` is wall-clock (checked every few thousand positions, so the answer
comes within milliseconds of it), ``nodes`` counts positions searched, and the table's
size is bounded at construction (``table_bytes``). The table starts small and doubles
as it fills, so a short search touches little memory; at its bound a full table
replaces its least valuable entries.
"""

from __future__ import annotations

import functools
import numbers
import os
import signal
import threading
import time
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, Callable, Iterator, Sequence, TypeVar, cast

import numpy as np

from tablebase.games.base import DRAW, LOSS, WIN
from tablebase.games.smallholder import BLACK, Position, Smallholder
from tablebase.games.smallholder import compiled
from tablebase.solver import smallholder_exact_kernel as kernel
from tablebase.solver.smallholder_split import SplitSearch
from tablebase.solver.probe import MoveOutcome, Outcome

#: Default size limit of the in-memory transposition table.
DEFAULT_TABLE_BYTES = 1 << 30
#: Bytes per table entry (two key words and a data word: bounds, a move, a work estimate).
ENTRY_BYTES = 8 + 8 + 8
#: Entries the table starts with (it doubles as it fills, up to its size limit).
FIRST_TABLE_ENTRIES = 1 << 16
#: Threads an analysis searches its moves on by default (one per core, at most two).
DEFAULT_THREADS = max(1, min(2, os.cpu_count() or 1))
#: Largest board the search handles (one colour's stones in a 64-bit word, a spare bit).
MAX_CELLS = 62
#: Positions with at most this many stones are keyed by their canonical form, later ones
#: as they stand (`kernel.table_pair`). Measured (BENCHMARKS.md): analysing every move of
#: a middlegame position takes about 30 % less time with positions as they stand, while a
#: value-only search from an early position (the weak solve's jobs) gains more from
#: merging symmetric images, so those pass ``canonical_stones`` = the board's size.
CANONICAL_STONES = 8

#: A value search from a position with at least this many empty cells runs on all the
#: search's threads (`solver/smallholder_split.py`). Measured on limping3 nibbler
#: (BENCHMARKS.md, medians): 0.92x the time at 17 empty cells, 0.56x at 19, 0.69x at 21.
SPLIT_EMPTY = 16
#: MTD(f) tests in a row that move a bound the same way before it tests the value itself
#: (BENCHMARKS.md: one 20-empty hex4 analysis 3,814 tests -> 56; 0.98-0.998x the positions)
MTD_CREEP = 2

#: progress(nodes, depth, line): called about once a second on long searches.
Progress = Callable[[int, int, str], None]


@dataclass(frozen=True)
class Budget:
    """Limits of one analysis; None means no limit. ``seconds`` count from the
    analysis's start, or from ``since`` (a `time.perf_counter` instant, e.g. when a
    command started, so that its start-up counts against the bound too) when given."""

    seconds: float | None = None
    nodes: int | None = None
    since: float | None = None

    def __post_init__(self) -> None:
        if self.since is not None and (not isinstance(self.since, numbers.Real) or isinstance(self.since, bool)):
            raise ValueError(f"a clock's start is a time.perf_counter instant: {self.since!r}")
        # `not x >= 0` also refuses NaN, which would never run out
        if self.seconds is not None and (not isinstance(self.seconds, numbers.Real) or not self.seconds >= 0):
            raise ValueError(f"a time budget is a number of seconds, at least 0: {self.seconds!r}")
        if self.nodes is not None and (not isinstance(self.nodes, numbers.Integral) or isinstance(self.nodes, bool)
                                       or self.nodes < 0):
            raise ValueError(f"a node budget is a whole number of positions, at least 0: {self.nodes!r}")


@dataclass
class Analysis:
    """The answer of `ExactSearch.analyse`: ``outcome`` None means unknown."""

    position: str
    to_move: str
    outcome: Outcome | None
    moves: list[MoveOutcome] | None
    nodes: int
    seconds: float
    #: how many of the moves were settled before a budget ran out
    settled: int = 0
    line: list[str] = field(default_factory=list)

    @property
    def exact(self) -> bool:
        return self.outcome is not None and self.moves is not None

    def as_json(self) -> dict:
        return {
            "position": self.position,
            "to_move": self.to_move,
            "value": None if self.outcome is None else self.outcome.name,
            "remoteness": None if self.outcome is None else self.outcome.remoteness,
            "moves": None if self.moves is None else [
                {"cell": m.cell, "name": m.name, "value": m.outcome.name, "remoteness": m.outcome.remoteness}
                for m in self.moves],
            "nodes": self.nodes,
            "seconds": round(self.seconds, 3),
        }


def outcome_of_score(score: int) -> Outcome:
    if score > 0:
        return Outcome(WIN, kernel.WIN_SCORE - score)
    if score < 0:
        return Outcome(LOSS, kernel.WIN_SCORE + score)
    return Outcome(DRAW, None)


def score_of_outcome(outcome: Outcome) -> int:
    if outcome.value == WIN:
        return kernel.WIN_SCORE - (outcome.remoteness or 0)
    if outcome.value == LOSS:
        return -(kernel.WIN_SCORE - (outcome.remoteness or 0))
    return 0


@contextmanager
def _interruptible() -> Iterator[None]:
    """Ctrl-C during a compiled search: the search stops at its next look at the clock
    (within milliseconds), and then the handler it replaced acts on it here, in Python
    (Python's default raises KeyboardInterrupt; so does a Dask run's, or it defers it).
    Only the main thread handles signals; elsewhere (a web server's worker), or where
    Ctrl-C is ignored or left to the system (a cluster's worker process), nothing changes."""
    previous = signal.getsignal(signal.SIGINT)
    if threading.current_thread() is not threading.main_thread() or not callable(previous):
        yield
        return
    kernel.INTERRUPTED[0] = False

    def defer(signum: int, frame: object) -> None:
        kernel.INTERRUPTED[0] = True

    signal.signal(signal.SIGINT, defer)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
        interrupted, kernel.INTERRUPTED[0] = kernel.INTERRUPTED[0], False
    if interrupted:
        previous(signal.SIGINT, None)


_Method = TypeVar("_Method", bound=Callable[..., Any])


def _one_at_a_time(method: _Method) -> _Method:
    """The method holds the search's lock: one search's buffers serve one caller at a
    time (a second thread calling the same ExactSearch waits, it never mixes lines)."""

    @functools.wraps(method)
    def locked(self: "ExactSearch", *args: object, **kwargs: object) -> object:
        with self._using:
            return method(self, *args, **kwargs)

    return cast(_Method, locked)


class _Worker:
    """One thread's part of a search: its own line, move buffers, history, killers, counters;
    the table, the budget's deadline and the stop flag are the search's, shared."""

    def __init__(self, rules_tables: object, tt: np.ndarray, control: np.ndarray, deadline: np.ndarray,
                 index: int) -> None:
        p, m = kernel.MAX_PLY, kernel.MAX_MOVES
        self.index = index
        self.state = np.zeros(kernel.STATE_SLOTS, np.int64)
        #: the rows where this thread stored proved results worth keeping (`ExactSearch.proved`)
        self.row_log = kernel.new_row_log(ROW_LOG_MIN_WORK, PRELOADED_WORK)
        #: the search's arrays and the rules' tables, kept alive here: the kernel gets their
        #: addresses (`kernel.buffers`)
        self.rules_tables = rules_tables
        self.arrays = (tt, control, np.zeros(p, np.uint64), np.zeros(p, np.uint64),
                       np.zeros((p, m), np.int64), np.zeros((p, m), np.uint64), np.zeros((p, m), np.uint64),
                       np.zeros((p, m), np.int64), np.zeros((p, m), np.int64), np.zeros(64, np.int64),
                       np.full((p, 2), -1, np.int64), self.state, deadline,
                       np.zeros((p + 1, kernel.WORKSPACE), np.uint64), self.row_log)
        self.ctx = kernel.buffers(rules_tables, *self.arrays)

    def reset(self, budget: Budget, mobility: bool, mobility_empty: int, canon_empty: int, etc_empty: int) -> None:
        self.state[:] = 0
        self.state[kernel.THREAD] = self.index
        self.state[kernel.MOBILITY] = mobility
        self.state[kernel.MOBILITY_EMPTY] = mobility_empty
        self.state[kernel.CANON_EMPTY] = canon_empty
        self.state[kernel.ETC_EMPTY] = etc_empty
        self.state[kernel.NODE_LIMIT] = budget.nodes if budget.nodes is not None else np.iinfo(np.int64).max

    def window(self, m: int, w: int, alpha: int, beta: int) -> int | None:
        score, _ = kernel.search(np.uint64(m), np.uint64(w), compiled.UNKNOWN_HELD, alpha, beta, 0, 0, self.ctx)
        return None if self.state[kernel.ABORTED] else int(score)


class ExactSearch:
    """The exact search for one ruleset and board; its transposition table lives as long
    as the object, so later analyses reuse what earlier ones proved. Safe to share between
    threads: its searches run one at a time (each may itself use `threads` threads)."""

    def __init__(self, game: Smallholder, table_bytes: int = DEFAULT_TABLE_BYTES, mobility: bool = True,
                 canonical_stones: int = CANONICAL_STONES, threads: int = DEFAULT_THREADS,
                 split_empty: int = SPLIT_EMPTY, etc_empty: int = kernel.DEFAULT_ETC_EMPTY,
                 mtd_creep: int = MTD_CREEP) -> None:
        self.mobility = mobility
        #: MTD(f) tests a position's value after this many tests in a row moved one bound
        self.mtd_creep = mtd_creep
        #: MTD(f)'s null-window tests in the latest search, all threads (a benchmark figure)
        self.tests = 0
        #: children are looked up in the table before any is searched only at positions
        #: with more empty cells than this (never below `kernel.TABLE_EMPTY`)
        self.etc_empty = max(kernel.TABLE_EMPTY, etc_empty)
        #: `value` runs on all threads from positions with at least this many empty cells
        self.split_empty = split_empty
        self._searching: Position | None = None
        self._using = threading.RLock()
        self.mobility_empty = kernel.DEFAULT_MOBILITY_EMPTY
        if game.board.size > MAX_CELLS:
            raise ValueError(f"the exact search handles boards up to {MAX_CELLS} cells, "
                             f"not {game.board.name} ({game.board.size})")
        self.game = game
        self.rules_tables = compiled.tables(game.board, game.rules)
        #: positions with at least this many empty cells are keyed by their canonical form
        self.canon_empty = max(0, game.board.size - canonical_stones)
        entries = 1 << max(10, (max(table_bytes, 1024 * ENTRY_BYTES) // ENTRY_BYTES).bit_length() - 1)
        self.table_entries = entries
        #: the table (`kernel.tt_find`): key words ``m ^ data``, ``(w | USED) ^ data``, data;
        #: its last row holds the mask of the rows in use, which double as they fill
        #: (`kernel.tt_grow`). Memory is only touched as rows come into use.
        self.tt = np.zeros((entries + 1, 3), np.uint64)
        self.tt[entries, 0] = min(entries, FIRST_TABLE_ENTRIES) - 1
        #: the table's count of growths at the latest `proved` (a growth moves entries away
        #: from the rows the row logs noted)
        self._moved_at_proved = 0
        self.threads = max(1, threads)
        self.control = np.zeros(kernel.CONTROL_NODES + self.threads, np.int64)
        self.deadline = np.zeros(1, np.float64)
        self._workers = [_Worker(self.rules_tables, self.tt, self.control, self.deadline, k)
                         for k in range(self.threads)]
        #: the first thread's counters (every search but an analysis runs on it alone)
        self.state = self._workers[0].state
        #: the rows the split search's own stores note (`SplitSearch`: its Python threads
        #: store while the threads' compiled searches write their own row logs)
        self.split_row_log = kernel.new_row_log(ROW_LOG_MIN_WORK, PRELOADED_WORK)

    # -- keys ------------------------------------------------------------------------

    def canonical_pair(self, pos: Position) -> tuple[int, int]:
        """The canonical (mover, waiter) pair of ``pos`` (how files store results)."""
        m, w = kernel.canonical_pair(np.uint64(pos.mover), np.uint64(pos.waiter), self.rules_tables)
        return int(m), int(w)

    def table_pair(self, pos: Position) -> tuple[int, int]:
        """The (mover, waiter) pair the search keys ``pos`` by (`kernel.table_pair`)."""
        m, w = kernel.table_pair(np.uint64(pos.mover), np.uint64(pos.waiter), self.rules_tables, self.canon_empty)
        return int(m), int(w)

    def _stored_score(self, pos: Position) -> int | None:
        """The exact score the table holds for ``pos`` under its table form or, for
        results loaded from a file, its canonical form."""
        for m, w in {self.table_pair(pos), self.canonical_pair(pos)}:
            entry, data = kernel.tt_find(self.tt, np.uint64(m), np.uint64(w))
            if entry >= 0 and kernel.data_lo(data) == kernel.data_hi(data):
                return int(kernel.data_lo(data))
        return None

    def known(self, pos: Position) -> Outcome | None:
        """The exact result the table holds for ``pos``, if any."""
        score = self._stored_score(pos)
        return None if score is None else outcome_of_score(score)

    @_one_at_a_time
    def remember(self, pos: Position, outcome: Outcome) -> None:
        """Put a proved result (from a stored table) into the in-memory table."""
        m, w = self.table_pair(pos)
        score = score_of_outcome(outcome)
        kernel.tt_store(self.tt, np.uint64(m), np.uint64(w), score, score, -1, 60, self.state,
                        self._workers[0].row_log)

    # -- search ----------------------------------------------------------------------

    def _window(self, m: int, w: int, alpha: int, beta: int) -> int | None:
        with _interruptible():
            return self._workers[0].window(m, w, alpha, beta)

    @_one_at_a_time
    def score(self, pos: Position, guess: int = 0) -> int | None:
        """The exact score of ``pos`` (MTD(f) from the first ``guess``), or None when the
        budget ran out. A good guess saves null-window searches, never changes the answer."""
        self._searching = pos
        with _interruptible():
            return self._mtd(self._workers[0], pos, guess)

    def _mtd(self, worker: _Worker, pos: Position, guess: int, split: SplitSearch | None = None) -> int | None:
        """MTD(f) on ``worker``, or on all workers through ``split``."""
        m, w = self.table_pair(pos)
        stored = self._stored_score(pos)
        if stored is not None:
            # a result loaded from a file sits under the canonical form, which the search
            # of a parent does not look up below `canon_empty` empty cells: put it where
            # it does (the probed position after its moves' results, above all)
            kernel.tt_store(self.tt, np.uint64(m), np.uint64(w), stored, stored, -1, PRELOADED_WORK, worker.state,
                            worker.row_log)
            return stored
        lower, upper = -kernel.INF, kernel.INF
        falls = rises = 0  # tests in a row that failed low / high
        while lower < upper:
            beta = guess + 1 if guess == lower else guess
            self.tests += 1
            g = worker.window(m, w, beta - 1, beta) if split is None else split.search(pos, beta)
            if g is None:
                return None
            if g < beta:
                upper, falls, rises = g, falls + 1, 0
            else:
                lower, falls, rises = g, 0, rises + 1
            guess = g
            # A bound that creeps (a repetition moves a depth-bounded test's bound by one
            # cycle a test) towards the other side of a value is settled by a test of the
            # value itself: "a win?" after wins kept failing, "a loss?" after losses held.
            if falls >= self.mtd_creep and 0 < guess < kernel.INF and lower < 1:
                guess = 1
            elif rises >= self.mtd_creep and -kernel.INF < guess < 0 and upper > -1:
                guess = 0
        return lower

    def _start(self, budget: Budget, progress: Progress | None) -> float:
        started = time.perf_counter()
        self.control[:] = 0
        self.tests = 0
        for worker in self._workers:
            worker.reset(budget, self.mobility, self.mobility_empty, self.canon_empty, self.etc_empty)
        origin = started if budget.since is None else budget.since
        self.deadline[0] = np.inf if budget.seconds is None else origin + budget.seconds
        last = [started]

        def tick(nodes: int, depth: int) -> None:
            now = time.perf_counter()
            if progress is not None and now - last[0] >= 1.0:
                last[0] = now
                line = self.favoured_line(self._searching) if self._searching is not None else []
                progress(nodes, depth, " ".join(self.game.move_name(cell) for cell in line))

        kernel.PROGRESS[0] = tick
        return started

    def favoured_line(self, pos: Position, limit: int = 12) -> list[int]:
        """The moves the table currently holds as best from ``pos`` (the line the search
        favours so far, for progress reports; not a proved line): each step reads the
        stored best move of the position's table form and maps it back to ``pos``'s
        own orientation."""
        board = self.game.board
        line: list[int] = []
        seen = set()
        while len(line) < limit:
            m, w = self.table_pair(pos)
            entry, data = kernel.tt_find(self.tt, np.uint64(m), np.uint64(w))
            if entry < 0 or kernel.data_move(data) < 0 or (m, w) in seen:
                break
            seen.add((m, w))
            symmetry = _symmetry_onto(self.game, pos, m, w)
            cell = board.symmetries[symmetry].index(int(kernel.data_move(data)))
            if cell not in self.game.legal_moves(pos):
                break
            line.append(cell)
            pos = self.game.play(pos, cell)
        return line

    @_one_at_a_time
    def solve(self, pos: Position, budget: Budget = Budget(), progress: Progress | None = None,
              guess: Outcome | None = None) -> Outcome | None:
        """The exact outcome of ``pos`` for the side to move, or None (unknown). A
        ``guess`` of it (a claim being checked, a sibling's outcome) is where MTD(f)
        starts: the nearer the fewer null-window searches (BENCHMARKS.md), the answer
        the same whatever it is."""
        self._start(budget, progress)
        self._searching = pos
        return self._outcomes([pos], first_guess=0 if guess is None else score_of_outcome(guess))[0]

    @_one_at_a_time
    def value(self, pos: Position, budget: Budget = Budget(), progress: Progress | None = None) -> int | None:
        """The value of ``pos`` for the side to move (WIN, LOSS or DRAW) without its
        remoteness, or None (unknown): at most two null-window searches, "a win?" and
        then, if the first one's bound leaves a draw open, "a loss?". Cheaper than `solve`
        (no remoteness to pin down: 1.2 to 3.8 times fewer positions on limping3,
        BENCHMARKS.md); what a proof-number search needs of its leaves."""
        self._start(budget, progress)
        self._searching = pos
        if not self.game.moves(pos):
            return LOSS
        stored = self._stored_score(pos)
        if stored is not None:
            return outcome_of_score(stored).value
        split = self._split(pos)  # one for both searches: the second starts from its killers
        with _interruptible():
            g = self._null_window(pos, 1, split)  # g >= 1 proves a win, g < 0 already a loss
            if g == 0:
                g = self._null_window(pos, 0, split)
        if g is None:
            return None
        return WIN if g > 0 else LOSS if g < 0 else DRAW

    @_one_at_a_time
    def null_window(self, pos: Position, t: int, budget: Budget = Budget(),
                    progress: Progress | None = None) -> int | None:
        """One fail-soft null-window search of ``pos`` (window ``t - 1, t`` on the scores of
        the module doc): a result ``g >= t`` is a lower bound of its score, ``g < t`` an
        upper bound; None: unknown. `value` is one or two of these (at 1: "a win?", at 0:
        "a loss?")."""
        self._start(budget, progress)
        self._searching = pos
        with _interruptible():
            return self._null_window(pos, t, self._split(pos))

    def _null_window(self, pos: Position, t: int, split: SplitSearch | None) -> int | None:
        if split is not None:
            return split.search(pos, t)
        m, w = self.table_pair(pos)
        return self._workers[0].window(m, w, t - 1, t)

    def _split(self, pos: Position) -> SplitSearch | None:
        """The split of `solver/smallholder_split.py` over all threads, for a position
        with at least `split_empty` empty cells (None: one thread does)."""
        empty = self.game.board.size - (pos.black | pos.white).bit_count()
        if self.threads < 2 or empty < self.split_empty:
            return None
        return SplitSearch(self, self._workers, _symmetry_onto)

    def _scores(self, positions: Sequence[Position], first_guess: int = 0) -> list[int | None]:
        """The exact scores of ``positions`` (None: unknown), searched on `threads` threads
        at once that share the table, each taking the next position not yet taken; the
        scores do not depend on it. Each thread's first MTD(f) starts at ``first_guess``.
        Call `_start` first: the budget holds for them all."""
        scores: list[int | None] = [None] * len(positions)
        # one position alone is split over the threads (`_split`), several take one each
        split = self._split(positions[0]) if len(positions) == 1 else None
        todo = iter(range(len(positions)))
        taking = threading.Lock()
        failures: list[BaseException] = []

        def run(worker: _Worker) -> None:
            guess = first_guess  # siblings tend to have close scores: start each MTD(f) at the previous one
            try:
                while not self.control[kernel.STOP]:
                    with taking:
                        i = next(todo, None)
                    if i is None:
                        return
                    score = self._mtd(worker, positions[i], guess, split)
                    if score is None:
                        return
                    scores[i] = guess = score
            except BaseException as error:  # re-raised by the calling thread
                failures.append(error)
                self.control[kernel.STOP] = 1

        helpers = [threading.Thread(target=run, args=(worker,), daemon=True)
                   for worker in self._workers[1:len(positions)]]
        with _interruptible():
            for helper in helpers:
                helper.start()
            run(self._workers[0])
            for helper in helpers:
                helper.join()
        if failures:
            raise failures[0]
        return scores

    def _outcomes(self, positions: Sequence[Position], last_alone: bool = False,
                  first_guess: int = 0) -> list[Outcome | None]:
        """The exact outcomes of ``positions`` for their side to move (None: unknown): a
        finished game is a loss in 0, the others are searched (`_scores`, from
        ``first_guess``), those with the fewest legal moves first. With ``last_alone`` the
        last one is searched only once the others are done.

        The order changes no answer, only the work: a move's MTD(f) starts from its
        sibling's score, and a move that leaves the opponent few replies tends to win, so
        the winning moves come together, then the losing ones, and fewer tests start on
        the wrong side of a value (BENCHMARKS.md: 0.89x the time of nine 24-empty
        ``hex4`` analyses)."""
        game = self.game
        replies = [len(game.moves(pos)) for pos in positions]
        playing = [i for i in range(len(positions)) if replies[i]]
        batches = [playing[:-1], playing[-1:]] if last_alone else [playing]
        batches[0].sort(key=replies.__getitem__)
        outcomes: list[Outcome | None] = [Outcome(LOSS, 0)] * len(positions)
        for batch in batches:
            for i, score in zip(batch, self._scores([positions[i] for i in batch], first_guess)):
                outcomes[i] = None if score is None else outcome_of_score(score)
        return outcomes

    @_one_at_a_time
    def probe_outcomes(self, positions: Sequence[Position], budget: Budget = Budget(),
                       progress: Progress | None = None) -> list[Outcome | None]:
        """The exact outcomes of ``positions`` within one ``budget`` (None: unknown), in a
        probe's order: the moves' positions first, the probed position last, which is
        searched once they are done and then comes quickly from their results."""
        self._start(budget, progress)
        if positions:
            self._searching = positions[-1]
        return self._outcomes(positions, last_alone=True)

    @_one_at_a_time
    def analyse(self, pos: Position, budget: Budget = Budget(), progress: Progress | None = None) -> Analysis:
        """Value and remoteness of ``pos`` and of every move, best first (unknown: None).
        The moves are searched on `threads` threads at once (`_scores`)."""
        started = self._start(budget, progress)
        game = self.game
        self._searching = pos
        children = game.children(pos)
        outcomes = self._outcomes([child for _, child in children])
        seconds = time.perf_counter() - started
        nodes = self.searched()
        settled = sum(outcome is not None for outcome in outcomes)
        if settled < len(children):
            return Analysis(game.format(pos), pos.to_move, None, None, nodes, seconds, settled)
        moves = [MoveOutcome(move.cell, game.move_name(move.cell), outcome.for_mover())
                 for (move, _), outcome in zip(children, outcomes) if outcome is not None]
        moves.sort(key=lambda m: (m.outcome.preference(), m.cell))
        outcome = moves[0].outcome if moves else Outcome(LOSS, 0)
        return Analysis(game.format(pos), pos.to_move, outcome, moves, nodes, seconds, len(moves))

    @_one_at_a_time
    def principal_variation(self, pos: Position, budget: Budget = Budget(), limit: int = 400,
                            symmetry: int = 0) -> list[int]:
        """The cells of the principal variation from ``pos``: at each ply the lowest-numbered
        move among the best ones (the first move of `analyse`'s order and of the tables'
        probes). Each step needs one null-window test per move tried, not every move's
        exact score: a move is best exactly when its score is no better for the opponent
        than the position's own score allows. A drawn line stops when it comes back to a
        position it has seen; past the budget the line stops where it got to. The search
        follows the line on ``pos``'s image under ``symmetry`` (where an earlier search
        left its results, see `SearchLookup`); the cells and their order are ``pos``'s."""
        self._start(budget, None)
        game = self.game
        board = game.board
        image = board.symmetries[symmetry]
        pos = game.symmetric(pos, symmetry)
        back = [image.index(cell) for cell in range(board.size)]  # the image's cells in ``pos``
        line: list[int] = []
        score = self.score(pos)
        seen = {self.canonical_pair(pos)}  # the tables' probes stop at a canonical repeat too
        while score is not None and len(line) < limit:
            children = sorted(game.children(pos), key=lambda mc: back[mc[0].cell])
            if not children:
                break
            target = int(kernel.to_child(score))  # the score of a best move's position
            chosen = None
            for move, child in children:
                if not game.moves(child):
                    if target == -kernel.WIN_SCORE:
                        chosen = (move, child)
                        break
                    continue
                g = self._stored_score(child)
                if g is None:
                    m, w = self.table_pair(child)
                    g = self._window(m, w, target, target + 1)  # does the child score at most target?
                    if g is None:
                        return line
                if g <= target:
                    chosen = (move, child)
                    break
            if chosen is None:  # cannot happen for an exact score; stop rather than guess
                break
            line.append(back[chosen[0].cell])
            pos, score = chosen[1], target
            pair = self.canonical_pair(pos)
            if not game.moves(pos) or pair in seen:
                break
            seen.add(pair)
        return line

    # -- proved results in and out (a persistent table: service/search_results.py) ------

    @_one_at_a_time
    def proved(self, min_work: int = 0) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """The exact entries of the table (lo == hi: path-independent results) whose
        work estimate (log2 of the positions their proof searched) is at least
        ``min_work``, each given once: leaving out those an earlier call gave and those
        `preload` put there. (movers, waiters, scores, work): the canonical pair of each
        position and its score (see `outcome_of_score`).

        Asked for entries of at least ROW_LOG_MIN_WORK, it reads only the rows the threads'
        row logs noted (`kernel.tt_store`), unless the table grew since the last call or a
        row log overflowed: then, as for a lower ``min_work``, it scans every row in use."""
        row_logs = [worker.row_log for worker in self._workers] + [self.split_row_log]
        moved = int(self.tt[-1, 1])  # how many times the table grew, moving entries
        floor = min(min_work, ROW_LOG_MIN_WORK)
        if (min_work >= ROW_LOG_MIN_WORK and moved == self._moved_at_proved
                and all(row_log[kernel.LOG_COUNT] <= kernel.ROW_LOG_ROWS for row_log in row_logs)):
            # every entry to give is at a row the row logs noted
            head = kernel.ROW_LOG_HEAD
            rows = np.unique(np.concatenate([row_log[head:head + row_log[kernel.LOG_COUNT]] for row_log in row_logs]))
            found = kernel.tt_proved_rows(self.tt, rows, floor, PRELOADED_WORK, min_work)
        else:
            found = kernel.tt_proved(self.tt, self.table_rows(), floor, PRELOADED_WORK, min_work)
        movers, waiters, scores, work, rows = found
        # the row logs start again from the rows of the entries not given yet (more than a
        # log holds count as its overflow: the next call scans)
        chosen = work >= min_work
        kept = rows[~chosen & (work >= ROW_LOG_MIN_WORK)]
        for row_log in row_logs:
            row_log[kernel.LOG_COUNT] = 0
        fits = kept[:kernel.ROW_LOG_ROWS]
        row_logs[0][kernel.ROW_LOG_HEAD:kernel.ROW_LOG_HEAD + len(fits)] = fits
        row_logs[0][kernel.LOG_COUNT] = len(kept)
        self._moved_at_proved = moved
        movers, waiters, scores, work = movers[chosen], waiters[chosen], scores[chosen], work[chosen]
        canonical_movers, canonical_waiters = kernel.canonical_pairs(movers, waiters, self.rules_tables)
        return canonical_movers, canonical_waiters, scores, work

    @_one_at_a_time
    def preload(self, movers: np.ndarray, waiters: np.ndarray, scores: np.ndarray) -> None:
        """Put exact scores proved before into the table (canonical pairs, as `proved`
        gives them); they are marked so that `proved` leaves them out. Later searches
        meet them at positions whose table form is canonical, and every analysis looks
        its moves up in canonical form too (`known`), so a position probed again is
        answered from them."""
        kernel.tt_reserve(self.tt, len(movers))
        kernel.tt_preload(self.tt, np.ascontiguousarray(movers, np.uint64),
                          np.ascontiguousarray(waiters, np.uint64), np.ascontiguousarray(scores, np.int16),
                          PRELOADED_WORK, self.state, self._workers[0].row_log)

    def table_rows(self) -> int:
        """The table's rows in use now (it grows as it fills, up to `table_entries`)."""
        return int(self.tt[-1, 0]) + 1

    def searched(self) -> int:
        """Positions the latest analysis (or lookup call) searched, on all threads."""
        return sum(int(worker.state[kernel.NODES]) for worker in self._workers)

    def position_of_pair(self, mover: int, waiter: int) -> Position:
        """A position of a (mover, waiter) pair, Black to move (the rules are
        colour-symmetric, so its value is the pair's)."""
        return Position(mover, waiter, BLACK)


def look_ahead(game: Smallholder) -> Callable[[Position], tuple[list[int], list[int], list[int]]]:
    """`solver.puzzles.natural_game`'s two-ply look for ``game`` on the compiled rules:
    a position -> (its legal moves, those that win at once, those after which the
    opponent cannot win at once), each by ascending cell."""
    tables = compiled.tables(game.board, game.rules)

    def look(pos: Position) -> tuple[list[int], list[int], list[int]]:
        cells, kinds = kernel.two_ply(np.uint64(pos.black), np.uint64(pos.white), pos.to_move != BLACK, tables)
        moves = cells.tolist()
        return moves, cells[kinds == 1].tolist(), cells[kinds != 2].tolist()
    return look


class SearchLookup:
    """A `solver.probe.Lookup` answering canonical game keys by an exact search; the
    budget holds for each call as a whole (a probe: a position and its children, which
    are searched first, on the search's threads, so that the position itself comes
    quickly from their results: `ExactSearch.probe_outcomes`). Past the budget the
    remaining keys are None (unknown). `line` gives a principal variation at the cost of
    one null-window test per move tried (`ExactSearch.principal_variation`)."""

    def __init__(self, search: ExactSearch, budget: Budget, progress: Progress | None = None) -> None:
        self.search = search
        self.budget = budget
        self.progress = progress

    def __call__(self, keys: Sequence[int]) -> list[Outcome | None]:
        game = self.search.game
        unique = list(dict.fromkeys(reversed(keys)))  # a probe's children first, its position last
        positions = [game.from_key(key) for key in unique]
        if positions:
            # the moves' positions as the probed position's children in its orientation,
            # where its own search (and the principal variation) will look them up
            probed = positions[-1]
            children = {game.canonical_key(child): child for _, child in game.children(probed)}
            positions = [children.get(key, pos) for key, pos in zip(unique, positions)]
        outcomes = self.search.probe_outcomes(positions, self.budget, self.progress)
        found = dict(zip(unique, outcomes))
        return [found[key] for key in keys]

    def line(self, pos: Position) -> list[int]:
        """The principal variation's cells from ``pos`` (shorter past the budget), searched
        in the orientation a probe searched ``pos`` in (that of its canonical key)."""
        game = self.search.game
        searched = game.from_key(game.canonical_key(pos))
        symmetry = _symmetry_onto(game, pos, searched.mover, searched.waiter)
        return self.search.principal_variation(pos, self.budget, symmetry=symmetry)


def _symmetry_onto(game: Smallholder, pos: Position, mover: int, waiter: int) -> int:
    """A board symmetry that maps ``pos`` onto the (mover, waiter) pair of one of its images."""
    return next(s for s in range(len(game.board.symmetries))
                if (image := game.symmetric(pos, s)).mover == mover and image.waiter == waiter)


def search_lookup(search: ExactSearch, budget: Budget, progress: Progress | None = None) -> SearchLookup:
    """The `SearchLookup` of ``search`` within ``budget``."""
    return SearchLookup(search, budget, progress)


#: Version of the search's results as stored in a file (service/search_results.py): a
#: change to what a stored score means, or a fix of a wrong result, bumps it.
SEARCH_VERSION = "1"
#: The work estimate of entries `ExactSearch.preload` puts in the table (above any the
#: search gives, so they are never replaced by cheaper ones and `proved` can skip them).
PRELOADED_WORK = 127
#: `proved` asked for entries of at least this work reads only the rows the threads' row logs
#: noted since its last call (`kernel.tt_store`); asked for less, or after the table grew
#: (which moves entries), it scans every row in use (about 0.1 s a full 1 GB table).
ROW_LOG_MIN_WORK = 8


def scores_of(values: np.ndarray, remoteness: np.ndarray) -> np.ndarray:
    """Search scores of (value, remoteness) arrays (WIN/LOSS/DRAW for the side to move)."""
    values = np.asarray(values, np.int64)
    magnitude = kernel.WIN_SCORE - np.asarray(remoteness, np.int64)
    return np.where(values == DRAW, 0, values * magnitude).astype(np.int16)


def values_of(scores: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(value, remoteness) arrays of search scores (remoteness 0 for a draw)."""
    scores = np.asarray(scores, np.int64)
    values = np.sign(scores).astype(np.int8)
    remoteness = np.where(scores == 0, 0, kernel.WIN_SCORE - np.abs(scores)).astype(np.int16)
    return values, remoteness
