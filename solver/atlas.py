"""The rules atlas: every Smallholder option combination on one board, side by side.

`atlas_row` solves one combination strongly (the breadth-first enumeration and the
retrograde of `solver/smallholder_solve.py`) and derives its row from the solved
forward move graph while it is still in memory. Every figure is exact, over all
canonical positions reachable from the empty board (one per symmetry class, side to
move kept); nothing is sampled:

* ``rules``: the label the tables and every other JSON answer use (`rules_name`,
  ``nibbler@hex3``, or the full spec and the board for a combination no ruleset names);
  ``spec``: the combination as ``--rules`` takes it; ``named``: its ruleset's name or null;
* ``start``: the value of the empty board for Black (the side to move) and its
  remoteness, the length of a perfect game (null for a draw);
* ``positions``, ``draws``: canonical reachable positions, and those drawn;
* ``cycles``: whether some line of play can repeat (and so go on forever);
* ``winning_first_moves``: Black's first moves that win with perfect play, counted up
  to symmetry (one per class of symmetric first moves) and of all first moves;
* ``longest_game``: the most plies any game from the empty board can last, whoever
  plays what; null when play can go on forever (``cycles``);
* ``capture_share``: the share of positions where some legal move captures (a move
  captures when the child has no more stones than the parent: a plain placement adds
  one, and symmetry keeps stone counts);
* ``mean_moves``: legal moves per position (the graph has one edge per legal move).

`compare_probes` puts one position's probe answers under several combinations side by
side, with the moves whose values differ.

`sparro_row` gives a Sparro variant a row with the same keys, from its solved tiers.

`sweep` runs the rows of many combinations, skipping those a caller has stored, so a
killed sweep continues where it stopped. It knows no database: the caller passes
``stored`` and ``save``.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any, Callable, Iterable, Iterator, Sequence

import numpy as np

from tablebase.games.base import DRAW, LOSS, WIN
from tablebase.games.smallholder.board import Board, get_board
from tablebase.games.smallholder.options import RULESETS, Rules
from tablebase.games.smallholder.rules import Smallholder
from tablebase.solver.keys import stone_counts
from tablebase.solver.probe import VALUE_NAMES, Outcome, ProbeResult, outcome_of
from tablebase.solver.smallholder_solve import (
    RULES_VERSION, SOLVER_VERSION, enumerate_graph, retrograde)
from tablebase.solver.sparro_arrays import SparroArrays, canonical as sparro_canonical
from tablebase.solver.tiered import TIERS, SolvedTier

#: Bumped whenever a row's keys or the meaning of a figure change (stored rows record it).
ATLAS_VERSION = "atlas-2"
#: The versions a stored row must have been made with to be reused.
VERSIONS = f"{RULES_VERSION}/{SOLVER_VERSION}/{ATLAS_VERSION}"
#: The keys of a row, in order (the JSON contract of `tablebase atlas smallholder --json`).
ROW_KEYS = ("rules", "spec", "named", "start", "positions", "draws", "cycles", "winning_first_moves", "longest_game",
            "capture_share", "mean_moves")
#: The state of a drawn position (`solver/smallholder_kernels.py`, not imported here:
#: it loads numba, which only solving needs).
UNDECIDED = -1
#: Moves examined at once for captures, to bound the temporary arrays.
EDGE_SLICE = 1 << 24

#: progress(stage, step, positions so far), as `solver.smallholder_solve.Progress`
Progress = Callable[[str, int, int], None]


@dataclass(frozen=True)
class AtlasGraph:
    """A solved combination with its forward move graph, by position id (see
    `solver.smallholder_solve.ForwardGraph`)."""

    root: int  # the id of the empty board
    stones: np.ndarray  # int8 by id: stones on the board
    offsets: np.ndarray  # CSR by id: the moves of v lead to children[offsets[v]:offsets[v + 1]]
    children: np.ndarray
    state: np.ndarray  # int16 by id: remoteness << 1 | won, UNDECIDED for a draw


def solve_graph_of(board: Board | str, rules: Rules, progress: Progress | None = None) -> AtlasGraph:
    """Enumerate and solve every canonical position reachable from the empty board."""
    board = board if isinstance(board, Board) else get_board(board)
    entries, id_bits, offsets, children, _ = enumerate_graph(board, rules, progress)
    state = retrograde(offsets, children, board.name, progress)
    ids = (entries & np.uint64((1 << id_bits) - 1)).astype(np.intp)
    stones = np.empty(len(ids), dtype=np.int8)
    stones[ids] = stone_counts(entries >> np.uint64(id_bits), board.size)
    # the empty board has key 0, the smallest: the first entry
    return AtlasGraph(int(ids[0]), stones, offsets, children, state)


def _lost(state: np.ndarray) -> np.ndarray:
    return (state != UNDECIDED) & ((state & 1) == 0)


def capture_positions(graph: AtlasGraph) -> int:
    """How many positions have a legal move that captures (exact)."""
    degrees = np.diff(graph.offsets)
    captures = np.zeros(len(degrees), dtype=bool)
    parents = np.arange(len(degrees), dtype=np.int32)
    # whole positions at a time, about EDGE_SLICE moves per slice
    positions = len(degrees)
    bounds = np.minimum(np.append(np.searchsorted(graph.offsets, np.arange(0, int(graph.offsets[-1]), EDGE_SLICE)),
                                  positions), positions)
    for first, last in zip(bounds[:-1], bounds[1:]):
        if first >= last:
            continue
        edges = slice(int(graph.offsets[first]), int(graph.offsets[last]))
        parent = np.repeat(parents[first:last], degrees[first:last])
        capture = graph.stones[graph.children[edges]] <= graph.stones[parent]
        captures[parent[capture]] = True
    return int(np.count_nonzero(captures))


def first_moves(graph: AtlasGraph) -> dict[str, int]:
    """Black's winning first moves, up to symmetry and of all (one edge per legal move:
    symmetric first moves are edges to one canonical child)."""
    children = graph.children[graph.offsets[graph.root]:graph.offsets[graph.root + 1]]
    # a first move wins for Black when the position after it is lost for White
    wins = _lost(graph.state[children])
    classes = np.unique(children)
    return {"up_to_symmetry": int(np.count_nonzero(_lost(graph.state[classes]))),
            "of_up_to_symmetry": len(classes),
            "all": int(np.count_nonzero(wins)),
            "of_all": len(children)}


def atlas_row(board: Board | str, rules: Rules, progress: Progress | None = None) -> dict[str, Any]:
    """The atlas row of one combination on one board (keys `ROW_KEYS`; see the module doc)."""
    graph = solve_graph_of(board, rules, progress)
    positions = len(graph.state)
    if progress:
        progress("lines", 0, positions)
    from tablebase.solver.smallholder_kernels import longest_lines_forward

    longest = longest_lines_forward(graph.offsets, graph.children)
    start = int(graph.state[graph.root])
    value = DRAW if start == UNDECIDED else WIN if start & 1 else LOSS
    row = {
        "rules": Smallholder(board, rules).rules_name,
        "spec": rules.spec,
        "named": rules.name if rules.name in RULESETS else None,
        "start": _outcome_json(outcome_of(value, start >> 1)),
        "positions": positions,
        "draws": int(np.count_nonzero(graph.state == UNDECIDED)),
        "cycles": bool(np.any(longest < 0)),  # every position is reachable from the start
        "winning_first_moves": first_moves(graph),
        "longest_game": None if longest[graph.root] < 0 else int(longest[graph.root]),
        "capture_share": capture_positions(graph) / positions,
        "mean_moves": len(graph.children) / positions,
    }
    assert tuple(row) == ROW_KEYS
    return row


@dataclass(frozen=True)
class SweepStep:
    """One combination of a sweep: its row, and whether it was computed now or read."""

    index: int
    total: int
    rules: Rules
    row: dict[str, Any]
    computed: bool
    seconds: float


def sweep(board: str, combinations: Iterable[Rules], stored: Callable[[Rules], dict[str, Any] | None],
          save: Callable[[Rules, dict[str, Any], float], None],
          progress: Callable[[int, int, Rules, str, int, int], None] | None = None) -> Iterator[SweepStep]:
    """The row of each combination: ``stored(rules)`` when it has one, else computed and
    handed to ``save(rules, row, seconds)`` before the next one starts (so a killed sweep
    loses at most the combination it was computing). ``progress(index, total, rules,
    stage, step, positions)`` follows the computation."""
    get_board(board)  # an unknown board fails before any work
    todo = list(combinations)
    for index, rules in enumerate(todo, start=1):
        row = stored(rules)
        if row is not None:
            yield SweepStep(index, len(todo), rules, row, False, 0.0)
            continue
        started = time.perf_counter()
        report: Progress | None = None
        if progress:
            def report(stage: str, step: int, positions: int, index: int = index, rules: Rules = rules) -> None:
                progress(index, len(todo), rules, stage, step, positions)
        row = atlas_row(board, rules, report)
        seconds = time.perf_counter() - started
        save(rules, row, seconds)
        yield SweepStep(index, len(todo), rules, row, True, seconds)


def first_player_results(rows: Iterable[dict[str, Any]]) -> dict[str, int]:
    """How many rows Black wins, White wins (Black loses) and are drawn."""
    counts = {"black": 0, "white": 0, "draw": 0}
    names = {VALUE_NAMES[WIN]: "black", VALUE_NAMES[LOSS]: "white", VALUE_NAMES[DRAW]: "draw"}
    for row in rows:
        counts[names[row["start"]["value"]]] += 1
    return counts


def compare_probes(probes: Sequence[tuple[str, ProbeResult[Any]]]) -> dict[str, Any]:
    """One position probed under several rules, side by side: the position's value and
    each move's under every rules (null where the move is not legal under them), and
    which moves differ (in value, remoteness or legality).

    ``probes`` pairs a label (the rules' `rules_name`) with the probe answer under those rules;
    every answer must be for the same position text.
    """
    if len({answer.position for _, answer in probes}) > 1:
        raise ValueError("the probes compared are of different positions")
    labels = [label for label, _ in probes]
    cells: dict[int, str] = {}
    by_rules: list[dict[int, Outcome]] = []
    for _, answer in probes:
        by_rules.append({m.cell: m.outcome for m in answer.moves})
        cells.update({m.cell: m.name for m in answer.moves})
    moves = []
    for cell in sorted(cells):
        values = {label: None if cell not in outcomes else _outcome_json(outcomes[cell])
                  for label, outcomes in zip(labels, by_rules)}
        moves.append({"cell": cell, "name": cells[cell], "values": values,
                      "differ": len({json_key(v) for v in values.values()}) > 1})
    first = probes[0][1]
    values = {label: _outcome_json(answer.outcome) for label, answer in probes}
    return {"position": first.position, "to_move": first.to_move, "rules": labels, "values": values,
            "differ": len({json_key(v) for v in values.values()}) > 1,
            "moves": moves, "differing_moves": [m["name"] for m in moves if m["differ"]]}


def _outcome_json(outcome: Outcome) -> dict[str, Any]:
    return {"value": outcome.name, "remoteness": outcome.remoteness}


def json_key(value: dict[str, Any] | None) -> tuple[Any, ...] | None:
    """A hashable stand-in of an outcome's JSON (None stays None)."""
    return None if value is None else (value["value"], value["remoteness"])


# -- Sparro ------------------------------------------------------------------------------


def sparro_row(variant: str, tier_of: Callable[[int], SolvedTier]) -> dict[str, Any]:
    """The atlas row of a Sparro variant from its solved tiers (``tier_of(n)``: the
    positions with n marbles), with the keys of a Smallholder row. Exact, over every
    canonical reachable position; the start's value is for Red, who moves first. A
    variant has no option spec (``spec`` is null).

    Every move adds a marble, so positions never repeat (``cycles`` is false), the
    longest game is the highest tier holding a position, and ``capture_share`` is null:
    Sparro has no captures.
    """
    arrays = SparroArrays(variant)
    tiers = [tier_of(n) for n in range(TIERS)]
    positions = sum(len(t.keys) for t in tiers)
    moves = sum(sparro_legal_moves(arrays, solved.keys, n) for n, solved in enumerate(tiers))
    start = tiers[0]
    value = int(start.values[0])
    children = np.concatenate([sparro_canonical(child) for _, child in arrays.children(start.keys, 0)])
    at = np.searchsorted(tiers[1].keys, children)
    if not np.array_equal(tiers[1].keys[np.minimum(at, len(tiers[1].keys) - 1)], children):
        raise ValueError(f"the {variant} tables do not hold every first move")
    wins = tiers[1].values[at] == LOSS
    classes, first = np.unique(children, return_index=True)
    longest = max(n for n, t in enumerate(tiers) if len(t.keys))
    return {
        "rules": variant,
        "spec": None,
        "named": variant,
        "start": _outcome_json(outcome_of(value, start.remoteness[0])),
        "positions": positions,
        "draws": sum(int(np.count_nonzero(t.values == DRAW)) for t in tiers),
        "cycles": False,
        "winning_first_moves": {"up_to_symmetry": int(np.count_nonzero(wins[first])),
                                "of_up_to_symmetry": len(classes),
                                "all": int(np.count_nonzero(wins)), "of_all": len(children)},
        "longest_game": longest,
        "capture_share": None,
        "mean_moves": moves / positions,
    }


def sparro_legal_moves(arrays: SparroArrays, keys: np.ndarray, tier: int) -> int:
    """Legal moves summed over ``keys`` (positions with ``tier`` marbles; none in a finished game)."""
    over, _ = arrays.terminal(keys, tier)
    return sum(len(where) for where, _ in arrays.children(keys[~over], tier))
