"""A second, deliberately naive Sparro implementation for cross-checking the engine.

Written from the rules text of docs/sparro.md and from solid geometry alone; it shares no
code with ``games/sparro``. Marbles are unit spheres in a close-packed square pyramid:

    level L cell (r, c) has its centre at  x = c + L/2,  y = r + L/2,  z = L * sqrt(2) / 2

so two marbles touch when their centres are 1 apart. Platforms, lines, faces and the
symmetries are all derived from these 3-D centres, by brute force over all cells. A
position is a dict ``{(level, row, col): colour}`` with ``"R"``, ``"B"`` and the fixed
whites as ``"W"``; a game state is ``(board, token)``. Slow and obvious on purpose.
"""

from __future__ import annotations

import itertools
import math
from typing import Iterable

Cell = tuple[int, int, int]
Board = dict[Cell, str]
State = tuple[Board, str]  # (board, token holder)

EPS = 1e-9
HALF_SQRT2 = math.sqrt(2) / 2
WHITES: frozenset[Cell] = frozenset({(0, 1, 1), (0, 1, 2), (0, 2, 1), (0, 2, 2), (1, 1, 1)})

#: Every cell of levels 0..2, whites included, in standard order (level, row, col).
ALL_CELLS: list[Cell] = [(lv, r, c) for lv in range(3) for r in range(4 - lv) for c in range(4 - lv)]
#: The playable cells in standard cell order (docs/sparro.md, Notation): whites skipped.
PLAYABLE: list[Cell] = [cell for cell in ALL_CELLS if cell not in WHITES]


def centre(cell: Cell) -> tuple[float, float, float]:
    level, row, col = cell
    return (col + level / 2, row + level / 2, level * HALF_SQRT2)


def distance(a: Cell, b: Cell) -> float:
    return math.dist(centre(a), centre(b))


def touching(a: Cell, b: Cell) -> bool:
    return abs(distance(a, b) - 1.0) < EPS


def cell_at(point: Iterable[float]) -> Cell | None:
    """The cell (whites included) whose centre is ``point``, or None."""
    p = tuple(point)
    for cell in ALL_CELLS:
        if math.dist(centre(cell), p) < EPS:
            return cell
    return None


# -- geometry by brute force ---------------------------------------------------------

def platform(cell: Cell) -> frozenset[Cell]:
    """The cells one level down that the marble on ``cell`` touches (whites included)."""
    return frozenset(d for d in ALL_CELLS if d[0] == cell[0] - 1 and touching(cell, d))


def _face_planes() -> dict[str, tuple[tuple[float, ...], float]]:
    """Each face plane as (unit normal, offset): through the apex and two base corners.

    The apex is the centre of the crow's nest (level 3), the four base corners are the
    centres of the level-0 corner marbles.
    """
    apex = (1.5, 1.5, 3 * HALF_SQRT2)
    corners = {"nw": (0.0, 0.0, 0.0), "ne": (3.0, 0.0, 0.0), "se": (3.0, 3.0, 0.0), "sw": (0.0, 3.0, 0.0)}
    planes = {}
    for face, (p, q) in {"north": ("nw", "ne"), "east": ("ne", "se"),
                         "south": ("se", "sw"), "west": ("sw", "nw")}.items():
        a, b = corners[p], corners[q]
        u = [b[i] - a[i] for i in range(3)]
        v = [apex[i] - a[i] for i in range(3)]
        n = [u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2], u[0] * v[1] - u[1] * v[0]]
        norm = math.sqrt(sum(x * x for x in n))
        n = [x / norm for x in n]
        planes[face] = (tuple(n), sum(n[i] * a[i] for i in range(3)))
    return planes


FACE_PLANES = _face_planes()


def on_face(cell: Cell, face: str) -> bool:
    normal, offset = FACE_PLANES[face]
    return abs(sum(normal[i] * centre(cell)[i] for i in range(3)) - offset) < EPS


def faces_of(cell: Cell) -> set[str]:
    return {face for face in FACE_PLANES if on_face(cell, face)}


def _derive_lines() -> frozenset[frozenset[Cell]]:
    lines = set()
    for a, b, c in itertools.permutations(PLAYABLE, 3):
        pa, pb, pc = centre(a), centre(b), centre(c)
        is_midpoint = all(abs(pb[i] - (pa[i] + pc[i]) / 2) < EPS for i in range(3))
        if is_midpoint and touching(a, b) and faces_of(a) & faces_of(b) & faces_of(c):
            lines.add(frozenset((a, b, c)))
    return frozenset(lines)


#: The lines: sets of three playable cells, straight, touching, on one outer face.
LINES: frozenset[frozenset[Cell]] = _derive_lines()

#: Each cell's platform, worked out once (the brute force above is slow).
PLATFORMS: dict[Cell, frozenset[Cell]] = {cell: platform(cell) for cell in ALL_CELLS}
LINE_LIST: list[tuple[Cell, ...]] = [tuple(sorted(line)) for line in LINES]

CORNERS: frozenset[Cell] = frozenset(c for c in PLAYABLE if c[0] == 0 and len(faces_of(c)) == 2)
EDGE_CENTRES: frozenset[Cell] = frozenset(c for c in PLAYABLE if c[0] == 0 and len(faces_of(c)) == 1)


def _derive_symmetries() -> list[dict[Cell, Cell]]:
    """The 8 plane isometries about the pyramid's vertical axis, as cell maps."""
    cx = cy = 1.5

    def rotate(p: tuple[float, float, float]) -> tuple[float, float, float]:  # 90 degrees
        x, y, z = p
        return (cx - (y - cy), cy + (x - cx), z)

    def mirror(p: tuple[float, float, float]) -> tuple[float, float, float]:  # x -> -x
        x, y, z = p
        return (2 * cx - x, y, z)

    maps = []
    for reflect in (False, True):
        for turns in range(4):
            m = {}
            for cell in ALL_CELLS:
                p = centre(cell)
                if reflect:
                    p = mirror(p)
                for _ in range(turns):
                    p = rotate(p)
                image = cell_at(p)
                assert image is not None
                m[cell] = image
            maps.append(m)
    return maps


SYMMETRIES: list[dict[Cell, Cell]] = _derive_symmetries()


# -- the game -----------------------------------------------------------------------

def empty_board() -> Board:
    return {cell: "W" for cell in WHITES}


def count(board: Board, colour: str) -> int:
    return sum(1 for v in board.values() if v == colour)


def to_move(board: Board) -> str:
    return "R" if count(board, "R") == count(board, "B") else "B"


def lines_of(board: Board, colour: str) -> int:
    return sum(1 for line in LINE_LIST if all(board.get(cell) == colour for cell in line))


def available(board: Board) -> list[Cell]:
    """Empty playable cells on level 0, or with all four cells below occupied."""
    out = []
    for cell in PLAYABLE:
        if cell in board:
            continue
        below = PLATFORMS[cell]
        if cell[0] == 0 or (len(below) == 4 and all(d in board for d in below)):
            out.append(cell)
    return out


def is_full(board: Board) -> bool:
    return all(cell in board for cell in PLAYABLE)


class NaiveSparro:
    def __init__(self, variant: str) -> None:
        assert variant in ("standard", "extended", "extended-unrestricted")
        self.variant = variant

    def start(self) -> State:
        return (empty_board(), "B")

    def winner(self, state: State) -> str | None:
        board, token = state
        red, black = lines_of(board, "R"), lines_of(board, "B")
        if self.variant == "standard":
            if red:
                return "R"
            if black:
                return "B"
            return "B" if is_full(board) else None
        if not is_full(board):
            return None
        if red > black:
            return "R"
        if black > red:
            return "B"
        return token

    def legal(self, state: State) -> list[Cell]:
        board, _ = state
        if self.winner(state) is not None:
            return []
        cells = available(board)
        marbles = [cell for cell, v in board.items() if v in "RB"]
        if self.variant == "extended" and len(marbles) == 1:
            first = marbles[0]
            if first in CORNERS:
                cells = [c for c in cells if c in EDGE_CENTRES]
            elif first in EDGE_CENTRES:
                cells = [c for c in cells if c in CORNERS]
        return cells

    def play(self, state: State, cell: Cell) -> State:
        board, token = state
        assert cell in self.legal(state)
        mover = to_move(board)
        after = dict(board)
        after[cell] = mover
        if self.variant != "standard" and lines_of(after, mover) > lines_of(board, mover):
            token = mover
        return (after, token)


def perft(game: NaiveSparro, depth: int) -> int:
    """Number of move sequences of length ``depth`` from the start (memoised per position)."""
    memo: dict[tuple[frozenset, str, int], int] = {}

    def walk(state: State, d: int) -> int:
        moves = game.legal(state)
        if d == 1:
            return len(moves)
        key = (frozenset(state[0].items()), state[1], d)
        if key not in memo:
            memo[key] = sum(walk(game.play(state, m), d - 1) for m in moves)
        return memo[key]

    return 1 if depth == 0 else walk(game.start(), depth)


def from_text(text: str) -> State:
    """Read the notation of docs/sparro.md naively (no validation beyond shape)."""
    words = text.split()
    board_text = words[0].replace("/", "")
    assert len(board_text) == 24
    board = empty_board()
    for cell, ch in zip(PLAYABLE, board_text):
        if ch in "RB":
            board[cell] = ch
    return (board, words[1] if len(words) > 1 else "B")


def problem(state: State, variant: str) -> str | None:
    """Why a position is not legal (docs/sparro.md, Notation): 'floating', 'counts', 'lines', 'token' or None."""
    board, token = state
    for cell in PLAYABLE:
        if cell in board and cell[0] > 0 and not all(d in board for d in PLATFORMS[cell]):
            return "floating"
    reds, blacks = count(board, "R"), count(board, "B")
    if reds not in (blacks, blacks + 1):
        return "counts"
    red_lines, black_lines = lines_of(board, "R"), lines_of(board, "B")
    if variant == "standard":
        if token != "B":
            return "token"
        if (to_move(board) == "R" and red_lines) or (to_move(board) == "B" and black_lines):
            return "lines"
        return None
    if red_lines and black_lines:
        return None
    expected = "R" if red_lines else "B"
    return None if token == expected else "token"


def resting_on(board: Board, cell: Cell) -> bool:
    """Whether a marble lies on ``cell`` (``cell`` is part of an occupied cell's platform)."""
    return any(cell in PLATFORMS[other] for other, v in board.items() if v in "RB")


def reachable(state: State, variant: str) -> bool:
    """Whether some game of ``variant`` passes through the legal ``state``, found backwards:
    a position is reachable if it is the start, or if a marble of the player who moved last
    can be taken back (nothing rests on it) to a reachable position from which putting it
    back is a legal move leading to this very position (token included).

    The retraction rule of `standard` follows from it: the position before the last move
    has no line, so the last marble lies on every line of the last mover."""
    game = NaiveSparro(variant)
    memo: dict[tuple[frozenset, str], bool] = {}

    def walk(current: State) -> bool:
        board, token = current
        marbles = [cell for cell, v in board.items() if v in "RB"]
        if not marbles:
            return token == "B"
        key = (frozenset(board.items()), token)
        if key in memo:
            return memo[key]
        memo[key] = False
        last = "B" if to_move(board) == "R" else "R"
        for cell in marbles:
            if board[cell] != last or resting_on(board, cell):
                continue
            before = {c: v for c, v in board.items() if c != cell}
            for before_token in ("R", "B") if variant != "standard" else ("B",):
                previous = (before, before_token)
                if cell in game.legal(previous) and game.play(previous, cell) == current and walk(previous):
                    memo[key] = True
                    return True
        return False

    return walk(state)
