"""What the web explorer asks of the service layer, for one tablebase file.

Every method answers with the JSON objects the command line prints (`probe --json`,
`moves --json`, `puzzles list --json`, `verify --json`), made by the same service calls
(`tablebase.open(...)`), so the HTTP layer only translates query parameters into
arguments and answers into responses.
"""

from __future__ import annotations

import re
import threading
from pathlib import Path
from typing import Any

import tablebase
from tablebase.service import puzzles as puzzle_service
from tablebase.service.errors import USER_ERRORS as SERVICE_ERRORS
from tablebase.service.errors import IllegalMoveError, NotInTable, NotSolved
from tablebase.service.games import describe
from tablebase.service.probing import rules_json
from tablebase.service.puzzles import puzzle_json
from tablebase.service.smallholder import DESCRIPTION as SMALLHOLDER
from tablebase.service.sparro import DESCRIPTION as SPARRO
from tablebase.service.verify import Claim, stored_claims, with_proofs

__all__ = ["USER_ERRORS", "BadRequest", "Explorer", "error_line", "is_missing_table", "is_whole_number"]


class BadRequest(ValueError):
    """A request the explorer cannot answer; the message is the one line shown."""


#: Errors that are the user's: bad notation, an illegal move, a missing or foreign table.
USER_ERRORS: tuple[type[Exception], ...] = (*SERVICE_ERRORS, BadRequest)


def error_line(exc: Exception) -> str:
    """The one-line message of a user error, as the command line prints it."""
    return str(exc)


def is_missing_table(exc: Exception) -> bool:
    """Whether the error says that no table holds the position (a search may answer it):
    no bad input, so a probe answers it from the rules (`Explorer.probe`)."""
    return isinstance(exc, (NotInTable, NotSolved)) or "too big to have tables" in str(exc)


def is_whole_number(text: str) -> bool:
    """Whether ``text`` is a whole number written in ASCII digits (``str.isdigit`` also takes
    "²" or "١", which ``int`` then refuses or reads as another number)."""
    return re.fullmatch(r"[0-9]+", text) is not None


def moves_of(after: str | None) -> list[str]:
    """The moves of an ``after`` parameter: names or indices, space or comma separated."""
    return [token for token in re.split(r"[\s,]+", (after or "").strip()) if token]


class Explorer:
    """Read-only answers from one tablebase file, safe to use from many threads at once.

    Each thread keeps its own `tablebase.open(path)` (SQLite connections are per
    thread); the file is opened read-only, so a solve writing to it meanwhile is never
    disturbed and every reader sees the last committed tier. Probes remember what
    complete tables answered (``memo``), shared by every thread; every probe reads the
    table's record again, so a table replaced in the file is never answered from memory.
    """

    def __init__(self, db_path: str | Path, proved: tuple[Claim, ...] = ()) -> None:
        self.db_path = str(db_path)
        self._local = threading.local()
        #: first-player claims of weak solutions, checked before the server started
        #: (`proof_claims`): the fairness report adds them to the tables' claims
        self.proved = proved

    def _tablebase(self) -> tablebase.Tablebase:
        opened = getattr(self._local, "tablebase", None)
        if opened is None:
            opened = self._local.tablebase = tablebase.open(self.db_path, memo=True)
        return opened

    @staticmethod
    def games() -> dict[str, Any]:
        """The games and the rules each can be played under (for the page's choices): every
        rule set the command line can probe."""
        return {"sparro": {"variants": list(SPARRO.named_variants), "default_variant": SPARRO.default_variant},
                "smallholder": {"boards": list(SMALLHOLDER.boards), "default_board": SMALLHOLDER.default_board,
                                "rulesets": list(SMALLHOLDER.rulesets), "default_ruleset": SMALLHOLDER.default_ruleset}}

    def tables(self) -> list[dict[str, Any]]:
        """What the file holds (`tablebase tables --json`); opening it checks it is a tablebase."""
        return [table.to_dict() for table in self._tablebase().tables()]

    def _reached(self, game: str, position: str | None, after: str | None, options: dict[str, Any]
                 ) -> tablebase.Position:
        """The position ``position`` (default: the start) after the ``after`` moves."""
        pos = self._tablebase().position(game, position, **options)
        for number, token in enumerate(moves_of(after), start=1):
            try:
                pos = pos.play(int(token) if is_whole_number(token) else token)
            except (IllegalMoveError, ValueError) as exc:
                if isinstance(exc, SERVICE_ERRORS) and not isinstance(exc, IllegalMoveError):
                    raise  # not a move at all: the notation's own message
                why = "the game is over" if not pos.legal_moves else "not a legal move"
                raise BadRequest(f"after move {number} is illegal ({why} in {pos.text!r} under {pos.rules}): "
                                 f"{token!r}") from None
        return pos

    def probe(self, game: str, position: str | None = None, *, after: str | None = None, search: bool = False,
              **options: Any) -> dict[str, Any]:
        """What `tablebase probe GAME POSITION --json` prints (of the position reached
        after the ``after`` moves); with ``search`` the answer comes from the rules alone.
        A position no table holds is no bad input: without ``search`` it is answered from
        the rules alone (`rules_json`: a finished game's value, else "unknown"), its
        ``"no_table"`` saying why, the error a table probe raised."""
        if moves_of(after):
            position = self._reached(game, position, after, options).text
        try:
            return self._tablebase().probe(game, position, search=search, **options).to_dict()
        except USER_ERRORS as exc:
            if search or not is_missing_table(exc):
                raise
            return rules_json(*describe(game).read(position, **options), error_line(exc))

    def moves(self, game: str, position: str | None = None, *, after: str | None = None,
              **options: Any) -> dict[str, Any]:
        """What `tablebase moves GAME POSITION --json` prints, for the position reached."""
        description = describe(game)
        reached = self._reached(game, position, after, options)
        return description.moves(*description.read(reached.text, **options))

    def svg(self, game: str, position: str | None = None, *, after: str | None = None, **options: Any) -> str:
        """The project's SVG picture of the position reached (cells carry ``data-cell`` names)."""
        return self._reached(game, position, after, options).svg()

    def puzzles(self, game: str | None = None, rules: str | None = None, grade: int | None = None,
                limit: int | None = None, min_depth: int | None = None,
                max_depth: int | None = None) -> list[dict[str, Any]]:
        """What `tablebase puzzles list --json` prints, one dict per puzzle."""
        return [puzzle_json(p) for p in self._tablebase().puzzles(game, rules, min_depth=min_depth, max_depth=max_depth,
                                                                  grade=grade, limit=limit)]

    def puzzle(self, puzzle_id: int) -> dict[str, Any]:
        """What `tablebase puzzles show ID --json` prints (the solution tree included)."""
        found = puzzle_service.get(self._tablebase().store, puzzle_id)
        return puzzle_json(found, tree=True)

    def fairness(self) -> dict[str, Any]:
        """The claims `tablebase verify --json` prints, for the tables the file holds
        (nothing is solved) and the weak solutions given (`proved`), and what was left out
        for want of a table."""
        claims, left_out = stored_claims(self._tablebase().store)
        claims = with_proofs(claims, self.proved)
        return {"claims": [claim.as_json() for claim in claims], "not_checked": left_out}
