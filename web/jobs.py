"""Background searches for the explorer: each in its own process, so "stop" really stops.

A search of a position no table holds can take a while (it is bounded by its node
budget). The page starts one, polls it, and may stop it; a stopped or failed job says
so, and a job past its budget answers "unknown" like the command line does.
"""

from __future__ import annotations

import itertools
import json
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from typing import Any

#: At most this many searches run at once (the machine's cores are shared with readers).
MAX_RUNNING = 2
#: Finished jobs are forgotten this long after they end.
KEEP_SECONDS = 600.0
#: A search nobody has asked about for this long is abandoned (its page was closed) and killed.
ABANDON_SECONDS = 30.0
#: How often a watcher thread looks for abandoned searches while any runs (without it they
#: were found only at the next request, and kept both cores busy until then).
REAP_SECONDS = 5.0
#: The child's program: one search, its answer as one JSON line on stdout.
WORKER = "from tablebase.web.jobs import run_one; run_one()"


def run_one() -> None:
    """In the child process: search the position of the request on stdin (JSON) in the
    file argv[1]. (On stdin, not in argv: a request can be longer than the system lets
    one argument be.)"""
    from tablebase.web.backend import USER_ERRORS, BadRequest, Explorer, error_line

    request, db_path = json.load(sys.stdin), sys.argv[1]
    try:
        state = {"status": "done", "answer": Explorer(db_path).probe(**request, search=True)}
    except (*USER_ERRORS, BadRequest) as exc:
        state = {"status": "failed", "error": error_line(exc)}
    print(json.dumps(state), flush=True)


@dataclass
class Job:
    process: subprocess.Popen
    output: Any  # a temporary file: the child's stdout (a pipe could fill up and stall it)
    started: float = field(default_factory=time.monotonic)
    state: dict[str, Any] = field(default_factory=lambda: {"status": "searching"})
    ended: float | None = None
    seen: float = field(default_factory=time.monotonic)  # when the page last asked about it


class SearchJobs:
    """Searches running in child processes, by job id."""

    def __init__(self, db_path: str) -> None:
        self.db_path = db_path
        self._jobs: dict[str, Job] = {}
        self._ids = itertools.count(1)
        self._lock = threading.Lock()
        self._closed = threading.Event()
        self._watcher: threading.Thread | None = None

    def start(self, request: dict[str, Any]) -> dict[str, Any]:
        with self._lock:
            self._forget_old()
            running = sum(1 for job in self._jobs.values() if self._poll(job)["status"] == "searching")
            if running >= MAX_RUNNING:
                raise ValueError(f"{running} searches are running already; stop one or wait")
            output = tempfile.TemporaryFile(mode="w+")
            with tempfile.TemporaryFile(mode="w+") as given:
                json.dump(request, given)
                given.seek(0)
                process = subprocess.Popen([sys.executable, "-c", WORKER, self.db_path],
                                           stdin=given, stdout=output, stderr=subprocess.STDOUT, text=True)
            job_id = str(next(self._ids))
            self._jobs[job_id] = Job(process, output)
            if self._watcher is None:  # (a watcher about to end has set it to None first, under the lock)
                self._watcher = threading.Thread(target=self._watch, name="search-jobs-watcher", daemon=True)
                self._watcher.start()
            return {"job": job_id, "status": "searching"}

    def _watch(self) -> None:
        """Kill abandoned searches every REAP_SECONDS while any runs (then end)."""
        while not self._closed.wait(REAP_SECONDS):
            with self._lock:
                self._forget_old()
                if not any(self._poll(job)["status"] == "searching" for job in self._jobs.values()):
                    self._watcher = None
                    return

    def status(self, job_id: str) -> dict[str, Any]:
        with self._lock:
            self._forget_old()
            job = self._job(job_id)
            job.seen = time.monotonic()
            return {"job": job_id, **self._poll(job), "seconds": round(self._elapsed(job), 1)}

    def stop(self, job_id: str) -> dict[str, Any]:
        with self._lock:
            job = self._job(job_id)
            self._kill(job)
            return {"job": job_id, **job.state, "seconds": round(self._elapsed(job), 1)}

    def close(self) -> None:
        self._closed.set()
        with self._lock:
            for job in self._jobs.values():
                if job.process.poll() is None:
                    job.process.kill()
                    job.process.wait()
                job.output.close()
            self._jobs.clear()

    def _job(self, job_id: str) -> Job:
        if job_id not in self._jobs:
            raise KeyError(f"no search job {job_id!r} (finished jobs are kept {KEEP_SECONDS:.0f} s)")
        return self._jobs[job_id]

    @staticmethod
    def _elapsed(job: Job) -> float:
        return (job.ended or time.monotonic()) - job.started

    @staticmethod
    def _poll(job: Job) -> dict[str, Any]:
        if job.state["status"] == "searching" and job.process.poll() is not None:
            job.output.seek(0)
            lines = job.output.read().strip().splitlines() or ["no output"]
            job.output.close()
            try:
                job.state = json.loads(lines[-1])
            except ValueError:
                job.state = {"status": "failed", "error": f"the search ended without an answer ({lines[-1]})"}
            job.ended = time.monotonic()
        return job.state

    def _kill(self, job: Job) -> None:
        if self._poll(job)["status"] == "searching":
            job.process.kill()
            job.process.wait()
            job.output.close()
            job.state = {"status": "stopped"}
            job.ended = time.monotonic()

    def _forget_old(self) -> None:
        now = time.monotonic()
        for job in self._jobs.values():
            if job.ended is None and now - job.seen > ABANDON_SECONDS:
                self._kill(job)
        for job_id in [j for j, job in self._jobs.items() if job.ended and now - job.ended > KEEP_SECONDS]:
            del self._jobs[job_id]
