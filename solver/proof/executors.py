"""Where jobs run: one `concurrent.futures.Executor` for every setting.

* in-process (the default, nothing to start): `InlineExecutor` runs each job when it is
  submitted, so a run is deterministic;
* ``workers=N``: a `dask.distributed.LocalCluster` of N single-threaded worker processes
  on this machine, started here and stopped at the end;
* ``scheduler="tcp://HOST:PORT"``: a cluster started elsewhere with ``dask scheduler`` and
  ``dask worker`` (the workers must have this package installed).

The two Dask settings hand out `Client.get_executor()`, the standard interface, so the
driver has one code path for all three. Waiting for jobs goes through `wait_first`, and
the master's cleanup through `uninterrupted`: on a cluster, Ctrl-C and ``kill`` take
effect where they cannot leave a lock held (see `_stop_signals_deferred`).
"""

from __future__ import annotations

import logging
import signal
import threading
import time
from concurrent.futures import FIRST_COMPLETED, Executor, Future, wait
from contextlib import contextmanager
from typing import Any, Callable, Collection, Iterable, Iterator, TypeVar

Tag = TypeVar("Tag")

#: A tcp://HOST:PORT address of a scheduler (what ``dask scheduler`` prints).
SCHEDULER_PREFIXES = ("tcp://", "tls://", "inproc://", "ucx://", "ws://", "wss://")

#: How long `wait_first` waits at a time before it looks whether it was asked to stop (s).
STOP_POLL = 0.2


class ExecutorError(RuntimeError):
    """The cluster could not be started or reached."""


class InlineExecutor(Executor):
    """Runs each submitted call at once in this process (an already finished Future)."""

    def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Future:
        future: Future = Future()
        try:
            future.set_result(fn(*args, **kwargs))
        except BaseException as exc:  # the caller sees it through future.result()
            if not isinstance(exc, Exception):
                raise
            future.set_exception(exc)
        return future


def describe(workers: int | None, scheduler: str | None) -> str:
    if scheduler:
        return f"Dask cluster at {scheduler}"
    if workers:
        return f"local Dask cluster of {workers} worker{'s' * (workers != 1)}"
    return "in-process"


@contextmanager
def open_executor(workers: int | None = None, scheduler: str | None = None,
                  connect_timeout: float = 20) -> Iterator[tuple[Executor, int]]:
    """(executor, how many jobs it runs at once) for the chosen setting; see the module doc."""
    if workers is not None and scheduler is not None:
        raise ExecutorError("give --workers or --scheduler, not both")
    if scheduler is None and not workers:
        yield InlineExecutor(), 1
        return
    from distributed import Client, LocalCluster  # only the Dask settings need it

    from tablebase.solver.proof.worker_logs import QuietWorkerLogs

    # Dask logs every worker start and stop; the driver reports progress itself
    for name in ("distributed", "distributed.nanny", "distributed.scheduler", "distributed.worker"):
        logging.getLogger(name).setLevel(logging.ERROR)
    if scheduler is not None:
        if not scheduler.startswith(SCHEDULER_PREFIXES):
            raise ExecutorError(f"scheduler address must look like tcp://HOST:PORT: {scheduler!r}")
        try:
            client = Client(scheduler, timeout=connect_timeout)
        except (OSError, TimeoutError) as exc:
            raise ExecutorError(f"cannot reach the Dask scheduler ({exc}): {scheduler!r}") from None
        try:
            slots = sum(w.get("nthreads", 1) for w in client.scheduler_info()["workers"].values())
            with _stop_signals_deferred(), _cancelled_at_exit(client) as executor:
                yield executor, max(1, slots)
        finally:
            client.close()
        return
    if workers is not None and workers < 1:
        raise ExecutorError(f"--workers must be at least 1: {workers!r}")
    with _stop_signals_deferred():
        # no dashboard, and the scheduler's HTTP server (which it always starts) on a free
        # port: on its default one a second cluster of this machine warned on stderr
        with _sigint_ignored():
            cluster = LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                                   dashboard_address=None, scheduler_kwargs={"dashboard_address": ":0"},
                                   silence_logs=logging.ERROR)
        try:
            client = Client(cluster)
            try:
                client.register_plugin(QuietWorkerLogs())
                with _cancelled_at_exit(client) as executor:
                    yield executor, int(workers or 1)
            finally:
                client.close()
        finally:
            cluster.close()


@contextmanager
def _sigint_ignored() -> Iterator[None]:
    """SIGINT ignored while the local cluster starts its worker processes, which keep that
    (an ignored signal stays ignored in a program it starts): Ctrl-C reaches every process
    of the terminal's group, and only this one should act on it, by stopping the run and
    closing the cluster (the workers printed a traceback each and died on their own).
    Only the main thread handles signals; elsewhere nothing changes."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


@contextmanager
def _cancelled_at_exit(client: Any) -> Iterator[Executor]:
    """The client's executor, whose jobs still running are cancelled at the end instead of
    awaited (the executor's own ``with`` waits for them): the caller has taken every
    result it needs, and after Ctrl-C, which stops the local cluster's workers as well
    (they share the terminal's process group), it would wait for ever."""
    executor = client.get_executor(pure=False)
    try:
        yield executor
    finally:
        executor.shutdown(wait=False)


class _StopRequest:
    """The stop signal that arrived while the main thread was `uninterrupted` (process-wide,
    as signals are)."""

    depth = 0  # how many `uninterrupted` sections the main thread is in
    pending: BaseException | None = None


def _stop(signum: int, frame: object) -> None:
    """Ctrl-C is KeyboardInterrupt and ``kill`` (SIGTERM) SystemExit (exit status 143), at
    once, or when the main thread leaves its `uninterrupted` section."""
    stop = KeyboardInterrupt() if signum == signal.SIGINT else SystemExit(128 + signum)
    if not _StopRequest.depth:
        raise stop
    if _StopRequest.pending is None:
        _StopRequest.pending = stop


@contextmanager
def _stop_signals_deferred() -> Iterator[None]:
    """While a Dask client runs, Ctrl-C and SIGTERM (``kill``) stop the program by an
    exception raised where it is safe: never inside `uninterrupted` (a wait for jobs, the
    cancelling of the jobs still running). A stop raised inside ``concurrent.futures.wait``,
    which takes the lock of every future it waits for, can leave one of those locks held by
    the main thread for good: the client's event-loop thread then blocks on it as soon as
    that job ends or is cancelled, and the cleanup, which waits for that thread, hangs for
    ever (a run on a local cluster did not stop after Ctrl-C until it was killed). With
    SystemExit rather than the default (at once) for SIGTERM, the ``finally`` blocks run:
    the work done is committed and the cluster's worker processes and their semaphores
    are closed (a killed process left the system's resource tracker warning of leaked
    semaphores). Only the main thread handles signals; elsewhere nothing changes. A signal
    the process ignores stays ignored (a job started with ``&`` by a script ignores
    SIGINT: the shell's rule for background jobs)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = {signum: signal.signal(signum, _stop) for signum in (signal.SIGINT, signal.SIGTERM)
                if signal.getsignal(signum) is not signal.SIG_IGN}
    try:
        yield
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)


@contextmanager
def uninterrupted() -> Iterator[None]:
    """A section of the main thread that Ctrl-C and ``kill`` do not cut short while a Dask
    client runs (`_stop_signals_deferred`): the stop they ask for is raised when it ends.
    Elsewhere (no cluster, another thread) it changes nothing."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    _StopRequest.depth += 1
    try:
        yield
    finally:
        _StopRequest.depth -= 1
        if not _StopRequest.depth and _StopRequest.pending is not None:
            stop, _StopRequest.pending = _StopRequest.pending, None
            raise stop


def wait_first(futures: Collection[Future], timeout: float | None = None) -> tuple[set[Future], set[Future]]:
    """``concurrent.futures.wait(futures, timeout, FIRST_COMPLETED)`` (done, not done) that
    Ctrl-C and ``kill`` stop within `STOP_POLL` seconds, between two waits, never inside one
    (see `_stop_signals_deferred`)."""
    if not futures:
        return set(), set()
    deadline = None if timeout is None else time.monotonic() + timeout
    while True:
        left = STOP_POLL if deadline is None else min(STOP_POLL, max(0.0, deadline - time.monotonic()))
        with uninterrupted():
            done, not_done = wait(futures, timeout=left, return_when=FIRST_COMPLETED)
        if done or (deadline is not None and time.monotonic() >= deadline):
            return done, not_done


def as_finished(executor: Executor, slots: int,
                calls: Iterable[tuple[Tag, Callable[..., Any], tuple[Any, ...]]]) -> Iterator[tuple[Tag, Any]]:
    """Run ``calls`` (each a tag, a function and its arguments) on ``executor``, at most
    ``2 * slots`` at a time, and yield (tag, result) as each ends (those that ended
    together in the order they were submitted: in-process, the calls' own order). A call
    is taken from ``calls`` only when there is room for it, so its arguments may depend on
    the results yielded so far; a call's exception is raised here, when its turn comes."""
    todo = iter(calls)
    running: dict[Future, Tag] = {}
    while True:
        while len(running) < 2 * slots and (call := next(todo, None)) is not None:
            tag, function, arguments = call
            running[executor.submit(function, *arguments)] = tag
        if not running:
            return
        done, _ = wait_first(list(running))
        for future in [future for future in running if future in done]:  # in the order submitted
            tag = running.pop(future)
            yield tag, future.result()
