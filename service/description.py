"""`GameDescription`: everything the interfaces need to know about one game.

Commands never branch on a game's name: they find its description in the registry
(`service.games.GAMES`) and ask it. A new game is a folder under games/ and one
description registered there.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass, fields
from typing import Any, Callable, Iterable, Sequence

import numpy as np

from tablebase.db.store import TableInfo, TablebaseStore
from tablebase.service.progress import Progress
from tablebase.solver import payload as payload_layout
from tablebase.solver.probe import Lookup
from tablebase.solver.puzzles import LookAhead

#: payload entries -> (values WIN/LOSS/DRAW, remoteness; the remoteness of a draw is ignored)
Decode = Callable[[np.ndarray], tuple[np.ndarray, np.ndarray]]


@dataclass(frozen=True)
class SolvedTable(TableInfo):
    """The table a solve returns; ``reused`` when it was complete in the file already and
    nothing was solved (its ``seconds`` are then those of the solve that made it)."""

    reused: bool = False

    @classmethod
    def of(cls, table: TableInfo, reused: bool) -> SolvedTable:
        return cls(**{f.name: getattr(table, f.name) for f in fields(TableInfo)}, reused=reused)

    def solved_text(self) -> str:
        """How the table came to be, for a solve's line: "solved in 2.1 s", or "already
        solved (in 2.1 s, when it was made)"."""
        return (f"already solved (in {self.seconds:.1f} s, when it was made)" if self.reused
                else f"solved in {self.seconds:.1f} s")


class GameDescription(ABC):
    """One game as the service sees it. ``Any`` stands for the game's rules object (a
    `games.base.Game`) and its position type."""

    #: the name on the command line and in the tables ("sparro", "smallholder")
    name: str
    #: the colour letters, first player first
    colours: tuple[str, ...]
    #: the keyword options that choose its rules (see `read`)
    options: tuple[str, ...]
    #: versions a stored table must carry to be used (the version policy: `service.tables`)
    rules_version: str
    solver_version: str
    #: whether its start can be proved by a weak solve (`service.proof`) where no table fits
    weak_solves: bool = False
    payload_dtype: str
    #: whether every ruleset's game graph is acyclic (the precondition of `solver.search.Search`)
    searchable: bool
    #: the node budget of a probe by search
    search_budget: int
    #: answer a position no usable table holds by search instead of an error
    search_without_table: bool = False

    @property
    def versions(self) -> tuple[str, str, str]:
        return (self.rules_version, self.solver_version, self.payload_dtype)

    @abstractmethod
    def rules(self, label: str) -> Any:
        """The rules object of a table's rules label (``game.rules_name``); NotationError
        if the label names no rules of this game."""

    @abstractmethod
    def read(self, text: str | None, **options: Any) -> tuple[Any, Any]:
        """The rules object and position of a position text (None: the start) under the
        options (``variant=`` for Sparro; ``board=``, ``ruleset=``, ``rules=`` for the
        Smallholder). Raises NotationError on bad text or options."""

    @abstractmethod
    def default_game(self, **options: Any) -> Any:
        """The rules object the options name (the game's defaults where left out)."""

    @abstractmethod
    def tier_of(self, game: Any) -> Callable[[np.ndarray], np.ndarray]:
        """The tier of each canonical key in a table of ``game``."""

    def decode(self, payload: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Stored payload -> (values, remoteness; 0 for a draw): the one payload layout of
        `solver/payload.py`, whose dtype says the game."""
        return payload_layout.decode(payload)

    @abstractmethod
    def cannot_solve(self, game: Any) -> str | None:
        """Why ``game`` cannot have a table (None when it can)."""

    @abstractmethod
    def solve(self, store: TablebaseStore, game: Any, progress: Progress | None = None,
              force: bool = False) -> TableInfo:
        """Solve ``game`` into ``store`` (reusing or resuming what is stored) and return the table."""

    @abstractmethod
    def solve_seconds(self, game: Any) -> float:
        """Roughly how long solving ``game``'s table takes on a 2-core machine, in
        seconds (the measured figures of BENCHMARKS.md)."""

    @abstractmethod
    def solve_command(self, game: Any) -> str:
        """The command line that solves ``game``'s table."""

    @abstractmethod
    def search_lookup(self, game: Any, budget: int, seconds: float | None = None,
                      progress: Progress | None = None, store: TablebaseStore | None = None,
                      since: float | None = None) -> Lookup:
        """Exact outcomes by search from the rules alone (None past the budget:
        ``budget`` positions, ``seconds`` of wall-clock time where the game's search
        takes a time bound, counted for each call from its start or, for every call,
        from ``since``, a `time.perf_counter` instant such as a command's start); with
        ``store``, starting from the search results stored there and adding to them if
        it is writable, where the game's search keeps any."""

    def look_ahead(self, game: Any) -> LookAhead | None:
        """A compiled two-ply look (`solver.puzzles.LookAhead`) for the natural games of
        puzzle generation where the search cannot answer; None: the rules engine's."""
        return None

    @abstractmethod
    def images(self, game: Any, pos: Any) -> Iterable[tuple[Any, Sequence[int]]]:
        """Every symmetry image of ``pos`` with the permutation it applies to cells."""

    @abstractmethod
    def text(self, game: Any, pos: Any) -> str:
        """The text picture `show` prints."""

    @abstractmethod
    def svg(self, game: Any, pos: Any) -> str:
        """An SVG picture of the position."""

    @abstractmethod
    def moves(self, game: Any, pos: Any) -> dict[str, Any]:
        """The JSON object of the `moves` command for ``pos``."""
