"""Storage of weak-solve (proof-number search) runs in the tablebase file.

Tables (schema version 1, recorded in `meta` as ``proofs_schema_version``):

* ``proof_runs``: one row per (game, rules, root, goal): the goal is "``goal`` wins from
  ``root``"; the leaf solver and its node budget; status (``running``, ``proved``,
  ``disproved``, ``unknown``, ``unfinished``: stopped before the end); counters and
  seconds so far.
* ``proof_nodes``: the nodes of a run settled for good: status (1 proved, -1 disproved),
  where it came from (``leaf``, ``tree``), the chosen child (the winning move of a proved
  OR node, the refutation of a disproved AND node) and the length of the proof below it.
* ``proof_leaves``: exact leaf results (value for the side to move, remoteness), shared
  by every run of the same rules: they are facts about positions. The remoteness is NULL
  for a draw, and for a win or loss whose value alone was proved (the ``value`` leaf
  solver) until an export finds it (`ProofStore.record_remoteness`).
* ``proof_attempts``: leaf jobs that ran out of their node budget ("unknown"), the last
  one of each position; and, with 0 nodes, positions too big for a job (the master
  expanded them instead).

Keys are canonical position keys, stored as hexadecimal text (hex4 keys need 75 bits).
Each `commit` is one transaction, so a killed run loses at most the results it had not
committed, and never leaves a half-written one.
"""

from __future__ import annotations

import json
import sqlite3
import time
from dataclasses import dataclass
from typing import Any, Iterable

from tablebase.db.store import StoreError, TablebaseStore

PROOFS_SCHEMA_VERSION = 1


@dataclass(frozen=True)
class ProofRun:
    id: int
    game: str
    rules: str
    root: str  # position text
    root_key: int
    goal: str  # the colour the run tries to prove a win for
    solver: str
    node_budget: int
    status: str
    settled: int
    jobs: int
    seconds: float
    summary: dict[str, Any]
    started: str  # UTC, ISO 8601 (``2026-12-04T14:46:31Z``): when the run was created
    updated: str  # UTC, ISO 8601: its last commit (a run killed while running keeps its status)


def _hex(key: int | None) -> str | None:
    return None if key is None else format(key, "x")


class ProofStore:
    """The proof-search tables of one tablebase file (see the module doc)."""

    def __init__(self, store: TablebaseStore) -> None:
        self.store = store
        self.db = store.db
        try:
            self._ensure_tables()
        except sqlite3.Error as exc:
            raise StoreError(f"cannot use the proof tables of {str(store.path)!r} ({exc})") from None

    def _ensure_tables(self) -> None:
        row = self.db.execute("SELECT value FROM meta WHERE key = 'proofs_schema_version'").fetchone()
        if row is not None:
            if int(row[0]) != PROOFS_SCHEMA_VERSION:
                raise StoreError(f"proof tables have schema version {row[0]}, this program reads "
                                 f"{PROOFS_SCHEMA_VERSION}")
            return
        if self.store.readonly:
            return
        with self.store.transaction():
            self.db.execute(
                "CREATE TABLE IF NOT EXISTS proof_runs (id INTEGER PRIMARY KEY, game TEXT NOT NULL, rules TEXT NOT NULL,"
                " root TEXT NOT NULL, root_key TEXT NOT NULL, goal TEXT NOT NULL, solver TEXT NOT NULL,"
                " node_budget INTEGER NOT NULL, status TEXT NOT NULL, settled INTEGER NOT NULL DEFAULT 0,"
                " jobs INTEGER NOT NULL DEFAULT 0, seconds REAL NOT NULL DEFAULT 0, summary TEXT NOT NULL DEFAULT '{}',"
                " started TEXT, updated TEXT, UNIQUE (game, rules, root_key, goal, solver, node_budget))")
            self.db.execute(
                "CREATE TABLE IF NOT EXISTS proof_nodes (run_id INTEGER NOT NULL REFERENCES proof_runs(id),"
                " key TEXT NOT NULL, status INTEGER NOT NULL, source TEXT NOT NULL, best TEXT, length INTEGER NOT NULL,"
                " PRIMARY KEY (run_id, key))")
            self.db.execute(
                "CREATE TABLE IF NOT EXISTS proof_leaves (game TEXT NOT NULL, rules TEXT NOT NULL, key TEXT NOT NULL,"
                " value INTEGER NOT NULL, remoteness INTEGER, nodes INTEGER NOT NULL, seconds REAL NOT NULL,"
                " solver TEXT NOT NULL, PRIMARY KEY (game, rules, key))")
            self.db.execute(
                "CREATE TABLE IF NOT EXISTS proof_attempts (game TEXT NOT NULL, rules TEXT NOT NULL, key TEXT NOT NULL,"
                " node_budget INTEGER NOT NULL, nodes INTEGER NOT NULL, seconds REAL NOT NULL, solver TEXT NOT NULL,"
                " PRIMARY KEY (game, rules, key))")
            self.db.execute("INSERT OR REPLACE INTO meta VALUES ('proofs_schema_version', ?)",
                            [str(PROOFS_SCHEMA_VERSION)])

    def _has_tables(self) -> bool:
        return "proof_runs" in self.db.table_names()

    # -- runs -------------------------------------------------------------------------

    def open_run(self, game: str, rules: str, root: str, root_key: int, goal: str, solver: str,
                 node_budget: int) -> ProofRun:
        """The run of this goal, created if new (a run with the same settings resumes)."""
        found = self.find_run(game, rules, root_key, goal, solver, node_budget)
        if found is not None:
            return found
        now = _now()
        with self.store.transaction():
            self.db.execute(
                "INSERT OR IGNORE INTO proof_runs (game, rules, root, root_key, goal, solver, node_budget, status,"
                " started, updated) VALUES (?, ?, ?, ?, ?, ?, ?, 'running', ?, ?)",
                [game, rules, root, _hex(root_key), goal, solver, node_budget, now, now])
        run = self.find_run(game, rules, root_key, goal, solver, node_budget)
        assert run is not None
        return run

    def find_run(self, game: str, rules: str, root_key: int, goal: str, solver: str | None = None,
                 node_budget: int | None = None) -> ProofRun | None:
        """A run of this goal (the most advanced one when settings are left open)."""
        if not self._has_tables():
            return None
        sql = "SELECT * FROM proof_runs WHERE game = ? AND rules = ? AND root_key = ? AND goal = ?"
        args: list[Any] = [game, rules, _hex(root_key), goal]
        if solver is not None:
            sql += " AND solver = ?"
            args.append(solver)
        if node_budget is not None:
            sql += " AND node_budget = ?"
            args.append(node_budget)
        sql += " ORDER BY status = 'running', settled DESC LIMIT 1"
        row = self.db.execute(sql, args).fetchone()
        return None if row is None else _run(row)

    def runs(self, game: str | None = None, rules: str | None = None) -> list[ProofRun]:
        if not self._has_tables():
            return []
        where, args = [], []
        for column, value in (("game", game), ("rules", rules)):
            if value is not None:
                where.append(f"{column} = ?")
                args.append(value)
        sql = "SELECT * FROM proof_runs" + (" WHERE " + " AND ".join(where) if where else "") + " ORDER BY id"
        return [_run(row) for row in self.db.execute(sql, args).fetchall()]

    # -- what is known ------------------------------------------------------------------

    def leaves(self, game: str, rules: str) -> dict[int, tuple[int, int | None]]:
        """canonical key -> (value for the side to move, remoteness: None for a draw or a value
        proved alone)."""
        if not self._has_tables():
            return {}
        rows = self.db.execute("SELECT key, value, remoteness FROM proof_leaves WHERE game = ? AND rules = ?",
                               [game, rules])
        return {int(k, 16): (v, r) for k, v, r in rows}

    def attempts(self, game: str, rules: str) -> dict[int, int]:
        """canonical key -> the largest node budget a leaf job ran out of on it."""
        if not self._has_tables():
            return {}
        rows = self.db.execute("SELECT key, node_budget FROM proof_attempts WHERE game = ? AND rules = ?",
                               [game, rules])
        return {int(k, 16): b for k, b in rows}

    def job_costs(self, game: str, rules: str) -> tuple[dict[int, tuple[int, float]], dict[int, tuple[int, float]]]:
        """What the leaf jobs cost, as stored: canonical key -> (positions searched, seconds)
        of the job that solved it, and of the largest one that ran out of budget on it."""
        if not self._has_tables():
            return {}, {}
        costs = []
        for table in ("proof_leaves", "proof_attempts"):
            rows = self.db.execute(f"SELECT key, nodes, seconds FROM {table} WHERE game = ? AND rules = ?", [game, rules])
            costs.append({int(k, 16): (n, s) for k, n, s in rows})
        return costs[0], costs[1]

    def settled(self, run_id: int) -> dict[int, tuple[int, str, int | None, int]]:
        """canonical key -> (status, source, best child key or None, length) of a run."""
        rows = self.db.execute("SELECT key, status, source, best, length FROM proof_nodes WHERE run_id = ?", [run_id])
        return {int(k, 16): (s, src, None if b is None else int(b, 16), n) for k, s, src, b, n in rows}

    # -- writing --------------------------------------------------------------------------

    def commit(self, run: ProofRun, game: str, rules: str, solver: str,
               leaves: Iterable[tuple[int, int, int | None, int, float]],
               attempts: Iterable[tuple[int, int, int, float]],
               settled: Iterable[tuple[int, int, str, int | None, int]],
               jobs: int, seconds: float, status: str, summary: dict[str, Any]) -> None:
        """One transaction: new leaf results (key, value, remoteness, nodes, seconds),
        unknown attempts (key, budget, nodes, seconds), settled nodes (key, status,
        source, best, length) and the run's counters."""
        try:
            self._commit(run, game, rules, solver, leaves, attempts, settled, jobs, seconds, status, summary)
        except sqlite3.Error as exc:
            raise StoreError(f"cannot record the proof search in {str(self.store.path)!r} ({exc}); "
                             f"what was committed before is intact: run the same command again") from None

    def mark_interrupted(self) -> int:
        """Mark every run still marked ``running`` as ``unfinished`` (how many): what a solve
        that holds the file's solve lock finds marked running was killed before it could
        mark itself. Its own transaction; the runs' last commit times stay."""
        if not self._has_tables():
            return 0
        try:
            with self.store.transaction():
                marked = self.db.conn.execute("UPDATE proof_runs SET status = 'unfinished' WHERE status = 'running'")
                return marked.rowcount
        except sqlite3.Error as exc:
            raise StoreError(f"cannot mark the interrupted weak solves of {str(self.store.path)!r} ({exc})") from None

    def record_remoteness(self, game: str, rules: str, key: int, remoteness: int) -> None:
        """Store the remoteness found afterwards for a leaf whose value alone was proved
        (its own transaction, so a long export stopped midway keeps what it found); a leaf
        that has a remoteness keeps it."""
        try:
            with self.store.transaction():
                self.db.conn.execute("UPDATE proof_leaves SET remoteness = ? WHERE game = ? AND rules = ? AND key = ?"
                                     " AND remoteness IS NULL", [remoteness, game, rules, _hex(key)])
        except sqlite3.Error as exc:
            raise StoreError(f"cannot store a leaf's remoteness in {str(self.store.path)!r} ({exc})") from None

    def _commit(self, run: ProofRun, game: str, rules: str, solver: str,
                leaves: Iterable[tuple[int, int, int | None, int, float]],
                attempts: Iterable[tuple[int, int, int, float]],
                settled: Iterable[tuple[int, int, str, int | None, int]],
                jobs: int, seconds: float, status: str, summary: dict[str, Any]) -> None:
        with self.store.transaction():
            conn = self.db.conn
            conn.executemany(
                "INSERT OR REPLACE INTO proof_leaves VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                [(game, rules, _hex(k), v, r, n, s, solver) for k, v, r, n, s in leaves])
            conn.executemany(
                "INSERT INTO proof_attempts VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (game, rules, key) DO UPDATE"
                " SET node_budget = max(node_budget, excluded.node_budget), nodes = excluded.nodes,"
                " seconds = excluded.seconds",
                [(game, rules, _hex(k), b, n, s, solver) for k, b, n, s in attempts])
            rows = [(run.id, _hex(k), st, src, _hex(b), n) for k, st, src, b, n in settled]
            conn.executemany("INSERT OR REPLACE INTO proof_nodes VALUES (?, ?, ?, ?, ?, ?)", rows)
            conn.execute(
                "UPDATE proof_runs SET settled = settled + ?, jobs = ?, seconds = ?, status = ?, summary = ?,"
                " updated = ? WHERE id = ?",
                [len(rows), jobs, seconds, status, json.dumps(summary, sort_keys=True), _now(), run.id])


def _run(row: tuple) -> ProofRun:
    (id_, game, rules, root, root_key, goal, solver, budget, status, settled, jobs, seconds, summary,
     started, updated) = row
    return ProofRun(id_, game, rules, root, int(root_key, 16), goal, solver, budget, status, settled, jobs,
                    seconds, json.loads(summary), started, updated)


def _now() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
