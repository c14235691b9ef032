"""The Python API: ``tablebase.open(path)`` -> `Tablebase`.

    import tablebase
    tb = tablebase.open("tablebase.sqlite")            # read-only; mode="w" to solve into it
    p = tb.probe("sparro", "RBBRBR.BR.../......../....", variant="standard")
    p.value, p.remoteness, p.to_move, p.source, p.rules, p.moves, p.pv, p.to_dict()

Values are for the side to move ("win", "loss", "draw", or "unknown" when a search ran
out of budget); remoteness counts plies to the end under perfect play and is None for a
draw or an unknown value. Positions are written in the notation of docs/sparro.md and
docs/smallholder.md. Errors are the classes of `service.errors`.
"""

from __future__ import annotations

import numbers
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Literal

from tablebase.db.puzzles import StoredPuzzle
from tablebase.db.store import TableInfo, TablebaseStore
from tablebase.service import check as audit
from tablebase.service import proof as proof_service
from tablebase.service import puzzles as puzzle_service
from tablebase.service import repetition
from tablebase.service.description import GameDescription
from tablebase.service.errors import ServiceError
from tablebase.service.games import GAMES, describe
from tablebase.service.progress import Progress
from tablebase.service.probing import Lookups, ProbeAnswers
from tablebase.service.verify import verify_claims
from tablebase.solver.fairness import SMALLHOLDER_BOARDS, Claim

__all__ = ["LowerBound", "MoveValue", "Position", "Probe", "Tablebase", "TableSummary", "check_proof", "find_repetition",
           "open"]

@dataclass(frozen=True)
class MoveValue:
    """One legal move and its value for the player who makes it."""

    cell: int
    name: str
    value: str
    remoteness: int | None


@dataclass(frozen=True)
class Position:
    """A position of a game under its rules; notebooks draw it (``_repr_svg_``)."""

    game: str
    rules: str
    text: str
    to_move: str
    _engine: Any = field(repr=False, compare=False)
    _pos: Any = field(repr=False, compare=False)

    def __str__(self) -> str:
        return self.text

    def play(self, move: int | str) -> Position:
        """The position after ``move`` (a cell index or a move name); a ServiceError names a
        move that is not a cell of the board, or not legal here."""
        if isinstance(move, bool) or not isinstance(move, (numbers.Integral, str)):
            raise ServiceError(f"a move is a cell index or a cell name, not {move!r}")
        cell = self._engine.parse_move(str(move))  # an index off the board is named as such
        return _position(self.game, self._engine, self._engine.play(self._pos, cell))

    @property
    def legal_moves(self) -> list[str]:
        return [self._engine.move_name(m) for m in self._engine.legal_moves(self._pos)]

    def picture(self) -> str:
        """The text picture `tablebase show` prints."""
        return describe(self.game).text(self._engine, self._pos)

    def svg(self) -> str:
        return describe(self.game).svg(self._engine, self._pos)

    def _repr_svg_(self) -> str:
        return self.svg()


def _position(game: str, engine: Any, pos: Any) -> Position:
    return Position(game, engine.rules_name, engine.format(pos), engine.to_move(pos), engine, pos)


def _probe_of(position: Position, answer: dict[str, Any]) -> Probe:
    """The Probe of a probe JSON object (so that `Probe.to_dict` is that object)."""
    moves = [MoveValue(m["cell"], m["name"], m["value"], m["remoteness"]) for m in answer["moves"]]
    bound = answer.get("at_least")
    at_least = None if bound is None else LowerBound(bound["value"], bound["remoteness"])
    return Probe(position, answer["value"], answer["remoteness"], answer["source"], moves, answer["pv"], at_least)


@dataclass(frozen=True)
class LowerBound:
    """What the settled moves of an unknown answer prove: the position is at least this
    good for the side to move (``value`` "win" and ``remoteness`` 9: a win in at most 9
    plies; "draw": at least a draw; "loss" and 12: any loss lasts at least 12 plies)."""

    value: str
    remoteness: int | None


@dataclass(frozen=True)
class Probe:
    """The value of a position and of each legal move (best first), and its principal
    variation: the move names to the end of the game under perfect play."""

    position: Position
    value: str
    remoteness: int | None
    source: str
    moves: list[MoveValue]
    pv: list[str]
    #: for an "unknown" value, what its settled moves prove (None: nothing, or not unknown)
    at_least: LowerBound | None = None

    @property
    def to_move(self) -> str:
        return self.position.to_move

    @property
    def rules(self) -> str:
        return self.position.rules

    def to_dict(self) -> dict[str, Any]:
        """The object `tablebase probe ... --json` prints for this position."""
        answer: dict[str, Any] = {
            "position": self.position.text, "to_move": self.to_move, "rules": self.rules, "source": self.source,
            "value": self.value, "remoteness": self.remoteness,
            "moves": [{"cell": m.cell, "name": m.name, "value": m.value, "remoteness": m.remoteness}
                      for m in self.moves], "pv": list(self.pv)}
        if self.value == "unknown":
            answer["at_least"] = (None if self.at_least is None else
                                  {"value": self.at_least.value, "remoteness": self.at_least.remoteness})
        return answer

    def _repr_svg_(self) -> str:
        return self.position.svg()


@dataclass(frozen=True)
class TableSummary:
    """One table a file holds."""

    game: str
    rules: str
    status: str
    positions: int
    rules_version: str
    solver_version: str
    bytes: int
    seconds: float

    def to_dict(self) -> dict[str, Any]:
        return {"game": self.game, "rules": self.rules, "status": self.status, "positions": self.positions,
                "rules_version": self.rules_version, "solver_version": self.solver_version, "bytes": self.bytes,
                "seconds": round(self.seconds, 2)}


def _whole(name: str, value: Any, least: int, most: int | None = None) -> None:
    """Refuse ``value`` unless it is a whole number from ``least`` (to ``most``): a
    ServiceError naming the parameter and the value (a bool is not a number here)."""
    whole = isinstance(value, numbers.Integral) and not isinstance(value, bool)
    if not whole or int(value) < least or (most is not None and int(value) > most):
        span = f"at least {least}" if most is None else f"from {least} to {most}"
        raise ServiceError(f"{name} must be a whole number {span}, not {value!r}")


def _seconds(name: str, value: Any, positive: bool = False) -> None:
    """Refuse ``value`` unless it is a number of seconds, at least 0 (above 0 when
    ``positive``); ``None`` passes (no bound). A ServiceError naming the parameter and the value."""
    number = isinstance(value, numbers.Real) and not isinstance(value, bool)
    if value is not None and not (number and (value > 0 if positive else value >= 0)):
        kind = "a positive number of seconds" if positive else "a number of seconds, at least 0"
        raise ServiceError(f"{name} must be {kind}, not {value!r}")


#: The rules options the games read as text (`GameDescription.read`, ``default_game``).
TEXT_OPTIONS = ("variant", "board", "ruleset", "rules")


def _described(game: Any, position: Any = None, options: dict[str, Any] | None = None) -> GameDescription:
    """The description of ``game``, once the game's name, the position (None: the start)
    and the rules options are text: a ServiceError names any that is not (a number or
    bytes given for a position would fail deep in a parser)."""
    _text("game", game, optional=False)
    _text("position", position)
    for name, value in (options or {}).items():
        if name in TEXT_OPTIONS:
            _text(name, value)
    return describe(game)


def _text(name: str, value: Any, optional: bool = True) -> None:
    """Refuse ``value`` unless it is text (or None, when ``optional``): a ServiceError
    naming the parameter and the value."""
    if not isinstance(value, str) and (value is not None or not optional):
        raise ServiceError(f"{name} must be text, not {value!r}")


def _path(name: str, value: Any, optional: bool = False) -> None:
    """Refuse ``value`` unless it is a file's path (text or a path object; None too when
    ``optional``): a ServiceError naming the parameter and the value."""
    if not isinstance(value, (str, os.PathLike)) and (value is not None or not optional):
        raise ServiceError(f"{name} must be a file's path, not {value!r}")


def _progress(progress: Any) -> None:
    """Refuse a ``progress`` that cannot be called (it is called with each `ProgressEvent`)."""
    if progress is not None and not callable(progress):
        raise ServiceError(f"progress must be a function taking a ProgressEvent, or None, not {progress!r}")


def _flag(name: str, value: Any) -> None:
    """Refuse ``value`` unless it is True or False (``"no"`` would count as true)."""
    if not isinstance(value, bool):
        raise ServiceError(f"{name} must be True or False, not {value!r}")


class Tablebase:
    """A tablebase file. Use `tablebase.open`; close it (or use ``with``) when done."""

    def __init__(self, path: str | Path, mode: Literal["r", "w"] = "r", memo: bool = False) -> None:
        if mode not in ("r", "w"):
            raise ServiceError(f"mode must be 'r' (read-only) or 'w' (solve into the file): {mode!r}")
        _path("path", path)
        self.path = Path(path)
        self.mode = mode
        #: probes remember what complete tables answered, for every `Tablebase` of the process
        #: (see `service.probing.MemoLookup`): for a long-running reader such as the web explorer
        self.memo = memo
        self.store = TablebaseStore(path, create=mode == "w", readonly=mode == "r", share_blocks=memo)

    def close(self) -> None:
        self.store.close()

    def __enter__(self) -> Tablebase:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"tablebase.open({str(self.path)!r}, mode={self.mode!r})"

    # -- positions and values --------------------------------------------------

    def position(self, game: str, position: str | None = None, **options: Any) -> Position:
        """A position (default: the start) under the options: ``variant=`` for Sparro;
        ``board=``, ``ruleset=``, ``rules=`` for the Smallholder."""
        engine, pos = _described(game, position, options).read(position, **options)
        return _position(game, engine, pos)

    def probe(self, game: str, position: str | None = None, *, search: bool = False, budget: int | None = None,
              seconds: float | None = None, **options: Any) -> Probe:
        """The exact value of ``position`` (default: the start) and of each legal move,
        from the file's table, or with ``search=True`` by search from the rules alone
        (then "unknown" past the node ``budget`` or past ``seconds`` of wall-clock time;
        None: no time bound). ``budget`` and ``seconds`` bound that search alone: without
        ``search=True`` nothing is searched (rules no table holds are a ServiceError
        saying so), and either one given is a ServiceError rather than a bound silently
        unused (the command line's ``--budget`` and ``--time`` likewise bound only a search).
        Options as for `position`."""
        _flag("search", search)
        if budget is not None:
            _whole("budget", budget, 1)
        _seconds("seconds", seconds, positive=True)
        if not search:
            for name, bound in (("budget", budget), ("seconds", seconds)):
                if bound is not None:
                    raise ServiceError(f"{name} bounds a search, and without search=True the table answers: "
                                       f"give search=True, or leave {name} out: {name}={bound!r}")
        description = _described(game, position, options)
        engine, pos = description.read(position, **options)
        # a search starts from the file's stored search results
        lookups = Lookups(description, self.store, search, budget, seconds, memo=self.memo)
        answers = ProbeAnswers(lambda _: (engine, pos), lookups, answer_unknown=search)
        return _probe_of(_position(game, engine, pos), answers.one(engine.format(pos)))

    def tables(self) -> list[TableSummary]:
        """What the file holds: one summary per table."""
        sizes = self.store.table_bytes()
        return [TableSummary(t.game, t.rules, t.status, t.positions, t.rules_version, t.solver_version,
                             sizes.get(t.id, 0), t.seconds) for t in self.store.tables()]

    # -- work ------------------------------------------------------------------

    def solve(self, game: str, *, progress: Progress | None = None, force: bool = False, **options: Any) -> TableInfo:
        """Solve the rules the options name into the file (mode "w"), resuming or reusing
        what is stored; ``progress`` is called with a `ProgressEvent` per step."""
        _progress(progress)
        _flag("force", force)
        description = _described(game, None, options)
        engine = description.default_game(**options)
        why = description.cannot_solve(engine)
        if why:
            raise ServiceError(why)
        return description.solve(self.store, engine, progress, force)

    def verify(self, game: str = "all", *, boards: tuple[str, ...] = SMALLHOLDER_BOARDS,
               proofs: tuple[tuple[str | Path, str | Path | None], ...] = (), search: bool = True,
               progress: Progress | None = None) -> list[Claim]:
        """The fairness claims of ``game`` ("all": every game), solving missing tables (mode "w").
        ``proofs``: weak solutions as (proof file, its check journal or None), each checked
        (re-solving the big leaves the journal lacks; with ``search`` False that is a
        ServiceError) and its first-player claim added, or confirming the tables' claim."""
        _text("game", game, optional=False)
        if game != "all":
            _described(game)
        if isinstance(boards, str) or not isinstance(boards, (tuple, list)):
            raise ServiceError(f"boards must be a tuple of board names, not {boards!r}")
        for board in boards:
            _text("board", board, optional=False)
        if isinstance(proofs, str) or not isinstance(proofs, (tuple, list)):
            raise ServiceError(f"proofs must be a tuple of (proof file, journal or None) pairs, not {proofs!r}")
        for pair in proofs:
            if not isinstance(pair, (tuple, list)) or len(pair) != 2:
                raise ServiceError(f"each of proofs must be a (proof file, journal or None) pair, not {pair!r}")
            _path("proof", pair[0])
            _path("journal", pair[1], optional=True)
        _flag("search", search)
        _progress(progress)
        return verify_claims(self.store, game, progress, boards, proofs=proofs, search=search)

    def check(self, sample: int = audit.DEFAULT_SAMPLE, seed: int = 0,
              search_budget: int = audit.DEFAULT_SEARCH_BUDGET) -> audit.DatabaseReport:
        """The audit of `tablebase check`: file, checksums, versions, sampled values."""
        _whole("sample", sample, 0)
        _whole("seed", seed, 0)
        _whole("search_budget", search_budget, 1)
        return audit.check_database(self.store, sample, seed, search_budget)

    def puzzles(self, game: str | None = None, rules: str | None = None, min_depth: int | None = None,
                max_depth: int | None = None, grade: int | None = None, limit: int | None = None
                ) -> list[StoredPuzzle]:
        """The stored puzzles matching every filter given."""
        for name, value, least, most in (("min_depth", min_depth, 0, None), ("max_depth", max_depth, 0, None),
                                          ("grade", grade, 1, 5), ("limit", limit, 0, None)):
            if value is not None:
                _whole(name, value, least, most)
        if game is not None:
            _described(game)
        _text("rules", rules)
        return puzzle_service.find(self.store, game, rules, min_depth, max_depth, grade, limit)

    def generate_puzzles(self, game: str, count: int = 10, min_depth: int = 3, max_depth: int = 15, seed: int = 1,
                         max_games: int = 20_000, progress: Progress | None = None,
                         **options: Any) -> list[StoredPuzzle]:
        """Find and store new puzzles under the options' rules (mode "w")."""
        _whole("count", count, 1)
        _whole("min_depth", min_depth, 1)
        _whole("max_depth", max_depth, min_depth)
        _whole("seed", seed, 0)
        _whole("max_games", max_games, 1)
        _progress(progress)
        _described(game, None, options)
        label = puzzle_service.rules_label(game, **options)
        return list(puzzle_service.generate_into(self.store, game, label, count, min_depth, max_depth, seed,
                                                 max_games, f"tablebase.open(...).generate_puzzles({game!r}, "
                                                 f"seed={seed})", progress))

    # -- weak solves (The Smallholder) -----------------------------------------------

    def weak_solve(self, game: str = "smallholder", position: str | None = None, *,
                   progress: Progress | None = None, workers: int | None = None, scheduler: str | None = None,
                   job_budget: int = proof_service.DEFAULT_JOB_BUDGET,
                   job_retries: int = proof_service.DEFAULT_JOB_RETRIES,
                   leaf_solver: str = proof_service.DEFAULT_LEAF_SOLVER, job_max_empty: int | None = None,
                   job_table_mb: int = proof_service.DEFAULT_JOB_TABLE_MB, time_limit: float | None = None,
                   first_moves: bool = False, **options: Any) -> proof_service.WeakSolveReport:
        """Prove the value of ``position`` (default: the empty board) as `tablebase solve
        smallholder --weak` does (mode "w"): a proof-number search whose frontier
        positions are exact-search jobs, in-process or on a Dask cluster (``workers``, or
        ``scheduler`` = "tcp://HOST:PORT"), committed as it goes, so the same call resumes
        a stopped run. Options ``board=``, ``ruleset=``, ``rules=``; the rest as the
        command's options (docs/distributed.md)."""
        engine = _weak_game(game, options, position)
        _progress(progress)
        _flag("first_moves", first_moves)
        _whole("job_budget", job_budget, 1, 10**12)
        _whole("job_retries", job_retries, 0, 10)
        _whole("job_table_mb", job_table_mb, proof_service.MIN_JOB_TABLE_MB, proof_service.MAX_JOB_TABLE_MB)
        for name, value, least in (("workers", workers, 1), ("job_max_empty", job_max_empty, 0)):
            if value is not None:
                _whole(name, value, least)
        _seconds("time_limit", time_limit)
        return proof_service.weak_solve_into(
            self.store, engine.board.name, engine.rules, root_text=position, node_budget=job_budget,
            job_retries=job_retries, solver=leaf_solver, workers=workers, scheduler=scheduler,
            job_max_empty=job_max_empty, time_limit=time_limit, first_moves=first_moves,
            job_table_mb=job_table_mb, progress=progress)

    def weak_solves(self) -> list[dict[str, Any]]:
        """Where the weak solves stored in the file stand, without running them: one dict
        per run, as `tablebase proof status --json` prints (status, nodes settled, jobs,
        seconds, the root's proof and disproof numbers, a proved run's proof and how many
        of its leaves an export still has to search, and each move from the root up to
        symmetry: its status and how many of the positions after it are proved and
        disproved)."""
        return proof_service.weak_solve_status(self.store)

    def export_proof(self, game: str = "smallholder", position: str | None = None, *,
                     progress: Progress | None = None, workers: int | None = None, scheduler: str | None = None,
                     **options: Any) -> list[str]:
        """The lines of the proof of a weak solve stored in the file, as `tablebase proof
        export` writes them (TSV; `check_proof` verifies them). Options ``board=``,
        ``ruleset=``, ``rules=``. A proof on value-only leaves gets their remoteness from
        the exact search (``progress`` reports each leaf), stored in a file opened with
        mode "w"; with ``workers`` (a local Dask cluster) or ``scheduler``
        ("tcp://HOST:PORT") those searches run on the cluster's workers."""
        engine = _weak_game(game, options, position)
        _progress(progress)
        if workers is not None:
            _whole("workers", workers, 1)
        return list(proof_service.export_proof(self.store, engine.board.name, engine.rules, position, progress,
                                               workers, scheduler))


def _weak_game(game: str, options: dict[str, Any], position: Any = None) -> Any:
    """The game of the options, if its description takes weak solves (The Smallholder)."""
    description = _described(game, position, options)
    if not description.weak_solves:
        raise ServiceError(f"weak solves are for games whose tables do not fit (The Smallholder): {game!r}")
    return description.default_game(**options)


def check_proof(proof: str | Path | Iterable[str], *, check_budget: int = proof_service.DEFAULT_CHECK_BUDGET,
                leaf_check: str = proof_service.DEFAULT_LEAF_CHECK, journal: str | Path | None = None,
                progress: Progress | None = None, workers: int | None = None,
                scheduler: str | None = None) -> proof_service.CheckReport:
    """Verify a proof (a file's path, plain or .gz, or its lines) with the rules engine
    alone, as `tablebase check --proof` does; a ServiceError names what is wrong. With
    ``journal`` (a file's path, created if missing), what the re-checks of big leaves find
    is kept there, and a later check with the same journal takes it from there: a stopped
    check resumes (`report.journal_leaves` counts such leaves). With ``workers`` (a local
    Dask cluster of that many processes) or ``scheduler`` ("tcp://HOST:PORT"), the big
    leaves are re-solved on the cluster's workers."""
    _whole("check_budget", check_budget, 1)
    if leaf_check not in proof_service.LEAF_CHECKS:
        raise ServiceError(f"unknown leaf check (known: {', '.join(proof_service.LEAF_CHECKS)}): {leaf_check!r}")
    if workers is not None:
        _whole("workers", workers, 1)
    _path("journal", journal, optional=True)
    _progress(progress)
    if isinstance(proof, (str, os.PathLike)):
        return proof_service.check_proof_file(proof, check_budget, progress, leaf_check, journal, workers, scheduler)
    if isinstance(proof, (bytes, bytearray)) or not isinstance(proof, Iterable):
        raise ServiceError(f"proof must be a proof file's path or its lines (text), not {proof!r}")
    return proof_service.check_proof_lines(_text_lines(proof), "<lines>", check_budget, progress, leaf_check, journal,
                                           workers, scheduler)


def _text_lines(lines: Iterable[Any]) -> Iterable[str]:
    """``lines``, each refused (a ServiceError naming it) unless it is text."""
    for number, line in enumerate(lines, start=1):
        if not isinstance(line, str):
            raise ServiceError(f"line {number} of the proof must be text, not {line!r}")
        yield line


def find_repetition(position: str | None = None, *, board: str | None = None, ruleset: str | None = None,
                    rules: str | None = None, games: int = repetition.DEFAULT_GAMES,
                    plies: int = repetition.DEFAULT_PLIES, slack: int = repetition.DEFAULT_SLACK, seed: int = 0,
                    progress: Progress | None = None) -> dict[str, Any]:
    """Look for a line of The Smallholder that comes back to a position, as `tablebase
    cycle smallholder` does: from ``position`` if given, else in ``games`` random games
    on ``board`` (default hex4), under ``ruleset`` and the custom ``rules`` on top. The
    answer is that command's JSON object; a line found has been played again by the
    reference rules engine, and none found proves nothing."""
    from tablebase.service.smallholder import rules_of

    for name, value in (("position", position), ("board", board), ("ruleset", ruleset), ("rules", rules)):
        _text(name, value)
    _progress(progress)
    _whole("games", games, 1, repetition.MAX_GAMES)
    _whole("plies", plies, 2, repetition.MAX_PLIES)
    _whole("slack", slack, 0, repetition.MAX_SLACK)
    _whole("seed", seed, 0)
    return repetition.find_repetition(board, rules_of(ruleset, rules), position, games, plies, slack, seed, progress)


def open(path: str | Path = "tablebase.sqlite", mode: Literal["r", "w"] = "r",  # noqa: A001
         memo: bool = False) -> Tablebase:
    """Open a tablebase file: read-only (``mode="r"``), or ``mode="w"`` to solve into it
    (created if missing). With ``memo``, probes remember what complete tables answered
    (shared by the whole process; a table replaced in the file is read anew)."""
    return Tablebase(path, mode, memo)


GAME_NAMES = tuple(GAMES)
