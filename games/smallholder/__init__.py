"""The Smallholder: hex-grid placement with capture (docs/smallholder.md).

``Smallholder(board, ruleset)`` is the rules object (the ``games.base.Game`` protocol);
positions are immutable ``Position`` values of two bitboards and the side to move.
"""

from tablebase.games.smallholder.board import (
    AXES, AXIS_NAMES, BOARD_ROWS, DEFAULT_BOARD, DIRECTION_NAMES, Board, bits, board_for_rows, get_board)
from tablebase.games.smallholder.options import (
    ADJACENT_OPTIONS, CAPTURE_OPTIONS, DEFAULT_RULESET, GROUPS_OPTIONS, RULESETS, TERRITORY_OPTIONS, Rules,
    all_rules, parse_rules)
from tablebase.games.smallholder.position import (
    BLACK, COLOUR_NAMES, EMPTY, WHITE, Position, format_position, opponent, parse_position)
from tablebase.games.smallholder.rules import CREATE, EXTEND, Group, IllegalMoveError, Move, Smallholder

__all__ = [
    "ADJACENT_OPTIONS", "AXES", "AXIS_NAMES", "BLACK", "BOARD_ROWS", "CAPTURE_OPTIONS", "COLOUR_NAMES", "CREATE",
    "DEFAULT_BOARD", "DEFAULT_RULESET", "DIRECTION_NAMES", "EMPTY", "EXTEND", "GROUPS_OPTIONS", "RULESETS",
    "TERRITORY_OPTIONS", "WHITE", "Board", "Group", "IllegalMoveError", "Move", "Position", "Rules", "Smallholder",
    "all_rules", "bits", "board_for_rows", "format_position", "get_board", "opponent", "parse_position",
    "parse_rules",
]
