"""Compiled max flows from one source to many sinks: a greedy flow first, push-relabel after (numba).

The graph and the push-relabel of ``_maxflow`` (docs/methods.md §3.3). For each sink (0, j):

1. Greedy: depth-first augmenting paths that only go down the layers (a blocking flow of the
   layered graph, Dinic's first phase), each path carrying its bottleneck. This is a feasible
   flow, so its value is a lower bound; it costs at most one pass over the arcs it reaches.
   Each node tries token j's node first (the residual half of every layer runs down that
   column), then the others in order: after layer 5 of MiniLM at 512 tokens this settles
   2.4x more sinks than index order (benchmarks/RESULTS.md). Scans skip dead ends through a
   union-find per layer, so they do not re-read the arcs into the many nodes filled early. After
   a push the walk goes on below the highest edge it filled, not from the source again (each
   level keeps what its path can still carry), and only the edges given flow are cleared after.
   It runs only while it pays: after its first 16 sinks, only if it settled a quarter of them
   (it costs about a quarter of a push-relabel; it settles 5-13% of the sinks after layers 3-4
   of MiniLM at 512 tokens and 70-100% after layers 5-6).
2. The value is settled when that lower bound meets an upper bound: ``upper`` (the smallest of
   the sink's in-capacity, the source's out-capacity and the layer-by-layer bound of
   ``flow_row.upper_bounds``), or a cut the greedy flow fills (every edge into the sink, or every
   edge out of the source). In deep layers the sink's in-capacity is usually the max flow and
   the greedy flow reaches it (benchmarks/RESULTS.md: most sinks after layer 4 of MiniLM).
3. Otherwise the pair runs ``_maxflow.pair_max_flow`` from scratch on the reversed graph (every
   edge turned round, source and sink swapped: the same max flow), where the source is the input
   token: measured 1.2-5x faster than the forward direction after layers 3 and 4, and faster than
   going on from the greedy flow, whose excess then has to find its way back, and faster than one
   push-relabel carried from sink to sink (forward, each sink starting from the last one's preflow:
   0.7x after layers 4-5, benchmarks/RESULTS.md).
"""

from __future__ import annotations

import numba as nb
import numpy as np

from ._maxflow import _clear, _ranges, pair_max_flow

# numba's on-disk cache of ``sinks_max_flow`` holds the compiled ``pair_max_flow`` too and is keyed on this file
# alone: after editing ``_maxflow.py``, touch this file (or clear __pycache__), or the old kernel keeps running.


@nb.njit(cache=True, nogil=True)
def _alive(parent, m, b):  # pragma: no cover - compiled
    """The first token >= b whose node at layer m is not a dead end (``parent``: a union-find over
    the tokens of each layer, dead nodes pointing one right; path halving)."""
    while parent[m, b] != b:
        parent[m, b] = parent[m, parent[m, b]]
        b = parent[m, b]
    return b


@nb.njit(cache=True, nogil=True)
def _greedy(
    cap, flow, source_flow, sink_res, l, i, j, lo, hi, bound, cur, parent, room, path, touched
):  # pragma: no cover
    """Blocking flow from (l, i) down to the sink (0, j), forward arcs only; returns its value.

    flow[m, a, b] (2 <= m <= l - 1) and source_flow[k] receive the flow; sink_res[a] is what the sink edge
    of (1, a) has left. touched: (k,) int64, touched[0] = how many flat indices into ``flow`` of edges given
    flow follow (k - 1 at most; then it stops counting, and the caller clears every row). Each node tries
    token j's node first, then the others in order, skipping dead ends by ``parent`` ((l + 1, n + 1), so a
    scan never reads the arcs into them: after layers 5-6 most of the layer below is dead early).
    cur: (l + 1, n), the next token to try (-1: token j). room: (l + 1,), what the path from the source
    down to path[m] can still carry, so after a push the walk goes on below the highest edge the push
    filled instead of reading the whole path again from the source (thousands of paths per sink after
    layers 5-6: 1.3-1.5x, benchmarks/RESULTS.md).
    """
    n = cap.shape[1]
    for m in range(0, l + 1):
        for a in range(lo[m], hi[m] + 2):
            parent[m, a] = a
        for a in range(lo[m], hi[m] + 1):
            cur[m, a] = -1
    touched[0] = 0
    total = 0.0
    m = l
    path[l] = i
    room[l] = np.inf
    left = 0.0
    while True:
        a = path[m]
        if m == 1:
            r = sink_res[a]
            if r > 0.0:  # a path from the source to the sink: push its bottleneck
                d = min(r, room[1])
                if d <= 0.0:  # rounding left room[] stale: walk the path again from the source
                    m = l
                    continue
                top = 0  # the highest edge the push fills
                for mm in range(l, 1, -1):
                    u, w = path[mm], path[mm - 1]
                    used = source_flow[w] if mm == l else flow[mm, u, w]
                    if used + d >= cap[mm - 1, u, w]:
                        f = cap[mm - 1, u, w]
                        if top == 0:
                            top = mm
                    else:
                        f = used + d
                    room[mm - 1] -= d
                    if mm == l:
                        source_flow[w] = f
                    else:
                        if used == 0.0 and touched[0] < len(touched) - 1:
                            touched[0] += 1
                            touched[touched[0]] = (mm * n + u) * n + w
                        flow[mm, u, w] = f
                sink_res[a] = 0.0 if d >= r else r - d
                total += d
                if total >= bound:
                    return total
                if top:
                    m = top  # its upper node's scan moves past the filled edge
                elif d < r:
                    m = l  # nothing filled (rounding): start again at the source
                continue  # (or the sink edge is full: (1, a) is a dead end next)
            parent[1, a] = a + 1  # a dead end
            m += 1
            continue
        first = lo[m - 1]
        last = hi[m - 1]
        b = cur[m, a]
        found = False
        if b == -1:  # token j's node first: the residual half of every layer runs down that column
            if first <= j <= last and parent[m - 1, j] == j:
                left = cap[m - 1, a, j] - (source_flow[j] if m == l else flow[m, a, j])
                if left > 0.0:
                    found = True
                    b = j
            if not found:
                b = first
        if not found:
            b = _alive(parent, m - 1, b)
            while b <= last:
                if b != j:
                    left = cap[m - 1, a, b] - (source_flow[b] if m == l else flow[m, a, b])
                    if left > 0.0:
                        found = True
                        break
                b = _alive(parent, m - 1, b + 1)
            cur[m, a] = b
        if found:
            path[m - 1] = b
            room[m - 1] = min(room[m], left)
            m -= 1
        else:
            parent[m, a] = a + 1  # a dead end
            if m == l:
                return total
            m += 1


@nb.njit(cache=True, nogil=True)
def _unflow(flow, touched, l, lo, hi):  # pragma: no cover - compiled
    """Zero the edges the greedy flow used: those listed in ``touched``, or every row when the list ran out."""
    if touched[0] < len(touched) - 1:
        flat = flow.reshape(-1)
        for k in range(1, touched[0] + 1):
            flat[touched[k]] = 0.0
    else:
        _clear(flow, l, lo, hi)


@nb.njit(cache=True, nogil=True)
def _saturated(cap, source_flow, sink_res, l, i, lo, hi):  # pragma: no cover - compiled
    """Whether the greedy flow fills every edge into the sink or every edge out of the source (both cuts)."""
    into_sink = True
    for a in range(lo[1], hi[1] + 1):
        if sink_res[a] > 0.0:
            into_sink = False
            break
    if into_sink:
        return True
    out_of_source = True
    for k in range(lo[l - 1], hi[l - 1] + 1):
        if source_flow[k] < cap[l - 1, i, k]:
            out_of_source = False
            break
    return out_of_source


@nb.njit(cache=True, nogil=True)
def sinks_max_flow(cap, support, rev, rev_support, l, i, sinks, upper):  # pragma: no cover - compiled
    """Max flows from (l, i) to (0, j) for each j of ``sinks``, l >= 3.

    cap, support: as for ``_maxflow.pair_max_flow``; rev, rev_support: the same for the reversed graph
    of layers 0..l, ``rev[k] = cap[l - 1 - k].T`` (``reversed_stack``). upper:
    ``(len(sinks),)`` an upper bound on each flow (reaching it ends the sink; 0 = known to be 0, skipped).
    Returns ``(2, len(sinks))`` float64: the max flows, and 1 where the greedy flow settled the sink
    (reached ``upper``) without push-relabel. Releases the GIL: chunks of sinks run on threads.
    """
    n = cap.shape[1]
    out = np.zeros((2, len(sinks)))
    ints = np.zeros((6, l * n + 2), np.int64)
    lo = ints[0]
    hi = ints[1]
    flow = np.zeros((l, n, n))  # flow[m]: layer m's edges, 2 <= m <= l - 1
    sink_res = np.zeros(n)
    source_flow = np.zeros(n)
    cur = np.zeros((l + 1, n), np.int64)
    parent = np.zeros((l + 1, n + 1), np.int64)
    room = np.zeros(l + 1)
    path = np.zeros(l + 1, np.int64)
    touched = np.zeros(16 * l * n, np.int64)  # after layer 6 at 512 tokens about 8,000 edges get flow
    tried = 0
    settled_by_greedy = 0
    for s in range(len(sinks)):
        j = sinks[s]
        if upper[s] <= 0.0 or not _ranges(support[0], support[1], support[2], support[3], l, i, j, lo, hi):
            continue
        settled = False
        total = 0.0
        # The greedy flow costs about a quarter of a push-relabel (MiniLM at 512 tokens, layers 3-4), so it
        # pays where it settles more than a quarter of the sinks: after its first 16 it goes on only if so
        # (it settles 5-13% after layers 3-4, 70-100% after 5-6).
        if tried < 16 or 4 * settled_by_greedy >= tried:
            for a in range(lo[1], hi[1] + 1):
                sink_res[a] = cap[0, a, j]
            source_flow[:] = 0.0
            total = _greedy(
                cap, flow, source_flow, sink_res, l, i, j, lo, hi, upper[s], cur, parent, room, path, touched
            )
            settled = total >= upper[s] or _saturated(cap, source_flow, sink_res, l, i, lo, hi)
            _unflow(flow, touched, l, lo, hi)
            tried += 1
            settled_by_greedy += settled
        if not settled:  # push-relabel on the reversed graph, from (0, j) up to (l, i): the same value
            total = pair_max_flow(rev, rev_support, l, j, i, upper[s], flow, ints)
        out[0, s] = total
        out[1, s] = 1.0 if settled else 0.0
    return out
