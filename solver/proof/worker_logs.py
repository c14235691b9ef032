"""The Dask worker plugin of a local cluster (see `executors.open_executor`); a module of
its own so that in-process runs never import Dask."""

from __future__ import annotations

import logging
from typing import Any

from distributed.diagnostics.plugin import WorkerPlugin


class QuietWorkerLogs(WorkerPlugin):
    """A Dask worker plugin for the worker processes of a local cluster, set up in every
    worker, those present and those the cluster starts later (after a crash): Dask's own
    messages there are kept for failures that stop the process (CRITICAL). A job's error
    reaches the driver through its future, and the run reports it; below that, a worker
    logged only the cluster's comings and goings, such as a heartbeat that met the
    scheduler already closed at the end of a run (a traceback on stderr after a run that
    went well)."""

    name = "tablebase-quiet-worker-logs"

    def setup(self, worker: Any) -> None:
        logging.getLogger("distributed").setLevel(logging.CRITICAL)
