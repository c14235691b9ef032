"""One null-window test of the exact search on several threads: the top plies split
"young brothers wait" style (Feldmann's YBWC), the compiled kernel below.

``test(pos, t)`` answers "is the score of ``pos`` at least ``t``?" (scores as in
`solver/smallholder_exact_kernel.py`). Over the first ``split_plies`` plies it is worked
out here from the children: ``pos`` reaches ``t`` if and only if some child fails to
reach ``to_child(t) + 1``. The children are tried best first (a stored bound first,
then fewest replies, the kernel's own order); the eldest alone, and if it does not
settle the node (the node is then most likely one where every child must be searched),
all the others at once, each on a thread of its own that waits for a free worker
(`_Worker`, one per core) when it reaches the kernel. The first child that settles the
node stops its brothers: their kernel searches are told to abort (their worker's
``ABORTED`` flag), what they proved so far stays in the shared table.

Every answer is a child's exact test, path-independent (a kernel search from a child
never relies on the line above it), so the split is as exact as one search; only the
work can differ, and the answer never does.
"""

from __future__ import annotations

import queue
import threading
from typing import Any

import numpy as np

from tablebase.solver import smallholder_exact_kernel as kernel

#: Plies worked out here above the kernel's searches (two: a win's first move and every
#: reply to it, or every move of a loss and each one's first refutation, run in parallel).
SPLIT_PLIES = 2
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


class SplitTest:
    """The test over ``workers`` (each a `_Worker` of one `ExactSearch`, sharing its table
    and stop flag; their counters already reset for the budget)."""

    def __init__(self, search: Any, workers: list[Any], split_plies: int = SPLIT_PLIES) -> None:
        self.search = search
        self.game = search.game
        self.split_plies = split_plies
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
        return bool(self.search.control[kernel.STOP])

    def test(self, pos: Any, t: int) -> bool | None:
        """Whether ``pos`` scores at least ``t`` (None: the budget ran out)."""
        answer = self._test(pos, t, 0, _Stop())
        if self.failures:
            raise self.failures[0]
        return None if self.stopped else answer

    def _test(self, pos: Any, t: int, ply: int, stop: _Stop) -> bool | None:
        if stop.cancelled() or self.stopped:
            return None
        m, w = self.search.table_pair(pos)
        entry, data = kernel.tt_find(self.search.tt, np.uint64(m), np.uint64(w))
        if entry >= 0:
            if kernel.data_lo(data) >= t:
                return True
            if kernel.data_hi(data) < t:
                return False
        if not self.game.moves(pos):
            return -kernel.WIN_SCORE >= t
        if ply >= self.split_plies:
            return self._window(m, w, t, stop)
        child_t = kernel.to_child(t) + 1
        moves = self.game.children(pos)
        stones = (pos.waiter).bit_count()
        killer = self.killers.get(ply)
        moves.sort(key=lambda move: self._order(move[0].cell, move[1], child_t, killer, stones))
        children = [child for _, child in moves]
        first = self._test(children[0], child_t, ply + 1, stop)
        if first is None:
            return None
        if not first:
            self.killers[ply] = moves[0][0].cell
            return self._store(m, w, t, True)
        answer = self._any_fails(moves[1:], child_t, ply + 1, stop)
        return None if answer is None else self._store(m, w, t, answer)

    def _store(self, m: int, w: int, t: int, reached: bool) -> bool:
        """Keep the node's result in the table as a bound (at least t, or at most t - 1)."""
        lo, hi = (t, kernel.INF) if reached else (-kernel.INF, t - 1)
        kernel.tt_store(self.search.tt, np.uint64(m), np.uint64(w), lo, hi, -1, 0, self.search.state)
        return reached

    def _order(self, cell: int, child: Any, child_t: int, killer: int | None, stones: int) -> tuple[int, ...]:
        """Best first, as the kernel orders: a child the table already shows failing
        ``child_t``, the last move that settled a node at this ply, fewest replies, a
        capture; a child the table shows reaching ``child_t`` last."""
        m, w = self.search.table_pair(child)
        entry, data = kernel.tt_find(self.search.tt, np.uint64(m), np.uint64(w))
        rank = 1
        if entry >= 0:
            rank = 0 if kernel.data_hi(data) < child_t else 2 if kernel.data_lo(data) >= child_t else 1
        capture = child.mover.bit_count() < stones
        history = sum(int(worker.arrays[HISTORY][cell]) for worker in self.workers)
        return rank, cell != killer, len(self.game.moves(child)), not capture, -history

    def _any_fails(self, moves: list[Any], child_t: int, ply: int, stop: _Stop) -> bool | None:
        """True if some child fails its test (the node reaches its own), False if none
        does, None if unknown; the children are tested at once."""
        if not moves:
            return False
        branch = _Stop(stop)
        todo = iter(range(len(moves)))
        taking = threading.Lock()
        results: list[bool | None] = [None] * len(moves)
        found = threading.Event()

        def run() -> None:
            # the children in order, as many at once as there are workers
            try:
                while not found.is_set() and not branch.cancelled():
                    with taking:
                        i = next(todo, None)
                    if i is None:
                        return
                    results[i] = self._test(moves[i][1], child_t, ply, branch)
                    if results[i] is False:
                        self.killers[ply - 1] = moves[i][0].cell
                        found.set()
                        self._cancel(branch)
            except BaseException as error:  # re-raised by `test`
                self.failures.append(error)
                self.search.control[kernel.STOP] = 1

        threads = [threading.Thread(target=run, daemon=True) for _ in range(min(self.width, len(moves)))]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        if found.is_set():
            return True
        if any(result is None for result in results):
            return None
        return False

    def _cancel(self, branch: _Stop) -> None:
        with self._lock:
            branch.flag = True
            for worker, stop in self._running.values():
                if stop.cancelled():
                    worker.state[kernel.ABORTED] = 1

    def _window(self, m: int, w: int, t: int, stop: _Stop) -> bool | None:
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
            return None if score is None else score >= t
        finally:
            self.idle.put(worker)
