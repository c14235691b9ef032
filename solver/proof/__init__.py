"""Weak solutions of The Smallholder: a job-level proof-number search over the opening.

* `tree` — the master proof-number graph (canonical keys, symmetries merged, cycles
  handled soundly), its selection of the most-proving frontier positions and the
  propagation of results;
* `jobs` — a frontier position as a job for an exact leaf solver, and the pluggable
  leaf solvers themselves (run on workers);
* `executors` — one `concurrent.futures.Executor` for in-process, local-cluster and
  remote Dask runs;
* `driver` — the loop that keeps jobs in flight, feeds results back and commits every
  settled node;
* `certificate` — the proof as rows of positions reached from the start (export) and
  its verification by the rules alone (check).

The method and its soundness arguments: docs/distributed.md.
"""
