"""tablebase: exact analysis of Sparro and The Smallholder.

    import tablebase
    tb = tablebase.open("tablebase.sqlite")
    print(tb.probe("sparro", "............/......../....").pv)

See docs/api.md for a tour; the facade lives in `tablebase.service.api` and is loaded
on first use, so importing a subpackage (``tablebase.games``) stays light.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from tablebase.service.api import (
        LowerBound, MoveValue, Position, Probe, Tablebase, TableSummary, check_proof, find_repetition, open)

__all__ = ["LowerBound", "MoveValue", "Position", "Probe", "TableSummary", "Tablebase", "check_proof", "find_repetition",
           "open"]


def __getattr__(name: str) -> Any:
    if name in __all__:
        from tablebase.service import api
        return getattr(api, name)
    raise AttributeError(f"module 'tablebase' has no attribute {name!r}")
