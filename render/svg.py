"""SVG pictures of Sparro and Smallholder positions, as plain text.

Pure functions from a rules object and a position to the text of an SVG document: no
I/O, no dependency beyond the standard library. The output is deterministic (same input,
same bytes) because every attribute is written in a fixed order and every number goes
through ``_num``.

Every drawn element the tests (or a stylesheet) may want to find carries classes:

* Sparro: ``marble red level-1`` (``white`` for the five fixed marbles), ``empty level-0``
  or ``empty available level-2`` for empty cells, ``line red view-top`` for a completed
  line on the top view and ``line red view-north`` on an unfolded face, ``face-cell``
  for the marbles drawn on the faces.
* Smallholder: ``cell``, ``stone black``, ``holding white``, ``dead`` (one marker per
  stone of a dead group), ``last-move`` and ``captured``.

Marbles, stones and markers also carry ``data-cell`` (the cell name) and lines carry
``data-cells`` (their three cell names in standard order).
"""

from __future__ import annotations

import math
from typing import Callable, Final, Iterable, Mapping

from xml.sax.saxutils import escape, quoteattr

from tablebase.games.smallholder import BLACK, COLOUR_NAMES, WHITE, Board, Position, Smallholder
from tablebase.games.sparro import CELL_NAMES, CELLS, LINE_MASKS, Sparro, SparroPosition, count_lines
from tablebase.games.sparro.geometry import INDEX, LEVELS, WHITE_CELLS, Cell
from tablebase.games.sparro.rules import available_cells

__all__ = ["sparro_svg", "smallholder_svg"]

SVG_NAMESPACE: Final = "http://www.w3.org/2000/svg"
FONT: Final = "DejaVu Sans, Verdana, Arial, sans-serif"
MARGIN: Final = 20.0
TITLE_SIZE: Final = 17.0
CAPTION_SIZE: Final = 14.0
SMALL_SIZE: Final = 11.0
#: Baseline-to-baseline distance of caption lines, as a multiple of the font size.
LINE_SPACING: Final = 1.45
TEXT_COLOUR: Final = "#222222"
MUTED_TEXT: Final = "#666666"
#: Rough advance of one character as a fraction of the font size, to size the picture
#: around its caption (the renderer's font is unknown, so err wide).
CHAR_WIDTH: Final = 0.6
#: Characters XML 1.0 does not allow at all (escaping cannot save them).
_NOT_XML: Final = dict.fromkeys([*range(0x00, 0x09), 0x0B, 0x0C, *range(0x0E, 0x20), 0xFFFE, 0xFFFF])

# -- SVG text helpers ---------------------------------------------------------------------


def _num(value: float) -> str:
    """A coordinate with at most two decimals and no trailing zeros (stable across runs)."""
    text = f"{value:.2f}".rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text


def _attributes(attrs: Mapping[str, object]) -> str:
    parts = []
    for name, value in attrs.items():
        if value is None:
            continue
        shown = _num(value) if isinstance(value, float) else str(value)
        parts.append(f" {name}={quoteattr(shown)}")
    return "".join(parts)


def _tag(name: str, attrs: Mapping[str, object], content: str | None = None) -> str:
    """One element; ``content`` is inserted as is (escape text before passing it)."""
    if content is None:
        return f"<{name}{_attributes(attrs)}/>"
    return f"<{name}{_attributes(attrs)}>{content}</{name}>"


def _text(x: float, y: float, text: str, size: float, *, anchor: str = "middle", fill: str = TEXT_COLOUR,
          css_class: str | None = None, weight: str | None = None, extra: Mapping[str, object] | None = None) -> str:
    attrs: dict[str, object] = {"class": css_class, "x": x, "y": y, "font-size": size, "text-anchor": anchor,
                                "fill": fill, "font-weight": weight}
    return _tag("text", {**attrs, **(extra or {})}, _escape(text))


def _escape(text: str) -> str:
    """Text made safe for element content: markup escaped, characters XML forbids dropped."""
    return escape(text.translate(_NOT_XML))


def _points(points: Iterable[tuple[float, float]]) -> str:
    return " ".join(f"{_num(x)},{_num(y)}" for x, y in points)


def _radial_gradient(gradient_id: str, light: str, dark: str) -> str:
    """A highlight up and to the left, so round things look lit from one side."""
    stops = (_tag("stop", {"offset": "0", "stop-color": light})
             + _tag("stop", {"offset": "1", "stop-color": dark}))
    return _tag("radialGradient", {"id": gradient_id, "cx": "0.35", "cy": "0.32", "r": "0.75"}, stops)


def _document(width: float, height: float, css_class: str, title: str, body: list[str]) -> str:
    head = (f'<svg xmlns="{SVG_NAMESPACE}" class="{css_class}" width="{_num(width)}" height="{_num(height)}" '
            f'viewBox="0 0 {_num(width)} {_num(height)}" font-family={quoteattr(FONT)}>')
    background = _tag("rect", {"class": "background", "x": "0", "y": "0", "width": width, "height": height,
                               "fill": "#ffffff"})
    return "\n".join([head, _tag("title", {}, _escape(title)), background, *body, "</svg>"]) + "\n"


def _captions(lines: list[tuple[str, float]], x: float, top: float, anchor: str = "middle") -> list[str]:
    """Lines of text (text, font size) stacked from ``top`` down."""
    out = []
    y = top
    for text, size in lines:
        y += size * LINE_SPACING
        fill = TEXT_COLOUR if size >= CAPTION_SIZE else MUTED_TEXT
        out.append(_text(x, y - size * (LINE_SPACING - 1), text, size, anchor=anchor, fill=fill,
                         css_class="caption"))
    return out


def _text_width(lines: list[tuple[str, float]], title: str | None) -> float:
    """The width the caption lines and the title need, margins included."""
    widths = [len(text) * size * CHAR_WIDTH for text, size in lines]
    if title:
        widths.append(len(title) * TITLE_SIZE * (CHAR_WIDTH + 0.05))
    return 2 * MARGIN + max(widths)


def _heading(title: str | None, x: float) -> tuple[list[str], float]:
    """The title line (if any) and the height it takes."""
    if not title:
        return [], 0.0
    return [_text(x, MARGIN + TITLE_SIZE, title, TITLE_SIZE, weight="bold", css_class="heading")], \
        TITLE_SIZE * LINE_SPACING + 4.0


# -- Sparro -------------------------------------------------------------------------------

#: Distance between neighbouring level-0 marbles.
SPARRO_CELL: Final = 56.0
#: Marble radius per level, as a fraction of the cell: an upper marble is nearer the eye,
#: so drawing it a little larger (and with a shadow) makes the stacking read at a glance.
MARBLE_RADIUS: Final = (0.44, 0.47, 0.50)
EMPTY_RADIUS: Final = 0.36
SHADOW_OFFSET: Final = (0.05, 0.08)
SHADOW_OPACITY: Final = 0.35
#: Distance between face rows: on a face of a square pyramid of spheres the rows form a
#: triangular lattice, each marble touching two in the row below.
FACE_ROW_STEP: Final = math.sqrt(3) / 2
#: Gap between the top view and an unfolded face, and the padding drawn around a face.
FACE_GAP: Final = 0.45
FACE_PAD: Final = 0.55
LINE_WIDTH: Final = 0.14
LINE_CASING: Final = 0.26
LABEL_SIZE: Final = 0.19
BOARD_PAD: Final = 0.12
LEVEL_OUTLINE_PAD: Final = 0.06

RED_MARBLE: Final = ("#f07a6a", "#b3261e")
BLACK_MARBLE: Final = ("#7a7a7a", "#141414")
WHITE_MARBLE: Final = ("#ffffff", "#c9c2b2")
MARBLE_STROKE: Final = {"red": "#7f1712", "black": "#000000", "white": "#8f887a"}
LABEL_ON: Final = {"red": "#ffffff", "black": "#ffffff", "white": "#555555", "empty": "#7a6a50"}
LINE_COLOUR: Final = {"red": "#e8372c", "black": "#111111"}
BOARD_FILL: Final = "#e9d8b4"
BOARD_STROKE: Final = "#b89c68"
PIT_FILL: Final = "#d8c294"
RING_FILL: Final = "#fbf5e6"
FACE_FILL: Final = "#f3ead7"
EMPTY_STROKE: Final = "#9c8456"
FACE_ORDER: Final = ("north", "east", "south", "west")


def _on_face(cell: Cell, face: str) -> bool:
    level, row, col = cell
    last = 3 - level
    return {"north": row == 0, "south": row == last, "west": col == 0, "east": col == last}[face]


def _along_face(cell: Cell, face: str) -> int:
    """The cell's place in its face row (the column for north/south, the row for east/west)."""
    _, row, col = cell
    return col if face in ("north", "south") else row


def _top_centre(cell: Cell) -> tuple[float, float]:
    """Centre of a cell on the top view, in cells: each level sits half a cell further in."""
    level, row, col = cell
    return (col + 0.5 + level / 2, row + 0.5 + level / 2)


def _face_centre(cell: Cell, face: str) -> tuple[float, float]:
    """Centre of a cell on its unfolded face, in cells, relative to the top view's corner.

    The faces are folded out around the top view like a paper net, so a face's base row
    lines up with the same cells of the top view and its apex points away from it.
    """
    level = cell[0]
    along = _along_face(cell, face) + 0.5 + level / 2
    out = FACE_GAP + 0.5 + level * FACE_ROW_STEP  # distance from the top view's edge
    if face == "north":
        return (along, -out)
    if face == "south":
        return (along, 4 + out)
    if face == "west":
        return (-out, along)
    return (4 + out, along)


def _face_outline(face: str) -> list[tuple[float, float]]:
    """The trapezoid through the centres of a face's four corner cells."""
    corners = [(0, 0, 0), (0, 0, 3), (2, 0, 1), (2, 0, 0)]
    # Build them for the north face's shape, then read each off the right face.
    cells_on_face = {
        "north": corners,
        "south": [(level, 3 - level, col) for level, _, col in corners],
        "west": [(level, col, 0) for level, _, col in corners],
        "east": [(level, col, 3 - level) for level, _, col in corners],
    }[face]
    return [_face_centre(cell, face) for cell in cells_on_face]


def _colour_at(pos: SparroPosition, cell: Cell) -> str | None:
    """"red", "black", "white" or None for an empty cell."""
    if cell in WHITE_CELLS:
        return "white"
    bit = 1 << INDEX[cell]
    if pos.red & bit:
        return "red"
    if pos.black & bit:
        return "black"
    return None


def _all_cells() -> list[Cell]:
    """Every cell of the three levels, whites included, bottom level first (drawing order)."""
    return [(level, row, col) for level in range(LEVELS) for row in range(4 - level) for col in range(4 - level)]


def _cell_name(cell: Cell) -> str:
    level, row, col = cell
    return f"{level}{'abcd'[col]}{row + 1}"


class _Frame:
    """Turns positions in cells (relative to the top view's corner) into pixels."""

    def __init__(self, left: float, top: float, cell: float = SPARRO_CELL) -> None:
        self.left, self.top, self.cell = left, top, cell

    def point(self, xy: tuple[float, float]) -> tuple[float, float]:
        return (self.left + xy[0] * self.cell, self.top + xy[1] * self.cell)


def _sparro_defs() -> str:
    gradients = (_radial_gradient("marble-red", *RED_MARBLE) + _radial_gradient("marble-black", *BLACK_MARBLE)
                 + _radial_gradient("marble-white", *WHITE_MARBLE))
    return _tag("defs", {}, gradients)


def _marble(frame: _Frame, xy: tuple[float, float], radius: float, colour: str, css_class: str, name: str,
            label: bool) -> list[str]:
    x, y = frame.point(xy)
    r = radius * frame.cell
    out = [_tag("circle", {"class": css_class, "data-cell": name, "cx": x, "cy": y, "r": r,
                           "fill": f"url(#marble-{colour})", "stroke": MARBLE_STROKE[colour],
                           "stroke-width": "1"})]
    if label:
        out.append(_cell_label(frame, xy, name, LABEL_ON[colour]))
    return out


def _cell_label(frame: _Frame, xy: tuple[float, float], name: str, fill: str) -> str:
    x, y = frame.point(xy)
    size = LABEL_SIZE * frame.cell
    return _text(x, y + size * 0.35, name, size, fill=fill, css_class="label")


def _shadow(frame: _Frame, xy: tuple[float, float], radius: float) -> str:
    x, y = frame.point((xy[0] + SHADOW_OFFSET[0], xy[1] + SHADOW_OFFSET[1]))
    return _tag("circle", {"class": "shadow", "cx": x, "cy": y, "r": radius * frame.cell, "fill": "#000000",
                           "fill-opacity": str(SHADOW_OPACITY)})


def _empty_cell(frame: _Frame, xy: tuple[float, float], level: int, available: bool, name: str,
                label: bool) -> list[str]:
    """A pit on the base; on an upper level a dashed ring where a marble may go now."""
    x, y = frame.point(xy)
    out = []
    if level == 0:
        out.append(_tag("circle", {"class": "empty level-0", "data-cell": name, "cx": x, "cy": y,
                                   "r": EMPTY_RADIUS * frame.cell, "fill": PIT_FILL, "stroke": EMPTY_STROKE,
                                   "stroke-width": "1"}))
    elif available:
        out.append(_tag("circle", {"class": f"empty available level-{level}", "data-cell": name, "cx": x, "cy": y,
                                   "r": EMPTY_RADIUS * frame.cell, "fill": RING_FILL, "fill-opacity": "0.85",
                                   "stroke": EMPTY_STROKE, "stroke-width": "1.5", "stroke-dasharray": "4 3"}))
    if label and (level == 0 or available):
        # An upper cell that cannot be played yet is left unnamed: its centre lies over
        # other marbles (a level-2 centre is right above a level-0 white), so a name
        # there would read as theirs.
        out.append(_cell_label(frame, xy, name, LABEL_ON["empty"]))
    return out


def _line_cells(line: int) -> list[Cell]:
    return [CELLS[i] for i in range(len(CELLS)) if line >> i & 1]


def _line_stroke(frame: _Frame, centres: list[tuple[float, float]], owner: str, view: str,
                 names: str) -> str:
    """A thick stroke through a completed line's marbles, on a light casing so it shows on
    marbles of its own colour. The two far-apart centres are the line's ends."""
    ends = max(((a, b) for a in centres for b in centres), key=lambda ab: math.dist(*ab))
    (x1, y1), (x2, y2) = frame.point(ends[0]), frame.point(ends[1])
    coords = {"x1": x1, "y1": y1, "x2": x2, "y2": y2, "stroke-linecap": "round"}
    casing = _tag("line", {**coords, "stroke": "#ffffff", "stroke-opacity": "0.9",
                           "stroke-width": LINE_CASING * frame.cell})
    core = _tag("line", {**coords, "stroke": LINE_COLOUR[owner], "stroke-width": LINE_WIDTH * frame.cell})
    return _tag("g", {"class": f"line {owner} view-{view}", "data-cells": names}, casing + core)


def _completed_lines(pos: SparroPosition) -> list[tuple[int, str]]:
    """Every line of the board held by one colour, with its owner, in LINE_MASKS order."""
    found = []
    for line in LINE_MASKS:
        if pos.red & line == line:
            found.append((line, "red"))
        elif pos.black & line == line:
            found.append((line, "black"))
    return found


def _line_names(line: int) -> str:
    return " ".join(CELL_NAMES[i] for i in range(len(CELLS)) if line >> i & 1)


def _sparro_top_view(frame: _Frame, pos: SparroPosition, labels: bool) -> list[str]:
    size = 4 * frame.cell
    pad = BOARD_PAD * frame.cell
    out = [_tag("rect", {"class": "board", "x": frame.left - pad, "y": frame.top - pad, "width": size + 2 * pad,
                         "height": size + 2 * pad, "rx": 0.3 * frame.cell, "fill": BOARD_FILL,
                         "stroke": BOARD_STROKE, "stroke-width": "1.5"})]
    # Dashed outlines of the upper levels' footprints, so the three levels read even
    # where an upper level is still empty.
    for level in (1, 2):
        inset = (level / 2 - LEVEL_OUTLINE_PAD) * frame.cell
        side = (4 - level + 2 * LEVEL_OUTLINE_PAD) * frame.cell
        out.append(_tag("rect", {"class": f"level-outline level-{level}", "x": frame.left + inset,
                                 "y": frame.top + inset, "width": side, "height": side, "rx": 0.35 * frame.cell,
                                 "fill": "none", "stroke": BOARD_STROKE, "stroke-width": "1.2",
                                 "stroke-dasharray": "5 4"}))
    free = available_cells(pos.occupied)
    for cell in _all_cells():
        level = cell[0]
        colour = _colour_at(pos, cell)
        xy = _top_centre(cell)
        name = _cell_name(cell)
        if colour is None:
            out += _empty_cell(frame, xy, level, bool(free >> INDEX[cell] & 1), name, labels)
            continue
        radius = MARBLE_RADIUS[level]
        if level:
            out.append(_shadow(frame, xy, radius))
        # Whites are not playable cells, so they get no name.
        out += _marble(frame, xy, radius, colour, f"marble {colour} level-{level}", name,
                       labels and colour != "white")
    for line, owner in _completed_lines(pos):
        out.append(_line_stroke(frame, [_top_centre(c) for c in _line_cells(line)], owner, "top",
                                _line_names(line)))
    return out


def _sparro_face(frame: _Frame, pos: SparroPosition, face: str, labels: bool) -> list[str]:
    outline = [frame.point(xy) for xy in _face_outline(face)]
    # A wide round-joined stroke around the corner centres pads the trapezoid evenly.
    out = [_tag("polygon", {"class": f"face face-{face}", "points": _points(outline), "fill": FACE_FILL,
                            "stroke": FACE_FILL, "stroke-width": 2 * FACE_PAD * frame.cell,
                            "stroke-linejoin": "round"})]
    cells = [cell for cell in CELLS if _on_face(cell, face)]
    for cell in cells:
        xy = _face_centre(cell, face)
        colour = _colour_at(pos, cell)
        name = _cell_name(cell)
        if colour is None:
            x, y = frame.point(xy)
            out.append(_tag("circle", {"class": f"face-cell empty face-{face}", "data-cell": name, "cx": x, "cy": y,
                                       "r": EMPTY_RADIUS * frame.cell, "fill": "none", "stroke": EMPTY_STROKE,
                                       "stroke-width": "1", "stroke-dasharray": "3 3"}))
            if labels:
                out.append(_cell_label(frame, xy, name, LABEL_ON["empty"]))
        else:
            out += _marble(frame, xy, MARBLE_RADIUS[0], colour, f"face-cell {colour} face-{face}", name, labels)
    for line, owner in _completed_lines(pos):
        line_cells = _line_cells(line)
        if all(_on_face(cell, face) for cell in line_cells):
            out.append(_line_stroke(frame, [_face_centre(c, face) for c in line_cells], owner, face,
                                    _line_names(line)))
    out.append(_face_name(frame, face))
    return out


def _face_name(frame: _Frame, face: str) -> str:
    """The face's name beyond its apex, written along the face's base."""
    beyond = FACE_GAP + 0.5 + 2 * FACE_ROW_STEP + FACE_PAD + 0.3
    xy = {"north": (2, -beyond), "south": (2, 4 + beyond), "west": (-beyond, 2), "east": (4 + beyond, 2)}[face]
    x, y = frame.point(xy)
    size = SMALL_SIZE + 1
    rotate = {"west": -90, "east": 90}.get(face)
    extra = {"transform": f"rotate({rotate} {_num(x)} {_num(y)})"} if rotate else None
    return _text(x, y + size * 0.35, f"{face} face", size, fill=MUTED_TEXT, css_class="face-name", extra=extra)


def _sparro_status(game: Sparro, pos: SparroPosition) -> list[tuple[str, float]]:
    result = game.result(pos)
    reds, blacks = pos.red.bit_count(), pos.black.bit_count()
    red_lines, black_lines = count_lines(pos.red), count_lines(pos.black)
    if result is None:
        status = f"{'Red' if pos.to_move == 'R' else 'Black'} to move"
    elif result.winner is None:
        status = "Game over: a draw"
    else:
        winner = "Red" if result.winner == "R" else "Black"
        if game.extended:
            why = f"lines Red {red_lines}, Black {black_lines}, token {'Red' if pos.red_has_token else 'Black'}"
        elif red_lines or black_lines:
            why = "completed a line"
        else:
            why = "the board is full with no line"
        status = f"{winner} wins: {why}"
    counts = f"Red {reds} marble{'s' * (reds != 1)}, Black {blacks} marble{'s' * (blacks != 1)}"
    if result is None or not game.extended:
        counts += f"; lines Red {red_lines}, Black {black_lines}"
    if game.extended and result is None:
        counts += f"; token {'Red' if pos.red_has_token else 'Black'}"
    return [(status, CAPTION_SIZE), (counts, SMALL_SIZE + 1), (f"{game.format(pos)}  ({game.variant})", SMALL_SIZE)]


def sparro_svg(game: Sparro, pos: SparroPosition, faces: bool = False, title: str | None = None,
               labels: bool = True) -> str:
    """An SVG picture of ``pos``: the pyramid seen from above and a caption.

    Level 0 is the 4x4 base, level 1 (3x3) sits half a cell in and level 2 (2x2) a full
    cell in; upper marbles are drawn on top, a little larger and with a shadow. Empty
    upper cells that can be played now are dashed rings. Completed lines get a thick
    stroke in the owner's colour. With ``faces`` the four faces are also drawn folded
    out around the top view, each as its rows F0, F1, F2 (a line up a ridge shows on
    both of its faces). ``labels`` writes each playable cell's name on it.
    """
    cell = SPARRO_CELL
    # Room around the top view: the faces' depth when they are drawn, else the board edge.
    face_depth = FACE_GAP + 0.5 + 2 * FACE_ROW_STEP + FACE_PAD + 0.6
    around = face_depth * cell if faces else BOARD_PAD * cell + 2
    status = _sparro_status(game, pos)
    width = max(2 * MARGIN + 4 * cell + 2 * around, _text_width(status, title))
    heading, heading_height = _heading(title, width / 2)
    top = MARGIN + heading_height + around
    frame = _Frame((width - 4 * cell) / 2, top, cell)
    caption_top = top + 4 * cell + around + 8
    height = caption_top + sum(size * LINE_SPACING for _, size in status) + MARGIN
    body = [_sparro_defs(), *heading]
    if faces:
        for face in FACE_ORDER:
            body += _sparro_face(frame, pos, face, labels)
    body += _sparro_top_view(frame, pos, labels)
    body += _captions(status, width / 2, caption_top)
    description = title or f"Sparro ({game.variant}) {game.format(pos)}: {status[0][0]}"
    return _document(width, height, "sparro", description, body)


# -- The Smallholder ------------------------------------------------------------------------

#: Circumradius of a cell's hexagon; pointy-top hexagons in offset rows, as the board's
#: doubled coordinates lay them out (x steps of 2 across a row, 1 between rows).
HEX_RADIUS: Final = 26.0
HEX_WIDTH: Final = math.sqrt(3) * HEX_RADIUS
ROW_STEP: Final = 1.5 * HEX_RADIUS
STONE_RADIUS: Final = 0.62
#: White's holdings are drawn as an inset hexagon, Black's as the whole cell, so a cell
#: held by both shows both tints at once (dark rim, light centre).
WHITE_HOLDING_INSET: Final = 0.8
HOLDING_FILL: Final = {"black": ("#24190c", "0.5"), "white": ("#ffffff", "0.8")}
CELL_FILL: Final = "#cfb075"
CELL_STROKE: Final = "#8c6f3e"
STONE_COLOURS: Final = {"black": ("#6b6b6b", "#101010"), "white": ("#ffffff", "#cfcfcf")}
STONE_STROKE: Final = {"black": "#000000", "white": "#7d7d7d"}
DEAD_COLOUR: Final = "#d62f2f"
DEAD_SIZE: Final = 0.3
LAST_MOVE_COLOUR: Final = "#ff9d00"
SMALLHOLDER_LABEL_SIZE: Final = 0.34
LEGEND_SWATCH: Final = 0.45
#: Rough width of a legend character at the small font size, to space the legend items.
LEGEND_CHAR_WIDTH: Final = 6.3
LEGEND_SPACING: Final = 14.0


def _hexagon(x: float, y: float, radius: float) -> list[tuple[float, float]]:
    """Pointy-top hexagon: corners at 30, 90, ... degrees (a corner straight up)."""
    return [(x + radius * math.cos(math.radians(60 * k - 90)), y + radius * math.sin(math.radians(60 * k - 90)))
            for k in range(6)]


def _cell_centre(board: Board, cell: int, left: float, top: float) -> tuple[float, float]:
    x, row = board.coords[cell]
    return (left + HEX_WIDTH / 2 + x * HEX_WIDTH / 2, top + HEX_RADIUS + row * ROW_STEP)


def _board_size(board: Board) -> tuple[float, float]:
    widest = max(x for x, _ in board.coords)
    return ((widest + 2) * HEX_WIDTH / 2, 2 * HEX_RADIUS + (len(board.row_lengths) - 1) * ROW_STEP)


def _dead_stones(game: Smallholder, pos: Position) -> int:
    """The stones of groups with no playable cell next to them (either colour)."""
    dead = 0
    for colour in (BLACK, WHITE):
        for group in game.groups(pos, colour):
            if not group.live:
                dead |= group.stones
    return dead


def _stone_colour(pos: Position, cell: int) -> str | None:
    if pos.black >> cell & 1:
        return "black"
    if pos.white >> cell & 1:
        return "white"
    return None


def _holding(x: float, y: float, colour: str, name: str) -> str:
    fill, opacity = HOLDING_FILL[colour]
    radius = HEX_RADIUS * (WHITE_HOLDING_INSET if colour == "white" else 1.0)
    return _tag("polygon", {"class": f"holding {colour}", "data-cell": name, "points": _points(_hexagon(x, y, radius)),
                            "fill": fill, "fill-opacity": opacity})


def _stone(x: float, y: float, colour: str, name: str) -> str:
    return _tag("circle", {"class": f"stone {colour}", "data-cell": name, "cx": x, "cy": y,
                           "r": STONE_RADIUS * HEX_RADIUS, "fill": f"url(#stone-{colour})",
                           "stroke": STONE_STROKE[colour], "stroke-width": "1"})


def _dead_mark(x: float, y: float, name: str) -> str:
    return _tag("path", {"class": "dead", "data-cell": name, "d": _cross_path(x, y, DEAD_SIZE * HEX_RADIUS),
                         "stroke": DEAD_COLOUR, "stroke-width": 0.12 * HEX_RADIUS, "stroke-linecap": "round",
                         "fill": "none"})


def _smallholder_cell(x: float, y: float, name: str) -> str:
    return _tag("polygon", {"class": "cell", "data-cell": name, "points": _points(_hexagon(x, y, HEX_RADIUS)),
                            "fill": CELL_FILL, "stroke": CELL_STROKE, "stroke-width": "1"})


def _smallholder_label(x: float, y: float, name: str, stone: str | None, dark_cell: bool) -> str:
    """A cell name in a colour that reads on what lies under it."""
    size = SMALLHOLDER_LABEL_SIZE * HEX_RADIUS
    if stone is not None:
        fill = "#dddddd" if stone == "black" else "#666666"
    else:
        fill = "#f3e6c4" if dark_cell else "#5a4523"
    return _text(x, y + size * 0.35, name, size, fill=fill, css_class="label")


def _check_marks(board: Board, pos: Position, last_move: int | None, captured: int) -> None:
    if last_move is not None and not 0 <= last_move < board.size:
        raise ValueError(f"last move must be a cell 0-{board.size - 1} of {board.name}: {last_move!r}")
    if captured < 0 or captured >> board.size:
        raise ValueError(f"captured stones must be a bitmask of {board.name}'s cells: {captured!r}")
    if captured & (pos.black | pos.white):
        raise ValueError(f"captured stones must be on empty cells (they were removed): {captured!r}")


def _smallholder_status(game: Smallholder, pos: Position) -> list[tuple[str, float]]:
    winner = game.winner(pos)
    mover = COLOUR_NAMES[pos.to_move].capitalize()
    if winner is None:
        status = f"{mover} to move"
    else:
        status = f"{mover} cannot move: {COLOUR_NAMES[winner].capitalize()} wins"
    parts = []
    for colour in (BLACK, WHITE):
        groups = game.groups(pos, colour)
        stones = pos.stones(colour).bit_count()
        dead_groups = sum(1 for g in groups if not g.live)
        text = (f"{COLOUR_NAMES[colour].capitalize()} {stones} stone{'s' * (stones != 1)} in {len(groups)} "
                f"group{'s' * (len(groups) != 1)}")
        parts.append(text + (f" ({dead_groups} dead)" if dead_groups else ""))
    return [(status, CAPTION_SIZE), ("; ".join(parts), SMALL_SIZE + 1),
            (f"{game.format(pos)}  ({game.rules_name})", SMALL_SIZE)]


def _legend_hexes(x: float, y: float, r: float, layers: list[tuple[str, str, float]]) -> list[str]:
    """A small cell with holding tints (fill, opacity, scale) on top, for the legend."""
    return [_tag("polygon", {"class": "legend-swatch", "points": _points(_hexagon(x, y, r * scale)),
                             "fill": fill, "fill-opacity": opacity})
            for fill, opacity, scale in [(CELL_FILL, "1", 1.0), *layers]]


def _legend(left: float, top: float, with_move: bool) -> tuple[list[str], float]:
    """Swatches explaining the shading and the markers, in one row; the parts and the height."""
    r = LEGEND_SWATCH * HEX_RADIUS
    y = top + r
    black = (*HOLDING_FILL["black"], 1.0)
    white = (*HOLDING_FILL["white"], WHITE_HOLDING_INSET)
    items: list[tuple[str, Callable[[float], list[str]]]] = [
        ("held by Black", lambda x: _legend_hexes(x, y, r, [black])),
        ("by White", lambda x: _legend_hexes(x, y, r, [white])),
        ("by both", lambda x: _legend_hexes(x, y, r, [black, white])),
        ("dead group", lambda x: [_tag("path", {"class": "legend-swatch", "d": _cross_path(x, y, r * 0.6),
                                                "stroke": DEAD_COLOUR, "stroke-width": "2.5",
                                                "stroke-linecap": "round", "fill": "none"})]),
    ]
    if with_move:
        items.append(("last move / captured", lambda x: [_tag("circle", {
            "class": "legend-swatch", "cx": x, "cy": y, "r": r * 0.7, "fill": "none", "stroke": LAST_MOVE_COLOUR,
            "stroke-width": "2.5"})]))
    out: list[str] = []
    x = left + r
    for text, draw in items:
        out += draw(x)
        out.append(_text(x + r + 5, y + SMALL_SIZE * 0.35, text, SMALL_SIZE, anchor="start", fill=MUTED_TEXT,
                         css_class="legend"))
        x += 2 * r + 5 + LEGEND_CHAR_WIDTH * len(text) + LEGEND_SPACING
    return out, 2 * r + 6


def _cross_path(x: float, y: float, d: float) -> str:
    return (f"M{_num(x - d)},{_num(y - d)} L{_num(x + d)},{_num(y + d)} "
            f"M{_num(x - d)},{_num(y + d)} L{_num(x + d)},{_num(y - d)}")


def _legend_width(with_move: bool) -> float:
    texts = ["held by Black", "by White", "by both", "dead group"] + (["last move / captured"] if with_move else [])
    r = LEGEND_SWATCH * HEX_RADIUS
    return sum(2 * r + 5 + LEGEND_CHAR_WIDTH * len(t) + LEGEND_SPACING for t in texts) - LEGEND_SPACING


def _captured_ghost(x: float, y: float, colour: str, name: str) -> str:
    """A dashed, see-through stone where a stone was just removed."""
    return _tag("circle", {"class": f"captured {colour}", "data-cell": name, "cx": x, "cy": y,
                           "r": STONE_RADIUS * HEX_RADIUS, "fill": STONE_COLOURS[colour][1], "fill-opacity": "0.35",
                           "stroke": LAST_MOVE_COLOUR, "stroke-width": "2", "stroke-dasharray": "4 3"})


def _last_move_ring(x: float, y: float, name: str) -> str:
    return _tag("circle", {"class": "last-move", "data-cell": name, "cx": x, "cy": y,
                           "r": (STONE_RADIUS + 0.1) * HEX_RADIUS, "fill": "none", "stroke": LAST_MOVE_COLOUR,
                           "stroke-width": "3"})


def _board_layers(game: Smallholder, pos: Position, left: float, top: float, labels: bool,
                  last_move: int | None, captured: int) -> list[str]:
    """Cells, then holdings, stones and markers, each layer over the one before."""
    board = game.board
    held = {"black": game.holdings(pos, BLACK), "white": game.holdings(pos, WHITE)}
    dead = _dead_stones(game, pos)
    # The captured stones belonged to the side now to move (the other side just moved).
    ghost = COLOUR_NAMES[pos.to_move]
    cells, holdings, stones, marks = [], [], [], []
    for cell in range(board.size):
        x, y = _cell_centre(board, cell, left, top)
        name = board.names[cell]
        cells.append(_smallholder_cell(x, y, name))
        holdings += [_holding(x, y, colour, name) for colour in ("black", "white") if held[colour] >> cell & 1]
        stone = _stone_colour(pos, cell)
        if stone is not None:
            stones.append(_stone(x, y, stone, name))
        if captured >> cell & 1:
            marks.append(_captured_ghost(x, y, ghost, name))
        if labels:
            # Black's tint darkens the cell unless White's light inset covers the centre.
            dark = bool(held["black"] >> cell & 1 and not held["white"] >> cell & 1)
            marks.append(_smallholder_label(x, y, name, stone, dark))
        if dead >> cell & 1:
            marks.append(_dead_mark(x, y, name))
        if last_move == cell:
            marks.append(_last_move_ring(x, y, name))
    return cells + holdings + stones + marks


def smallholder_svg(game: Smallholder, pos: Position, title: str | None = None, labels: bool = True,
                    last_move: int | None = None, captured: int = 0) -> str:
    """An SVG picture of ``pos``: hex board, stones, holdings, dead groups and a caption.

    Each player's holdings are shaded (Black's over the whole cell, White's as an inset
    hexagon, so a cell both hold shows both); every stone of a dead group (no playable
    cell next to it) gets a red cross. ``last_move`` rings the stone just placed and
    ``captured`` (a bitmask of now empty cells) shows the stones it removed as dashed
    ghosts of the side to move's colour. ``labels`` writes the cell names.
    Raises ValueError for a mark that is off the board or a captured cell that holds a stone.
    """
    board = game.board
    _check_marks(board, pos, last_move, captured)
    board_width, board_height = _board_size(board)
    status = _smallholder_status(game, pos)
    with_move = last_move is not None or captured != 0
    width = max(2 * MARGIN + max(board_width, _legend_width(with_move)), _text_width(status, title))
    heading, heading_height = _heading(title, width / 2)
    left = (width - board_width) / 2
    top = MARGIN + heading_height
    defs = _tag("defs", {}, "".join(_radial_gradient(f"stone-{c}", *STONE_COLOURS[c]) for c in ("black", "white")))
    layers = _board_layers(game, pos, left, top, labels, last_move, captured)
    legend_top = top + board_height + 12
    legend, legend_height = _legend((width - _legend_width(with_move)) / 2, legend_top, with_move)
    caption_top = legend_top + legend_height
    height = caption_top + sum(size * LINE_SPACING for _, size in status) + MARGIN
    body = [defs, *heading, *layers, *legend, *_captions(status, width / 2, caption_top)]
    description = title or f"The Smallholder ({game.rules_name}) {game.format(pos)}: {status[0][0]}"
    return _document(width, height, "smallholder", description, body)
