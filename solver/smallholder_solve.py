"""Strong solution of a Smallholder ruleset on a small board (up to 31 cells).

1. `enumerate_graph` walks breadth-first from the empty board with the compiled rules
   (`games/smallholder/compiled.py`): per ply, the canonical keys of the children of
   the whole frontier (`expand_keys`), sorted, looked up in the visited set and the new
   ones given the next ids. The moves are kept as the forward graph in CSR form over
   those ids (one ``int32`` per move).
2. `solve_ruleset` runs the retrograde on it level by level (`retrograde_level` of
   `solver/smallholder_kernels.py`): exact win / loss / draw and remoteness for every
   canonical reachable position, then returns them in key order.

Captures remove stones, so a position can come back and the graph may have cycles;
the retrograde handles them (infinite play is a draw, docs/smallholder.md), and one
depth-first walk counts the positions from which play can go on forever.

Storage: the payload of a position is one ``uint16`` in the layout of
`solver/payload.py` (shared with Sparro's tables): remoteness in the low 14 bits, the
next bit for a win of the side to move, the top bit for a draw.
"""

from __future__ import annotations

import os
import threading
import time
from dataclasses import dataclass
from typing import Callable, NamedTuple

import numpy as np

from tablebase.games.base import DRAW, LOSS, WIN
from tablebase.games.smallholder.board import Board, get_board
from tablebase.games.smallholder.options import Rules, parse_rules
from tablebase.solver.payload import PAYLOAD_DTYPES, layout
from tablebase.solver.probe import Outcome, outcome_of
from tablebase.solver.smallholder_arrays import MAX_KEY_CELLS

U64 = np.uint64
#: The rules engine has no version constant of its own: bump this when its rules change.
RULES_VERSION = "smallholder-rules-1"
#: Bumped whenever the solver's results or the payload layout could change.
SOLVER_VERSION = "graph-1"
PAYLOAD_DTYPE = PAYLOAD_DTYPES["smallholder"]
#: the largest remoteness the payload holds
REMOTENESS_MASK = layout(PAYLOAD_DTYPE)[2]
#: Frontier positions expanded at once (bounds the temporary arrays of one ply).
EXPAND_SLICE = 1 << 18

#: Arrays at least this long are sorted on two cores (`sort_in_place`).
PARALLEL_SORT = 1 << 20

#: progress(stage, step, positions so far): stage "enumerate" (step = ply) or "solve" (step = level)
Progress = Callable[[str, int, int], None]


def sort_in_place(keys: np.ndarray, low_bit: int = 0) -> None:
    """Sort ``keys`` in place by their bits from ``low_bit`` up (`radix_sort`: keys equal
    there keep their order); a long array on two cores: each half sorted on its own
    thread, then the halves merged."""
    from tablebase.solver.smallholder_kernels import merge_into, radix_sort

    scratch = np.empty_like(keys)
    if len(keys) < PARALLEL_SORT or (os.cpu_count() or 1) < 2:
        radix_sort(keys, scratch, low_bit)
        return
    half = len(keys) // 2
    other = threading.Thread(target=radix_sort, args=(keys[:half], scratch[:half], low_bit))
    other.start()
    radix_sort(keys[half:], scratch[half:], low_bit)
    other.join()
    scratch[:len(keys) - half] = keys[half:]
    merge_into(keys, half, scratch[:len(keys) - half])


@dataclass(frozen=True)
class SolvedRuleset:
    """Exact results of every canonical position reachable from the empty board."""

    keys: np.ndarray  # uint64, sorted canonical keys
    values: np.ndarray  # int8: WIN, LOSS or DRAW for the side to move
    remoteness: np.ndarray  # int32; 0 for a draw (see `solver.probe.outcomes`)
    moves: int  # edges of the graph (legal moves of all positions, symmetric ones apart)
    plies: int  # the deepest breadth-first ply (the longest shortest line from the start)
    cyclic: int  # positions from which a line of play can go on forever
    seconds: dict[str, float]  # per stage

    @property
    def start(self) -> Outcome:
        """The outcome of the empty board, Black to move (key 0, the smallest;
        meaningless when solved from other roots)."""
        return outcome_of(self.values[0], self.remoteness[0])


class ForwardGraph(NamedTuple):
    """The reachable positions and their moves. Position ids follow the breadth-first
    walk; the entries (`solver/smallholder_kernels.py`) give each key its id; the moves of id ``v``
    lead to ids ``children[offsets[v]:offsets[v + 1]]``."""

    entries: np.ndarray  # uint64, sorted: canonical key << id_bits | id
    id_bits: int
    offsets: np.ndarray  # int32, by id (length: positions + 1)
    children: np.ndarray  # int32, child ids
    plies: int


def _bits_for(count: int) -> int:
    return max(1, int(count - 1).bit_length())


def _packs(cells: int) -> bool:
    """Whether a slice's children of a board of ``cells`` cells always pack into 64 bits:
    a key (2 bits a cell and the side) and the child's number in the slice (at most
    EXPAND_SLICE positions of at most ``cells`` moves each)."""
    return cells <= MAX_KEY_CELLS and 2 * cells + 1 + _bits_for(EXPAND_SLICE * cells) <= 64


#: The largest board the retrograde solve takes (20 cells: limping2 and hex3 among the
#: boards; limping3's 27 need the weak solve).
MAX_SOLVE_CELLS = max(n for n in range(1, MAX_KEY_CELLS + 1) if _packs(n))


def enumerate_graph(board: Board, rules: Rules, progress: Progress | None = None,
                    roots: np.ndarray | None = None) -> ForwardGraph:
    """Every canonical position reachable from the empty board (or from the ``roots``
    keys) and the move graph between them (see `ForwardGraph`)."""
    from tablebase.games.smallholder.compiled import canonical_keys, expand_keys, tables
    from tablebase.solver.smallholder_kernels import degrees_to_offsets, merge_into, resolve_children

    n = board.size
    if n > MAX_SOLVE_CELLS:
        raise ValueError(f"{board.name} has {n} cells; the retrograde solve takes at most {MAX_SOLVE_CELLS}")
    t = tables(board, rules)
    key_bits = 2 * n + 1
    id_bits = 64 - key_bits
    frontier = np.unique(canonical_keys(np.zeros(1, dtype=U64) if roots is None else roots.astype(U64), t))
    visited = frontier << U64(id_bits) | np.arange(len(frontier), dtype=U64)
    total = len(frontier)
    # both grow in place (ndarray.resize reallocates without a second copy in memory)
    degrees = np.zeros(0, dtype=np.int32)  # by id, then made the CSR offsets
    edges = np.zeros(0, dtype=np.int32)  # child ids, by parent id
    plies = 0
    while len(frontier):
        plies += 1
        news: list[np.ndarray] = []
        for start in range(0, len(frontier), EXPAND_SLICE):
            counts, child_keys = expand_keys(frontier[start:start + EXPAND_SLICE], t)
            edge_bits = _bits_for(len(child_keys))
            if key_bits + edge_bits > 64:
                raise ValueError(f"{len(child_keys):,} moves in one slice of {board.name}: too many to pack")
            packed = child_keys << U64(edge_bits) | np.arange(len(child_keys), dtype=U64)
            del child_keys
            sort_in_place(packed, edge_bits)  # edge numbers ascend within a key already
            at = len(edges)
            edges.resize(at + len(packed), refcheck=False)
            fresh = resolve_children(packed, edge_bits, visited, id_bits, total, edges[at:])
            del packed
            done = len(degrees)
            degrees.resize(done + len(counts), refcheck=False)
            degrees[done:] = counts
            total += len(fresh)
            if total >= 1 << min(id_bits, 31):
                raise ValueError(f"more than {(1 << min(id_bits, 31)) - 1:,} positions on {board.name}: "
                                 "too many to number")
            known = len(visited)
            visited.resize(known + len(fresh), refcheck=False)
            merge_into(visited, known, fresh)
            news.append(fresh)
        # the next frontier: this ply's new keys in id order (ascending key within a slice)
        frontier = np.concatenate(news) >> U64(id_bits)
        del news
        if progress:
            progress("enumerate", plies, total)
    if len(edges) >= 1 << 31:
        raise ValueError(f"{len(edges):,} moves on {board.name}: more than this solver indexes (2**31)")
    degrees.resize(total + 1, refcheck=False)
    degrees_to_offsets(degrees)
    return ForwardGraph(visited, id_bits, degrees, edges, plies - 1)


def solve_ruleset(board: Board | str, rules: Rules | str, progress: Progress | None = None,
                  roots: np.ndarray | None = None) -> SolvedRuleset:
    """Exact value and remoteness of every canonical position reachable from the empty
    board, or from the ``roots`` keys (see the module doc)."""
    from tablebase.solver.smallholder_kernels import UNDECIDED, reaches_cycle

    board = board if isinstance(board, Board) else get_board(board)
    rules = rules if isinstance(rules, Rules) else parse_rules(rules)
    started = time.perf_counter()
    entries, id_bits, offsets, children, plies = enumerate_graph(board, rules, progress, roots)
    enumerated = time.perf_counter()
    state = retrograde(offsets, children, board.name, progress)
    solved = time.perf_counter()
    cyclic = int(np.count_nonzero(reaches_cycle(offsets, children)))
    moves = len(children)
    del children, offsets
    by_key = state[(entries & U64((1 << id_bits) - 1)).astype(np.intp)]
    del state
    entries >>= U64(id_bits)  # now the keys
    draw = by_key == UNDECIDED
    values = np.where(draw, DRAW, np.where(by_key & 1, WIN, LOSS)).astype(np.int8)
    remoteness = np.where(draw, 0, by_key >> 1).astype(np.int32)
    seconds = {"enumerate": enumerated - started, "retrograde": solved - enumerated,
               "cycles": time.perf_counter() - solved}
    return SolvedRuleset(entries, values, remoteness, moves, plies, cyclic, seconds)


def retrograde(offsets: np.ndarray, children: np.ndarray, board_name: str, progress: Progress | None = None
               ) -> np.ndarray:
    """The state of every position of a forward graph (by id; see
    `solver/smallholder_kernels.py`): ``remoteness << 1 | won``, UNDECIDED for a draw."""
    from tablebase.solver.smallholder_kernels import UNDECIDED, retrograde_level

    count = len(offsets) - 1
    if progress:
        progress("solve", 0, count)
    state = np.full(count, UNDECIDED, dtype=np.int16)
    level = 0
    while retrograde_level(offsets, children, state, level):
        level += 1
        if level > REMOTENESS_MASK:
            raise ValueError(f"remoteness beyond {REMOTENESS_MASK} on {board_name}: the payload cannot hold it")
        if progress:
            progress("solve", level, count)
    return state
