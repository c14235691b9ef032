"""The Smallholder rules compiled to machine code (numba), on boards of up to 64 cells.

The per-position engine of `games/smallholder/rules.py` is the reference; this module is
the same rules (docs/smallholder.md, all 120 option combinations) on ``uint64`` bitboards
for the hot loops: the retrograde solver's enumeration and the exact search. The tests
check it move for move against the reference on random playouts of every combination
on every board it takes (``hex3``-``hex5``, ``limping2``-``limping4``).

Positions
    A position is ``(black, white, white_to_move)``: two ``uint64`` bitboards (bit ``i`` =
    cell ``i`` of `Board`) and a ``bool``. A move is a cell index (``int64``).

Tables
    `tables(board, rules)` builds, once per (board, rules) in Python, the `Tables` named
    tuple of numpy arrays and integers that every compiled function takes as its
    argument ``t``; it is cached. The fields: ``n`` (cells), ``full`` (the bitboard of
    all cells), ``nbr[i]`` (neighbours of cell ``i``), ``sight[d, i]`` (the cells whose
    line of sight in direction ``d`` meets cell ``i``), ``pairs`` (the direction pairs
    of the territory rule, shape (k, 2)), ``symtab[s, c, value]`` (the image under
    symmetry ``s`` of ``value`` as chunk ``c`` of a bitboard, ``chunk_bits`` bits a chunk;
    ``keytab`` and ``key_chunk_bits`` the same for keys without the side bit, boards of
    up to 31 cells, flattened: ``keytab[(s * chunks + c) << key_chunk_bits | value]``),
    ``nsym``, and the rule flags ``adjacent_playable``, ``adjacent_only``, ``count_live``,
    ``group_mode`` (0 priority-create, 1 must-create..., 2 priority-create-if-one...),
    ``reentry``, ``piecewise``.

Canonical form
    Symmetries never swap colours. The canonical image of ``(black, white)`` is the one
    of its images under the board's symmetries that is smallest comparing ``white``
    first and ``black`` second (as unsigned integers). On boards of up to 31 cells this
    is exactly the image with the smallest key ``black | white << n | white_to_move <<
    2n`` (`Smallholder.canonical_key`), so `canonical_key` equals the reference's; on
    bigger boards, where a key does not fit 64 bits, the pair is the canonical form.

Public compiled functions (``@njit(cache=True)``; call them from Python or from other
njit code; ``t`` is a `Tables`; compiled lazily at the first call, then read from the
on-disk cache):

``legal_moves(black, white, white_to_move, t) -> uint64``
    Bitboard of the legal moves of the side to move (0: it has lost).
``children(black, white, white_to_move, t, out_cells, out_black, out_white) -> int64``
    Every legal move, by ascending cell: writes the cell and the resulting
    ``(black, white)`` into ``out_cells[k]`` (int64), ``out_black[k]``,
    ``out_white[k]`` (uint64; arrays of length >= ``t.n``) and returns how many; the
    side to move after each is ``not white_to_move``.
``captured(black, white, white_to_move, cell, t) -> uint64``
    The enemy stones that the legal move ``cell`` removes (0 for a create move).
``play(black, white, white_to_move, cell, t) -> (uint64, uint64)``
    ``(black, white)`` after the legal move ``cell`` (captures done).
``is_terminal(black, white, white_to_move, t) -> bool``
    Whether the side to move has no legal move (the game is over).
``terminal_value(black, white, white_to_move, t) -> int64``
    LOSS (-1, for the side to move) when terminal, else 0 (not terminal: no value).
``groups(stones, t, out) -> int64``
    The groups of bitboard ``stones``, ordered by lowest cell, into ``out`` (uint64,
    length >= ``t.n``); returns how many.
``group_holdings(group, t) -> uint64``
    The cells held by ``group`` (one connected group) under the territory rule.
``holdings(stones, t) -> uint64``
    The cells held by the stones of one colour (union over its groups).
``playable(own, enemy, t) -> uint64``
    The cells the owner of ``own`` could place on before the move-kind rules: empty,
    not held by ``enemy``; with re-entry also empty cells next to ``own``.
``transform(mask, s, t) -> uint64``
    The image of a bitboard under symmetry ``s`` (0 is the identity; ``t.nsym`` of them).
``canonical(black, white, t) -> (uint64, uint64)``
    The canonical image of ``(black, white)`` (see above).
``canonical_key(black, white, white_to_move, t) -> uint64``
    `pack_key` of the canonical image (boards of up to 31 cells).
``pack_key(black, white, white_to_move, n) -> uint64`` / ``unpack_key(key, n) -> (uint64, uint64, bool)``
    The 64-bit key ``black | white << n | white_to_move << 2n`` (``n <= 31``) and back.
``popcount(x) -> int64`` / ``lowest_cell(x) -> int64``
    Bit count; index of the lowest set bit (64 for 0).

Whole arrays (``keys``: uint64 arrays of `pack_key` keys, boards of up to 31 cells):

``canonical_keys(keys, t) -> uint64[]``
    `canonical_key` of every key.
``legal_of_keys(keys, t) -> uint64[]``
    `legal_moves` of every key.
``expand_keys(keys, t) -> (int32[], uint64[])``
    Every key's children: ``counts[i]`` moves of ``keys[i]``, and the canonical keys of
    all the children, parent by parent (each parent's by ascending cell). Arrays of
    65,536 keys or more run on every core numba is given (``NUMBA_NUM_THREADS``).
``expand(movers, waiters, t) -> (int64[], int64[], uint64[], uint64[])``
    For arrays of positions given as the side to move's and the other side's stones
    (any board up to 64 cells): every move as (index of its position, cell, the
    mover's and the waiter's stones after it), position by position, by ascending cell.

For other compiled code that generates moves at every node (the exact search), in one
preallocated workspace ``w`` of ``WORKSPACE_SLOTS`` uint64 slots per ply, with positions
as (own, enemy) stones, the side to move's first:

``children_knowing(own, enemy, enemy_held, t, w, out_cells, out_own, out_enemy) -> int64``
    Every legal move by ascending cell, as `children` (stones after the move, the
    mover's first), given the enemy's holdings (``UNKNOWN_HELD``: work them out); the
    mover's holdings after the k-th move go to ``w[AFTER_HELD_SLOT + k]``: the holdings a
    child's own call needs as its enemy's.
``children_from(own, enemy, enemy_held, t, w, prev, out_cells, out_own, out_enemy) -> int64``
    `children_knowing`, taking the mover's groups from ``prev`` (the workspace of an
    earlier call) where it holds those of ``own`` but one stone: the position two plies
    up, when the move between took none of the mover's stones. The groups there next to
    the new stone merge with it and the others are copied, instead of all being found
    again by flood fill; ``prev`` names the stones it holds the groups of, so any other
    workspace (or the same position's) is simply not used. ``prev`` is not ``w`` and was
    zeroed or filled by an earlier call.
``legal_knowing(own, enemy, enemy_held, t, w) -> uint64``
    `legal_moves` the same way.
``neighbours(stones, nbr) -> uint64``
    The cells next to ``stones`` (``nbr`` is ``t.nbr``).

`CompiledRules(board, rules)` wraps them for Python callers on `Position` values.
"""

from __future__ import annotations

from functools import cache
from typing import Any, NamedTuple

import numpy as np
from llvmlite import ir
from numba import carray, njit, prange, types
from numba.extending import intrinsic

from tablebase.games.bits import union_table
from tablebase.games.smallholder.board import AXES, Board, get_board
from tablebase.games.smallholder.options import Rules, parse_rules
from tablebase.games.smallholder.position import BLACK, WHITE, Position

__all__ = [
    "AFTER_HELD_SLOT", "MAX_CELLS", "MAX_KEY_CELLS", "UNKNOWN_HELD", "WORKSPACE_SLOTS", "CompiledRules", "Tables",
    "canonical", "canonical_key", "canonical_keys", "canonical_symmetry", "captured", "children",
    "children_from", "children_knowing", "expand", "expand_keys", "f64_at", "group_holdings", "groups", "holdings",
    "i64_at", "is_terminal", "legal_knowing", "legal_moves", "legal_of_keys", "lowest_cell", "neighbours", "pack_key",
    "play", "playable", "popcount", "tables", "tables_at", "tables_by_address", "terminal_value", "transform",
    "u64_at", "unpack_key",
]

#: Largest board a ``uint64`` bitboard holds.
MAX_CELLS = 64
#: Largest board whose positions pack into one 64-bit key.
MAX_KEY_CELLS = 31
#: Direction pairs whose lines of sight must both meet a group, per territory
#: (docs/smallholder.md, The rules in short).
_SIGHT_PAIRS = {"gap": AXES, "hull": tuple((d, (d + 2) % 6) for d in range(6))}
_GROUP_MODES = {"priority-create": 0, "must-create-if-one": 1, "must-create-if-one-live": 1,
                "priority-create-if-one": 2, "priority-create-if-one-live": 2}
_LOSS = -1  # tablebase.games.base.LOSS (games/ modules import nothing else of ours)
#: Largest chunk of a bitboard looked up at once by `transform` (tables stay in L2).
_MAX_CHUNK_BITS = 10
#: Positions per parallel work item of the whole-array kernels.
_BLOCK = 4096
#: Arrays of fewer keys are expanded on one core (thread start-up would cost more).
_PARALLEL_KEYS = 1 << 16

U64 = np.uint64
_ZERO = U64(0)
_ONE = U64(1)


class Tables(NamedTuple):
    """Board and rules data of the compiled functions (see the module doc)."""

    n: int
    full: np.uint64
    chunk_bits: int
    nbr: np.ndarray
    sight: np.ndarray
    pairs: np.ndarray
    symtab: np.ndarray
    keytab: np.ndarray
    key_chunk_bits: int
    nsym: int
    adjacent_playable: bool
    adjacent_only: bool
    count_live: bool
    group_mode: int
    reentry: bool
    piecewise: bool


#: The array fields of `Tables`, in order, and their element types.
_TABLE_ARRAYS = (("nbr", U64), ("sight", U64), ("pairs", np.int64), ("symtab", U64), ("keytab", U64))


def tables_by_address(t: Tables) -> tuple[Any, ...]:
    """``t`` for `tables_at`: its other fields as they are and, per array field, its
    address and shape. The caller keeps ``t`` alive while compiled code uses the result.

    A compiled function that takes ``t`` itself reference-counts its five arrays (an
    atomic increment and decrement each) on every call; one that is called per position,
    like a search, rebuilds ``t`` from this instead."""
    for name, dtype in _TABLE_ARRAYS:
        array = getattr(t, name)
        if array.dtype != dtype or not array.flags.c_contiguous:
            raise ValueError(f"the rules' table {name} must be C-contiguous {np.dtype(dtype)}")
    if t.sight.shape[0] != 6 or t.pairs.shape[1] != 2:
        raise ValueError("the rules' tables must hold six sight masks and pairs of directions")
    return (t.n, t.full, t.chunk_bits, t.key_chunk_bits, t.nsym, t.adjacent_playable, t.adjacent_only,
            t.count_live, t.group_mode, t.reentry, t.piecewise,
            tuple((int(getattr(t, name).ctypes.data), getattr(t, name).shape) for name, _ in _TABLE_ARRAYS))


@njit(cache=True, inline="always")
def tables_at(described):  # type: ignore[no-untyped-def]
    """The `Tables` that `tables_by_address` described, its arrays read in place (not
    reference-counted)."""
    (n, full, chunk_bits, key_chunk_bits, nsym, adjacent_playable, adjacent_only, count_live, group_mode,
     reentry, piecewise, arrays) = described
    nbr, sight, pairs, symtab, keytab = arrays
    # the six directions and the two sides of a pair as constants: indexing compiles tighter
    return Tables(n, full, chunk_bits, carray(u64_at(nbr[0]), nbr[1]),
                  carray(u64_at(sight[0]), (6, sight[1][1])), carray(i64_at(pairs[0]), (pairs[1][0], 2)),
                  carray(u64_at(symtab[0]), symtab[1]), carray(u64_at(keytab[0]), keytab[1]),
                  key_chunk_bits, nsym, adjacent_playable, adjacent_only, count_live, group_mode, reentry,
                  piecewise)


def _union_table(images: list[int]) -> np.ndarray:
    """`games.bits.union_table` as an array."""
    return np.array(union_table(images), dtype=U64)


@cache
def tables(board: str | Board, rules: str | Rules) -> Tables:
    """The `Tables` of one ruleset on one board (cached; boards of up to 64 cells)."""
    board = board if isinstance(board, Board) else get_board(board)
    rules = rules if isinstance(rules, Rules) else parse_rules(rules)
    n = board.size
    if n > MAX_CELLS:
        raise ValueError(f"{board.name} has {n} cells; the compiled rules handle at most {MAX_CELLS}")
    sight = np.array([[board.rays[(d + 3) % 6][i] for i in range(n)] for d in range(6)], dtype=U64)
    chunks = -(-n // _MAX_CHUNK_BITS)
    chunk_bits = -(-n // chunks)
    symtab = np.zeros((len(board.symmetries), chunks, 1 << chunk_bits), dtype=U64)
    for s, perm in enumerate(board.symmetries):
        for c in range(chunks):
            images = [1 << perm[cell] if cell < n else 0 for cell in range(c * chunk_bits, (c + 1) * chunk_bits)]
            symtab[s, c] = _union_table(images)
    # the same for whole keys without the side bit (boards whose keys fit 64 bits)
    key_cells = 2 * n if n <= MAX_KEY_CELLS else 0
    key_chunks = max(1, -(-key_cells // _MAX_CHUNK_BITS))
    key_chunk_bits = -(-key_cells // key_chunks)
    key_blocks = np.zeros((len(board.symmetries), key_chunks, 1 << key_chunk_bits), dtype=U64)
    for s, perm in enumerate(board.symmetries):
        images = [1 << perm[i] for i in range(n)] + [1 << (perm[i] + n) for i in range(n)] if key_cells else []
        for c in range(key_chunks):
            key_blocks[s, c] = _union_table(images[c * key_chunk_bits:(c + 1) * key_chunk_bits]
                                            + [0] * max(0, (c + 1) * key_chunk_bits - len(images)))
    return Tables(
        n=n, full=U64(board.full), chunk_bits=chunk_bits,
        keytab=key_blocks.reshape(-1),  # symmetry-major, then chunk, then value (`canonical_key`)
        key_chunk_bits=key_chunk_bits, nbr=np.array(board.neighbour_mask, dtype=U64), sight=sight,
        pairs=np.array(_SIGHT_PAIRS[rules.territory], dtype=np.int64), symtab=symtab, nsym=len(board.symmetries),
        adjacent_playable=rules.adjacent.startswith("smallest-playable"),
        adjacent_only=rules.adjacent.endswith("-only"), count_live=rules.groups.endswith("-live"),
        group_mode=_GROUP_MODES[rules.groups], reentry=rules.reentry, piecewise=rules.capture == "piecewise")


# -- bit operations ----------------------------------------------------------------------


@intrinsic
def _ctpop(typingctx, x):  # type: ignore[no-untyped-def]
    if x != types.uint64:
        return None

    def codegen(context, builder, signature, args):  # type: ignore[no-untyped-def]
        return builder.ctpop(args[0])

    return types.uint64(types.uint64), codegen


@intrinsic
def _cttz(typingctx, x):  # type: ignore[no-untyped-def]
    if x != types.uint64:
        return None

    def codegen(context, builder, signature, args):  # type: ignore[no-untyped-def]
        return builder.cttz(args[0], ir.Constant(ir.IntType(1), 0))

    return types.uint64(types.uint64), codegen


def _pointer_intrinsic(element):  # type: ignore[no-untyped-def]
    """An intrinsic turning an address (an int) into a pointer to ``element``s."""

    @intrinsic
    def pointer(typingctx, address):  # type: ignore[no-untyped-def]
        target = types.CPointer(element)

        def codegen(context, builder, signature, args):  # type: ignore[no-untyped-def]
            return builder.inttoptr(args[0], context.get_value_type(target))

        return target(types.intp), codegen

    return pointer


#: Pointers from addresses, for ``numba.carray``: an array made that way is not
#: reference-counted (see `tables_at`).
u64_at = _pointer_intrinsic(types.uint64)
i64_at = _pointer_intrinsic(types.int64)
f64_at = _pointer_intrinsic(types.float64)


@njit(cache=True)
def popcount(x):  # type: ignore[no-untyped-def]
    return np.int64(_ctpop(U64(x)))


@njit(cache=True)
def lowest_cell(x):  # type: ignore[no-untyped-def]
    return np.int64(_cttz(U64(x)))


@njit(cache=True)
def _bit(cell):  # type: ignore[no-untyped-def]
    return _ONE << U64(cell)


@njit(cache=True, inline="always")
def neighbours(stones, nbr):  # type: ignore[no-untyped-def]
    out = _ZERO
    rest = stones
    while rest:
        out |= nbr[_cttz(rest)]
        rest &= rest - _ONE
    return out


# -- groups and holdings -----------------------------------------------------------------


@njit(cache=True, inline="always")
def _group_at(seed, stones, nbr):  # type: ignore[no-untyped-def]
    """The group of ``stones`` containing the bitboard ``seed`` (a subset of it)."""
    group = seed
    frontier = seed
    while frontier:
        grown = neighbours(frontier, nbr)
        frontier = grown & stones & ~group
        group |= frontier
    return group


@njit(cache=True, inline="always")
def _held_by_sight(sight6, at, pairs):  # type: ignore[no-untyped-def]
    """Cells held by the six sight masks ``sight6[at:at + 6]`` (an offset, not a slice:
    a slice is a new array, whose reference counting costs more than the work here)."""
    held = _ZERO
    for k in range(pairs.shape[0]):
        held |= sight6[at + pairs[k, 0]] & sight6[at + pairs[k, 1]]
    return held


@njit(cache=True, inline="always")
def _sight_of(group, sight, out6, at):  # type: ignore[no-untyped-def]
    """The group's six sight masks into ``out6[at:at + 6]``, gathered in locals (registers)
    and stored once: the compiler cannot keep workspace slots in registers, since it
    cannot tell the workspace from the rules' tables."""
    s0 = s1 = s2 = s3 = s4 = s5 = _ZERO
    rest = group
    while rest:
        c = _cttz(rest)
        rest &= rest - _ONE
        s0 |= sight[0, c]
        s1 |= sight[1, c]
        s2 |= sight[2, c]
        s3 |= sight[3, c]
        s4 |= sight[4, c]
        s5 |= sight[5, c]
    out6[at], out6[at + 1], out6[at + 2], out6[at + 3], out6[at + 4], out6[at + 5] = s0, s1, s2, s3, s4, s5


@njit(cache=True, inline="always")
def _cell_sight(cell, sight):  # type: ignore[no-untyped-def]
    """The six sight masks of a stone at ``cell`` (``sight`` is ``t.sight``)."""
    return sight[0, cell], sight[1, cell], sight[2, cell], sight[3, cell], sight[4, cell], sight[5, cell]


@njit(cache=True, inline="always")
def _joined_sight(s0, s1, s2, s3, s4, s5, w, at):  # type: ignore[no-untyped-def]
    """Six sight masks joined with the six at ``w[at:at + 6]`` (a group merging into
    another, kept in locals as in `_sight_of`)."""
    return s0 | w[at], s1 | w[at + 1], s2 | w[at + 2], s3 | w[at + 3], s4 | w[at + 4], s5 | w[at + 5]


@njit(cache=True)
def groups(stones, t, out):  # type: ignore[no-untyped-def]
    stones = U64(stones)
    count = 0
    rest = stones
    while rest:
        group = _group_at(rest & (~rest + _ONE), rest, t.nbr)
        out[count] = group
        count += 1
        rest &= ~group
    return count


@njit(cache=True)
def group_holdings(group, t):  # type: ignore[no-untyped-def]
    sight6 = np.empty(6, dtype=np.uint64)
    _sight_of(U64(group), t.sight, sight6, 0)
    return _held_by_sight(sight6, 0, t.pairs)


@njit(cache=True)
def holdings(stones, t):  # type: ignore[no-untyped-def]
    stones = U64(stones)
    sight6 = np.empty(6, dtype=np.uint64)
    held = _ZERO
    rest = stones
    while rest:
        group = _group_at(rest & (~rest + _ONE), rest, t.nbr)
        rest &= ~group
        _sight_of(group, t.sight, sight6, 0)
        held |= _held_by_sight(sight6, 0, t.pairs)
    return held


@njit(cache=True)
def playable(own, enemy, t):  # type: ignore[no-untyped-def]
    own = U64(own)
    enemy = U64(enemy)
    empty = t.full & ~(own | enemy)
    out = empty & ~holdings(enemy, t)
    if t.reentry:
        out |= empty & neighbours(own, t.nbr)
    return out


# -- move generation ---------------------------------------------------------------------

#: Workspace layout (uint64 slots) of `_analyse`: per own group its stones, holdings and
#: six sight masks; per enemy group its stones; six scratch sight masks; then, filled by
#: `_children_into`, the mover's holdings after each child's move; then per own group the
#: cells next to it.
_W_OWN = 0
_W_HELD = 64
_W_SIGHT = 128
_W_ENEMY = 128 + 6 * 64
_W_SIGHT6 = _W_ENEMY + 64
AFTER_HELD_SLOT = _W_SIGHT6 + 6
_W_BORDER = AFTER_HELD_SLOT + 64
#: the stones whose groups the workspace holds, and how many groups (`_own_groups_from`)
_W_STONES = _W_BORDER + 64
_W_COUNT = _W_STONES + 1
WORKSPACE_SLOTS = _W_COUNT + 1


#: The enemy's holdings given to `_analyse_knowing` as unknown: they are worked out (a
#: real set of holdings equal to it, every cell of a 64-cell board, is merely worked out
#: again).
UNKNOWN_HELD = ~_ZERO


@njit(cache=True, inline="always")
def _analyse(own, enemy, t, w):  # type: ignore[no-untyped-def]
    """Groups of both sides into workspace ``w``; returns (legal, extensions, own groups,
    enemy groups) where legal and extensions are bitboards of cells."""
    return _analyse_knowing(own, enemy, UNKNOWN_HELD, t, w)


@njit(cache=True, inline="always")
def _analyse_knowing(own, enemy, enemy_held, t, w):  # type: ignore[no-untyped-def]
    """`_analyse` given the enemy's holdings (``UNKNOWN_HELD``: work them out). With them
    given, the enemy's groups are found only when a capture needs them (groupwise); under
    piecewise capture they are not looked for and the count returned is 0."""
    enemy_held, enemy_count = _enemy_side(enemy, enemy_held, t, w)
    own_count = _own_groups_fresh(own, t, w)
    return _analyse_groups(own, enemy, enemy_held, enemy_count, own_count, t, w)


@njit(cache=True, inline="always")
def _analyse_from(own, enemy, enemy_held, t, w, prev):  # type: ignore[no-untyped-def]
    """`_analyse_knowing`, taking the mover's groups from the workspace ``prev`` (not ``w``
    itself) where it holds those of ``own`` but one stone (the position two plies before,
    when the move between took none of the mover's stones)."""
    enemy_held, enemy_count = _enemy_side(enemy, enemy_held, t, w)
    before = prev[_W_STONES]
    added = own & ~before
    if before & ~own or added == _ZERO or added & (added - _ONE):
        own_count = _own_groups_fresh(own, t, w)
    else:
        own_count = _own_groups_from(prev, np.int64(_cttz(added)), t, w)
    return _analyse_groups(own, enemy, enemy_held, enemy_count, own_count, t, w)


@njit(cache=True, inline="always")
def _enemy_side(enemy, enemy_held, t, w):  # type: ignore[no-untyped-def]
    """(the enemy's holdings, how many enemy groups are in ``w``) for `_analyse_knowing`."""
    nbr = t.nbr
    enemy_count = 0
    unknown = enemy_held == UNKNOWN_HELD
    if unknown:
        enemy_held = _ZERO
    if unknown or not t.piecewise:
        rest = enemy
        while rest:
            group = _group_at(rest & (~rest + _ONE), rest, nbr)
            rest &= ~group
            w[_W_ENEMY + enemy_count] = group
            enemy_count += 1
            if unknown:
                _sight_of(group, t.sight, w, _W_SIGHT6)
                enemy_held |= _held_by_sight(w, _W_SIGHT6, t.pairs)
    return enemy_held, enemy_count


@njit(cache=True, inline="always")
def _own_groups_fresh(own, t, w):  # type: ignore[no-untyped-def]
    """The groups of ``own`` into ``w`` (stones, six sight masks, holdings, the cells next
    to each), found by flood fill; returns how many."""
    nbr = t.nbr
    own_count = 0
    rest = own
    while rest:
        group = _group_at(rest & (~rest + _ONE), rest, nbr)
        rest &= ~group
        k = own_count
        w[_W_OWN + k] = group
        base = _W_SIGHT + 6 * k
        _sight_of(group, t.sight, w, base)
        w[_W_HELD + k] = _held_by_sight(w, base, t.pairs)
        w[_W_BORDER + k] = neighbours(group, nbr) & ~group
        own_count += 1
    w[_W_STONES] = own
    w[_W_COUNT] = U64(own_count)
    return own_count


@njit(cache=True, inline="always")
def _own_groups_from(prev, cell, t, w):  # type: ignore[no-untyped-def]
    """`_own_groups_fresh` of the stones ``prev`` holds the groups of plus a stone at
    ``cell``: the groups next to it merge with it, the others are copied."""
    near = t.nbr[cell]
    s0, s1, s2, s3, s4, s5 = _cell_sight(cell, t.sight)
    merged = _ONE << U64(cell)
    border = near
    count = 0
    for k in range(np.int64(prev[_W_COUNT])):
        group = prev[_W_OWN + k]
        base = _W_SIGHT + 6 * k
        if group & near:
            merged |= group
            border |= prev[_W_BORDER + k]
            s0, s1, s2, s3, s4, s5 = _joined_sight(s0, s1, s2, s3, s4, s5, prev, base)
        else:
            at = _W_SIGHT + 6 * count
            w[_W_OWN + count] = group
            w[at], w[at + 1], w[at + 2] = prev[base], prev[base + 1], prev[base + 2]
            w[at + 3], w[at + 4], w[at + 5] = prev[base + 3], prev[base + 4], prev[base + 5]
            w[_W_HELD + count] = prev[_W_HELD + k]
            w[_W_BORDER + count] = prev[_W_BORDER + k]
            count += 1
    at = _W_SIGHT + 6 * count
    w[_W_OWN + count] = merged
    w[at], w[at + 1], w[at + 2], w[at + 3], w[at + 4], w[at + 5] = s0, s1, s2, s3, s4, s5
    w[_W_HELD + count] = _held_by_sight(w, at, t.pairs)
    w[_W_BORDER + count] = border & ~merged
    count += 1
    w[_W_STONES] = prev[_W_STONES] | (_ONE << U64(cell))
    w[_W_COUNT] = U64(count)
    return count


@njit(cache=True, inline="always")
def _analyse_groups(own, enemy, enemy_held, enemy_count, own_count, t, w):  # type: ignore[no-untyped-def]
    """The rest of `_analyse_knowing` once the mover's groups are in ``w``."""
    empty = t.full & ~(own | enemy)
    own_near = _ZERO  # the cells next to the mover's stones, as far as they are empty
    for k in range(own_count):
        own_near |= w[_W_BORDER + k]
    play_ok = empty & ~enemy_held
    if t.reentry:
        play_ok |= empty & own_near
    # the mover's groups: sizes, liveness, the smallest (m or m' of docs/smallholder.md, The option axes)
    live_count = 0
    smallest_all = 1 << 30
    smallest_live = 1 << 30
    for k in range(own_count):
        size = np.int64(_ctpop(w[_W_OWN + k]))
        if size < smallest_all:
            smallest_all = size
        if w[_W_BORDER + k] & play_ok:
            live_count += 1
            if size < smallest_live:
                smallest_live = size
    if t.adjacent_playable:
        smallest = smallest_live
    else:
        smallest = smallest_all
    creates = play_ok & ~own_near
    # the cells next to a group of the smallest size, and next to a bigger one
    next_to_smallest = _ZERO
    next_to_bigger = _ZERO
    for k in range(own_count):
        if np.int64(_ctpop(w[_W_OWN + k])) == smallest:
            next_to_smallest |= w[_W_BORDER + k]
        else:
            next_to_bigger |= w[_W_BORDER + k]
    candidates = play_ok & own_near
    if t.adjacent_only:
        extensions = candidates & ~next_to_bigger  # every neighbouring group is of the smallest size
    else:
        extensions = candidates & next_to_smallest  # some neighbouring group is
    count = live_count if t.count_live else own_count
    if t.group_mode == 0:
        allowed = creates == _ZERO
    elif t.group_mode == 1:
        allowed = count >= 2
    else:
        allowed = count >= 2 or creates == _ZERO
    if not allowed:
        extensions = _ZERO
    return creates | extensions, extensions, own_count, enemy_count


@njit(cache=True, inline="always")
def legal_knowing(own, enemy, enemy_held, t, w):  # type: ignore[no-untyped-def]
    """The legal moves (a bitboard) of the owner of ``own``, given the enemy's holdings
    (``UNKNOWN_HELD``: work them out), with workspace ``w`` (``WORKSPACE_SLOTS``)."""
    return _analyse_knowing(own, enemy, enemy_held, t, w)[0]


@njit(cache=True, inline="always")
def _capture_and_holdings(own, enemy, cell, t, w, own_count, enemy_count):  # type: ignore[no-untyped-def]
    """(enemy stones removed by the extension at ``cell``, the mover's holdings after it),
    after `_analyse` filled ``w``."""
    near = t.nbr[cell]
    # the merged group's six sight masks, in locals until stored (as in `_sight_of`)
    s0, s1, s2, s3, s4, s5 = _cell_sight(cell, t.sight)
    held = _ZERO
    for k in range(own_count):
        if w[_W_OWN + k] & near:
            s0, s1, s2, s3, s4, s5 = _joined_sight(s0, s1, s2, s3, s4, s5, w, _W_SIGHT + 6 * k)
        else:
            held |= w[_W_HELD + k]
    w[_W_SIGHT6], w[_W_SIGHT6 + 1], w[_W_SIGHT6 + 2] = s0, s1, s2
    w[_W_SIGHT6 + 3], w[_W_SIGHT6 + 4], w[_W_SIGHT6 + 5] = s3, s4, s5
    held |= _held_by_sight(w, _W_SIGHT6, t.pairs)
    if t.piecewise:
        return enemy & held, held
    taken = _ZERO
    for j in range(enemy_count):
        g = w[_W_ENEMY + j]
        if not (g & ~held):
            taken |= g
    return taken, held


@njit(cache=True)
def _captured(own, enemy, cell, t, w, own_count, enemy_count):  # type: ignore[no-untyped-def]
    """Enemy stones removed by the extension at ``cell`` (after `_analyse` filled ``w``)."""
    return _capture_and_holdings(own, enemy, cell, t, w, own_count, enemy_count)[0]


@njit(cache=True)
def _sides(black, white, white_to_move):  # type: ignore[no-untyped-def]
    if white_to_move:
        return U64(white), U64(black)
    return U64(black), U64(white)


@njit(cache=True)
def legal_moves(black, white, white_to_move, t):  # type: ignore[no-untyped-def]
    own, enemy = _sides(black, white, white_to_move)
    w = np.empty(WORKSPACE_SLOTS, dtype=np.uint64)
    legal, _, _, _ = _analyse(own, enemy, t, w)
    return legal


@njit(cache=True)
def is_terminal(black, white, white_to_move, t):  # type: ignore[no-untyped-def]
    return legal_moves(black, white, white_to_move, t) == _ZERO


@njit(cache=True)
def terminal_value(black, white, white_to_move, t):  # type: ignore[no-untyped-def]
    return _LOSS if legal_moves(black, white, white_to_move, t) == _ZERO else 0


@njit(cache=True, inline="always")
def _children_into(own, enemy, t, w, out_cells, out_own, out_enemy):  # type: ignore[no-untyped-def]
    """Children with the mover's and the waiter's stones (not colours); returns how many.
    ``w[AFTER_HELD_SLOT + i]`` receives the mover's holdings after the i-th move (a new
    stone alone holds nothing, so a create leaves them as they were)."""
    return children_knowing(own, enemy, UNKNOWN_HELD, t, w, out_cells, out_own, out_enemy)


@njit(cache=True, inline="always")
def children_knowing(own, enemy, enemy_held, t, w, out_cells, out_own, out_enemy):  # type: ignore[no-untyped-def]
    """`_children_into` given the enemy's holdings (``UNKNOWN_HELD``: work them out): the
    parent's ``w[AFTER_HELD_SLOT + i]`` are its children's."""
    legal, extensions, own_count, enemy_count = _analyse_knowing(own, enemy, enemy_held, t, w)
    return _children_analysed(own, enemy, legal, extensions, own_count, enemy_count, t, w, out_cells, out_own,
                              out_enemy)


@njit(cache=True, inline="always")
def _children_analysed(own, enemy, legal, extensions, own_count, enemy_count, t, w, out_cells, out_own,
                       out_enemy):  # type: ignore[no-untyped-def]
    """The children of a position `_analyse_knowing` has filled ``w`` with."""
    held_before = _ZERO
    for k in range(own_count):
        held_before |= w[_W_HELD + k]
    count = 0
    while legal:
        c = _cttz(legal)
        legal &= legal - _ONE
        bit = _ONE << c
        after = enemy
        held = held_before
        if extensions & bit:
            taken, held = _capture_and_holdings(own, enemy, np.int64(c), t, w, own_count, enemy_count)
            after = enemy & ~taken
        out_cells[count] = c
        out_own[count] = own | bit
        out_enemy[count] = after
        w[AFTER_HELD_SLOT + count] = held
        count += 1
    return count


@njit(cache=True, inline="always")
def children_from(own, enemy, enemy_held, t, w, prev, out_cells, out_own, out_enemy):  # type: ignore[no-untyped-def]
    """`children_knowing`, the mover's groups taken from the workspace ``prev`` where it
    can (`_analyse_from`)."""
    legal, extensions, own_count, enemy_count = _analyse_from(own, enemy, enemy_held, t, w, prev)
    return _children_analysed(own, enemy, legal, extensions, own_count, enemy_count, t, w, out_cells, out_own,
                              out_enemy)


@njit(cache=True)
def children(black, white, white_to_move, t, out_cells, out_black, out_white):  # type: ignore[no-untyped-def]
    own, enemy = _sides(black, white, white_to_move)
    w = np.empty(WORKSPACE_SLOTS, dtype=np.uint64)
    if white_to_move:
        return _children_into(own, enemy, t, w, out_cells, out_white, out_black)
    return _children_into(own, enemy, t, w, out_cells, out_black, out_white)


@njit(cache=True)
def captured(black, white, white_to_move, cell, t):  # type: ignore[no-untyped-def]
    own, enemy = _sides(black, white, white_to_move)
    w = np.empty(WORKSPACE_SLOTS, dtype=np.uint64)
    _, extensions, own_count, enemy_count = _analyse(own, enemy, t, w)
    if not (extensions & (_ONE << U64(cell))):
        return _ZERO
    return _captured(own, enemy, np.int64(cell), t, w, own_count, enemy_count)


@njit(cache=True)
def play(black, white, white_to_move, cell, t):  # type: ignore[no-untyped-def]
    taken = captured(black, white, white_to_move, cell, t)
    bit = _ONE << U64(cell)
    if white_to_move:
        return U64(black) & ~taken, U64(white) | bit
    return U64(black) | bit, U64(white) & ~taken


# -- symmetries and keys -----------------------------------------------------------------


@njit(cache=True)
def transform(mask, s, t):  # type: ignore[no-untyped-def]
    mask = U64(mask)
    bits = U64(t.chunk_bits)
    low = (_ONE << bits) - _ONE
    out = _ZERO
    for c in range(t.symtab.shape[1]):
        out |= t.symtab[s, c, mask & low]
        mask >>= bits
    return out


@njit(cache=True)
def canonical(black, white, t):  # type: ignore[no-untyped-def]
    best_black, best_white, _ = canonical_symmetry(black, white, t)
    return best_black, best_white


@njit(cache=True)
def canonical_symmetry(black, white, t):  # type: ignore[no-untyped-def]
    """`canonical`, and the symmetry that maps (black, white) onto it (the lowest-numbered
    one when several do)."""
    best_black = U64(black)
    best_white = U64(white)
    best = 0
    for s in range(1, t.nsym):
        image_white = transform(white, s, t)
        if image_white > best_white:
            continue
        image_black = transform(black, s, t)
        if image_white < best_white or image_black < best_black:
            best_white = image_white
            best_black = image_black
            best = s
    return best_black, best_white, best


@njit(cache=True)
def pack_key(black, white, white_to_move, n):  # type: ignore[no-untyped-def]
    key = U64(black) | (U64(white) << U64(n))
    if white_to_move:
        key |= _ONE << U64(2 * n)
    return key


@njit(cache=True)
def unpack_key(key, n):  # type: ignore[no-untyped-def]
    key = U64(key)
    full = (_ONE << U64(n)) - _ONE
    return key & full, (key >> U64(n)) & full, (key >> U64(2 * n)) != _ZERO


@njit(cache=True, inline="always")
def _smallest_image(stones, keytab, nsym, chunks, bits):  # type: ignore[no-untyped-def]
    """The smallest image of a key without its side bit under the symmetries (the flat
    `Tables.keytab`, ``chunks`` chunks of ``bits`` bits; indexed by hand, and with its
    sizes worked out once by the caller: about half the time of three indices)."""
    low = (_ONE << U64(bits)) - _ONE
    best = stones
    for s in range(1, nsym):
        rest = stones
        image = _ZERO
        at = (s * chunks) << bits
        for c in range(chunks):
            image |= keytab[at + np.intp(rest & low)]
            rest >>= U64(bits)
            at += 1 << bits
        best = min(best, image)
    return best


@njit(cache=True, inline="always")
def _key_chunks(t):  # type: ignore[no-untyped-def]
    return len(t.keytab) // (t.nsym << t.key_chunk_bits)


@njit(cache=True)
def canonical_key(black, white, white_to_move, t):  # type: ignore[no-untyped-def]
    stones = U64(black) | (U64(white) << U64(t.n))
    best = _smallest_image(stones, t.keytab, t.nsym, _key_chunks(t), t.key_chunk_bits)
    if white_to_move:
        best |= _ONE << U64(2 * t.n)
    return best


# -- whole arrays ------------------------------------------------------------------------


@njit(cache=True)
def canonical_keys(keys, t):  # type: ignore[no-untyped-def]
    out = np.empty(len(keys), dtype=np.uint64)
    side = _ONE << U64(2 * t.n)
    chunks = _key_chunks(t)
    for i in range(len(keys)):
        out[i] = _smallest_image(keys[i] & ~side, t.keytab, t.nsym, chunks, t.key_chunk_bits) | (keys[i] & side)
    return out


@njit(cache=True)
def legal_of_keys(keys, t):  # type: ignore[no-untyped-def]
    out = np.empty(len(keys), dtype=np.uint64)
    w = np.empty(WORKSPACE_SLOTS, dtype=np.uint64)
    for i in range(len(keys)):
        black, white, white_to_move = unpack_key(keys[i], t.n)
        own, enemy = _sides(black, white, white_to_move)
        out[i], _, _, _ = _analyse(own, enemy, t, w)
    return out


@njit(cache=True)
def _grown(array, size):  # type: ignore[no-untyped-def]
    bigger = np.empty(max(2 * len(array), size), dtype=array.dtype)
    bigger[:len(array)] = array
    return bigger


@njit(cache=True)
def _expand_keys_serial(keys, t):  # type: ignore[no-untyped-def]
    """`expand_keys` in one pass on one core (for small arrays: starting threads costs more)."""
    n = t.n
    w = np.empty(WORKSPACE_SLOTS, dtype=np.uint64)
    cells = np.empty(n, dtype=np.int64)
    movers = np.empty(n, dtype=np.uint64)
    waiters = np.empty(n, dtype=np.uint64)
    counts = np.empty(len(keys), dtype=np.int32)
    out = np.empty(4 * len(keys) + n, dtype=np.uint64)
    total = 0
    for i in range(len(keys)):
        black, white, white_to_move = unpack_key(keys[i], n)
        own, enemy = _sides(black, white, white_to_move)
        count = _children_into(own, enemy, t, w, cells, movers, waiters)
        counts[i] = count
        if total + count > len(out):
            out = _grown(out, total + count)
        _canonical_children(movers, waiters, count, white_to_move, t, out, total)
        total += count
    return counts, out[:total].copy()


@njit(cache=True)
def _canonical_children(movers, waiters, count, white_to_move, t, out, at):  # type: ignore[no-untyped-def]
    """The canonical keys of ``count`` children (stones of the mover, the waiter) into ``out[at:]``."""
    n = U64(t.n)
    chunks = _key_chunks(t)
    for k in range(count):
        if white_to_move:  # White moved: Black to move in the child
            stones = waiters[k] | (movers[k] << n)
        else:
            stones = movers[k] | (waiters[k] << n)
        image = _smallest_image(stones, t.keytab, t.nsym, chunks, t.key_chunk_bits)
        out[at + k] = image if white_to_move else image | (_ONE << (n + n))


@njit(cache=True, parallel=True)
def _expand_keys_parallel(keys, t):  # type: ignore[no-untyped-def]
    """`expand_keys` on all cores in one pass of the rules: each parent's children go to
    a slot as long as its empty cells (a bound of its moves), then close up. Measured a
    quarter faster than counting the moves first and generating them a second time."""
    n = t.n
    bound = np.empty(len(keys) + 1, dtype=np.int64)
    bound[0] = 0
    for i in range(len(keys)):
        black, white, _ = unpack_key(keys[i], n)
        bound[i + 1] = bound[i] + _ctpop(t.full & ~(black | white))
    wide = np.empty(bound[len(keys)], dtype=np.uint64)
    counts = np.empty(len(keys), dtype=np.int32)
    for block in prange((len(keys) + _BLOCK - 1) // _BLOCK):
        w = np.empty(WORKSPACE_SLOTS, dtype=np.uint64)
        cells = np.empty(n, dtype=np.int64)
        movers = np.empty(n, dtype=np.uint64)
        waiters = np.empty(n, dtype=np.uint64)
        for i in range(block * _BLOCK, min(len(keys), (block + 1) * _BLOCK)):
            black, white, white_to_move = unpack_key(keys[i], n)
            own, enemy = _sides(black, white, white_to_move)
            count = _children_into(own, enemy, t, w, cells, movers, waiters)
            counts[i] = count
            _canonical_children(movers, waiters, count, white_to_move, t, wide, bound[i])
    total = 0
    for i in range(len(keys)):
        total += counts[i]
    out = np.empty(total, dtype=np.uint64)
    at = 0
    for i in range(len(keys)):
        for k in range(counts[i]):  # a loop, not slices: those would each be a parallel region
            out[at + k] = wide[bound[i] + k]
        at += counts[i]
    return counts, out


@njit(cache=True)
def expand_keys(keys, t):  # type: ignore[no-untyped-def]
    if len(keys) < _PARALLEL_KEYS:
        return _expand_keys_serial(keys, t)
    return _expand_keys_parallel(keys, t)


@njit(cache=True)
def expand(movers, waiters, t):  # type: ignore[no-untyped-def]
    n = t.n
    w = np.empty(WORKSPACE_SLOTS, dtype=np.uint64)
    cells = np.empty(n, dtype=np.int64)
    after_own = np.empty(n, dtype=np.uint64)
    after_enemy = np.empty(n, dtype=np.uint64)
    size = 4 * len(movers) + n
    parent = np.empty(size, dtype=np.int64)
    cell = np.empty(size, dtype=np.int64)
    mover = np.empty(size, dtype=np.uint64)
    waiter = np.empty(size, dtype=np.uint64)
    total = 0
    for i in range(len(movers)):
        count = _children_into(U64(movers[i]), U64(waiters[i]), t, w, cells, after_own, after_enemy)
        if total + count > len(parent):
            parent = _grown(parent, total + count)
            cell = _grown(cell, total + count)
            mover = _grown(mover, total + count)
            waiter = _grown(waiter, total + count)
        for k in range(count):
            parent[total + k] = i
            cell[total + k] = cells[k]
            mover[total + k] = after_own[k]
            waiter[total + k] = after_enemy[k]
        total += count
    return parent[:total].copy(), cell[:total].copy(), mover[:total].copy(), waiter[:total].copy()


# -- Python convenience ------------------------------------------------------------------


class CompiledRules:
    """The compiled rules of one ruleset on one board, for Python callers on `Position`s
    (per-call overhead is Python's: hot loops call the njit functions directly)."""

    def __init__(self, board: str | Board, rules: str | Rules) -> None:
        self.board = board if isinstance(board, Board) else get_board(board)
        self.rules = rules if isinstance(rules, Rules) else parse_rules(rules)
        self.tables = tables(self.board, self.rules)
        n = self.board.size
        self._cells = np.empty(n, dtype=np.int64)
        self._black = np.empty(n, dtype=U64)
        self._white = np.empty(n, dtype=U64)

    @staticmethod
    def _args(pos: Position) -> tuple[np.uint64, np.uint64, bool]:
        return U64(pos.black), U64(pos.white), pos.to_move == WHITE

    def legal_moves(self, pos: Position) -> list[int]:
        mask = int(legal_moves(*self._args(pos), self.tables))
        return [i for i in range(self.board.size) if mask >> i & 1]

    def children(self, pos: Position) -> list[tuple[int, Position]]:
        """(cell, position after it) for every legal move, by ascending cell."""
        count = children(*self._args(pos), self.tables, self._cells, self._black, self._white)
        side = BLACK if pos.to_move == WHITE else WHITE
        return [(int(self._cells[k]), Position(int(self._black[k]), int(self._white[k]), side)) for k in range(count)]

    def captured(self, pos: Position, cell: int) -> int:
        return int(captured(*self._args(pos), cell, self.tables))

    def play(self, pos: Position, cell: int) -> Position:
        """The position after the legal move ``cell`` (not checked: see `legal_moves`)."""
        black, white = play(*self._args(pos), cell, self.tables)
        return Position(int(black), int(white), BLACK if pos.to_move == WHITE else WHITE)

    def is_terminal(self, pos: Position) -> bool:
        return bool(is_terminal(*self._args(pos), self.tables))

    def groups(self, stones: int) -> list[int]:
        out = np.empty(self.board.size, dtype=U64)
        return [int(g) for g in out[:groups(U64(stones), self.tables, out)]]

    def holdings(self, stones: int) -> int:
        return int(holdings(U64(stones), self.tables))

    def playable(self, own: int, enemy: int) -> int:
        return int(playable(U64(own), U64(enemy), self.tables))

    def canonical(self, pos: Position) -> Position:
        black, white = canonical(U64(pos.black), U64(pos.white), self.tables)
        return Position(int(black), int(white), pos.to_move)

    def canonical_key(self, pos: Position) -> int:
        if self.board.size > MAX_KEY_CELLS:
            raise ValueError(f"{self.board.name} has {self.board.size} cells; keys hold at most {MAX_KEY_CELLS}")
        return int(canonical_key(*self._args(pos), self.tables))
