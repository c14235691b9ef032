"""Compiled kernels of the Smallholder solver (numba): the breadth-first bookkeeping,
the retrograde and the cycle test, on a forward graph in CSR form.

Imported only when a solve starts, so that loading the CLI never loads numba.

*Visited sets* are sorted ``uint64`` arrays of entries ``key << id_bits | id``: a
position's key and its id (the order in which the breadth-first walk met it), one word
per position. *States* are one ``int16`` per position: -1 while undecided, else
``remoteness << 1 | won`` (``won``: the side to move wins).
"""

from __future__ import annotations

import numpy as np
from numba import njit

U64 = np.uint64
UNDECIDED = -1


@njit(cache=True)
def resolve_children(packed, edge_bits, visited, id_bits, next_id, child_ids):  # type: ignore[no-untyped-def]
    """Ids of one ply's children.

    ``packed`` holds ``child key << edge_bits | edge number``, sorted. A child found in
    ``visited`` gets its id; the others get new ids from ``next_id`` on, one per
    distinct key in ascending key order. Writes ``child_ids[edge number]`` and returns
    the new keys' visited entries (sorted).
    """
    edge_mask = (U64(1) << U64(edge_bits)) - U64(1)
    fresh = np.empty(len(packed), dtype=np.uint64)
    count = 0
    j = 0  # position in visited: every later key is at or after it
    size = len(visited)
    i = 0
    while i < len(packed):
        key = packed[i] >> U64(edge_bits)
        # gallop, then bisect, to the first visited entry with a key >= key
        probe = U64(key) << U64(id_bits)
        step = 1
        low = j
        high = j
        while high < size and visited[high] < probe:
            low = high + 1
            high = j + step
            step *= 2
        if high > size:
            high = size
        while low < high:
            mid = (low + high) // 2
            if visited[mid] < probe:
                low = mid + 1
            else:
                high = mid
        j = low
        if j < size and (visited[j] >> U64(id_bits)) == key:
            found = np.int64(visited[j] & ((U64(1) << U64(id_bits)) - U64(1)))
        else:
            found = next_id + count
            fresh[count] = probe | U64(found)
            count += 1
        while i < len(packed) and (packed[i] >> U64(edge_bits)) == key:
            child_ids[np.int64(packed[i] & edge_mask)] = found
            i += 1
    return fresh[:count].copy()


#: Bits of one digit of `radix_sort` (2,048 buckets: the counts stay in the first-level cache).
RADIX_BITS = 11


@njit(cache=True, nogil=True)
def radix_sort(keys, scratch, low_bit):  # type: ignore[no-untyped-def]
    """Sort ``keys`` in place by their bits from ``low_bit`` up, keeping the order of
    keys equal there (least-significant-digit radix sort, `RADIX_BITS` a pass, ``scratch``
    as long as ``keys``). Keys whose lower bits already ascend within each group of
    equal upper bits (an edge number) come out fully sorted. Several times faster than
    numpy's comparison sort, and it releases the interpreter lock."""
    n = len(keys)
    top = np.uint64(0)
    for i in range(n):
        top |= keys[i]
    span = 0
    while low_bit + span < 64 and (top >> np.uint64(low_bit + span)) != np.uint64(0):
        span += 1
    passes = -(-span // RADIX_BITS)
    mask = np.uint64((1 << RADIX_BITS) - 1)
    counts = np.zeros((passes, 1 << RADIX_BITS), dtype=np.int64)
    for i in range(n):
        k = keys[i] >> np.uint64(low_bit)
        for p in range(passes):
            counts[p, np.intp(k & mask)] += 1
            k >>= np.uint64(RADIX_BITS)
    source = keys
    target = scratch
    for p in range(passes):
        running = 0
        for d in range(1 << RADIX_BITS):
            c = counts[p, d]
            counts[p, d] = running
            running += c
        shift = np.uint64(low_bit + p * RADIX_BITS)
        for i in range(n):
            d = np.intp((source[i] >> shift) & mask)
            target[counts[p, d]] = source[i]
            counts[p, d] += 1
        source, target = target, source
    if passes % 2:
        keys[:] = scratch


@njit(cache=True)
def merge_into(merged, count, fresh):  # type: ignore[no-untyped-def]
    """Merge the sorted ``fresh`` into the sorted ``merged[:count]`` in place (``merged``
    has room for both; no entry in common), from the back."""
    i = count - 1
    j = len(fresh) - 1
    k = count + len(fresh) - 1
    while j >= 0:
        if i >= 0 and merged[i] > fresh[j]:
            merged[k] = merged[i]
            i -= 1
        else:
            merged[k] = fresh[j]
            j -= 1
        k -= 1


@njit(cache=True)
def degrees_to_offsets(degrees):  # type: ignore[no-untyped-def]
    """In place: ``degrees[:-1]`` (moves per id; the last slot spare) become the CSR
    offsets (``offsets[v]`` = moves of the ids before ``v``)."""
    running = 0
    for v in range(len(degrees) - 1):
        count = degrees[v]
        degrees[v] = running
        running += count
    degrees[len(degrees) - 1] = running


@njit(cache=True)
def retrograde_level(offsets, children, state, level):  # type: ignore[no-untyped-def]
    """Decide every position of remoteness ``level``; returns how many.

    A position is won in ``level`` when it has a move to a position lost in fewer,
    lost in ``level`` when every move reaches a position won in fewer (positions decided
    at ``level`` itself do not count yet). Run for level 0, 1, ... until a level
    decides nothing; what stays undecided is a draw (play can go on forever).
    """
    decided = 0
    for v in range(len(state)):
        if state[v] != UNDECIDED:
            continue
        all_won = True
        lost_child = False
        for e in range(offsets[v], offsets[v + 1]):
            s = state[children[e]]
            if s == UNDECIDED or (s >> 1) >= level:
                all_won = False
            elif (s & 1) == 0:
                lost_child = True
                break
        if lost_child:
            state[v] = (level << 1) | 1
            decided += 1
        elif all_won:
            state[v] = level << 1
            decided += 1
    return decided


@njit(cache=True)
def reaches_cycle(offsets, children):  # type: ignore[no-untyped-def]
    """Per position, whether some line of play from it goes on forever (exact).

    The positions from which every line ends are peeled off: a position is peeled once
    all its moves lead to peeled positions (Kahn's algorithm). Sweeps run from the last
    id to the first, so that in one sweep a position sees the positions the walk met
    after it (most moves lead there) already peeled; sweeps repeat until one peels
    nothing. What is never peeled reaches a cycle.
    """
    count = len(offsets) - 1
    peeled = np.zeros(count, dtype=np.bool_)
    changed = True
    while changed:
        changed = False
        for v in range(count - 1, -1, -1):
            if peeled[v]:
                continue
            done = True
            for e in range(offsets[v], offsets[v + 1]):
                if not peeled[children[e]]:
                    done = False
                    break
            if done:
                peeled[v] = True
                changed = True
    return ~peeled


#: `longest_lines_forward` marks: not visited yet, on the walk's current path.
_UNSEEN = -2
_ON_PATH = -3


@njit(cache=True)
def longest_lines_forward(offsets, children):  # type: ignore[no-untyped-def]
    """Per position, the most plies any line of play from it can last, whoever plays
    what (exact; int32); -1 where a line can go on forever (it reaches a cycle). The
    same as `solver.graph.longest_lines` on the reversed graph, here by one iterative
    depth-first walk of the forward graph.

    A move to a position on the current path closes a cycle, so every position on the
    path from there reaches it (-1); a finished position's longest line is one more than
    its children's longest, -1 if any child's is.
    """
    n = len(offsets) - 1
    longest = np.full(n, _UNSEEN, dtype=np.int32)
    best = np.zeros(n, dtype=np.int32)
    stack = np.empty(n, dtype=np.int32)
    next_edge = np.empty(n, dtype=np.int64)
    for root in range(n):
        if longest[root] != _UNSEEN:
            continue
        top = 0
        stack[0] = root
        next_edge[0] = offsets[root]
        longest[root] = _ON_PATH
        while top >= 0:
            v = stack[top]
            i = next_edge[top]
            if i < offsets[v + 1]:
                next_edge[top] = i + 1
                c = children[i]
                line = longest[c]
                if line == _UNSEEN:
                    longest[c] = _ON_PATH
                    best[c] = 0
                    top += 1
                    stack[top] = c
                    next_edge[top] = offsets[c]
                elif line == _ON_PATH or line == -1:
                    best[v] = -1
                elif best[v] >= 0 and line + 1 > best[v]:
                    best[v] = line + 1
            else:
                longest[v] = best[v]
                top -= 1
                if top >= 0:
                    p = stack[top]
                    if best[v] < 0:
                        best[p] = -1
                    elif best[p] >= 0 and best[v] + 1 > best[p]:
                        best[p] = best[v] + 1
    return longest
