"""One row of attention flow at every layer, for one pinned token (docs/methods.md §3.3).

Exact, like ``FlowSolver.layer``, but the n max flows of a row (one per input token) go
through ``_maxflow_row.sinks_max_flow``: a greedy flow first, which settles the sink when it
meets an upper bound, and push-relabel (on the reversed graph) only for the sinks it does not
settle. The bounds:

- the sink's in-capacity ``sum_a Â_1[a, j]`` and the source's out-capacity ``sum_k Â_l[i, k]``;
- layer by layer: no more than ``u_m[a]`` can reach node (m, a), with ``u_{l-1} = Â_l[i]`` and
  ``u_{m-1}[b] = sum_a min(u_m[a], Â_m[a, b])`` (what enters b comes over its edges, each
  carrying at most what its upper end gets), so ``F[i, j] <= sum_a min(u_1[a], Â_1[a, j])``.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from .flow import FlowSolver, _workers, in_threads


def upper_bounds(cap: np.ndarray, layer: int, i: int) -> np.ndarray:
    """``(n,)`` upper bounds on the max flows from (layer, i) to every input token; cap ``(L, n, n)``."""
    reach = cap[layer - 1, i]  # u_{layer-1}: what each node one layer down can get at most
    for m in range(layer - 1, 1, -1):
        reach = np.minimum(reach[:, None], cap[m - 1]).sum(axis=0)
    layered = np.minimum(reach[:, None], cap[0]).sum(axis=0)
    return np.minimum(np.minimum(cap[0].sum(axis=0), cap[layer - 1, i].sum()), layered)


def reversed_stack(solver: FlowSolver, layer: int) -> tuple[np.ndarray, np.ndarray]:
    """The graph of layers 0..layer with every edge turned round, as the kernel reads a graph: capacities
    ``(layer, n, n)`` with ``rev[k] = cap[layer - 1 - k].T`` (node (m, a) is (layer - m, a)) and their support,
    the solver's with rows and columns swapped (first/last column of a row <-> first/last row of a column).
    Max flow from (layer, j) to (0, i) there is F[i, j] of the original."""
    layers = slice(layer - 1, None, -1)  # layer - 1 down to 0
    return solver.turned[solver.n_layers - layer :], np.ascontiguousarray(solver.support[[2, 3, 0, 1]][:, layers])


def row_flows(
    solver: FlowSolver,
    i: int,
    layers: list[int],
    report: Callable[[int, int], None] | None = None,
    workers: int | None = None,
) -> tuple[np.ndarray, int]:
    """Unnormalised max flows ``(len(layers), n)`` from (layer, i) to every input token, and how
    many of the ``(layer >= 3, j)`` pairs the greedy flow settled without push-relabel.

    Layers 1 and 2 are closed forms (``FlowSolver.row``). Deeper layers run in chunks of sinks
    on threads (the kernel releases the GIL); ``report(done, total)`` counts chunks, and an
    exception from it (a cancel) stops the chunks not yet started.
    """
    from . import _maxflow_row  # compiled on first use (cached on disk afterwards)

    n = solver.n
    out = np.zeros((len(layers), n))
    workers = workers or _workers()
    tasks = []
    for k, layer in enumerate(layers):
        if layer <= 2:
            out[k] = solver.row(layer, i)
            continue
        upper = upper_bounds(solver.cap, layer, i)
        rev = reversed_stack(solver, layer)
        for part in range(workers):
            sinks = np.arange(part, n, workers)  # interleaved: neighbouring sinks cost alike
            tasks.append((k, layer, sinks, np.ascontiguousarray(upper[sinks]), rev))

    def run(task):
        _, layer, sinks, upper, (rev, rev_support) = task
        return _maxflow_row.sinks_max_flow(solver.cap, solver.support, rev, rev_support, layer, i, sinks, upper)

    settled = 0
    for done, (task, result) in enumerate(zip(tasks, in_threads(run, tasks, workers), strict=True)):
        out[task[0], task[2]] = result[0]
        settled += int(result[1].sum())
        if report is not None:
            report(done + 1, len(tasks))
    return out, settled
