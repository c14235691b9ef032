"""What the web explorer asks of the toolkit, in one object per tablebase file.

Every method answers with the JSON objects the command line prints (`probe --json`,
`moves --json`, `puzzles list --json`), so the HTTP layer only translates query
parameters into arguments and answers into responses.
"""

from __future__ import annotations

import re
import threading
from pathlib import Path
from typing import Any

from tablebase.render.svg import smallholder_svg, sparro_svg
from tablebase.render.text import smallholder_moves
from tablebase.service.errors import ServiceError as TablebaseError
from tablebase.service.probing import ProbeAnswers
from tablebase.service.smallholder import read as _read, replay as _replay, rules_of as _rules_of, stored_lookup
from tablebase.service.sparro import DESCRIPTION as SPARRO, START_TEXT, search_lookup, table_lookup
from tablebase.db.puzzles import PuzzleStore
from tablebase.db.store import StoreError, TablebaseStore
from tablebase.games.base import NotationError
from tablebase.games.smallholder import DEFAULT_BOARD, DEFAULT_RULESET, RULESETS
from tablebase.games.smallholder.board import BOARD_ROWS
from tablebase.games.sparro import VARIANTS, Sparro
from tablebase.games.sparro.rules import RULES_VERSION
from tablebase.solver.probe import NotInTable
from tablebase.solver.smallholder_arrays import MAX_MASK_CELLS
from tablebase.solver.smallholder_search import DEFAULT_NODE_BUDGET, ArrayLocalSearch, LocalSearch
from tablebase.solver.tiered import SOLVER_VERSION

GAMES = ("sparro", "smallholder")
#: Errors that are the user's: bad notation, an illegal move, a missing or foreign table.
USER_ERRORS = (NotationError, StoreError, NotInTable, TablebaseError)
#: Node budget of a Sparro search (the command line's default).
SPARRO_BUDGET = 2_000_000


class BadRequest(ValueError):
    """A request the explorer cannot answer; the message is the one line shown."""


def error_line(exc: Exception) -> str:
    """The one-line message of a user error, as the command line prints it."""
    return str(exc)


def is_missing_table(exc: Exception) -> bool:
    """Whether the error says that no table holds the position (a search may answer it)."""
    text = error_line(exc)
    return isinstance(exc, NotInTable) or "not solved" in text or "too big to have tables" in text


class Explorer:
    """Read-only answers from one tablebase file, safe to use from many threads at once.

    Each thread keeps its own connection (SQLite connections are per thread); the file
    is opened read-only, so a solve writing to it meanwhile is never disturbed and every
    reader sees the last committed tier.
    """

    def __init__(self, db_path: str | Path) -> None:
        self.db_path = str(db_path)
        self._local = threading.local()

    def _store(self) -> TablebaseStore:
        store = getattr(self._local, "store", None)
        if store is None:
            store = TablebaseStore(self.db_path, readonly=True)
            self._local.store = store
            self._local.lookups = {}
        return store

    @staticmethod
    def games() -> dict[str, Any]:
        """The games and the rules each can be played under (for the page's choices)."""
        return {"sparro": {"variants": list(VARIANTS), "default_variant": "standard"},
                "smallholder": {"boards": list(BOARD_ROWS), "default_board": DEFAULT_BOARD,
                                "rulesets": list(RULESETS), "default_ruleset": DEFAULT_RULESET}}

    def games_in_file(self) -> list[str]:
        """The tables the file holds, as "game rules" (opening it: a bad file raises StoreError)."""
        return [f"{t.game} {t.rules}" for t in self._store().tables()]

    # -- the rules and positions of a request --------------------------------------

    @staticmethod
    def _check_game(game: str) -> None:
        if game not in GAMES:
            raise BadRequest(f"unknown game (expected {' or '.join(GAMES)}): {game!r}")

    @staticmethod
    def _sparro(variant: str | None) -> Sparro:
        name = variant or "standard"
        if name not in VARIANTS:
            raise BadRequest(f"unknown Sparro variant (expected {', '.join(VARIANTS)}): {name!r}")
        return Sparro(name)

    @staticmethod
    def _moves_of(after: str | None) -> list[str]:
        return [token for token in re.split(r"[\s,]+", (after or "").strip()) if token]

    def _sparro_position(self, game: Sparro, position: str | None, after: str | None) -> Any:
        pos = game.parse(position or START_TEXT)
        for number, token in enumerate(self._moves_of(after), start=1):
            move = game.parse_move(token)
            if move not in game.legal_moves(pos):
                raise BadRequest(f"move {number} is illegal in {game.format(pos)!r}: {token!r}")
            pos = game.play(pos, move)
        return pos

    def _smallholder_position(self, position: str | None, board: str | None, ruleset: str | None,
                              rules: str | None, after: str | None) -> tuple[Any, Any]:
        spec = _rules_of(ruleset, rules)
        if position:
            game, pos = _read(position, board, spec, allow_unreachable=False)
        else:
            game, pos = _read(None, board or DEFAULT_BOARD, spec, allow_unreachable=False)
        return game, _replay(game, pos, after)

    def _position(self, game: str, position: str | None, variant: str | None, board: str | None,
                  ruleset: str | None, rules: str | None, after: str | None) -> tuple[Any, Any]:
        self._check_game(game)
        if game == "sparro":
            sparro = self._sparro(variant)
            return sparro, self._sparro_position(sparro, position, after)
        return self._smallholder_position(position, board, ruleset, rules, after)

    # -- answers --------------------------------------------------------------------

    def probe(self, game: str, position: str | None = None, *, variant: str | None = None,
              board: str | None = None, ruleset: str | None = None, rules: str | None = None,
              after: str | None = None, search: bool = False) -> dict[str, Any]:
        """What `tablebase probe GAME POSITION --json` prints (of the position reached
        after the ``after`` moves). With ``search`` the answer comes from the rules alone."""
        rules_object, pos = self._position(game, position, variant, board, ruleset, rules, after)
        lookup = self._search_lookup(rules_object) if search else self._table_lookup(rules_object)
        answers = ProbeAnswers(lambda text: (rules_object, rules_object.parse(text)), lambda _: lookup,
                               answer_unknown=search)
        return answers.one(rules_object.format(pos))

    def _table_lookup(self, rules_object: Any) -> Any:
        store = self._store()
        lookups = self._local.lookups
        name = (rules_object.game_name, rules_object.rules_name)
        if name not in lookups:
            if rules_object.game_name == "sparro":
                table = store.table("sparro", rules_object.variant)
                if table is None or table.status != "complete":
                    raise NotInTable(f"sparro {rules_object.variant} is not solved in {self.db_path!r}; run "
                                     f"'tablebase solve sparro --variant {rules_object.variant}' or use --search")
                if table.rules_version != RULES_VERSION or table.solver_version != SOLVER_VERSION:
                    raise StoreError(f"the sparro {rules_object.variant} table in {self.db_path!r} was made by "
                                     f"another version")
                lookups[name] = table_lookup(store, table)
            else:
                lookups[name] = stored_lookup(store, rules_object)
        return lookups[name]

    @staticmethod
    def _search_lookup(rules_object: Any) -> Any:
        if rules_object.game_name == "sparro":
            return search_lookup(rules_object, SPARRO_BUDGET)
        search = ArrayLocalSearch if rules_object.board.size <= MAX_MASK_CELLS else LocalSearch
        return search(rules_object, node_budget=DEFAULT_NODE_BUDGET).outcomes

    def moves(self, game: str, position: str | None = None, *, variant: str | None = None,
              board: str | None = None, ruleset: str | None = None, rules: str | None = None,
              after: str | None = None) -> dict[str, Any]:
        """What `tablebase moves GAME POSITION --json` prints, for the position reached."""
        rules_object, pos = self._position(game, position, variant, board, ruleset, rules, after)
        if game == "sparro":
            return SPARRO.moves(rules_object, pos)
        return smallholder_moves(rules_object, pos)

    def svg(self, game: str, position: str | None = None, *, variant: str | None = None,
            board: str | None = None, ruleset: str | None = None, rules: str | None = None,
            after: str | None = None) -> str:
        """The project's SVG picture of the position reached (cells carry ``data-cell`` names)."""
        rules_object, pos = self._position(game, position, variant, board, ruleset, rules, after)
        if game == "sparro":
            return sparro_svg(rules_object, pos)
        return smallholder_svg(rules_object, pos)

    def puzzles(self, game: str | None = None, rules: str | None = None, grade: int | None = None,
                limit: int | None = None) -> list[dict[str, Any]]:
        """What `tablebase puzzles list --json` prints, one dict per puzzle."""
        if game is not None:
            self._check_game(game)
        found = PuzzleStore(self._store()).find(game, rules, None, None, grade, limit) \
            if self._has_puzzles() else []
        return [p.as_json() for p in found]

    def puzzle(self, puzzle_id: int) -> dict[str, Any]:
        """What `tablebase puzzles show ID --json` prints (the solution tree included)."""
        if not self._has_puzzles():
            raise StoreError(f"no puzzles in {self.db_path!r}; run 'tablebase puzzles generate'")
        found = PuzzleStore(self._store()).get(puzzle_id)
        return {**found.as_json(), "tree": found.tree}

    def _has_puzzles(self) -> bool:
        return "puzzles" in self._store().db.table_names()

