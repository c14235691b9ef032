"""The rules atlas drawn: text lines, the Markdown page, and two SVG charts (the option
grid and the game lengths).

Pure functions from atlas rows (see `solver/atlas.py`) to text; deterministic (same
rows, same bytes). Every drawn cell and bar carries classes and
``data-`` attributes so tests and stylesheets can find them:

* the option grid: one ``rect.combination`` per combination with ``data-rules``,
  ``data-value`` (``win`` / ``loss`` / ``draw`` for Black, or ``missing`` when the row
  is not computed) and ``data-remoteness``; the named rulesets also carry ``named``;
* the game lengths: one ``rect.bar`` per (length, result) with ``data-plies``,
  ``data-value`` and ``data-count``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final, Iterable, Sequence

from tablebase.games.smallholder.options import (
    ADJACENT_OPTIONS, CAPTURE_OPTIONS, GROUPS_OPTIONS, TERRITORY_OPTIONS, Rules, all_rules)
from tablebase.render.svg import CHAR_WIDTH, MARGIN, MUTED_TEXT, TEXT_COLOUR, _document, _escape as escape, _tag
from tablebase.render.svg import _text as svg_text

__all__ = ["option_grid_svg", "game_lengths_svg", "atlas_text", "atlas_markdown", "compare_text", "BoardAtlas"]

TITLE_SIZE: Final = 16.0
LABEL_SIZE: Final = 11.0
CELL_TEXT_SIZE: Final = 12.0
GRID_LINE: Final = "#ffffff"
#: Fill ramps, lightest (shortest perfect game) to darkest (longest), per result for Black.
RAMPS: Final = {"win": ("#c6dbef", "#08306b"), "loss": ("#fdd0a2", "#7f2704")}
DRAW_FILL: Final = "#9e9e9e"
MISSING_FILL: Final = "#f2f2f2"
RESULT_LABELS: Final = {"win": "Black wins", "loss": "White wins", "draw": "draw", "missing": "not computed"}
CELL_W: Final = 96.0
CELL_H: Final = 32.0


def _text(x: float, y: float, text: str, size: float = LABEL_SIZE, anchor: str = "middle",
          fill: str = TEXT_COLOUR, weight: str | None = None, css_class: str | None = None) -> str:
    return svg_text(x, y, text, size, anchor=anchor, fill=fill, weight=weight, css_class=css_class)


def _mix(light: str, dark: str, t: float) -> str:
    """The colour ``t`` of the way from ``light`` (0) to ``dark`` (1)."""
    a = [int(light[i:i + 2], 16) for i in (1, 3, 5)]
    b = [int(dark[i:i + 2], 16) for i in (1, 3, 5)]
    return "#" + "".join(f"{round(x + (y - x) * t):02x}" for x, y in zip(a, b))


def _value(row: dict[str, Any] | None) -> str:
    return "missing" if row is None else str(row["start"]["value"])


def _fill(row: dict[str, Any] | None, shortest: int, longest: int) -> str:
    value = _value(row)
    if value == "missing":
        return MISSING_FILL
    if value == "draw" or row is None:
        return DRAW_FILL
    light, dark = RAMPS[value]
    span = max(1, longest - shortest)
    return _mix(light, dark, 0.15 + 0.85 * (row["start"]["remoteness"] - shortest) / span)


def _lengths(rows: Iterable[dict[str, Any]]) -> list[int]:
    return [row["start"]["remoteness"] for row in rows if row["start"]["remoteness"] is not None]


def option_grid_svg(board: str, rows: Sequence[dict[str, Any]]) -> str:
    """The 120 combinations as a grid: a row per (groups, capture), a column per
    (territory, adjacent); each cell coloured by the start's result for Black, darker
    for a longer perfect game, with the remoteness written in it. Combinations without
    a row are drawn as "not computed"."""
    by_spec = {row["spec"]: row for row in rows}
    lengths = _lengths(rows) or [0]
    shortest, longest = min(lengths), max(lengths)
    columns = [(t, a) for t in TERRITORY_OPTIONS for a in ADJACENT_OPTIONS]
    row_keys = [(g, c) for g in GROUPS_OPTIONS for c in CAPTURE_OPTIONS]
    row_label_w = max(len(g) for g in GROUPS_OPTIONS) * LABEL_SIZE * CHAR_WIDTH + 10
    capture_label_w = max(len(c) for c in CAPTURE_OPTIONS) * LABEL_SIZE * CHAR_WIDTH + 10
    left = MARGIN + row_label_w + capture_label_w
    top = MARGIN + TITLE_SIZE * 1.5 + 3 * LABEL_SIZE * 1.6 + 6
    width = left + len(columns) * CELL_W + MARGIN
    grid_h = len(row_keys) * CELL_H
    title = f"The Smallholder on {board}: who wins the empty board with perfect play, and in how many plies"
    width = max(width, 2 * MARGIN + len(title) * TITLE_SIZE * CHAR_WIDTH * 0.95)
    body = [_text(MARGIN, MARGIN + TITLE_SIZE, title, TITLE_SIZE, anchor="start", weight="bold",
                  css_class="heading")]
    header_y = top - 2 * LABEL_SIZE * 1.6 - 4
    for i, territory in enumerate(TERRITORY_OPTIONS):
        x = left + i * len(ADJACENT_OPTIONS) * CELL_W
        span = len(ADJACENT_OPTIONS) * CELL_W
        body.append(_text(x + span / 2, header_y - 2, f"territory={territory}", weight="bold"))
        body.append(_tag("line", {"x1": x + 4, "y1": header_y + 3, "x2": x + span - 4, "y2": header_y + 3,
                                  "stroke": MUTED_TEXT, "stroke-width": "1"}))
    for j, (_, adjacent) in enumerate(columns):
        # "smallest-playable-only" is wider than a cell: the "-only" goes on a second line
        base, only, _ = adjacent.partition("-only")
        lines = [base, "-only"] if only else [base]
        for k, line in enumerate(lines):
            body.append(_text(left + (j + 0.5) * CELL_W, top - 6 - (len(lines) - 1 - k) * LABEL_SIZE * 1.2, line,
                              LABEL_SIZE * 0.9, fill=MUTED_TEXT))
    body.append(_text(MARGIN, top - 6, "groups / capture", LABEL_SIZE * 0.9, anchor="start", fill=MUTED_TEXT))
    for i, groups in enumerate(GROUPS_OPTIONS):
        y = top + i * len(CAPTURE_OPTIONS) * CELL_H
        body.append(_text(MARGIN, y + len(CAPTURE_OPTIONS) * CELL_H / 2 + LABEL_SIZE / 3, groups,
                          anchor="start", weight="bold"))
        if i:
            body.append(_tag("line", {"x1": MARGIN, "y1": y, "x2": left + len(columns) * CELL_W, "y2": y,
                                      "stroke": TEXT_COLOUR, "stroke-width": "1"}))
    named_marks = []
    for r, (groups, capture) in enumerate(row_keys):
        y = top + r * CELL_H
        body.append(_text(left - 6, y + CELL_H / 2 + LABEL_SIZE / 3, capture, LABEL_SIZE * 0.9, anchor="end",
                          fill=MUTED_TEXT))
        for j, (territory, adjacent) in enumerate(columns):
            x = left + j * CELL_W
            rules = Rules(groups, adjacent, territory, capture)
            row = by_spec.get(rules.spec)
            value = _value(row)
            fill = _fill(row, shortest, longest)
            remoteness = None if row is None else row["start"]["remoteness"]
            named = None if row is None else row["named"]
            body.append(_tag("rect", {
                "class": "combination" + (" named" if named else ""), "x": x, "y": y, "width": CELL_W,
                "height": CELL_H, "fill": fill, "stroke": GRID_LINE, "stroke-width": "1",
                "data-rules": rules.spec, "data-value": value,
                "data-remoteness": "" if remoteness is None else remoteness}, _tag("title", {}, escape(
                    f"{rules.spec}: {RESULT_LABELS[value]}" + (f" in {remoteness}" if remoteness is not None else "")
                    + (f" ({named})" if named else "")))))
            dark = value in RAMPS and remoteness is not None and (remoteness - shortest) / max(1, longest - shortest) > 0.45
            label = "–" if value == "missing" else "draw" if value == "draw" else f"{'B' if value == 'win' else 'W'} {remoteness}"
            label_y = y + (CELL_H * 0.45 if named else CELL_H / 2) + CELL_TEXT_SIZE / 3
            body.append(_text(x + CELL_W / 2, label_y, label, CELL_TEXT_SIZE,
                              fill="#ffffff" if dark else TEXT_COLOUR, css_class="cell-label"))
            if named:
                named_marks.append(_tag("rect", {"class": "named-outline", "x": x + 1.5, "y": y + 1.5,
                                                 "width": CELL_W - 3, "height": CELL_H - 3, "fill": "none",
                                                 "stroke": "#000000", "stroke-width": "2.5"}))
                named_marks.append(_text(x + CELL_W / 2, y + CELL_H - 5, named, 8.5,
                                         fill="#ffffff" if dark else TEXT_COLOUR, css_class="named-label"))
    body += named_marks
    # legend
    y = top + grid_h + 22
    x = MARGIN
    counts = {v: sum(1 for spec in (r.spec for r in all_rules()) if _value(by_spec.get(spec)) == v)
              for v in ("win", "loss", "draw", "missing")}
    for value in ("win", "loss", "draw", "missing"):
        if value == "missing" and not counts["missing"]:
            continue
        if value in RAMPS:
            for k in range(5):
                body.append(_tag("rect", {"x": x + k * 12, "y": y - 10, "width": 12, "height": 14,
                                          "fill": _mix(*RAMPS[value], 0.15 + 0.85 * k / 4)}))
            swatch = 60
        else:
            body.append(_tag("rect", {"x": x, "y": y - 10, "width": 14, "height": 14,
                                      "fill": DRAW_FILL if value == "draw" else MISSING_FILL,
                                      "stroke": "#cccccc", "stroke-width": "1"}))
            swatch = 14
        text = f"{RESULT_LABELS[value]} ({counts[value]})"
        body.append(_text(x + swatch + 6, y + 1, text, anchor="start", css_class="legend"))
        x += swatch + 16 + len(text) * LABEL_SIZE * CHAR_WIDTH
    note = (f"B n / W n: Black / White wins in n plies with perfect play ({shortest} to {longest}; darker is "
            f"longer). Outlined: the named rulesets.")
    body.append(_text(MARGIN, y + 22, note, LABEL_SIZE, anchor="start", fill=MUTED_TEXT))
    height = y + 22 + MARGIN
    width = max(width, x + MARGIN, 2 * MARGIN + len(note) * LABEL_SIZE * CHAR_WIDTH)
    return _document(width, height, "atlas-grid", title, body)


BAR_W: Final = 34.0
PLOT_H: Final = 200.0


def game_lengths_svg(board: str, rows: Sequence[dict[str, Any]]) -> str:
    """How many combinations have each perfect-game length (the start's remoteness),
    stacked by who wins; drawn starts get their own bar."""
    lengths = _lengths(rows)
    span = list(range(min(lengths), max(lengths) + 1)) if lengths else []
    stacks: list[tuple[str, dict[str, int]]] = []
    for plies in span:
        stacks.append((str(plies), {v: sum(1 for row in rows if row["start"]["value"] == v
                                          and row["start"]["remoteness"] == plies) for v in ("win", "loss")}))
    draws = sum(1 for row in rows if row["start"]["value"] == "draw")
    if draws:
        stacks.append(("draw", {"draw": draws}))
    tallest = max([sum(s.values()) for _, s in stacks] or [1])
    title = f"The Smallholder on {board}: length of the perfect game, over {len(rows)} option combinations"
    left = MARGIN + 34
    top = MARGIN + TITLE_SIZE * 1.6 + 8
    plot_w = max(1, len(stacks)) * BAR_W
    width = max(left + plot_w + MARGIN, 2 * MARGIN + len(title) * TITLE_SIZE * CHAR_WIDTH * 0.95)
    body = [_text(MARGIN, MARGIN + TITLE_SIZE, title, TITLE_SIZE, anchor="start", weight="bold",
                  css_class="heading")]
    scale = PLOT_H / tallest
    step = max(1, -(-tallest // 5))
    scale = PLOT_H / (step * -(-tallest // step))
    for tick in range(0, tallest + step, step):
        y = top + PLOT_H - tick * scale
        body.append(_tag("line", {"x1": left, "y1": y, "x2": left + plot_w, "y2": y, "stroke": "#e0e0e0",
                                  "stroke-width": "1"}))
        body.append(_text(left - 6, y + LABEL_SIZE / 3, str(tick), anchor="end", fill=MUTED_TEXT))
    fills = {"win": RAMPS["win"][1], "loss": RAMPS["loss"][1], "draw": DRAW_FILL}
    for i, (label, stack) in enumerate(stacks):
        x = left + i * BAR_W
        base = top + PLOT_H
        for value in ("win", "loss", "draw"):
            count = stack.get(value, 0)
            if not count:
                continue
            h = count * scale
            body.append(_tag("rect", {"class": f"bar {value}", "x": x + 4, "y": base - h, "width": BAR_W - 8,
                                      "height": h, "fill": fills[value], "data-plies": label, "data-value": value,
                                      "data-count": count},
                             _tag("title", {}, escape(f"{count} with {RESULT_LABELS[value]}"
                                                      + ("" if label == "draw" else f" in {label} plies")))))
            if h >= LABEL_SIZE + 2:
                body.append(_text(x + BAR_W / 2, base - h / 2 + LABEL_SIZE / 3, str(count), fill="#ffffff"))
            base -= h
        body.append(_text(x + BAR_W / 2, top + PLOT_H + LABEL_SIZE + 4, label, fill=MUTED_TEXT))
    body.append(_tag("line", {"x1": left, "y1": top + PLOT_H, "x2": left + plot_w, "y2": top + PLOT_H,
                              "stroke": TEXT_COLOUR, "stroke-width": "1"}))
    y = top + PLOT_H + LABEL_SIZE * 2 + 10
    body.append(_text(left + plot_w / 2, y, "plies in the perfect game (the start's remoteness)", fill=MUTED_TEXT))
    y += 20
    x = MARGIN
    for value in ("win", "loss") + (("draw",) if draws else ()):
        body.append(_tag("rect", {"x": x, "y": y - 10, "width": 14, "height": 14, "fill": fills[value]}))
        body.append(_text(x + 20, y + 1, RESULT_LABELS[value], anchor="start", css_class="legend"))
        x += 40 + len(RESULT_LABELS[value]) * LABEL_SIZE * CHAR_WIDTH
    return _document(width, y + MARGIN, "atlas-lengths", title, body)


# -- text and Markdown -------------------------------------------------------------------


def start_text(start: dict[str, Any], sides: str = "BW") -> str:
    """``B 11`` (Black, the first of ``sides``, wins in 11 plies), ``W 12``, or ``draw``."""
    if start["value"] == "draw":
        return "draw"
    return f"{sides[0] if start['value'] == 'win' else sides[1]} {start['remoteness']}"


def first_moves_text(moves: dict[str, int]) -> str:
    """``1/3 (3/12)``: winning first moves up to symmetry, then of all."""
    return f"{moves['up_to_symmetry']}/{moves['of_up_to_symmetry']} ({moves['all']}/{moves['of_all']})"


def _longest(row: dict[str, Any]) -> str:
    return "endless" if row["longest_game"] is None else str(row["longest_game"])


def _share(value: float | None) -> str:
    return "-" if value is None else f"{value:.2%}"


def atlas_text(rows: Sequence[dict[str, Any]], sides: str = "BW") -> str:
    """One line per combination: the start (``B n``: the first of ``sides``, who moves
    first, wins in n plies), positions, draws, repetition, winning first moves, longest
    game, capture share ("-": the game has no captures), mean moves, then the rules."""
    lines = [f"{'start':>5} {'positions':>11} {'draws':>9} {'cycles':>6} {'1st wins':>12} {'longest':>7} "
             f"{'capture':>7} {'moves':>5}  rules"]
    for row in rows:
        shown = row["spec"] or row["rules"]  # a Sparro variant has no spec
        rules = shown + (f" ({row['named']})" if row["named"] and row["named"] != shown else "")
        lines.append(f"{start_text(row['start'], sides):>5} {row['positions']:>11,} {row['draws']:>9,} "
                     f"{'yes' if row['cycles'] else 'no':>6} {first_moves_text(row['winning_first_moves']):>12} "
                     f"{_longest(row):>7} {_share(row['capture_share']):>7} {row['mean_moves']:>5.2f}  {rules}")
    return "\n".join(lines)


@dataclass(frozen=True)
class BoardAtlas:
    """One board's section of the atlas page."""

    board: str
    rows: list[dict[str, Any]]  # the computed rows, in the order of `all_rules`
    missing: list[str]  # specs of the combinations without a row
    grid_image: str | None = None  # path of the option grid, relative to the page
    lengths_image: str | None = None


def _counts_line(rows: Sequence[dict[str, Any]]) -> str:
    values = [row["start"]["value"] for row in rows]
    lengths = _lengths(rows)
    parts = [f"Black wins the empty board under {values.count('win')}, White under {values.count('loss')}"
             + (f", a draw under {values.count('draw')}" if values.count("draw") else "")
             + f" of {len(rows)} combinations"]
    if lengths:
        parts.append(f"perfect games last {min(lengths)} to {max(lengths)} plies")
    cyclic = sum(1 for row in rows if row["cycles"])
    parts.append(f"{cyclic} combination{'s' * (cyclic != 1)} let play repeat"
                 + (f" ({sum(1 for row in rows if row['draws'])} with drawn positions)" if cyclic else ""))
    return "; ".join(parts) + "."


_GOAL_NAMES = {"B": "Black", "W": "White"}


def _weak_claim(result: dict[str, Any]) -> str:
    if "proof" in result:
        return result["summary"]
    side = _GOAL_NAMES.get(result["goal"], result["goal"])
    if result["status"] == "proved":
        return f"{side} wins (proved)"
    if result["status"] == "disproved":
        return f"{side} cannot force a win (proved)"
    state = "unfinished" if result["status"] == "unfinished" else f"unfinished ({result['status']})"
    return f"{state}: {result['settled']:,} nodes settled, no result"


def _weak_evidence(result: dict[str, Any]) -> str:
    if "proof" in result:
        return f"the proof `{result['proof']['file']}`, checked (`tablebase check --proof`)"
    return f"a run stored in the file: {result['settled']:,} nodes settled, {result['seconds']:,} s"


def atlas_markdown(sections: Sequence[BoardAtlas], command: str,
                   weak: Sequence[dict[str, Any]] | None = None, weak_boards: Sequence[str] = ()) -> str:
    """The atlas page: per board the counts, the two pictures and the table of rows;
    then, for ``weak_boards``, the first-player results of the weak solutions in ``weak``
    (`service.atlas.weak_first_player_results`: checked proofs and stored runs)."""
    lines = [
        "# The Smallholder rules atlas",
        "",
        f"Generated by `{command}`; do not edit by hand.",
        "",
        "Every option combination (5 group rules x 4 adjacency rules x 2 territories x 3 captures = 120) "
        "solved strongly on each board and described by exact figures over all canonical positions "
        "reachable from the empty board (one per symmetry class, side to move kept). Nothing is sampled.",
        "",
        "* **start**: the empty board with perfect play, for Black (who moves first): `B n` Black wins in "
        "n plies, `W n` White wins in n plies (the length of a perfect game);",
        "* **positions**, **draws**: canonical reachable positions, and those where neither side can force "
        "a win (play goes on forever);",
        "* **cycles**: whether some line of play repeats a position;",
        "* **first-move wins**: Black's first moves that win, `a/b (c/d)`: a of the b first moves up to "
        "symmetry, c of all d;",
        "* **longest**: the most plies any game can last, whoever plays what (`endless` when play can repeat);",
        "* **capture**: the share of positions where some legal move captures;",
        "* **moves**: legal moves per position, on average.",
    ]
    for section in sections:
        lines += ["", f"## {section.board}", ""]
        if section.rows:
            lines.append(_counts_line(section.rows))
        if section.missing:
            lines += ["", f"**Not computed: {len(section.missing)} of {len(section.rows) + len(section.missing)} "
                          f"combinations** (the figures above and below cover the {len(section.rows)} computed "
                          f"ones; the pictures show the others as not computed):", ""]
            lines += [f"* `{spec}`" for spec in section.missing]
        for image, alt in ((section.grid_image, "option grid"), (section.lengths_image, "game lengths")):
            if image:
                lines += ["", f"![{section.board}: {alt}]({image})"]
        if not section.rows:
            continue
        lines += ["", "| groups | adjacent | territory | capture | named | start | positions | draws | cycles | "
                      "first-move wins | longest | capture | moves |",
                  "|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
        for row in section.rows:
            options = dict(item.split("=") for item in row["spec"].split(","))
            lines.append(
                f"| {options['groups']} | {options['adjacent']} | {options['territory']} | {options['capture']} "
                f"| {row['named'] or ''} | {start_text(row['start'])} | {row['positions']:,} | {row['draws']:,} "
                f"| {'yes' if row['cycles'] else 'no'} | {first_moves_text(row['winning_first_moves'])} "
                f"| {_longest(row)} | {row['capture_share']:.2%} | {row['mean_moves']:.3f} |")
    if weak_boards:
        lines += ["", f"## {' and '.join(weak_boards)}: weak solutions", "",
                  "Too big for tables: a weak solve (proof-number search from the empty board) proves or "
                  "disproves a first-player win without valuing every position (how, and the runs' "
                  "progress: docs/distributed.md)."]
        if weak:
            lines += ["", "| board | rules | named | result | from |", "|---|---|---|---|---|"]
            lines += [f"| {r['board']} | {r['spec']} | {r['named'] or ''} | {_weak_claim(r)} | {_weak_evidence(r)} |"
                      for r in weak]
            lines += ["", "Combinations not listed have no weak solution yet."]
        else:
            lines += ["", "No weak solution of these boards was given (`--proof`) or is stored in the tablebase "
                          "file this page was made from, so there is no result for them here."]
    return "\n".join(lines) + "\n"


def compare_text(comparison: dict[str, Any]) -> str:
    """The side-by-side comparison of `solver.atlas.compare_probes` as lines of text."""

    def shown(value: dict[str, Any] | None) -> str:
        if value is None:
            return "illegal"
        return value["value"] + ("" if value["remoteness"] is None else f" {value['remoteness']}")

    labels = comparison["rules"]
    lines = [f"{comparison['position']}: {comparison['to_move']} to move"]
    lines += [f"  [{i}] {label}: {shown(comparison['values'][label])}" for i, label in enumerate(labels, start=1)]
    width = max([len(m["name"]) for m in comparison["moves"]] + [4])
    lines.append("  " + "move".ljust(width) + "".join(f" {f'[{i}]':>9}" for i in range(1, len(labels) + 1)))
    for move in comparison["moves"]:
        lines.append(("* " if move["differ"] else "  ") + move["name"].ljust(width)
                     + "".join(f" {shown(move['values'][label]):>9}" for label in labels))
    differing = comparison["differing_moves"]
    lines.append(f"{len(differing)} of {len(comparison['moves'])} moves differ"
                 + (f" (marked *): {' '.join(differing)}" if differing else ""))
    return "\n".join(lines)
