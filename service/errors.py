"""The exceptions an interface shows as one line (CLI: stderr and exit 1; web: HTTP 400).

* `NotationError` (from `games.base`): text that is not a position, a move, a rules name;
  `UnreachablePositionError`, one of them, a legal position that no game reaches (its
  `message(accept)` lets an interface name its own way of accepting it);
* `IllegalMoveError` (from `games.base`, raised by both rules engines): a well-formed move
  the position does not allow (not a notation problem);
* `StoreError` (from `db.store`): the file is missing, damaged, locked or unwritable;
* `NotInTable`: the table does not cover a position (unsolved rules, unreachable position);
* `ServiceError`: a request the service cannot serve as asked (a table not solved, made by
  another version, a board too big to solve), with what to do instead.

`USER_ERRORS` is the tuple to catch. Anything else escaping the service is a bug.
"""

from __future__ import annotations

from tablebase.db.store import StoreError
from tablebase.games.base import IllegalMoveError, IllegalPositionError, NotationError, UnreachablePositionError
from tablebase.solver.probe import NotInTable

__all__ = ["USER_ERRORS", "IllegalMoveError", "IllegalPositionError", "NotInTable", "NotSolved", "NotationError",
           "ServiceError", "SolveNotAsked", "StoreError", "UnreachablePositionError", "WrongVersion"]


class ServiceError(ValueError):
    """A request the service cannot serve as asked; the message says what to do instead."""


class NotSolved(ServiceError):
    """The rules asked for have no complete table in the file."""


class SolveNotAsked(ServiceError):
    """A command would start a solve the user did not ask for (it needs ``--solve``)."""


class WrongVersion(ServiceError):
    """The stored table was made by another version of the rules, solver or payload."""


USER_ERRORS: tuple[type[Exception], ...] = (NotationError, IllegalMoveError, StoreError, NotInTable, ServiceError)
