"""Compiled kernel of the exact Smallholder search (see `solver/smallholder_exact.py`).

One call of `search` is one fail-soft alpha-beta search of a window, depth-first to the
end of the game, on scores that encode remoteness (``WIN_SCORE - r`` for a win in ``r``
plies, ``-(WIN_SCORE - r)`` for a loss in ``r``, 0 for a draw), so that the winner
hurries and the loser holds out as in the tables. Positions are (mover, waiter)
bitboards keyed by their table form (`table_pair`): near the start of the game the
canonical orientation (the smallest image over the board's symmetries), later the
position as it stands, since two symmetric images of one position rarely meet in one
search once a few stones are down and canonical forms cost about 30 % of its time;
colours are relative to the side to move (the rules treat both colours alike, docs/smallholder.md).

Cycles (graph-history interaction): a position met again on the current path scores 0,
and every result carries the lowest path index of a repetition it relied on. A result
is stored in the transposition table only when it relied on no position above it on
the path; such a result is a bound of the position's true value (the proof is in
docs/solver.md), so the table only ever holds path-independent facts.

Arrays by address: `search` gets its arrays and the rules' tables as addresses
(`buffers`, `compiled.tables_by_address`) and makes arrays of them again at each node
(`numba.carray`, `compiled.tables_at`), arrays that
numba does not reference-count. Passed as arrays, each would cost an atomic increment
and decrement at every node, about a third of the search's time (measured with `perf`,
BENCHMARKS.md). The caller keeps the arrays alive while it searches (`_Worker` in
solver/smallholder_exact.py holds them), and `buffers` checks their shapes and types.
"""

from __future__ import annotations

import time

import numba
import numpy as np
from numba import njit

from llvmlite import ir
from numba.extending import intrinsic

from tablebase.games.smallholder import compiled

U64 = np.uint64
#: Score of a win in 0 plies; a win in r plies scores WIN_SCORE - r.
WIN_SCORE = 30000
INF = 32000
#: Deepest line the search follows (an abort, i.e. "unknown", beyond it).
MAX_PLY = 512
MAX_MOVES = 64
#: Bit 63 of a table entry's waiter word marks the slot as used (boards have <= 62 cells).
USED = U64(1) << U64(63)
#: How many positions between two looks at the clock.
CLOCK_EVERY = 4095
#: The table doubles its rows in use when about half of them hold an entry (this many of
#: 64 sampled rows, `tt_fill`), so that a short search touches little memory.
TABLE_GROW_AT = 32

# state array slots
NODES, ABORTED, NODE_LIMIT, STORED, MAXDEPTH, MOBILITY, MOBILITY_EMPTY, CANON_EMPTY, THREAD, ETC_EMPTY = range(10)
STATE_SLOTS = 10
# (CANON_EMPTY: a position with at least that many empty cells is keyed by its canonical
# form, one with fewer as it stands, see `table_pair`; THREAD: the thread's index;
# ETC_EMPTY: the children of a position with more empty cells than this are looked up
# in the table before any is searched)
# row log array slots (one row log per thread, and one for the split search's stores): how
# many rows it has noted, the least work and the bound of work it notes, then the rows
# (see `tt_store`, `tt_proved_rows`); each has one writer at a time
LOG_COUNT, LOG_FLOOR, LOG_BELOW = range(3)
ROW_LOG_HEAD = 3
#: Rows one thread's row log holds; a thread that notes more overflows it (the next
#: reading of the proved entries then scans the whole table).
ROW_LOG_ROWS = 1 << 16
# control array slots, shared by the threads of one analysis: a stop flag, then each
# thread's node count as of its latest look at the clock
STOP, CONTROL_NODES = range(2)
#: Below this many empty cells moves are ordered by the opponent's open cells (a cheap
#: superset of their replies) instead of their exact number of replies. Measured
#: (BENCHMARKS.md): 15 against 12 takes 0.84-0.89x the time of the 20-empty hex4
#: analyses, 0.81-0.88x on three 24-empty ones, 0.93x on 19-empty limping3 values.
DEFAULT_MOBILITY_EMPTY = 15
#: Positions with fewer empty cells are neither looked up in the table nor stored: their
#: searches are a few positions each, cheaper than the table's memory traffic. Measured
#: (BENCHMARKS.md, one thread): 20-empty hex4 analyses take 0.90-0.93x the time with
#: 4 as with none, and as many positions.
TABLE_EMPTY = 4
#: Positions with more empty cells than this look their children up in the table before
#: searching one (enhanced transposition cut-off), by default: every position whose
#: children are in the table. A search may ask for fewer (`ExactSearch(etc_empty=...)`):
#: the look-ups cost memory traffic, most of all in a big table (BENCHMARKS.md).
DEFAULT_ETC_EMPTY = TABLE_EMPTY
#: Move-ordering weights, highest first: a child the table proves lost for the opponent;
#: the move that last cut off at this ply of the line (a killer), then the one before
#: it and the table's best move of the position; then fewest replies (bits 24-31), a
#: capture (bit 20) and the history count (bits 0-19). Measured (BENCHMARKS.md): the two
#: killers above the table's move cut the 20-empty hex4 analysis by about a fifth.
PROVED_CHILD = 1 << 42
FIRST_KILLER = 1 << 41
SECOND_KILLER = 1 << 40
TABLE_MOVE = 1 << 40
#: uint64 slots of one ply's move-generation workspace (games/smallholder/compiled.py).
WORKSPACE = compiled.WORKSPACE_SLOTS
#: Where in a ply's workspace move generation leaves the mover's holdings after each move.
AFTER_HELD = compiled.AFTER_HELD_SLOT


def _progress(nodes: int, depth: int) -> None:
    """Replaced by the driver; called from compiled code about every CLOCK_EVERY nodes."""


PROGRESS = [_progress]
#: Set by the driver's SIGINT handler while compiled code runs; the next look at the clock
#: then reports an infinite time, which reaches every deadline (also the infinite one of a
#: search with no time limit: the test is ``now >= deadline``), so the search stops as out
#: of time and the driver raises KeyboardInterrupt once it is back in Python (an exception
#: raised inside the compiled code's callback would not unwind it cleanly).
INTERRUPTED = [False]


def _tick(nodes: int, depth: int) -> float:
    if INTERRUPTED[0]:
        return float("inf")
    PROGRESS[0](nodes, depth)
    return time.perf_counter()


@njit(cache=True)
def canonical_pair(mover, waiter, t):
    """The canonical (mover, waiter) image: the smallest mover, then the smallest waiter."""
    m, w, _ = canonical_pair_symmetry(mover, waiter, t)
    return m, w


@njit(cache=True, inline="always")
def canonical_pair_symmetry(mover, waiter, t):
    """`canonical_pair`, and the symmetry that maps (mover, waiter) onto it."""
    w, m, symmetry = compiled.canonical_symmetry(waiter, mover, t)
    return m, w, symmetry


@njit(cache=True, inline="always")
def table_pair(mover, waiter, t, canon_empty):
    """The form of (mover, waiter) the table keys it by: canonical with at least
    ``canon_empty`` empty cells, else as it stands."""
    m, w, _ = table_pair_symmetry(mover, waiter, t, canon_empty)
    return m, w


@njit(cache=True, inline="always")
def table_pair_symmetry(mover, waiter, t, canon_empty):
    """`table_pair`, and the symmetry that maps (mover, waiter) onto it (0: as it stands)."""
    if compiled.popcount(t.full & ~(mover | waiter)) >= canon_empty:
        return canonical_pair_symmetry(mover, waiter, t)
    return mover, waiter, 0


@njit(cache=True)
def canonical_pairs(movers, waiters, t):
    """The canonical images of arrays of (mover, waiter) pairs."""
    out_m = np.empty_like(movers)
    out_w = np.empty_like(waiters)
    for i in range(movers.shape[0]):
        out_m[i], out_w[i] = canonical_pair(movers[i], waiters[i], t)
    return out_m, out_w


@njit(cache=True, inline="always")
def slot_of(m, w, mask):
    h = (m * U64(0x9E3779B97F4A7C15)) ^ (w * U64(0xC2B2AE3D27D4EB4F))
    h ^= h >> U64(29)
    return int(h & mask) & ~3


@njit(cache=True, inline="always")
def pack(lo, hi, move, work):
    """One table entry's data word: both bounds, the best move (-1: none), the work."""
    return (U64(lo + 32768) | (U64(hi + 32768) << U64(16)) | (U64(move + 128) << U64(32))
            | (U64(work) << U64(40)))


#: A data word's flag of an exact entry `ExactSearch.proved` has given (it gives each once).
TAKEN = U64(1) << U64(48)


@njit(cache=True, inline="always")
def data_lo(d):
    return np.int64(d & U64(0xFFFF)) - 32768


@njit(cache=True, inline="always")
def data_hi(d):
    return np.int64((d >> U64(16)) & U64(0xFFFF)) - 32768


@njit(cache=True, inline="always")
def data_move(d):
    return np.int64((d >> U64(32)) & U64(0xFF)) - 128


@njit(cache=True, inline="always")
def data_work(d):
    return np.int64((d >> U64(40)) & U64(0xFF))


@intrinsic
def _prefetch_address(typingctx, address):
    """Ask the processor to fetch the cache line at ``address`` (LLVM's prefetch)."""
    def codegen(context, builder, signature, args):
        i32 = ir.IntType(32)
        i8p = ir.IntType(8).as_pointer()
        prefetch = builder.module.declare_intrinsic(
            "llvm.prefetch", fnty=ir.FunctionType(ir.VoidType(), (i8p, i32, i32, i32)))
        builder.call(prefetch, (builder.inttoptr(args[0], i8p), ir.Constant(i32, 0), ir.Constant(i32, 3),
                                ir.Constant(i32, 1)))
        return context.get_dummy_value()

    return numba.types.void(numba.types.uintp), codegen


@njit(cache=True, inline="always")
def tt_prefetch(tt, m, w):
    """Start loading the bucket of (m, w) (two cache lines), so that a later `tt_find`
    of it waits less."""
    base = slot_of(m, w, tt[tt.shape[0] - 1, 0])
    address = tt.ctypes.data + base * 24
    _prefetch_address(address)
    _prefetch_address(address + 64)


@njit(cache=True, inline="always")
def tt_find(tt, m, w):
    """(index, data word) of the entry of (m, w), or (-1, 0).

    An entry is a row of three words, ``m ^ data``, ``(w | USED) ^ data`` and ``data``
    (four neighbouring rows make a slot's bucket, two cache lines), so that
    several threads may share the table without locks: an entry torn by a concurrent
    write no longer matches its key and reads as missing, never as another position's
    bounds (the scheme of lockless hashing in chess programs). The table's last row
    holds the mask of the rows in use (`tt_grow`)."""
    base = slot_of(m, w, tt[tt.shape[0] - 1, 0])
    ww = w | USED
    for i in range(base, base + 4):
        d = tt[i, 2]
        if (tt[i, 1] ^ d) == ww and (tt[i, 0] ^ d) == m:
            return i, d
    return -1, U64(0)


@njit(cache=True, inline="always")
def row_log_note(row_log, row, d):
    """Note ``row`` in ``row_log`` if its new data ``d`` is exact with work in [floor, below)."""
    work = data_work(d)
    if data_lo(d) == data_hi(d) and row_log[LOG_FLOOR] <= work < row_log[LOG_BELOW]:
        k = row_log[LOG_COUNT]
        if k < row_log.shape[0] - ROW_LOG_HEAD:
            row_log[ROW_LOG_HEAD + k] = row
        row_log[LOG_COUNT] = k + 1


def new_row_log(floor, below):
    """A thread's row log noting exact entries of work in [floor, below) (`tt_store`)."""
    row_log = np.zeros(ROW_LOG_HEAD + ROW_LOG_ROWS, np.int64)
    row_log[LOG_FLOOR] = floor
    row_log[LOG_BELOW] = below
    return row_log


@njit(cache=True, inline="always")
def tt_store(tt, m, w, lo, hi, move, work, state, row_log):
    """Store bounds of (m, w), tightening an entry already there; a new entry replaces
    the least-work one of its four slots (a slot whose words do not match is free). The
    row of an entry that ends exact (lo == hi) with work in the row log's [floor, below)
    is noted in ``row_log``, so that the proved entries are read without a scan of the
    whole table (`tt_proved_rows`)."""
    base = slot_of(m, w, tt[tt.shape[0] - 1, 0])
    ww = w | USED
    victim = -1
    least = 1 << 30
    for i in range(base, base + 4):
        d = tt[i, 2]
        key_w = tt[i, 1] ^ d
        if key_w == ww and (tt[i, 0] ^ d) == m:
            old_move = data_move(d)
            taken = d & TAKEN
            old_lo = data_lo(d)
            d = pack(max(lo, old_lo), min(hi, data_hi(d)), move if move >= 0 else old_move,
                     max(work, data_work(d)))
            if taken and data_lo(d) == data_hi(d) == old_lo:
                d |= TAKEN  # the same exact score, given already
            tt[i, 0] = m ^ d
            tt[i, 1] = ww ^ d
            tt[i, 2] = d
            row_log_note(row_log, i, d)
            return
        if not (key_w & USED):
            if least > -1:
                least = -1
                victim = i
        elif data_work(d) < least:
            least = data_work(d)
            victim = i
    if least == -1:
        state[STORED] += 1
    d = pack(lo, hi, move, work)
    tt[victim, 0] = m ^ d
    tt[victim, 1] = ww ^ d
    tt[victim, 2] = d
    row_log_note(row_log, victim, d)


@njit(cache=True)
def tt_fill(tt):
    """How many of 64 rows spread over the rows in use hold an entry."""
    rows = np.int64(tt[tt.shape[0] - 1, 0]) + 1
    used = 0
    for k in range(64):
        i = k * (rows // 64) + (k & 3)
        if (tt[i, 1] ^ tt[i, 2]) & USED:
            used += 1
    return used


@njit(cache=True)
def tt_grow(tt):
    """Double the rows in use (False if the array has no more): each entry whose bucket
    under the doubled mask lies in the new half moves there, the others stay. Safe while
    other threads search: one that still uses the old mask, or reads a row being moved,
    misses an entry (a torn row does not match its key), never finds a wrong one."""
    mask = tt[tt.shape[0] - 1, 0]
    rows = np.int64(mask) + 1
    if 2 * rows > tt.shape[0] - 1:
        return False
    new_mask = U64(2 * rows - 1)
    for i in range(rows):
        d = tt[i, 2]
        w = tt[i, 1] ^ d
        if w & USED and slot_of(tt[i, 0] ^ d, w & ~USED, new_mask) == (i & ~3) + rows:
            j = i + rows
            tt[j, 0] = tt[i, 0]
            tt[j, 1] = tt[i, 1]
            tt[j, 2] = d
            tt[i, 0] = U64(0)
            tt[i, 1] = U64(0)
            tt[i, 2] = U64(0)
    tt[tt.shape[0] - 1, 0] = new_mask
    tt[tt.shape[0] - 1, 1] += U64(1)  # entries moved: the row logs' rows are stale (`ExactSearch.proved`)
    return True


@njit(cache=True)
def tt_reserve(tt, entries):
    """Grow the rows in use until they are at least four times ``entries`` (or all)."""
    while np.int64(tt[tt.shape[0] - 1, 0]) + 1 < 4 * entries and tt_grow(tt):
        pass


@njit(cache=True, inline="always")
def from_child(s):
    """A child's score seen from its parent."""
    if s > 0:
        return -s + 1
    if s < 0:
        return -s - 1
    return 0


@njit(cache=True, inline="always")
def to_child(p):
    """The child score that a parent score ``p`` corresponds to (inverse of from_child)."""
    if p > 0:
        return -(p + 1)
    if p < 0:
        return 1 - p
    return 0


@njit(cache=True, inline="always")
def log2_work(nodes):
    w = 0
    while nodes > 1 and w < 120:
        nodes >>= 1
        w += 1
    return w


@njit(cache=True)
def clock_now(nodes, depth):
    with numba.objmode(t="float64"):
        t = _tick(nodes, depth)
    return t


def buffers(rules_tables, tt, control, path_m, path_w, cell_buf, m_buf, w_buf, cap_buf, order_buf, history,
            killers, state, deadline, work_buf, row_log):
    """The ``ctx`` argument of `search`: the rules' tables (`compiled.tables_by_address`),
    then the addresses of its arrays (which the caller keeps alive, C-contiguous, of the
    shapes and types `search` reads them with; checked here) and the sizes of the two
    whose size varies."""
    arrays = (tt, control, path_m, path_w, cell_buf, m_buf, w_buf, cap_buf, order_buf, history, killers,
              state, deadline, work_buf, row_log)
    shapes = ((tt.shape[0], 3), (control.shape[0],), (MAX_PLY,), (MAX_PLY,)) + ((MAX_PLY, MAX_MOVES),) * 5 + (
        (64,), (MAX_PLY, 2), (STATE_SLOTS,), (1,), (MAX_PLY + 1, WORKSPACE), (ROW_LOG_HEAD + ROW_LOG_ROWS,))
    types = (np.uint64, np.int64, np.uint64, np.uint64, np.int64, np.uint64, np.uint64, np.int64, np.int64,
             np.int64, np.int64, np.int64, np.float64, np.uint64, np.int64)
    for array, shape, dtype in zip(arrays, shapes, types):
        if array.shape != shape or array.dtype != dtype or not array.flags.c_contiguous:
            raise ValueError(f"search buffer of shape {array.shape} and type {array.dtype}: "
                             f"expected {shape} and {np.dtype(dtype)}")
    return (compiled.tables_by_address(rules_tables), tuple(int(array.ctypes.data) for array in arrays), tt.shape[0],
            control.shape[0])


@njit(cache=True, nogil=True)
def search(mover, waiter, waiter_held, alpha, beta, ply, last_capture, ctx):
    """Fail-soft alpha-beta of (mover, waiter) (in table form) in the window (alpha, beta).
    ``waiter_held`` is the waiter's holdings when the caller knows them (the parent's move
    generation works them out), else `compiled.UNKNOWN_HELD`.

    Returns (score, lowest path index of a repetition the score relied on, or MAX_PLY).
    ``ply`` is the path index of this position; ``last_capture`` the path index of the
    latest position reached by a capture (-1 if none): only positions before it can repeat.

    Children are generated as plain bitboards, each then brought to its table form and
    looked up in the table first (enhanced transposition cut-off) at positions with more
    than ``ETC_EMPTY`` empty cells (at least ``TABLE_EMPTY``); from ``MOBILITY_EMPTY``
    empty cells on, moves are ordered by the opponent's number of replies (fewest first),
    below it by the opponent's open cells. A window that needs a win in 1 is answered by
    the scan for a move that leaves no reply, without searching a move; positions with
    fewer than ``TABLE_EMPTY`` empty cells skip the table.
    """
    # The arrays come as addresses (`buffers`), made arrays again here: an array passed in
    # as an argument would be reference-counted (an atomic add and subtract each) at every
    # node, which took a fifth of the search's time.
    rules, at, tt_rows, control_size = ctx
    t = compiled.tables_at(rules)
    tt = numba.carray(compiled.u64_at(at[0]), (tt_rows, 3))
    control = numba.carray(compiled.i64_at(at[1]), (control_size,))
    path_m = numba.carray(compiled.u64_at(at[2]), (MAX_PLY,))
    path_w = numba.carray(compiled.u64_at(at[3]), (MAX_PLY,))
    cell_buf = numba.carray(compiled.i64_at(at[4]), (MAX_PLY, MAX_MOVES))
    m_buf = numba.carray(compiled.u64_at(at[5]), (MAX_PLY, MAX_MOVES))
    w_buf = numba.carray(compiled.u64_at(at[6]), (MAX_PLY, MAX_MOVES))
    cap_buf = numba.carray(compiled.i64_at(at[7]), (MAX_PLY, MAX_MOVES))
    order_buf = numba.carray(compiled.i64_at(at[8]), (MAX_PLY, MAX_MOVES))
    history = numba.carray(compiled.i64_at(at[9]), (64,))
    killers = numba.carray(compiled.i64_at(at[10]), (MAX_PLY, 2))
    state = numba.carray(compiled.i64_at(at[11]), (STATE_SLOTS,))
    deadline = numba.carray(compiled.f64_at(at[12]), (1,))
    work_buf = numba.carray(compiled.u64_at(at[13]), (MAX_PLY + 1, WORKSPACE))
    row_log = numba.carray(compiled.i64_at(at[14]), (ROW_LOG_HEAD + ROW_LOG_ROWS,))
    state[NODES] += 1
    nodes_before = state[NODES]
    if ply > state[MAXDEPTH]:
        state[MAXDEPTH] = ply
    if (state[NODES] & CLOCK_EVERY) == 0:
        # the threads of one analysis share the node budget and stop together
        control[CONTROL_NODES + state[THREAD]] = state[NODES]
        total = 0
        for k in range(CONTROL_NODES, control.shape[0]):
            total += control[k]
        if control[STOP] or total >= state[NODE_LIMIT] or clock_now(total, ply) >= deadline[0]:
            state[ABORTED] = 1
            control[STOP] = 1
        # the table grows as it fills (two threads growing at once only lose entries)
        if tt_fill(tt) >= TABLE_GROW_AT:
            tt_grow(tt)
    if state[ABORTED] or ply >= MAX_PLY - 1:
        state[ABORTED] = 1
        return 0, MAX_PLY
    path_m[ply] = mover
    path_w[ply] = waiter
    # a repetition of the path: a draw in the game with repetition (see docs/solver.md)
    for i in range(last_capture):
        if path_m[i] == mover and path_w[i] == waiter:
            return 0, i
    empty = compiled.popcount(t.full & ~(mover | waiter))
    use_table = empty >= TABLE_EMPTY
    children_in_table = empty > state[ETC_EMPTY]
    entry, data = -1, U64(0)
    if use_table:
        entry, data = tt_find(tt, mover, waiter)
    tt_best = -1
    if entry >= 0:
        lo = data_lo(data)
        hi = data_hi(data)
        if lo >= beta or lo == hi:
            return lo, MAX_PLY
        if hi <= alpha:
            return hi, MAX_PLY
        tt_best = data_move(data)
    # every position scores at most a win in 1 (a finished game: a loss in 0)
    if alpha >= WIN_SCORE - 1:
        return WIN_SCORE - 1, MAX_PLY
    cells = cell_buf[ply]
    ms = m_buf[ply]
    ws = w_buf[ply]
    caps = cap_buf[ply]
    order = order_buf[ply]
    work = work_buf[ply]
    # raw children: ws[i] the stones of the side that moved, ms[i] the opponent's after capture
    if ply >= 2:
        # the mover's groups as the grandparent's workspace holds them, where only the
        # stone of its move has come since (found afresh otherwise: a capture between)
        count = compiled.children_from(mover, waiter, waiter_held, t, work, work_buf[ply - 2], cells, ws, ms)
    else:
        count = compiled.children_knowing(mover, waiter, waiter_held, t, work, cells, ws, ms)
    if count == 0:
        if use_table:
            tt_store(tt, mover, waiter, -WIN_SCORE, -WIN_SCORE, -1, 0, state, row_log)
        return -WIN_SCORE, MAX_PLY
    # a game not over lasts at least 2 more plies if lost
    if beta <= -(WIN_SCORE - 2):
        return -(WIN_SCORE - 2), MAX_PLY
    mobility = state[MOBILITY] != 0 and empty >= state[MOBILITY_EMPTY]
    stones = compiled.popcount(waiter)
    # a test that needs a win in 1 (a win has an odd remoteness: the next best is a win
    # in 3) is settled by looking for a move that leaves the opponent no reply, without
    # searching a move: the depth bound of a remoteness test
    needs_win_in_1 = alpha >= WIN_SCORE - 3
    for i in range(count):
        # the cells the opponent may play after the move: a superset of their replies
        held = work[AFTER_HELD + i]  # the mover's holdings after the move
        unheld = t.full & ~(ws[i] | ms[i]) & ~held
        open_cells = unheld
        if t.reentry:
            open_cells |= t.full & ~(ws[i] | ms[i]) & compiled.neighbours(ms[i], t.nbr)
        no_reply = open_cells == U64(0)
        if needs_win_in_1 and not no_reply and not (unheld & ~compiled.neighbours(ms[i], t.nbr)):
            # no open cell away from the opponent's stones (a legal create): count the replies
            no_reply = compiled.legal_knowing(ms[i], ws[i], held, t, work_buf[ply + 1]) == U64(0)
        if no_reply:
            # the opponent has no move: a win in 1, the best score there is
            if use_table:
                tt_store(tt, mover, waiter, WIN_SCORE - 1, WIN_SCORE - 1, cells[i], 0, state, row_log)
            return WIN_SCORE - 1, MAX_PLY
        if needs_win_in_1:
            continue
        order[i] = (64 - compiled.popcount(open_cells)) << 24 if state[MOBILITY] and not mobility else 0
        m, w, symmetry = table_pair_symmetry(ms[i], ws[i], t, state[CANON_EMPTY])
        if symmetry:
            work[AFTER_HELD + i] = compiled.transform(held, symmetry, t)  # in the table form too
        ms[i] = m
        ws[i] = w
        if children_in_table:
            tt_prefetch(tt, m, w)  # the look-ups below then overlap their waits for memory
    if needs_win_in_1:
        # no move wins at once, so a win takes at least 3 plies
        return WIN_SCORE - 3, MAX_PLY
    for i in range(count):
        caps[i] = 1 if compiled.popcount(ms[i]) < stones else 0
        key = order[i] + min(history[cells[i]], (1 << 19)) + (1 << 20 if caps[i] else 0)
        if cells[i] == killers[ply, 0]:
            key += FIRST_KILLER
        elif cells[i] == killers[ply, 1]:
            key += SECOND_KILLER
        if cells[i] == tt_best:
            key += TABLE_MOVE
        child, child_data = -1, U64(0)
        if children_in_table:
            child, child_data = tt_find(tt, ms[i], ws[i])
        if child >= 0:
            child_hi = data_hi(child_data)
            bound = from_child(child_hi)  # the child's upper bound is our lower bound
            if bound >= beta:
                return bound, MAX_PLY
            if child_hi < 0:
                key += PROVED_CHILD  # a proved loss for the opponent: try it first
            elif data_lo(child_data) > 0:
                key -= PROVED_CHILD  # a proved win for the opponent: try it last
        order[i] = key
    if mobility:
        # fewest replies first (the game ends when the side to move has none), counted
        # once no child's stored bound has cut the node off
        after = work_buf[ply + 1]  # the next ply's workspace (one view per node, not per child)
        for i in range(count):
            replies = compiled.legal_knowing(ms[i], ws[i], work[AFTER_HELD + i], t, after)
            order[i] += (64 - compiled.popcount(replies)) << 24
    best = -INF
    best_cell = -1
    rep = MAX_PLY
    a = alpha
    for k in range(count):
        # selection sort step: the best remaining move
        j = k
        for i in range(k + 1, count):
            if order[i] > order[j]:
                j = i
        if j != k:
            cells[k], cells[j] = cells[j], cells[k]
            ms[k], ms[j] = ms[j], ms[k]
            ws[k], ws[j] = ws[j], ws[k]
            caps[k], caps[j] = caps[j], caps[k]
            order[k], order[j] = order[j], order[k]
            work[AFTER_HELD + k], work[AFTER_HELD + j] = work[AFTER_HELD + j], work[AFTER_HELD + k]
        child_last = ply + 1 if caps[k] else last_capture
        s, r = search(ms[k], ws[k], work[AFTER_HELD + k], to_child(beta), to_child(a), ply + 1, child_last, ctx)
        if state[ABORTED]:
            return 0, MAX_PLY
        v = from_child(s)
        if r < rep:
            rep = r
        if v > best:
            best = v
            best_cell = cells[k]
            if v > a:
                a = v
                if v >= beta:
                    history[cells[k]] += 1
                    if killers[ply, 0] != cells[k]:
                        killers[ply, 1] = killers[ply, 0]
                        killers[ply, 0] = cells[k]
                    break
    if rep >= ply and use_table:
        lo = best if best > alpha else -INF
        hi = best if best < beta else INF
        tt_store(tt, mover, waiter, lo, hi, best_cell,
                 log2_work(state[NODES] - nodes_before), state, row_log)
    return best, rep


@njit(cache=True)
def tt_preload(tt, movers, waiters, scores, work, state, row_log):
    """Store exact scores (proved before, e.g. read from a file) in the table, each with
    the work estimate ``work``; an entry already present keeps its bounds (the tighter
    ones win) and takes the larger work."""
    for i in range(movers.shape[0]):
        s = int(scores[i])
        tt_store(tt, movers[i], waiters[i], s, s, -1, work, state, row_log)


@njit(cache=True, inline="always")
def _proved_entry(tt, i, min_work, below_work):
    """Whether row ``i`` holds an exact entry (lo == hi) of work in [min_work, below_work),
    not taken before (`tt_proved`)."""
    d = tt[i, 2]
    if not ((tt[i, 1] ^ d) & USED):
        return False
    work = data_work(d)
    return data_lo(d) == data_hi(d) and min_work <= work < below_work and not (d & TAKEN)


@njit(cache=True)
def tt_proved(tt, rows, min_work, below_work, take_work):
    """The exact entries of the first ``rows`` rows whose work estimate lies in
    [min_work, below_work), leaving out those taken before: (movers, waiters, scores,
    work, rows) as the table keys them. Those of at least ``take_work`` are marked taken
    (TAKEN), so that later calls leave them out. One compiled pass counts them and a
    second collects them, with no whole-table temporaries (on a full 1 GB table about a
    tenth of a second, BENCHMARKS.md)."""
    count = 0
    for i in range(rows):
        if _proved_entry(tt, i, min_work, below_work):
            count += 1
    found = _proved_arrays(count)
    k = 0
    for i in range(rows):
        if k < count and _proved_entry(tt, i, min_work, below_work):
            _collect_proved(tt, i, k, found, take_work)
            k += 1
    return found[0][:k], found[1][:k], found[2][:k], found[3][:k], found[4][:k]


@njit(cache=True)
def tt_proved_rows(tt, rows, min_work, below_work, take_work):
    """`tt_proved` of the given ``rows`` only (distinct rows in use: those the row logs noted)."""
    found = _proved_arrays(rows.shape[0])
    k = 0
    for i in rows:
        if _proved_entry(tt, i, min_work, below_work):
            _collect_proved(tt, i, k, found, take_work)
            k += 1
    return found[0][:k], found[1][:k], found[2][:k], found[3][:k], found[4][:k]


@njit(cache=True, inline="always")
def _proved_arrays(most):
    return (np.empty(most, np.uint64), np.empty(most, np.uint64), np.empty(most, np.int16), np.empty(most, np.int8),
            np.empty(most, np.int64))


@njit(cache=True, inline="always")
def _collect_proved(tt, i, k, found, take_work):
    """Put row ``i``'s entry as the ``k``-th of ``found`` (`_proved_arrays`); take it if its
    work is at least ``take_work``."""
    movers, waiters, scores, works, at = found
    d = tt[i, 2]
    m = tt[i, 0] ^ d
    ww = tt[i, 1] ^ d
    movers[k] = m
    waiters[k] = ww & ~USED
    scores[k] = data_lo(d)
    works[k] = data_work(d)
    at[k] = i
    if data_work(d) >= take_work:
        d |= TAKEN
        tt[i, 0] = m ^ d
        tt[i, 1] = ww ^ d
        tt[i, 2] = d


@njit(cache=True)
def two_ply(black, white, white_to_move, t):
    """Each legal move of the side to move (ascending cells) and what it leads to within
    two plies: 1 a win at once (the opponent has no reply), 2 a move after which the
    opponent can win at once, 0 neither. (The natural games of puzzle generation, where
    the search cannot say more: `solver.puzzles.natural_game`.)"""
    n = t.n
    cells = np.empty(n, np.int64)
    blacks = np.empty(n, U64)
    whites = np.empty(n, U64)
    replies = np.empty(n, np.int64)
    reply_blacks = np.empty(n, U64)
    reply_whites = np.empty(n, U64)
    count = compiled.children(black, white, white_to_move, t, cells, blacks, whites)
    kinds = np.zeros(count, np.int64)
    for i in range(count):
        if compiled.is_terminal(blacks[i], whites[i], not white_to_move, t):
            kinds[i] = 1
            continue
        k = compiled.children(blacks[i], whites[i], not white_to_move, t, replies, reply_blacks, reply_whites)
        for j in range(k):
            if compiled.is_terminal(reply_blacks[j], reply_whites[j], white_to_move, t):
                kinds[i] = 2
                break
    return cells[:count], kinds
