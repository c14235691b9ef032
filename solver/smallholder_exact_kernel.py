"""Compiled kernel of the exact Smallholder search (see `solver/smallholder_exact.py`).

One call of `search` is one fail-soft alpha-beta search of a window, depth-first to the
end of the game, on scores that encode remoteness (``WIN_SCORE - r`` for a win in ``r``
plies, ``-(WIN_SCORE - r)`` for a loss in ``r``, 0 for a draw), so that the winner
hurries and the loser holds out as in the tables. Positions are (mover, waiter)
bitboards in canonical orientation: the smallest image over the board's symmetries,
colours relative to the side to move (the rules are colour-symmetric, RULES.md 2.7).

Cycles (graph-history interaction): a position met again on the current path scores 0,
and every result carries the lowest path index of a repetition it relied on. A result
is stored in the transposition table only when it relied on no position above it on
the path; such a result is a bound of the position's true value (the proof is in
docs/solver.md), so the table only ever holds path-independent facts.
"""

from __future__ import annotations

import time

import numba
import numpy as np
from numba import njit

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

# state array slots
NODES, ABORTED, NODE_LIMIT, STORED, MAXDEPTH = range(5)


def _progress(nodes: int, depth: int) -> None:
    """Replaced by the driver; called from compiled code about every CLOCK_EVERY nodes."""


PROGRESS = [_progress]


def _tick(nodes: int, depth: int) -> float:
    PROGRESS[0](nodes, depth)
    return time.perf_counter()


@njit(cache=True, inline="always")
def popcount(x):
    x = x - ((x >> U64(1)) & U64(0x5555555555555555))
    x = (x & U64(0x3333333333333333)) + ((x >> U64(2)) & U64(0x3333333333333333))
    x = (x + (x >> U64(4))) & U64(0x0F0F0F0F0F0F0F0F)
    return int((x * U64(0x0101010101010101)) >> U64(56))


@njit(cache=True, inline="always")
def lowest_index(x):
    return popcount((x & (~x + U64(1))) - U64(1))


@njit(cache=True)
def groups_of(stones, nb, orays, pairs, gstones, gsight, ghold, gborder):
    """Flood-fill ``stones`` into groups; fills the per-group arrays, returns the count."""
    count = 0
    rest = stones
    while rest:
        low = rest & (~rest + U64(1))
        group = low
        frontier = low
        reach = U64(0)
        while frontier:
            grown = U64(0)
            f = frontier
            while f:
                grown |= nb[lowest_index(f)]
                f &= f - U64(1)
            reach |= grown
            frontier = grown & rest & ~group
            group |= frontier
        rest &= ~group
        for d in range(6):
            gsight[count, d] = U64(0)
        f = group
        while f:
            c = lowest_index(f)
            for d in range(6):
                gsight[count, d] |= orays[d, c]
            f &= f - U64(1)
        held = U64(0)
        for p in range(pairs.shape[0]):
            held |= gsight[count, pairs[p, 0]] & gsight[count, pairs[p, 1]]
        gstones[count] = group
        ghold[count] = held
        gborder[count] = reach & ~group
        count += 1
    return count


@njit(cache=True)
def generate(own, enemy, full, nb, orays, pairs, rules, work, out_cell, out_mover, out_waiter, out_capture):
    """Children of (own to move, enemy): out_mover/out_waiter are the child's side to
    move (the enemy, after captures) and the other side; returns the number of moves.
    ``rules``: groups, adjacent, capture option indices (games/smallholder/options.py)."""
    gs, gsi, gh, gb, es, esi, eh, eb = work
    n_own = groups_of(own, nb, orays, pairs, gs, gsi, gh, gb)
    n_en = groups_of(enemy, nb, orays, pairs, es, esi, eh, eb)
    empty = full & ~(own | enemy)
    enemy_hold = U64(0)
    for g in range(n_en):
        enemy_hold |= eh[g]
    groups_rule, adjacent, capture = rules[0], rules[1], rules[2]
    playable = empty & ~enemy_hold
    if capture == 2:
        for g in range(n_own):
            playable |= gb[g] & empty
    live_count = 0
    smallest_live = 1 << 30
    smallest_all = 1 << 30
    for g in range(n_own):
        size = popcount(gs[g])
        if size < smallest_all:
            smallest_all = size
        if gb[g] & playable:
            live_count += 1
            if size < smallest_live:
                smallest_live = size
    smallest = smallest_live if adjacent <= 1 else smallest_all
    every = adjacent == 1 or adjacent == 3
    count = 0
    creates = 0
    # first pass: creates
    f = playable
    while f:
        cell = lowest_index(f)
        f &= f - U64(1)
        if not (nb[cell] & own):
            out_cell[count] = cell
            out_capture[count] = 0
            out_mover[count] = enemy
            out_waiter[count] = own | (U64(1) << U64(cell))
            count += 1
            creates += 1
    if groups_rule == 4:
        extend_allowed = creates == 0
    else:
        number = live_count if (groups_rule == 1 or groups_rule == 3) else n_own
        if groups_rule <= 1:
            extend_allowed = number >= 2
        else:
            extend_allowed = number >= 2 or creates == 0
    if not extend_allowed:
        return count
    f = playable
    while f:
        cell = lowest_index(f)
        f &= f - U64(1)
        near = nb[cell]
        if not (near & own):
            continue
        any_ok = False
        all_ok = True
        for g in range(n_own):
            if gs[g] & near:
                if popcount(gs[g]) == smallest:
                    any_ok = True
                else:
                    all_ok = False
        if not (all_ok if every else any_ok):
            continue
        held = U64(0)
        s0 = orays[0, cell]
        s1 = orays[1, cell]
        s2 = orays[2, cell]
        s3 = orays[3, cell]
        s4 = orays[4, cell]
        s5 = orays[5, cell]
        for g in range(n_own):
            if gs[g] & near:
                s0 |= gsi[g, 0]
                s1 |= gsi[g, 1]
                s2 |= gsi[g, 2]
                s3 |= gsi[g, 3]
                s4 |= gsi[g, 4]
                s5 |= gsi[g, 5]
            else:
                held |= gh[g]
        sight = (s0, s1, s2, s3, s4, s5)
        for p in range(pairs.shape[0]):
            held |= sight[pairs[p, 0]] & sight[pairs[p, 1]]
        if capture == 0:
            captured = enemy & held
        else:
            captured = U64(0)
            for g in range(n_en):
                if not (es[g] & ~held):
                    captured |= es[g]
        out_cell[count] = cell
        out_capture[count] = 1 if captured else 0
        out_mover[count] = enemy & ~captured
        out_waiter[count] = own | (U64(1) << U64(cell))
        count += 1
    return count


@njit(cache=True, inline="always")
def image(mask, table, s):
    out = U64(0)
    chunks = table.shape[1]
    for j in range(chunks):
        out |= table[s, j, int((mask >> U64(10 * j)) & U64(1023))]
    return out


@njit(cache=True)
def canonical(mover, waiter, symtab):
    """The (mover, waiter) image smallest in (mover, waiter) order over the symmetries."""
    best_m = mover
    best_w = waiter
    for s in range(1, symtab.shape[0]):
        m = image(mover, symtab, s)
        if m > best_m:
            continue
        w = image(waiter, symtab, s)
        if m < best_m or w < best_w:
            best_m = m
            best_w = w
    return best_m, best_w


@njit(cache=True, inline="always")
def slot_of(m, w, mask):
    h = (m * U64(0x9E3779B97F4A7C15)) ^ (w * U64(0xC2B2AE3D27D4EB4F))
    h ^= h >> U64(29)
    return int(h & mask) & ~3


@njit(cache=True)
def tt_find(tt_m, tt_w, m, w):
    """Index of the entry of (m, w), or -1."""
    mask = U64(tt_m.shape[0] - 1)
    base = slot_of(m, w, mask)
    ww = w | USED
    for i in range(base, base + 4):
        if tt_w[i] == ww and tt_m[i] == m:
            return i
    return -1


@njit(cache=True)
def tt_store(tt_m, tt_w, tt_lo, tt_hi, tt_move, tt_work, m, w, lo, hi, move, work, state):
    mask = U64(tt_m.shape[0] - 1)
    base = slot_of(m, w, mask)
    ww = w | USED
    victim = -1
    least = 1 << 30
    for i in range(base, base + 4):
        if tt_w[i] == ww and tt_m[i] == m:
            if lo > tt_lo[i]:
                tt_lo[i] = lo
            if hi < tt_hi[i]:
                tt_hi[i] = hi
            if move >= 0:
                tt_move[i] = move
            if work > tt_work[i]:
                tt_work[i] = work
            return
        if tt_w[i] == U64(0):
            if least > -1:
                least = -1
                victim = i
        elif tt_work[i] < least:
            least = tt_work[i]
            victim = i
    if tt_w[victim] == U64(0):
        state[STORED] += 1
    tt_m[victim] = m
    tt_w[victim] = ww
    tt_lo[victim] = lo
    tt_hi[victim] = hi
    tt_move[victim] = move
    tt_work[victim] = work


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


@njit(cache=True)
def search(mover, waiter, alpha, beta, ply, last_capture, ctx):
    """Fail-soft alpha-beta of (mover, waiter) (canonical) in the window (alpha, beta).

    Returns (score, lowest path index of a repetition the score relied on, or MAX_PLY).
    ``ply`` is the path index of this position; ``last_capture`` the path index of the
    latest position reached by a capture (-1 if none): only positions before it can repeat.
    """
    (full, nb, orays, pairs, rules, symtab, tt_m, tt_w, tt_lo, tt_hi, tt_move, tt_work,
     path_m, path_w, work, cell_buf, m_buf, w_buf, cap_buf, order_buf, history, state, deadline) = ctx
    state[NODES] += 1
    nodes_before = state[NODES]
    if ply > state[MAXDEPTH]:
        state[MAXDEPTH] = ply
    if (state[NODES] & CLOCK_EVERY) == 0:
        if state[NODES] >= state[NODE_LIMIT] or clock_now(state[NODES], ply) > deadline[0]:
            state[ABORTED] = 1
    if state[ABORTED] or ply >= MAX_PLY - 1:
        state[ABORTED] = 1
        return 0, MAX_PLY
    path_m[ply] = mover
    path_w[ply] = waiter
    # a repetition of the path: a draw in the game with repetition (see docs/solver.md)
    for i in range(last_capture):
        if path_m[i] == mover and path_w[i] == waiter:
            return 0, i
    entry = tt_find(tt_m, tt_w, mover, waiter)
    tt_best = -1
    if entry >= 0:
        lo = tt_lo[entry]
        hi = tt_hi[entry]
        if lo >= beta or lo == hi:
            return int(lo), MAX_PLY
        if hi <= alpha:
            return int(hi), MAX_PLY
        tt_best = int(tt_move[entry])
    # every position scores at most a win in 1 (a finished game: a loss in 0)
    if alpha >= WIN_SCORE - 1:
        return WIN_SCORE - 1, MAX_PLY
    count = generate(mover, waiter, full, nb, orays, pairs, rules, work,
                     cell_buf[ply], m_buf[ply], w_buf[ply], cap_buf[ply])
    if count == 0:
        tt_store(tt_m, tt_w, tt_lo, tt_hi, tt_move, tt_work, mover, waiter,
                 -WIN_SCORE, -WIN_SCORE, -1, 0, state)
        return -WIN_SCORE, MAX_PLY
    # a game not over lasts at least 2 more plies if lost
    if beta <= -(WIN_SCORE - 2):
        return -(WIN_SCORE - 2), MAX_PLY
    cells = cell_buf[ply]
    ms = m_buf[ply]
    ws = w_buf[ply]
    caps = cap_buf[ply]
    order = order_buf[ply]
    # canonical children, a table look-up each (cut at once if one settles it), ordering
    for i in range(count):
        cm, cw = canonical(ms[i], ws[i], symtab)
        ms[i] = cm
        ws[i] = cw
        key = min(history[cells[i]], (1 << 19)) + (1 << 20 if caps[i] else 0)
        if cells[i] == tt_best:
            key += 1 << 40
        child = tt_find(tt_m, tt_w, cm, cw)
        if child >= 0:
            bound = from_child(int(tt_hi[child]))  # the child's upper bound is our lower bound
            if bound >= beta:
                return bound, MAX_PLY
            if tt_hi[child] < 0:
                key += 1 << 42  # a proved loss for the opponent: try it first
            elif tt_lo[child] > 0:
                key -= 1 << 42  # a proved win for the opponent: try it last
        order[i] = key
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
        child_last = ply + 1 if caps[k] else last_capture
        s, r = search(ms[k], ws[k], to_child(beta), to_child(a), ply + 1, child_last, ctx)
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
                    break
    if rep >= ply:
        lo = best if best > alpha else -INF
        hi = best if best < beta else INF
        tt_store(tt_m, tt_w, tt_lo, tt_hi, tt_move, tt_work, mover, waiter,
                 lo, hi, best_cell, log2_work(state[NODES] - nodes_before), state)
    return best, rep
