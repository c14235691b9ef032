"""HTML sheets: puzzles with a picture each (`tablebase puzzles export --format html`)."""

from __future__ import annotations

from dataclasses import dataclass
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


def puzzle_sheet(cards: list[PuzzleCard]) -> str:
    parts = ["<!DOCTYPE html>", "<html><head><meta charset='utf-8'><title>tablebase puzzles</title>",
             "<style>body{font-family:sans-serif} .puzzle{display:inline-block;width:380px;margin:12px;"
             "vertical-align:top} .solution{color:#777;font-size:small}</style></head><body>",
             "<h1>Puzzles</h1>"]
    for p in cards:
        parts.append(f"<div class='puzzle'><h3>#{p.id}: {SIDE_NAMES[p.to_move]} to move, win within "
                     f"{p.depth} plies (grade {p.grade})</h3>{p.svg}"
                     f"<p><code>{escape(p.position)}</code> ({escape(p.game)} {escape(p.rules)})</p>"
                     f"<p class='solution'>Solution: {escape(' '.join(p.solution))}</p></div>")
    parts.append("</body></html>")
    return "\n".join(parts) + "\n"
