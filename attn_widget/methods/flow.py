"""Attention flow (Abnar & Zuidema 2020), docs/methods.md §3, exact.

Layered graph: node (m, i) is token i after layer m (m = 0 is the input). The edge
(m, a) -> (m - 1, b) has capacity Â_m[a, b], the residual-augmented attention of layer
m. Flow from (l, i) to (0, j) is the max flow between the two nodes; row i of layer l
is then normalised over j. Reversing every edge and swapping source and sink gives the
same numbers, so this is also the flow "from input j up to (l, i)".

Layers 1 and 2 have closed forms: F1 = Â_1, and at layer 2 every middle node has a
single parent, so F2[i, j] = sum_k min(Â_2[i, k], Â_1[k, j]). Deeper layers run the
compiled push-relabel kernel of ``_maxflow`` once per (i, j) pair, rows in parallel.
"""

from __future__ import annotations

import functools
import operator
import os
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar

import numpy as np
import torch

from .normalize import row_normalize
from .registry import Comparison, register
from .rollout import residual_augment

T = TypeVar("T")
R = TypeVar("R")

Progress = Callable[[int, int], None]  # (rows done, rows in all)


def flow(
    att: torch.Tensor,
    residual: float = 0.5,
    layers: Iterable[int] | None = None,
    *,
    normalize: bool = True,
    progress: Progress | None = None,
) -> torch.Tensor:
    """Attention flow from every node of the asked layers to every input token.

    att: ``(L, n, n)`` head-averaged attention, ``att[l - 1]`` being layer l.
    layers: layer numbers 1..L to compute (default: all), in the order wanted.
    normalize: divide each row by its sum (Abnar & Zuidema's flow); ``False`` returns
        the raw max-flow values, which lie between rollout and ``min(1, Â_1[:, j].sum())``.
    progress: called as ``progress(done, total)`` with counts of source rows.

    Returns ``(len(layers), n, n)`` float64 (``(L, n, n)`` by default): row i of entry k
    is the flow from token i after layer ``layers[k]`` to each input token. Exact up to
    float64 rounding (about 1e-15). Interrupting (KeyboardInterrupt) leaves nothing behind.
    """
    capacities = residual_augment(att, residual)  # checks the layer stack
    wanted = layer_numbers(layers, att.shape[0])
    return FlowSolver(capacities).compute(wanted, normalize=normalize, progress=progress)


def layer_numbers(layers: Iterable[int] | None, n_layers: int) -> list[int]:
    """Validate 1-based layer numbers: whole numbers 1..n_layers (numpy and torch integers too);
    floats and bools are refused rather than rounded."""
    if layers is None:
        return list(range(1, n_layers + 1))
    if isinstance(layers, (str, bytes)) or not isinstance(layers, Iterable):
        raise TypeError(f"layers must be a list of layer numbers 1..{n_layers}; got {layers!r}.")
    wanted: list[int] = []
    bad = []
    for layer in layers:
        try:
            number = None if isinstance(layer, (bool, np.bool_)) else operator.index(layer)
        except TypeError:
            number = None
        if number is None or not 1 <= number <= n_layers:
            bad.append(layer)
        else:
            wanted.append(number)
    if bad:
        raise ValueError(f"layers must be whole layer numbers 1..{n_layers}; got {', '.join(map(repr, bad))}.")
    return wanted


class FlowSolver:
    """Max flows on one stack of capacities ``(L, n, n)`` (float64, row = upper node)."""

    def __init__(self, capacities: torch.Tensor):
        from . import _maxflow  # compiled on first use (cached on disk afterwards)

        self._kernel = _maxflow
        self.cap = np.ascontiguousarray(capacities.detach().cpu().numpy(), dtype=np.float64)
        self.support = _maxflow.support_bounds(self.cap)
        self.n_layers, self.n = self.cap.shape[0], self.cap.shape[1]

    @functools.cached_property
    def turned(self) -> np.ndarray:
        """``(L, n, n)`` every layer transposed (its columns as rows), the last layer first: ``turned[k] =
        cap[L - 1 - k].T``, so the graph of layers 0..l turned round is the slice ``turned[L - l:]``, no copy
        (``flow_row.reversed_stack``, which a pinned row reads once per layer). Made on first use."""
        # torch's copy goes in blocks: 3x numpy's strided one (0.65 against 2.1 s for 12 layers at 2,048 tokens).
        return torch.from_numpy(self.cap).flip(0).transpose(1, 2).contiguous().numpy()

    def compute(self, layers: list[int], *, normalize: bool = True, progress: Progress | None = None) -> torch.Tensor:
        """``(len(layers), n, n)`` flows for the given 1-based layers."""
        total = sum(self.n for layer in layers if layer >= 3)  # rows that run the kernel
        done = 0
        out = []
        for layer in layers:

            def report(rows: int, offset: int = done) -> None:
                if progress is not None:
                    progress(offset + rows, total)

            out.append(self.layer(layer, report))
            done += self.n if layer >= 3 else 0
        result = torch.from_numpy(np.stack(out)) if out else torch.zeros(0, self.n, self.n, dtype=torch.float64)
        return row_normalize(result) if normalize else result

    def row(self, layer: int, i: int) -> np.ndarray:
        """Unnormalised max flows ``(n,)`` from node (layer, i) to every input token."""
        if layer == 1:
            return self.cap[0, i].copy()
        if layer == 2:
            return _two_layer_flow(self.cap[1][i : i + 1], self.cap[0])[0]
        upper = np.minimum(self.cap[0].sum(axis=0), self.cap[layer - 1, i].sum())
        return self._kernel.row_max_flow(self.cap, self.support, layer, i, upper)

    def layer(self, layer: int, report: Callable[[int], None] | None = None) -> np.ndarray:
        """Unnormalised max flows ``(n, n)`` from the nodes of one layer to the inputs."""
        if layer == 1:
            return self.cap[0].copy()
        if layer == 2:
            return _two_layer_flow(self.cap[1], self.cap[0])
        # A pair may stop once its flow reaches what the sink can take in or the source send out.
        into_sink = self.cap[0].sum(axis=0)
        out_of_source = self.cap[layer - 1].sum(axis=1)
        upper = np.minimum(into_sink[None, :], out_of_source[:, None])
        out = np.empty((self.n, self.n))

        def row(i: int) -> np.ndarray:
            return self._kernel.row_max_flow(self.cap, self.support, layer, i, upper[i])

        for i, values in enumerate(in_threads(row, range(self.n))):
            out[i] = values
            if report is not None:
                report(i + 1)
        return out


def _two_layer_flow(upper: np.ndarray, lower: np.ndarray, chunk: int = 64) -> np.ndarray:
    """F[i, j] = sum_k min(upper[i, k], lower[k, j]): each middle node has one parent."""
    n = upper.shape[0]
    out = np.empty((n, lower.shape[1]))
    for start in range(0, n, chunk):
        block = upper[start : start + chunk, :, None]
        out[start : start + chunk] = np.minimum(block, lower[None, :, :]).sum(axis=1)
    return out


def in_threads(run: Callable[[T], R], tasks: Iterable[T], workers: int | None = None) -> Iterator[R]:
    """``run(task)`` for each task, in order, on one thread per core (the flow kernels release the GIL).
    When the caller stops early (Ctrl-C, an error or a cancel in its progress callback), the tasks not yet
    started are cancelled."""
    pool = ThreadPoolExecutor(max_workers=workers or _workers())
    try:
        yield from pool.map(run, tasks)
    finally:
        pool.shutdown(wait=True, cancel_futures=True)


def _workers() -> int:
    """Threads for the flow kernel: the cores this process may use."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def _flow_cost(analysis) -> str:
    n = analysis.capture.n_tokens
    return f"{n} tokens need {n * n:,} max-flow problems for each layer."


def register_flow(id: str, label: str, description: str, compute, done, **options):
    """Register a flow-like method: sent with the widget for short inputs, computed layer by layer
    on request otherwise. compute: (analysis, layers or None, progress) -> (len(layers), n, n)."""
    return register(
        id,
        label,
        description,
        lambda analysis, _settings: compute(analysis, None, False),
        cumulative=True,
        layers=compute,
        done=done,
        on_request=_flow_cost,
        **options,
    )


def flow_compare_rows(receptive_field: str):
    """``(analysis, t, layers=None) -> (len(layers), n)``: row t of the flow (all layers by default),
    computed for that row only; t None: the mean row of the whole flow."""

    def rows(analysis, t, layers=None):
        if t is None:
            return analysis.flow(receptive_field=receptive_field, progress=False).mean(-2)
        return analysis.flow_rows(t, receptive_field=receptive_field, layers=layers)

    return rows


register_flow(
    "flow",
    "Attention flow",
    "Abnar & Zuidema (2020): the maximum flow from each position after this layer to each input token, "
    "with 0.5·A + 0.5·I as capacities, normalised per row. Exact.",
    lambda analysis, layers, progress: analysis.flow(layers=layers, receptive_field="none", progress=progress),
    explain=(
        "Treats the layers as a network of pipes whose widths are the attention weights (plus the residual) and "
        "asks how much can flow from each input token to each token after this layer. An edge means: the largest "
        "amount that can flow from the input token to the right token, as a share of its row; the colour goes "
        "from pale (little) to dark (the most; the legend gives the scale). Definition: F_l[i, j] = maxflow(input"
        " j → token i after layer l) with capacities 0.5·Ā + 0.5·I, rows normalised."
    ),
    done=lambda analysis: analysis.flow_layers_done("attention"),
    graph="attention_step",  # the capacities
    compare=Comparison(rows=flow_compare_rows("none")),
    row=flow_compare_rows("none"),
    row_instant=(1, 2),
    group="Through the layers",
    hint="The most that can flow from each input token to each token, with layers as pipes.",
    trust=(
        "Shares rollout's assumptions and measures a bottleneck, not an amount, so it often spreads importance evenly"
        " over many tokens. In a decoder it favours the first tokens. Check it on your input with compare()."
    ),
)
