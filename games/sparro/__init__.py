"""Sparro: 3 in a row on the outer faces of a Shibumi pyramid (docs/sparro.md)."""

from tablebase.games.sparro.geometry import CELL_NAMES, CELLS, LINE_MASKS, NUM_CELLS, SYMMETRIES
from tablebase.games.sparro.rules import NAMED_VARIANTS, VARIANTS, Sparro, SparroPosition, SparroResult, count_lines

__all__ = ["CELL_NAMES", "CELLS", "LINE_MASKS", "NUM_CELLS", "SYMMETRIES", "NAMED_VARIANTS", "VARIANTS", "Sparro",
           "SparroPosition", "SparroResult", "count_lines"]
