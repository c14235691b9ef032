"""HTML sheets: puzzles with a picture each (`tablebase puzzles export --format html`)."""

from __future__ import annotations

from dataclasses import dataclass
import re
from html import escape

SIDE_NAMES = {"R": "Red", "B": "Black", "W": "White"}


@dataclass(frozen=True)
class PuzzleCard:
    """What the sheet shows of one puzzle; ``svg`` is its picture."""

    id: int
    game: str
    rules: str
    position: str
    to_move: str
    depth: int
    grade: int
    solution: list[str]
    svg: str


#: The sheet's style: a picture is scaled down to its card, never cut or spilling over.
STYLE = ("body{font-family:sans-serif} .puzzle{display:inline-block;width:380px;margin:12px;vertical-align:top}"
         " .puzzle svg{display:block;width:100%;height:auto} .solutions{break-before:page}"
         " .solutions li{margin:0.3em 0}")


def puzzle_sheet(cards: list[PuzzleCard]) -> str:
    """A printable sheet: one card per puzzle (picture, task, position), then all the
    solutions together at the end, so that solving one does not give the next away."""
    parts = ["<!DOCTYPE html>", "<html><head><meta charset='utf-8'><title>tablebase puzzles</title>",
             f"<style>{STYLE}</style></head><body>", "<h1>Puzzles</h1>"]
    for p in cards:
        parts.append(f"<div class='puzzle' id='puzzle-{p.id}'><h3>#{p.id}: {SIDE_NAMES[p.to_move]} to move, win "
                     f"within {p.depth} plies (grade {p.grade})</h3>{_fitting(_own_ids(p.svg, f'puzzle-{p.id}-'))}"
                     f"<p><code>{escape(p.position)}</code> ({escape(p.game)} {escape(p.rules)})</p></div>")
    parts.append("<section class='solutions'><h2>Solutions</h2><ul>")
    parts += [f"<li id='solution-{p.id}'>#{p.id}: {escape(' '.join(p.solution))}</li>" for p in cards]
    parts.append("</ul></section></body></html>")
    return "\n".join(parts) + "\n"


def _fitting(svg: str) -> str:
    """The picture without its fixed pixel size (its viewBox keeps the proportions), so
    the sheet's style can scale it to the card."""
    head, _, rest = svg.partition(">")
    head = re.sub(r' (width|height)="[^"]*"', "", head)
    return head + ">" + rest


def _own_ids(svg: str, prefix: str) -> str:
    """The picture with each id it defines, and each reference to one (``url(#id)``,
    ``href="#id"``), given ``prefix``: the pictures of one page then share no id (each
    draws its own gradients), and each still draws the same."""
    ids = set(re.findall(r'\sid="([^"]+)"', svg))
    if not ids:
        return svg
    names = "|".join(re.escape(name) for name in sorted(ids, key=len, reverse=True))
    return re.sub(rf'(\sid="|url\(#|href="#)({names})(?=[")])', lambda m: f"{m[1]}{prefix}{m[2]}", svg)
