"""The Smallholder as the service sees it: reading positions under a board and rules,
solving a ruleset's move graph into a table, the bounded local search, drawing."""

from __future__ import annotations

import re
import time
from functools import cache
from typing import TYPE_CHECKING, Any, Callable, Iterable, Sequence

import numpy as np

from tablebase.db.store import TableInfo, TablebaseStore
from tablebase.games.base import DRAW
from tablebase.games.smallholder import (
    BLACK, BOARD_ROWS, COLOUR_NAMES, DEFAULT_BOARD, DEFAULT_RULESET, WHITE, IllegalMoveError, Position, RULESETS, Rules,
    Smallholder, all_rules, get_board, parse_position, parse_rules)
from tablebase.render.svg import smallholder_svg
from tablebase.render.text import smallholder_moves, smallholder_text
from tablebase.service.description import GameDescription, SolvedTable
from tablebase.service.errors import ServiceError
from tablebase.service import tables
from tablebase.service.progress import Progress, ProgressEvent, report
from tablebase.solver.probe import Lookup
from tablebase.solver.puzzles import LookAhead
from tablebase.solver.smallholder_arrays import MAX_MASK_CELLS
from tablebase.solver.smallholder_search import ArrayLocalSearch, LocalSearch
from tablebase.solver.smallholder_solve import (
    MAX_SOLVE_CELLS, PAYLOAD_DTYPE, RULES_VERSION, SOLVER_VERSION, solve_ruleset)
from tablebase.solver.keys import stone_counts
from tablebase.solver.payload import encode

if TYPE_CHECKING:
    from tablebase.solver.smallholder_exact import ExactSearch

GAME = "smallholder"


def rules_of(ruleset: str | None, spec: str | None) -> Rules:
    """The rules of a named ruleset (default nibbler) with a custom spec's changes on top."""
    base = parse_rules(DEFAULT_RULESET if ruleset is None else ruleset)
    return base if spec is None else parse_rules(spec, base)


@cache
def game_of(board: str, rules: Rules) -> Smallholder:
    """The (cached) rules object of a board and rules."""
    return Smallholder(board, rules)


def game_for_rules_name(name: str) -> Smallholder:
    """The rules object of a table's rules name (``ruleset@board`` or ``spec@board``)."""
    spec, _, board = name.rpartition("@")
    return game_of(board, parse_rules(spec))


def read(text: str | None, board: str | None, rules: Rules, allow_unreachable: bool = False
         ) -> tuple[Smallholder, Position]:
    """The rules object and position for ``text`` (the start position when None).

    Without ``board`` the board is the one the text's row lengths belong to.
    """
    if text is None:
        game = game_of(DEFAULT_BOARD if board is None else board, rules)
        return game, game.start()
    found, _ = parse_position(text, None if board is None else get_board(board))
    game = game_of(found.name, rules)
    return game, game.parse(text, allow_unreachable=allow_unreachable)


def replay(game: Smallholder, pos: Position, after: str | None) -> Position:
    """Play the ``after`` moves (names or indices, space or comma separated)."""
    for number, token in enumerate(re.split(r"[\s,]+", (after or "").strip()), start=1):
        if not token:
            continue
        cell = game.parse_move(token)
        try:
            pos = game.play(pos, cell)
        except IllegalMoveError:
            why = "the game is over" if not game.moves(pos) else "not a legal move"
            raise IllegalMoveError(f"--after move {number} is illegal ({why} for {COLOUR_NAMES[pos.to_move]} "
                                   f"in {game.format(pos)!r} under {game.rules_name}): {token!r}") from None
    return pos


def symmetry_images(game: Smallholder, pos: Position) -> list[tuple[Position, tuple[int, ...]]]:
    """Every symmetry image of ``pos`` with the cell permutation that makes it."""
    return [(game.symmetric(pos, s), perm) for s, perm in enumerate(game.board.symmetries)]


def too_big(game: Smallholder) -> str | None:
    """Why the board of ``game`` cannot have tables (None when it can)."""
    if game.board.size > MAX_SOLVE_CELLS:
        return f"{game.board.name} is too big to have tables (at most {MAX_SOLVE_CELLS} cells: limping2, hex3)"
    return None


def check_solvable(board: str) -> None:
    """A ServiceError unless the retrograde solve takes ``board`` (a known board's name)."""
    size = get_board(board).size
    if size > MAX_SOLVE_CELLS:
        raise ServiceError(f"{board} has {size} cells: a table (strong solve) is made for boards of up "
                           f"to {MAX_SOLVE_CELLS} cells only: limping2, hex3 (give --board); for {board} use "
                           f"'solve smallholder --weak' or 'probe smallholder --search'")


def solve_into(store: TablebaseStore, board: str, rules: Rules, progress: Progress | None = None,
               force: bool = False) -> SolvedTable:
    """Solve one ruleset on one board into ``store`` and return the table's info.

    A complete table of the same versions is reused unless ``force``. Any other stored
    table under the name (an interrupted solve, other versions) is deleted and the solve
    starts from scratch: unlike Sparro's tiers, no part of the graph can be solved alone.
    """
    game = game_of(board, rules)
    check_solvable(board)
    with store.solve_lock():
        return _solve_locked(store, game, rules, progress, force)


def _solve_locked(store: TablebaseStore, game: Smallholder, rules: Rules, progress: Progress | None,
                  force: bool) -> SolvedTable:
    name = game.rules_name
    if force:  # first: a table whose record is damaged is replaced too (reading it would fail)
        store.delete_table(GAME, name)
    old = store.table(GAME, name)
    if old is not None and not force and old.status == "complete" and (
            old.rules_version, old.solver_version, old.payload_dtype) == (RULES_VERSION, SOLVER_VERSION, PAYLOAD_DTYPE):
        return SolvedTable.of(old, reused=True)
    if old is not None:
        store.delete_table(GAME, name)
    table = store.begin_table(GAME, name, RULES_VERSION, SOLVER_VERSION, PAYLOAD_DTYPE)
    started = time.perf_counter()
    task = f"smallholder {name}"

    def step(stage: str, number: int, positions: int) -> None:
        what = "ply" if stage == "enumerate" else "retrograde levels"
        report(progress, task, f"{stage} {what} {number}, {positions:,} positions")

    solved = solve_ruleset(game.board, rules, step)
    payload = encode(solved.values, solved.remoteness, PAYLOAD_DTYPE)
    tiers = stone_counts(solved.keys, game.board.size)
    for tier in range(2 * game.board.size + 1):
        which = np.flatnonzero(tiers == tier)
        if len(which):
            report(progress, task, f"storing tier {tier} ({len(which):,} positions)")
            store.write_tier(table.id, tier, solved.keys[which], payload[which], 0.0)
    summary = {"start_value": solved.start.name, "start_remoteness": solved.start.remoteness, "moves": solved.moves,
               "plies": solved.plies, "draws": int(np.count_nonzero(solved.values == DRAW)),
               "cyclic_positions": solved.cyclic,
               "stage_seconds": {k: round(v, 2) for k, v in solved.seconds.items()}}
    return SolvedTable.of(store.finish_table(table.id, time.perf_counter() - started, summary), reused=False)


#: Default node budget of a search probe (the time bound usually comes first).
EXACT_NODE_BUDGET = 200_000_000


class SmallholderDescription(GameDescription):
    name = GAME
    colours = (BLACK, WHITE)
    options = ("board", "ruleset", "rules")
    weak_solves = True
    #: the boards the rules know, the named rulesets, and the defaults of every command
    boards: tuple[str, ...] = tuple(BOARD_ROWS)
    default_board = DEFAULT_BOARD
    rulesets: tuple[str, ...] = tuple(RULESETS)
    default_ruleset = DEFAULT_RULESET
    rules_version = RULES_VERSION
    solver_version = SOLVER_VERSION
    payload_dtype = PAYLOAD_DTYPE
    # custom rulesets can have cycles, which the alpha-beta search does not handle
    searchable = False
    search_budget = EXACT_NODE_BUDGET
    #: a position no table holds is answered by the exact search
    search_without_table = True

    def rules(self, label: str) -> Smallholder:
        return game_for_rules_name(label)

    def default_game(self, board: str | None = None, ruleset: str | None = None, rules: str | None = None,
                     **options: Any) -> Smallholder:
        _no_options(options)
        return game_of(DEFAULT_BOARD if board is None else board, rules_of(ruleset, rules))

    def read(self, text: str | None, board: str | None = None, ruleset: str | None = None, rules: str | None = None,
             allow_unreachable: bool = False, **options: Any) -> tuple[Smallholder, Position]:
        _no_options(options)
        return read(text, board, rules_of(ruleset, rules), allow_unreachable)

    def named_rules(self) -> list[Rules]:
        """The rules of every named ruleset."""
        return list(RULESETS.values())

    def all_combinations(self) -> list[Rules]:
        """The rules of every combination of the options (120)."""
        return all_rules()

    def check_board(self, name: str) -> None:
        """NotationError when ``name`` is no board of the rules."""
        get_board(name)

    def tier_of(self, game: Smallholder) -> Callable[[np.ndarray], np.ndarray]:
        size = game.board.size
        return lambda keys: stone_counts(keys, size)

    def cannot_solve(self, game: Smallholder) -> str | None:
        return too_big(game)

    def solve(self, store: TablebaseStore, game: Smallholder, progress: Progress | None = None,
              force: bool = False) -> TableInfo:
        return solve_into(store, game.board.name, game.rules, progress, force)

    def solve_seconds(self, game: Smallholder) -> float:
        # Measured on the 2-core machine on 2026-12-07 (23:27-23:36 UTC, load under 1 at
        # the start), 'tablebase solve smallholder --board B --ruleset R': a hex3 ruleset
        # 16 s (nibbler) to 22 s (stymie) wall, the five in one process 115 s (18-24 s
        # each, the last beside a test run); limping2's five 1.3 s wall with the start-up
        # (0.5 s the first, loading the compiled rules, 0.02 s each after)
        return 20.0 if game.board.size > 12 else 1.0

    def solve_command(self, game: Smallholder) -> str:
        choice = f"--ruleset {game.rules.name}" if game.rules.name in RULESETS else f"--rules {game.rules.spec}"
        return f"tablebase solve smallholder --board {game.board.name} {choice}"

    def search_lookup(self, game: Smallholder, budget: int, seconds: float | None = None,
                      progress: Progress | None = None, store: TablebaseStore | None = None,
                      since: float | None = None) -> Lookup:
        # imported here: the exact search loads numba, which no command should pay for at start-up
        from tablebase.solver.smallholder_exact import MAX_CELLS as EXACT_MAX_CELLS
        from tablebase.solver.smallholder_exact import Budget
        from tablebase.solver.smallholder_exact import search_lookup as exact_lookup
        if game.board.size <= EXACT_MAX_CELLS:
            # the pruning exact search (its table lives on in the process between probes,
            # and in ``store`` between runs: service/search_results.py)
            if store is not None:
                from tablebase.service.search_results import persistent_lookup
                return persistent_lookup(store, exact_search(game), Budget(seconds, budget, since), progress,
                                         search_progress(game, progress))
            return exact_lookup(exact_search(game), Budget(seconds, budget, since), search_progress(game, progress))
        # hex5 and larger: the subgraph method on the rules engine
        search = ArrayLocalSearch if game.board.size <= MAX_MASK_CELLS else LocalSearch
        if seconds is not None and since is not None:  # its time bound counts from its start: what is left
            seconds = max(0.0, seconds - (time.perf_counter() - since))
        return search(game, node_budget=budget, time_budget=seconds).outcomes  # type: ignore[return-value]

    def look_ahead(self, game: Smallholder) -> LookAhead | None:
        # imported here: the compiled rules load numba, which no command should pay for at start-up
        from tablebase.solver.smallholder_exact import MAX_CELLS as EXACT_MAX_CELLS
        from tablebase.solver.smallholder_exact import look_ahead
        return look_ahead(game) if game.board.size <= EXACT_MAX_CELLS else None

    def images(self, game: Smallholder, pos: Position) -> Iterable[tuple[Position, Sequence[int]]]:
        return symmetry_images(game, pos)

    def text(self, game: Smallholder, pos: Position) -> str:
        return smallholder_text(game, pos)

    def svg(self, game: Smallholder, pos: Position) -> str:
        return smallholder_svg(game, pos)

    def moves(self, game: Smallholder, pos: Position) -> dict[str, Any]:
        return smallholder_moves(game, pos)


def _no_options(options: dict[str, Any]) -> None:
    given = [name for name, value in options.items() if value is not None]
    if given:
        raise ServiceError(f"the Smallholder has no option {given[0]!r} (it takes board=, ruleset=, rules=)")


DESCRIPTION = SmallholderDescription()


def stored_lookup(store: TablebaseStore, game: Smallholder) -> Lookup:
    """The lookup into ``game``'s complete, current table (a ServiceError saying what to run otherwise)."""
    return tables.stored_lookup(store, DESCRIPTION, game)


def solved_lookup(store: TablebaseStore, game: Smallholder, progress: Progress | None = None) -> Lookup:
    """A lookup into ``game``'s table, solving it first if it is not stored yet."""
    return tables.solved_lookup(store, DESCRIPTION, game, progress)



@cache
def exact_search(game: Smallholder) -> ExactSearch:
    """One exact search per rules object and process: what it proves stays in its table."""
    from tablebase.solver.smallholder_exact import ExactSearch
    return ExactSearch(game)


def search_progress(game: Smallholder, progress: Progress | None) -> Callable[[int, int, str], None] | None:
    """The search's progress callback as `ProgressEvent`s (about once a second)."""
    if progress is None:
        return None
    callback = progress

    def report_search(nodes: int, depth: int, line: str) -> None:
        text = f"{nodes:,} positions, depth {depth}"
        callback(ProgressEvent(f"search {game.rules_name}", f"{text}, best line so far: {line}" if line else text))

    return report_search
