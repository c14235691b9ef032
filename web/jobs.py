"""Background searches for the explorer: each in its own process, so "stop" really stops.

A search of a position no table holds can take a while (it is bounded by its node
budget). The page starts one, polls it, and may stop it; a stopped or failed job says
so, and a job past its budget answers "unknown" like the command line does.
"""

from __future__ import annotations

import itertools
import multiprocessing
import threading
import time
from dataclasses import dataclass, field
from multiprocessing.connection import Connection
from typing import Any

#: At most this many searches run at once (the machine's cores are shared with readers).
MAX_RUNNING = 2
#: Finished jobs are forgotten this long after they end.
KEEP_SECONDS = 600.0


def _run(db_path: str, request: dict[str, Any], out: Connection) -> None:
    from tablebase.web.backend import USER_ERRORS, BadRequest, Explorer, error_line

    try:
        out.send({"status": "done", "answer": Explorer(db_path).probe(**request, search=True)})
    except (*USER_ERRORS, BadRequest) as exc:
        out.send({"status": "failed", "error": error_line(exc)})
    except Exception as exc:  # the page must hear of it rather than poll forever
        out.send({"status": "failed", "error": f"search failed: {exc}"})
    finally:
        out.close()


@dataclass
class Job:
    process: Any
    reader: Connection
    started: float = field(default_factory=time.monotonic)
    state: dict[str, Any] = field(default_factory=lambda: {"status": "searching"})
    ended: float | None = None


class SearchJobs:
    """Searches running in child processes, by job id."""

    def __init__(self, db_path: str) -> None:
        self.db_path = db_path
        self._jobs: dict[str, Job] = {}
        self._ids = itertools.count(1)
        self._lock = threading.Lock()
        self._context = multiprocessing.get_context("spawn")

    def start(self, request: dict[str, Any]) -> dict[str, Any]:
        with self._lock:
            self._forget_old()
            running = sum(1 for job in self._jobs.values() if self._poll(job)["status"] == "searching")
            if running >= MAX_RUNNING:
                raise ValueError(f"{running} searches are running already; stop one or wait")
            reader, writer = self._context.Pipe(duplex=False)
            process = self._context.Process(target=_run, args=(self.db_path, request, writer), daemon=True)
            process.start()
            writer.close()
            job_id = str(next(self._ids))
            self._jobs[job_id] = Job(process, reader)
            return {"job": job_id, "status": "searching"}

    def status(self, job_id: str) -> dict[str, Any]:
        with self._lock:
            job = self._job(job_id)
            return {"job": job_id, **self._poll(job), "seconds": round(self._elapsed(job), 1)}

    def stop(self, job_id: str) -> dict[str, Any]:
        with self._lock:
            job = self._job(job_id)
            if self._poll(job)["status"] == "searching":
                job.process.terminate()
                job.process.join(5)
                job.state = {"status": "stopped"}
                job.ended = time.monotonic()
            return {"job": job_id, **job.state, "seconds": round(self._elapsed(job), 1)}

    def close(self) -> None:
        with self._lock:
            for job in self._jobs.values():
                if job.process.is_alive():
                    job.process.terminate()
                    job.process.join(5)
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
        if job.state["status"] == "searching":
            if job.reader.poll():
                try:
                    job.state = job.reader.recv()
                except EOFError:
                    job.state = {"status": "failed", "error": "the search process ended without an answer"}
                job.ended = time.monotonic()
                job.process.join(5)
            elif not job.process.is_alive():
                job.state = {"status": "failed", "error": "the search process ended without an answer"}
                job.ended = time.monotonic()
        return job.state

    def _forget_old(self) -> None:
        now = time.monotonic()
        for job_id in [j for j, job in self._jobs.items() if job.ended and now - job.ended > KEEP_SECONDS]:
            del self._jobs[job_id]
