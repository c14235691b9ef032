"""A second, deliberately naive Smallholder implementation for cross-checking.

Written from the rules text of docs/smallholder.md alone, sharing no code with the engine: cells
are axial coordinates ``(q, r)`` (r = row from the top), a position is a dict from
coordinate to ``"B"``/``"W"``, groups are sets, and every line of sight is walked cell by
cell. Slow and obvious on purpose.
"""

from __future__ import annotations

from dataclasses import dataclass

# Axial steps, counter-clockwise from east, 60 degrees apart.
DIRECTIONS = [(1, 0), (1, -1), (0, -1), (-1, 0), (-1, 1), (0, 1)]
OPTION_KEYS = ("groups", "adjacent", "territory", "capture")

Cell = tuple[int, int]


class NaiveBoard:
    def __init__(self, row_lengths: list[int]) -> None:
        # A row one longer than the one above sticks out half a cell on each side, so
        # its first cell is the south-west neighbour of the first cell above; a shorter
        # row starts at the south-east neighbour.
        self.cells: list[Cell] = []
        first_q = 0
        for r, length in enumerate(row_lengths):
            if r > 0 and length > row_lengths[r - 1]:
                first_q -= 1
            self.cells.extend((first_q + k, r) for k in range(length))
        self.on_board = set(self.cells)
        self.index = {c: i for i, c in enumerate(self.cells)}
        self.row_lengths = row_lengths
        #: ``sight[cell][d]``: the cells seen from ``cell`` looking in direction ``d``.
        self.sight = {c: [set(self._walk(c, d)) for d in range(6)] for c in self.cells}

    def neighbours(self, cell: Cell) -> list[Cell]:
        q, r = cell
        return [(q + dq, r + dr) for dq, dr in DIRECTIONS if (q + dq, r + dr) in self.on_board]

    def _walk(self, cell: Cell, direction: int) -> list[Cell]:
        dq, dr = DIRECTIONS[direction]
        seen = []
        q, r = cell[0] + dq, cell[1] + dr
        while (q, r) in self.on_board:
            seen.append((q, r))
            q, r = q + dq, r + dr
        return seen


@dataclass
class NaivePosition:
    stones: dict[Cell, str]
    to_move: str


def other(colour: str) -> str:
    return "W" if colour == "B" else "B"


def parse(board: NaiveBoard, text: str) -> NaivePosition:
    rows, side = text.split(" ")
    chars = rows.replace("/", "")
    return NaivePosition({board.cells[i]: ch for i, ch in enumerate(chars) if ch != "."}, side)


def write(board: NaiveBoard, pos: NaivePosition) -> str:
    chars = [pos.stones.get(c, ".") for c in board.cells]
    rows = []
    for length in board.row_lengths:
        rows.append("".join(chars[:length]))
        chars = chars[length:]
    return "/".join(rows) + " " + pos.to_move


def groups(board: NaiveBoard, pos: NaivePosition, colour: str) -> list[set[Cell]]:
    todo = {c for c, s in pos.stones.items() if s == colour}
    result = []
    while todo:
        start = todo.pop()
        group = {start}
        stack = [start]
        while stack:
            for n in board.neighbours(stack.pop()):
                if n in todo:
                    todo.remove(n)
                    group.add(n)
                    stack.append(n)
        result.append(group)
    return result


def group_holdings(board: NaiveBoard, group: set[Cell], territory: str) -> set[Cell]:
    if territory == "gap":
        pairs = [(d, d + 3) for d in range(3)]  # opposite directions
    else:
        pairs = [(d, (d + 2) % 6) for d in range(6)]  # 120 degrees apart
    held = set()
    for cell in board.cells:
        lines = board.sight[cell]
        for a, b in pairs:
            if not group.isdisjoint(lines[a]) and not group.isdisjoint(lines[b]):
                held.add(cell)
                break
    return held


def holdings(board: NaiveBoard, pos: NaivePosition, colour: str, territory: str) -> set[Cell]:
    held: set[Cell] = set()
    for group in groups(board, pos, colour):
        held |= group_holdings(board, group, territory)
    return held


def playable(board: NaiveBoard, pos: NaivePosition, colour: str, options: dict[str, str]) -> set[Cell]:
    enemy_held = holdings(board, pos, other(colour), options["territory"])
    cells = set()
    for cell in board.cells:
        if cell in pos.stones:
            continue
        next_to_own = any(pos.stones.get(n) == colour for n in board.neighbours(cell))
        if cell not in enemy_held or (options["capture"] == "groupwise-reentry" and next_to_own):
            cells.add(cell)
    return cells


def is_live(board: NaiveBoard, group: set[Cell], can_play: set[Cell]) -> bool:
    return any(n in can_play for s in group for n in board.neighbours(s))


def legal_moves(board: NaiveBoard, pos: NaivePosition, options: dict[str, str]) -> list[tuple[int, str]]:
    """(cell index, kind) of each legal move, by index."""
    me = pos.to_move
    can_play = playable(board, pos, me, options)
    my_groups = groups(board, pos, me)
    live = [g for g in my_groups if is_live(board, g, can_play)]
    m = min((len(g) for g in live), default=None)
    m_any = min((len(g) for g in my_groups), default=None)

    create, extend = [], []
    for cell in can_play:
        nearby = [g for g in my_groups if any(n in g for n in board.neighbours(cell))]
        if not nearby:
            create.append(cell)
            continue
        adjacent = options["adjacent"]
        if adjacent == "smallest-playable":
            ok = any(len(g) <= m for g in nearby)  # type: ignore[operator]
        elif adjacent == "smallest-playable-only":
            ok = all(len(g) == m for g in nearby)
        elif adjacent == "smallest":
            ok = any(len(g) <= m_any for g in nearby)  # type: ignore[operator]
        else:
            ok = all(len(g) == m_any for g in nearby)
        if ok:
            extend.append(cell)

    rule = options["groups"]
    G, L = len(my_groups), len(live)
    if rule == "must-create-if-one":
        chosen = create if G < 2 else create + extend
    elif rule == "must-create-if-one-live":
        chosen = create if L < 2 else create + extend
    elif rule == "priority-create-if-one":
        chosen = create if (G < 2 and create) else create + extend
    elif rule == "priority-create-if-one-live":
        chosen = create if (L < 2 and create) else create + extend
    else:
        chosen = create if create else extend

    return sorted((board.index[cell], "create" if cell in create else "extend") for cell in chosen)


def successors(board: NaiveBoard, pos: NaivePosition,
               options: dict[str, str]) -> list[tuple[int, str, int, NaivePosition]]:
    """(cell index, kind, captured stone count, position after) for each legal move."""
    out = []
    for index, kind in legal_moves(board, pos, options):
        after = place(board, pos, board.cells[index], options)
        out.append((index, kind, len(pos.stones) + 1 - len(after.stones), after))
    return out


def place(board: NaiveBoard, pos: NaivePosition, cell: Cell, options: dict[str, str]) -> NaivePosition:
    """Put the mover's stone on ``cell`` and capture (no legality check)."""
    me = pos.to_move
    extending = any(pos.stones.get(n) == me for n in board.neighbours(cell))
    stones = dict(pos.stones)
    stones[cell] = me
    after = NaivePosition(stones, other(me))
    if extending:
        held = holdings(board, after, me, options["territory"])
        if options["capture"] == "piecewise":
            for c in [c for c, s in stones.items() if s != me and c in held]:
                del stones[c]
        else:
            for group in groups(board, after, other(me)):
                if group <= held:
                    for c in group:
                        del stones[c]
    return after


def play_index(board: NaiveBoard, pos: NaivePosition, index: int, options: dict[str, str]) -> NaivePosition:
    return place(board, pos, board.cells[index], options)
