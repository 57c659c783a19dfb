"""Compiled max-flow kernel for attention flow (numba).

The graph of docs/methods.md §3: nodes (m, a) for layers m = 0..l and tokens a; an
edge (m, a) -> (m - 1, b) with capacity ``cap[m - 1, a, b]`` (the residual-augmented
attention of layer m, row = upper node). One max flow from the source (l, i) to the sink
(0, j). Only layers 1..l-1 hold nodes of our own: the source's edges are saturated at
the start, and the sink's in-edges are a per-node residual ``sink_res``.

Algorithm: push-relabel (Goldberg & Tarjan) in its first phase (a maximum preflow is enough
for the flow value), with current arcs, the gap heuristic and periodic global relabelling by
breadth-first search from the sink. Active nodes are a stack, not a queue: the node that got
excess last is discharged first, so a push goes on down the path it started instead of
spreading a layer at a time over hundreds of small excesses (1.3x against FIFO on a pinned row
at 512 tokens, benchmarks/RESULTS.md). Two things keep the arcs read per max flow down (MiniLM
at 512 tokens):

- A node's up arcs (back along edges that carry flow into it) are kept as a list of the upper
  tokens whose edge carries flow: a few (about 3 per node at the end after layer 4) of the n
  that a dense scan reads. A push down onto an edge without flow adds it; a push back that
  empties it takes it out (swapped with the last), so the list is exactly the residual up arcs.
- Each layer keeps its nodes at each height as a bitset (heights below ``_BIT_HEIGHTS``; the
  rare higher ones are found by reading the heights), so a scan down visits only the nodes at
  the target height, in token order, a machine word of 64 tokens at a time: 96% of the arcs a
  dense scan read led to another height (after layer 4 at 512 tokens: 14k of 323k per sink;
  push-relabel 1.1-1.7x faster, benchmarks/RESULTS.md). Each layer also counts its nodes at each
  height, and a relabel reads its bound down from the counts (the lowest height above the
  target that the layer below holds) instead of reading the arcs again; the up arcs it takes
  from the scan and the list. The bound may be below the exact one, which keeps the labelling
  valid (on MiniLM the values came out bit for bit the same).

Exact in floating point: every push moves min(excess, residual) and saturation sets the flow to
the capacity itself, so the result differs from the true max flow only by rounding in sums
(about 1e-15).

Node v = (m - 1) * n + a for 1 <= m <= l - 1. ``flow[m, a, b]`` is the flow on
(m, a) -> (m - 1, b) for 2 <= m <= l - 1. Scans down read a row of ``cap`` and ``flow`` in order;
the few up arcs come from the lists, so no transposed copy is kept (a second copy cost each push
a write to another cache line: 1.2x slower, benchmarks/RESULTS.md).
"""

from __future__ import annotations

import numba as nb
import numpy as np

try:  # LLVM's cttz; numba has no public count of trailing zeros, so a newer numba may move this one
    from numba.cpython.unsafe.numbers import trailing_zeros as _cttz
except ImportError:  # pragma: no cover - the numba in use has it
    _cttz = None  # type: ignore[assignment]

# Heights with a bitset of their nodes per layer. Heights stay low: on MiniLM at 512 tokens a bitset for
# every height was no faster than for the first 8 (benchmarks/RESULTS.md).
_BIT_HEIGHTS = 64


@nb.njit(inline="always")
def _bit_set(bits, m, h, a, words, bit_heights):  # pragma: no cover - compiled
    """Node (m, a) is at height h (nothing to mark when h has no bitset)."""
    if h < bit_heights:
        bits[_bit_row(m, h, words, bit_heights) + (a >> 6)] |= np.uint64(1) << np.uint64(a & 63)


@nb.njit(inline="always")
def _bit_clear(bits, m, h, a, words, bit_heights):  # pragma: no cover - compiled
    """Node (m, a) is no longer at height h."""
    if h < bit_heights:
        bits[_bit_row(m, h, words, bit_heights) + (a >> 6)] &= ~(np.uint64(1) << np.uint64(a & 63))


# De Bruijn's multiply-and-look-up: the index of the lowest set bit of a non-zero word, portably.
_DE_BRUIJN = 0x03F79D71B4CB0A89
# Bit i's product has a distinct top 6 bits (a permutation of 0..63); the index inverts it.
_DE_BRUIJN_INDEX = np.argsort([((1 << i) * _DE_BRUIJN) % (1 << 64) >> 58 for i in range(64)])


@nb.njit(inline="always")
def _lowest_bit_portable(x):  # pragma: no cover - compiled
    """The index of x's lowest set bit (x a non-zero uint64): ``x & -x`` times De Bruijn's word, top 6 bits."""
    return _DE_BRUIJN_INDEX[((x & (~x + np.uint64(1))) * np.uint64(_DE_BRUIJN)) >> np.uint64(58)]


@nb.njit(inline="always")
def _lowest_bit_cttz(x):  # pragma: no cover - compiled
    """The index of x's lowest set bit (x a non-zero uint64), by LLVM's cttz."""
    return int(_cttz(x))  # type: ignore[call-arg]  # an intrinsic: numba passes its context


_lowest_bit = _lowest_bit_portable if _cttz is None else _lowest_bit_cttz


@nb.njit(inline="always")
def _next_bit(bits, row, words, a):  # pragma: no cover - compiled
    """The first token >= a whose bit is set in the bitset of ``words`` words at ``row``; 64 * words if none."""
    k = a >> 6
    if k >= words:
        return words << 6
    x = bits[row + k] & (np.uint64(0xFFFFFFFFFFFFFFFF) << np.uint64(a & 63))
    while x == 0:
        k += 1
        if k >= words:
            return words << 6
        x = bits[row + k]
    return (k << 6) + _lowest_bit(x)


@nb.njit(inline="always")
def _bit_row(m, h, words, bit_heights):  # pragma: no cover - compiled
    """Where the bitset of layer m's nodes at height h (< bit_heights) starts."""
    return ((m - 1) * bit_heights + h) * words


@nb.njit(cache=True, nogil=True)
def _ranges(first_col, last_col, first_row, last_row, l, i, j, lo, hi):  # pragma: no cover - compiled
    """Per layer, the interval of tokens that the source reaches and that reach the sink.

    Intervals are hulls, so they may hold a few useless nodes but never miss one; in a
    decoder they are [j, i], which is where most of the saving comes from.
    Returns False when the sink is unreachable (the flow is 0).
    """
    n = first_col.shape[1]
    lo[l] = i
    hi[l] = i
    for m in range(l, 0, -1):
        r_lo = n
        r_hi = -1
        for a in range(lo[m], hi[m] + 1):
            r_lo = min(r_lo, first_col[m - 1, a])
            r_hi = max(r_hi, last_col[m - 1, a])
        if r_hi < r_lo:
            return False
        lo[m - 1] = r_lo
        hi[m - 1] = r_hi
    if j < lo[0] or j > hi[0]:
        return False
    lo[0] = j
    hi[0] = j
    for m in range(1, l + 1):
        r_lo = n
        r_hi = -1
        for b in range(lo[m - 1], hi[m - 1] + 1):
            r_lo = min(r_lo, first_row[m - 1, b])
            r_hi = max(r_hi, last_row[m - 1, b])
        lo[m] = max(lo[m], r_lo)
        hi[m] = min(hi[m], r_hi)
        if hi[m] < lo[m]:
            return False
    return True


@nb.njit(cache=True, nogil=True)
def _global_relabel(cap, flow, sink_res, l, n, lo, hi, height, at_height, queue, big):  # pragma: no cover
    """Exact residual distances to the sink by breadth-first search; ``big`` = unreachable; ``at_height``
    counted again. Reads columns (rare: about one in ten pairs of a pinned row runs one)."""
    at_height[:] = 0
    for m in range(1, l):
        for a in range(lo[m], hi[m] + 1):
            height[(m - 1) * n + a] = big
    tail = 0
    for a in range(lo[1], hi[1] + 1):
        if sink_res[a] > 0.0:
            height[a] = 1
            queue[tail] = a
            tail += 1
    head = 0
    while head < tail:
        w = queue[head]
        head += 1
        m = w // n + 1
        b = w - (m - 1) * n
        d = height[w] + 1
        if m + 1 <= l - 1:  # down arcs (m + 1, a) -> (m, b) with residual capacity
            base = m * n
            for a in range(lo[m + 1], hi[m + 1] + 1):
                if height[base + a] == big and cap[m, a, b] - flow[m + 1, a, b] > 0.0:
                    height[base + a] = d
                    queue[tail] = base + a
                    tail += 1
        if m >= 2:  # up arcs (m - 1, c) -> (m, b), residual = flow on (m, b) -> (m - 1, c)
            base = (m - 2) * n
            for c in range(lo[m - 1], hi[m - 1] + 1):
                if height[base + c] == big and flow[m, b, c] > 0.0:
                    height[base + c] = d
                    queue[tail] = base + c
                    tail += 1
    for m in range(1, l):
        for a in range(lo[m], hi[m] + 1):
            h = height[(m - 1) * n + a]
            if h < big:
                at_height[m - 1, h] += 1


@nb.njit(cache=True, nogil=True)
def _fill_bits(bits, height, l, n, lo, hi, words, bit_heights):  # pragma: no cover - compiled
    """The height bitsets (``_bit_row``) set from ``height``."""
    bits[:] = 0
    for m in range(1, l):
        for a in range(lo[m], hi[m] + 1):
            _bit_set(bits, m, height[(m - 1) * n + a], a, words, bit_heights)


@nb.njit(cache=True, nogil=True)
def _clear(flow, l, lo, hi):  # pragma: no cover - compiled
    for m in range(2, l):
        for a in range(lo[m], hi[m] + 1):
            flow[m, a, lo[m - 1] : hi[m - 1] + 1] = 0.0


@nb.njit(cache=True, nogil=True)
def _clear_listed(flow, ups, n_ups, l, n, lo, hi):  # pragma: no cover - compiled
    """Zero the edges that carry flow, which are exactly those in the up-arc lists: a few thousand entries
    instead of every row (4 MB a pair after layer 4 at 512 tokens, 1.1x on a pinned row, benchmarks/RESULTS.md)."""
    for m in range(1, l - 1):
        for b in range(lo[m], hi[m] + 1):
            w = (m - 1) * n + b
            for k in range(n_ups[w]):
                flow[m + 1, ups[w, k], b] = 0.0


@nb.njit(cache=True, nogil=True)
def pair_max_flow(cap, support, l, i, j, bound, flow, ints, bit_heights=_BIT_HEIGHTS):  # pragma: no cover
    """Max flow from (l, i) to (0, j) for l >= 3, stopping early once it reaches ``bound``.

    support: (4, L, n) int64 first/last non-zero column of each row, first/last non-zero
    row of each column. flow: (L + 1, n, n) zeros (left zero on return).
    ints: (6, L * n + 2) int64 scratch. Allocates the up-arc lists, ((l - 1) * n, n) int32 (rows
    written only as flow arrives), and the height bitsets, (l - 1) * bit_heights * ceil(n / 64) uint64
    (the heights with a bitset: a test sets fewer, so that scans read the heights too).
    """
    n = cap.shape[1]
    lo = ints[0]
    hi = ints[1]
    if not _ranges(support[0], support[1], support[2], support[3], l, i, j, lo, hi):
        return 0.0
    height = ints[2]
    queue = ints[3]
    active = ints[4]
    current = ints[5]
    excess = np.zeros((l - 1) * n)
    # ups[v, :n_ups[v]]: the upper tokens c whose edge into v carries flow (v's residual up arcs)
    ups = np.empty(((l - 1) * n, n), np.int32)
    n_ups = np.zeros((l - 1) * n, np.int64)
    sink_res = np.zeros(n)
    big = (l - 1) * n + 1  # greater than any residual distance: "cannot reach the sink"
    at_height = np.zeros((l - 1, big + 1), np.int64)  # at_height[m - 1, h]: nodes of layer m at height h
    words = (n + 63) // 64
    bits = np.empty((l - 1) * bit_heights * words, np.uint64)  # the same nodes as bitsets (heights < bit_heights)
    for a in range(lo[1], hi[1] + 1):
        sink_res[a] = cap[0, a, j]
    top = (l - 2) * n
    for k in range(lo[l - 1], hi[l - 1] + 1):
        excess[top + k] = cap[l - 1, i, k]  # the source's edges start saturated
    # Start from height = layer index: a valid labelling while no flow has moved (every
    # arc goes one layer down), and exact when the nodes in range reach the sink, which
    # spares the first breadth-first search.
    for m in range(1, l):
        for a in range(lo[m], hi[m] + 1):
            height[(m - 1) * n + a] = m
        at_height[m - 1, m] = hi[m] - lo[m] + 1
    _fill_bits(bits, height, l, n, lo, hi, words, bit_heights)

    # Stack of active nodes (a node enters when its excess turns positive, so it is there once at most).
    top_of_stack = 0
    for m in range(1, l):
        for a in range(lo[m], hi[m] + 1):
            v = (m - 1) * n + a
            current[v] = 0
            if excess[v] > 0.0 and height[v] < big:
                active[top_of_stack] = v
                top_of_stack += 1
    total = 0.0
    relabels = 0
    # Relabels between global relabellings (measured with the stack: 4 times as many as fast, a quarter 1.4-1.8x slower)
    period = 2 * (l - 1) * n
    while top_of_stack > 0:
        top_of_stack -= 1
        v = active[top_of_stack]
        m = v // n + 1
        a = v - (m - 1) * n
        # Arcs of v: its down arcs (the single arc to the sink at layer 1), then its up arcs
        # (ups[v, :n_ups[v]]); current[v] counts through both.
        n_down = 1 if m == 1 else hi[m - 1] - lo[m - 1] + 1
        down_lo = 0 if m == 1 else lo[m - 1]
        x = excess[v]
        while x > 0.0 and height[v] < big:
            hv = height[v]
            target = hv - 1  # admissible arcs lead exactly one level down
            arc = current[v]
            start = arc
            low = big  # the lowest height a residual up arc reaches among those scanned from start
            if m == 1:
                if arc == 0:
                    r = sink_res[a]
                    if r > 0.0 and hv == 1:
                        d = min(x, r)
                        sink_res[a] = 0.0 if d == r else r - d
                        x -= d
                        total += d
                        if total >= bound:
                            _clear_listed(flow, ups, n_ups, l, n, lo, hi)
                            return total
                    if x > 0.0:
                        arc = 1
            else:
                base = (m - 2) * n
                last = hi[m - 1]
                row = _bit_row(m - 1, target, words, bit_heights)
                b = down_lo + arc
                while True:  # the nodes of the layer below at the target height, from the current arc on
                    if target < bit_heights:
                        b = _next_bit(bits, row, words, b)
                    else:
                        while b <= last and height[base + b] != target:
                            b += 1
                    if b > last:
                        b = last + 1
                        break
                    r = cap[m - 1, a, b] - flow[m, a, b]
                    if r > 0.0:
                        w = base + b
                        d = min(x, r)
                        if flow[m, a, b] == 0.0:
                            ups[w, n_ups[w]] = a
                            n_ups[w] += 1
                        f = cap[m - 1, a, b] if d == r else flow[m, a, b] + d
                        flow[m, a, b] = f
                        x -= d
                        if excess[w] == 0.0:
                            active[top_of_stack] = w
                            top_of_stack += 1
                        excess[w] += d
                        if x == 0.0:
                            break
                    b += 1
                arc = b - down_lo
            if x > 0.0 and arc >= n_down:
                k = arc - n_down
                base = m * n
                while k < n_ups[v]:
                    c = ups[v, k]
                    h = height[base + c]
                    if h == target:
                        f = flow[m + 1, c, a]
                        w = base + c
                        d = min(x, f)
                        left = 0.0 if d == f else f - d
                        flow[m + 1, c, a] = left
                        x -= d
                        if excess[w] == 0.0:
                            active[top_of_stack] = w
                            top_of_stack += 1
                        excess[w] += d
                        if left == 0.0:  # no flow left on that edge: its arc leaves the list
                            n_ups[v] -= 1
                            ups[v, k] = ups[v, n_ups[v]]
                            if x == 0.0:
                                break
                            continue
                        break  # the edge keeps flow, so the push took all of x
                    elif h < low:
                        low = h
                    k += 1
                arc = n_down + k
            current[v] = arc
            if x > 0.0:
                # Relabel: one above the lowest neighbour a residual arc reaches, or lower, which keeps the
                # labelling valid and still raises v. Up, the list (the scan saw the arcs from start on, so
                # only those before it are read again). Down, a bound read from the counts: every arc to
                # the layer below at the target height is full now, and arcs to lower nodes are full (the
                # labelling is valid), so none reaches below the lowest height above target held there.
                if m == 1:
                    if sink_res[a] > 0.0:
                        low = 0
                else:
                    above = target + 1
                    while above < low and at_height[m - 2, above] == 0:
                        above += 1
                    low = min(low, above)
                if start > 0:
                    base = m * n
                    for k in range(max(0, start - n_down)):
                        h = height[base + ups[v, k]]
                        if h < low:
                            low = h
                new = low + 1 if low < big else big
                at_height[m - 1, hv] -= 1
                _bit_clear(bits, m, hv, a, words, bit_heights)
                current[v] = 0
                relabels += 1
                if not at_height[:, hv].any():
                    # Gap: no node is left at height hv, so nothing above it reaches the sink.
                    for mm in range(1, l):
                        for aa in range(lo[mm], hi[mm] + 1):
                            u = (mm - 1) * n + aa
                            if hv < height[u] < big:
                                at_height[mm - 1, height[u]] -= 1
                                _bit_clear(bits, mm, height[u], aa, words, bit_heights)
                                height[u] = big
                    new = big
                height[v] = new
                if new < big:
                    at_height[m - 1, new] += 1
                    _bit_set(bits, m, new, a, words, bit_heights)
        excess[v] = x
        if relabels >= period:
            relabels = 0
            _global_relabel(cap, flow, sink_res, l, n, lo, hi, height, at_height, queue, big)
            _fill_bits(bits, height, l, n, lo, hi, words, bit_heights)
            for mm in range(1, l):
                for aa in range(lo[mm], hi[mm] + 1):
                    current[(mm - 1) * n + aa] = 0
    _clear_listed(flow, ups, n_ups, l, n, lo, hi)
    return total


@nb.njit(cache=True, nogil=True)
def row_max_flow(cap, support, l, i, upper):  # pragma: no cover - compiled
    """Max flows from (l, i) to every input token (n,); ``upper[j]`` bounds pair j (0 = skip).

    Releases the GIL, so rows run in parallel on Python threads.
    """
    n = cap.shape[1]
    L = cap.shape[0]
    out = np.zeros(n)
    flow = np.zeros((L + 1, n, n))
    ints = np.zeros((6, L * n + 2), np.int64)
    for j in range(n):
        if upper[j] > 0.0:
            out[j] = pair_max_flow(cap, support, l, i, j, upper[j], flow, ints)
    return out


@nb.njit(cache=True)
def support_bounds(cap):  # pragma: no cover - compiled
    """(4, L, n) int64: first/last non-zero column of every row, first/last non-zero row of every column
    (n or -1 where there is none). One pass over ``cap`` (L, n, n)."""
    n_layers, n = cap.shape[0], cap.shape[1]
    out = np.empty((4, n_layers, n), np.int64)
    out[0] = n
    out[1] = -1
    out[2] = n
    out[3] = -1
    for m in range(n_layers):
        for a in range(n):
            for b in range(n):
                if cap[m, a, b] > 0:
                    if out[0, m, a] == n:
                        out[0, m, a] = b
                    out[1, m, a] = b
                    if out[2, m, b] == n:
                        out[2, m, b] = a
                    out[3, m, b] = a
    return out
