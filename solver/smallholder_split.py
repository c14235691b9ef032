"""One null-window search of the exact search on several threads: the top plies split
"young brothers wait" style (Feldmann's YBWC), the compiled kernel below.

``search(pos, t)`` is the kernel's fail-soft null-window search at ``t`` (scores as in
`solver/smallholder_exact_kernel.py`): a result g >= t proves the score is at least g,
g < t that it is at most g. Over the first ``split_plies`` plies it is worked out here
from the children, a parent reaching ``t`` through a child exactly when the child fails
``to_child(t) + 1``. The children are tried best first, in the kernel's order (a child
the table settles, the last move that settled a node at that ply, fewest replies, a
capture, the workers' history counts): the eldest alone; if it does not settle the node
(which then most likely needs every child), the others as many at once as there are
workers (`_Worker`, one per core), best first. The first child that settles the node
stops its brothers: their kernel searches abort at their next position (their
worker's ``ABORTED`` flag), and what they proved so far stays in the shared table.

Below the split the kernel searches each position as a root, so every result combined
here is path-independent (it never relies on the line above it, cycles included) and
the split is as exact as one search: only the work can differ, never the answer.
"""

from __future__ import annotations

import queue
import threading
from typing import Any

import numpy as np

from tablebase.solver import smallholder_exact_kernel as kernel

#: Plies worked out here above the kernel's searches: at least two (a win's first move
#: and every reply to it, or every move of a loss and each one's first refutation), and
#: from bigger positions down to `SPLIT_LEAF_EMPTY` empty cells, since the eldest
#: brothers' line is searched on one thread alone before the others start (from the
#: empty limping3 board with two plies, that one kernel search ran for over 4 minutes).
SPLIT_PLIES = 2
SPLIT_LEAF_EMPTY = 20
#: index of a worker's history counts (by cell) in its arrays (`_Worker.arrays`)
HISTORY = 9


class _Stop:
    """A cancellable branch of the split: cancelling it cancels the branches below."""

    def __init__(self, parent: "_Stop | None" = None) -> None:
        self.parent = parent
        self.flag = False

    def cancelled(self) -> bool:
        stop: _Stop | None = self
        while stop is not None:
            if stop.flag:
                return True
            stop = stop.parent
        return False


class SplitSearch:
    """The search over ``workers`` (each a `_Worker` of one `ExactSearch`, sharing its table
    and stop flag; their counters already reset for the budget)."""

    def __init__(self, search: Any, workers: list[Any], symmetry_onto: Any, split_plies: int | None = None) -> None:
        self.game = search.game
        self.symmetry_onto = symmetry_onto  # (game, pos, m, w) -> a symmetry taking pos to (m, w)
        self.tt = search.tt
        self.control = search.control
        self.search_pair = search.table_pair  # the key a position has in the table
        self.search_state = search.state
        self.search_row_log = search.split_row_log
        self.fixed_plies = split_plies  # None: by the position's size (`search`)
        self.split_plies = SPLIT_PLIES if split_plies is None else split_plies
        self.width = len(workers)
        self.workers = workers
        self.idle: queue.Queue[Any] = queue.Queue()
        for worker in workers:
            self.idle.put(worker)
        self._lock = threading.Lock()
        self._running: dict[int, tuple[Any, _Stop]] = {}  # id(worker) -> (worker, its branch)
        self.failures: list[BaseException] = []
        #: by ply: the last move whose child failed its test (settling the node), tried first
        self.killers: dict[int, int] = {}

    @property
    def stopped(self) -> bool:
        """The search's budget, clock or an interrupt stopped it: the answer is unknown."""
        return bool(self.control[kernel.STOP])

    def search(self, pos: Any, t: int) -> int | None:
        """The fail-soft null-window search of ``pos`` at ``t``, as the kernel's: a score
        g >= t proves the score is at least g, g < t that it is at most g (None: the
        budget ran out)."""
        if self.fixed_plies is None:
            empty = self.game.board.size - (pos.black | pos.white).bit_count()
            self.split_plies = max(SPLIT_PLIES, empty - SPLIT_LEAF_EMPTY)
        answer = self._search(pos, t, 0, _Stop())
        if self.failures:
            raise self.failures[0]
        return None if self.stopped else answer

    def _search(self, pos: Any, t: int, ply: int, stop: _Stop) -> int | None:
        if stop.cancelled() or self.stopped:
            return None
        m, w = self.search_pair(pos)
        entry, data = kernel.tt_find(self.tt, np.uint64(m), np.uint64(w))
        if entry >= 0:
            if kernel.data_lo(data) >= t:
                return int(kernel.data_lo(data))
            if kernel.data_hi(data) < t:
                return int(kernel.data_hi(data))
        if not self.game.moves(pos):
            return -kernel.WIN_SCORE
        if ply >= self.split_plies:
            return self._window(m, w, t, stop)
        # the parent reaches t through a child exactly when the child fails child_t
        child_t = kernel.to_child(t) + 1
        moves = self.game.children(pos)
        stones = pos.waiter.bit_count()
        killer = self.killers.get(ply)
        moves.sort(key=lambda move: self._order(move[0].cell, move[1], child_t, killer, stones))
        first = self._search(moves[0][1], child_t, ply + 1, stop)
        if first is None:
            return None
        best, best_cell = kernel.from_child(first), moves[0][0].cell
        if best >= t:
            self.killers[ply] = best_cell
        elif len(moves) > 1:
            rest = self._brothers(moves[1:], child_t, ply + 1, stop)
            if rest is None:
                return None
            if rest[0] > best:
                best, best_cell = rest
        self._store(pos, m, w, t, best, best_cell)
        return best

    def _store(self, pos: Any, m: int, w: int, t: int, score: int, cell: int) -> None:
        """Keep a node's fail-soft result in the table as the bound it proves, with the
        move that gave it (in the table form's orientation, as the kernel keeps moves):
        the progress line and later searches' ordering read it."""
        lo, hi = (score, kernel.INF) if score >= t else (-kernel.INF, score)
        move = self.game.board.symmetries[self.symmetry_onto(self.game, pos, m, w)][cell]
        kernel.tt_store(self.tt, np.uint64(m), np.uint64(w), lo, hi, move, 0, self.search_state,
                        self.search_row_log)

    def _order(self, cell: int, child: Any, child_t: int, killer: int | None, stones: int) -> tuple[int, ...]:
        """Best first, as the kernel orders: a child the table already shows failing
        ``child_t``, the last move that settled a node at this ply, fewest replies, a
        capture; a child the table shows reaching ``child_t`` last."""
        m, w = self.search_pair(child)
        entry, data = kernel.tt_find(self.tt, np.uint64(m), np.uint64(w))
        rank = 1
        if entry >= 0:
            rank = 0 if kernel.data_hi(data) < child_t else 2 if kernel.data_lo(data) >= child_t else 1
        capture = child.mover.bit_count() < stones
        history = sum(int(worker.arrays[HISTORY][cell]) for worker in self.workers)
        return rank, cell != killer, len(self.game.moves(child)), not capture, -history

    def _brothers(self, moves: list[Any], child_t: int, ply: int, stop: _Stop) -> tuple[int, int] | None:
        """The best score the parent gets through ``moves`` and its move (their children
        searched at ``child_t``, as many at once as there are workers, best first),
        stopping at the first one that reaches the parent's test; None if unknown."""
        branch = _Stop(stop)
        todo = iter(range(len(moves)))
        taking = threading.Lock()
        scores: list[int | None] = [None] * len(moves)
        found: list[int] = []

        def run() -> None:
            try:
                while not found and not branch.cancelled():
                    with taking:
                        i = next(todo, None)
                    if i is None:
                        return
                    scores[i] = g = self._search(moves[i][1], child_t, ply, branch)
                    if g is not None and g < child_t:  # this child fails: the parent reaches its test
                        self.killers[ply - 1] = moves[i][0].cell  # (the parent's best move)
                        found.append(i)
                        self._cancel(branch)
            except BaseException as error:  # re-raised by `search`
                self.failures.append(error)
                self.control[kernel.STOP] = 1

        threads = [threading.Thread(target=run, daemon=True) for _ in range(min(self.width, len(moves)))]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        chosen = found or range(len(moves))  # the children that reached the test, or all
        if not found and any(score is None for score in scores):
            return None
        return max((kernel.from_child(scores[i]), moves[i][0].cell) for i in chosen)  # type: ignore[arg-type]

    def _cancel(self, branch: _Stop) -> None:
        with self._lock:
            branch.flag = True
            for worker, stop in self._running.values():
                if stop.cancelled():
                    worker.state[kernel.ABORTED] = 1

    def _window(self, m: int, w: int, t: int, stop: _Stop) -> int | None:
        worker = self.idle.get()
        try:
            with self._lock:
                if stop.cancelled():
                    return None
                self._running[id(worker)] = (worker, stop)
            score = worker.window(m, w, t - 1, t)
            with self._lock:
                del self._running[id(worker)]
                worker.state[kernel.ABORTED] = 0  # a cancelled search: the worker goes on
            return score
        finally:
            self.idle.put(worker)
