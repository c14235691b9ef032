"""Stopping a program that waits for jobs on a Dask cluster (`solver/proof/executors.py`):
Ctrl-C and ``kill`` take effect between two waits, never inside one, so that no future's
lock is left held (which hung the cleanup of a run on a local cluster). The whole runs
(a weak solve on two workers stopped by Ctrl-C or SIGTERM) are in test_proof_search.py."""

from __future__ import annotations

import os
import random
import signal
import threading
import time
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Iterator

import pytest

from tablebase.solver.proof import executors
from tablebase.solver.proof.executors import STOP_POLL, uninterrupted, wait_first


def _held_by_another_thread(futures: list[Future]) -> int:
    """How many of the futures' locks this thread holds (seen from another thread)."""
    held = []

    def look() -> None:
        for future in futures:
            if future._condition.acquire(blocking=False):
                future._condition.release()
            else:
                held.append(future)

    checker = threading.Thread(target=look)
    checker.start()
    checker.join()
    return len(held)


@pytest.fixture
def interactive_sigint() -> Iterator[None]:
    """Ctrl-C's SIGINT handled as in an interactive run, however pytest was started (a
    background job of a script ignores it)."""
    before = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, before)


@pytest.mark.usefixtures("interactive_sigint")
def test_a_stop_never_leaves_a_futures_lock_held() -> None:
    """Ctrl-C at random moments while the main thread waits, again and again, on 300 jobs
    that never end: every time the wait stops with KeyboardInterrupt and no lock is left.
    With ``concurrent.futures.wait`` and the default handler instead, 65 of 200 such rounds
    left a lock held (one of them was enough to hang a local cluster's cleanup)."""
    futures = [Future() for _ in range(300)]
    go = threading.Event()
    rng = random.Random(7)

    def interrupt() -> None:
        while True:
            go.wait()
            go.clear()
            time.sleep(rng.uniform(0, 0.003))
            os.kill(os.getpid(), signal.SIGINT)

    threading.Thread(target=interrupt, daemon=True).start()
    rounds = 0
    with executors._stop_signals_deferred():
        for _ in range(100):
            go.set()
            with pytest.raises(KeyboardInterrupt):
                deadline = time.monotonic() + 10
                while time.monotonic() < deadline:
                    wait_first(futures, 0)  # most of the time inside concurrent.futures.wait
            rounds += 1
            assert _held_by_another_thread(futures) == 0, f"round {rounds}"
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler  # restored


def test_an_ignored_stop_signal_stays_ignored() -> None:
    """A process that ignores SIGINT (started with ``&`` by a script) keeps ignoring it
    while a cluster runs; SIGTERM still stops it, and both come back as they were."""
    before = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        with executors._stop_signals_deferred():
            assert signal.getsignal(signal.SIGINT) is signal.SIG_IGN
            assert signal.getsignal(signal.SIGTERM) is executors._stop
            os.kill(os.getpid(), signal.SIGINT)  # ignored: nothing is raised
            time.sleep(0.05)
        assert signal.getsignal(signal.SIGINT) is signal.SIG_IGN
        assert signal.getsignal(signal.SIGTERM) is signal.SIG_DFL
    finally:
        signal.signal(signal.SIGINT, before)


def test_a_blocked_wait_stops_within_its_poll_and_sigterm_exits_143() -> None:
    futures = [Future()]
    with executors._stop_signals_deferred():
        threading.Timer(0.3, os.kill, (os.getpid(), signal.SIGTERM)).start()
        started = time.monotonic()
        with pytest.raises(SystemExit) as stopped:
            wait_first(futures)  # no timeout: it would wait for ever
        assert time.monotonic() - started < 0.3 + STOP_POLL + 1.0
    assert stopped.value.code == 143


@pytest.mark.usefixtures("interactive_sigint")
def test_a_stop_inside_an_uninterrupted_section_comes_when_it_ends() -> None:
    done = []
    with executors._stop_signals_deferred():
        with pytest.raises(KeyboardInterrupt):
            with uninterrupted():
                with uninterrupted():
                    os.kill(os.getpid(), signal.SIGINT)
                    time.sleep(0.05)  # the handler has run by now, and deferred the stop
                    done.append("inner")
                done.append("outer")  # still inside: the stop waits for the outermost section
        assert done == ["inner", "outer"]
        with uninterrupted():  # nothing left over from the stop raised
            done.append("again")
    assert done == ["inner", "outer", "again"]


def test_wait_first_is_concurrent_futures_wait_for_the_first() -> None:
    gate = threading.Event()
    with ThreadPoolExecutor(2) as pool:
        slow = pool.submit(gate.wait)
        quick = pool.submit(lambda: 42)
        done, not_done = wait_first([slow, quick])
        assert done == {quick} and not_done == {slow} and quick.result() == 42
        started = time.monotonic()
        assert wait_first([slow], timeout=0.5) == (set(), {slow})
        assert 0.5 <= time.monotonic() - started < 3
        gate.set()
        assert wait_first([slow]) == ({slow}, set())
    assert wait_first([]) == (set(), set())


def test_in_another_thread_nothing_is_deferred() -> None:
    """Only the main thread handles signals: elsewhere the section changes nothing."""
    seen = []

    def body() -> None:
        with uninterrupted():
            seen.append(executors._StopRequest.depth)

    worker = threading.Thread(target=body)
    worker.start()
    worker.join()
    assert seen == [0]


def test_as_finished_keeps_twice_the_slots_busy_and_takes_calls_as_room_frees() -> None:
    """Every call's result comes back with its tag; never more than ``2 * slots`` run at
    once; a call is drawn only when there is room, so it can use the results so far."""
    lock = threading.Lock()
    running = peak = 0
    results: list[int] = []

    def square(n: int) -> int:
        nonlocal running, peak
        with lock:
            running += 1
            peak = max(peak, running)
        time.sleep(0.02)
        with lock:
            running -= 1
        return n * n

    drawn_after: list[int] = []  # how many results had come back when each call was drawn

    def calls():
        for n in range(12):
            drawn_after.append(len(results))
            yield n, square, (n,)

    with ThreadPoolExecutor(4) as pool:
        for tag, result in executors.as_finished(pool, 1, calls()):
            assert result == tag * tag
            results.append(tag)
    assert sorted(results) == list(range(12)) and peak <= 2
    assert drawn_after[:2] == [0, 0] and drawn_after[2:] == sorted(drawn_after[2:]) and drawn_after[-1] >= 10
    # in-process (one slot, each call run as it is submitted) the order is the calls' own
    assert list(executors.as_finished(executors.InlineExecutor(), 1, calls())) == [(n, n * n) for n in range(12)]


def test_as_finished_raises_a_calls_exception() -> None:
    def fail(text: str) -> None:
        raise ValueError(text)

    with pytest.raises(ValueError, match="leaf 3"):
        list(executors.as_finished(executors.InlineExecutor(), 1, [(3, fail, ("leaf 3",))]))
