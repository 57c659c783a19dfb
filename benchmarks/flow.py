"""Attention flow: our exact solver against per-pair reference solvers, side by side.

    .venv/bin/python benchmarks/flow.py            # all sizes (about 10 minutes)
    .venv/bin/python benchmarks/flow.py --quick    # the 12-layer, 32-token comparison only

Prints one markdown table per experiment. Baselines (same capacities 0.5·A + 0.5·I):
- networkx: the definition, one ``maximum_flow_value`` per (layer, i, j) (what Abnar &
  Zuidema's code does), at sizes where it finishes;
- igraph, layer graph: python-igraph's C push-relabel, one ``maxflow_value`` call per
  pair on the graph of layers 0..l, built once per layer (the fastest way we found to
  call it);
- igraph, model graph: one call per pair on the graph of all layers, built once.
Each timing is the best of ``--repeat`` runs; agreement is the largest absolute
difference between unnormalised flow values.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys

import numpy as np
import torch

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

from _common import best_of, machine_line, text_of  # noqa: E402

from attn_widget import methods  # noqa: E402
from attn_widget.methods.flow import FlowSolver, _workers  # noqa: E402


def random_attention(layers: int, n: int, causal: bool = False, seed: int = 0, sharpness: float = 2.0) -> torch.Tensor:
    """Softmax of Gaussian logits (std ``sharpness``): dense, unevenly spread attention."""
    g = torch.Generator().manual_seed(seed)
    logits = torch.randn(layers, n, n, generator=g, dtype=torch.float64) * sharpness
    if causal:
        logits = logits.masked_fill(~torch.ones(n, n, dtype=torch.bool).tril(), float("-inf"))
    return logits.softmax(-1)


def minilm_attention(n: int) -> torch.Tensor:
    """Head-averaged attention of the pretrained MiniLM (6 layers) on an n-token text."""
    from attn_widget import analyze
    from attn_widget.demo import minilm

    model, tokenizer = minilm()
    analysis = analyze(model, text_of(tokenizer, n, 2), tokenizer)
    assert len(analysis.tokens) == n, len(analysis.tokens)
    return analysis.raw().double()


def ours(att: torch.Tensor, layers: list[int] | None = None) -> np.ndarray:
    return methods.flow(att, layers=layers, normalize=False).numpy()


def ours_rows(att: torch.Tensor, layer: int, rows: list[int]) -> np.ndarray:
    solver = FlowSolver(methods.residual_augment(att))
    return np.stack([solver.row(layer, i) for i in rows])


def igraph_flow(att: torch.Tensor, layers: list[int], model_graph: bool, rows: list[int] | None = None) -> np.ndarray:
    import igraph

    cap = methods.residual_augment(att).numpy()
    n_layers, n = cap.shape[0], cap.shape[1]

    def build(top: int):
        edges, capacity = [], []
        for m in range(1, top + 1):
            a, b = np.nonzero(cap[m - 1] > 0)
            edges += list(zip((m * n + a).tolist(), ((m - 1) * n + b).tolist(), strict=True))
            capacity += cap[m - 1][a, b].tolist()
        return igraph.Graph(n=(top + 1) * n, edges=edges, directed=True), capacity

    out = np.zeros((len(layers), n, n))
    full = build(n_layers) if model_graph else None
    for k, layer in enumerate(layers):
        graph, capacity = full if model_graph else build(layer)
        for i in rows if rows is not None else range(n):
            for j in range(n):
                out[k, i, j] = graph.maxflow_value(layer * n + i, j, capacity=capacity)
    return out


def networkx_flow(att: torch.Tensor, layers: list[int], rows: list[int] | None = None) -> np.ndarray:
    import networkx as nx

    cap = methods.residual_augment(att).numpy()
    n = cap.shape[1]
    out = np.zeros((len(layers), n, n))
    for k, layer in enumerate(layers):
        graph = nx.DiGraph()
        for m in range(1, layer + 1):
            for a in range(n):
                for b in range(n):
                    if cap[m - 1, a, b] > 0:
                        graph.add_edge((m, a), (m - 1, b), capacity=float(cap[m - 1, a, b]))
        for i in rows if rows is not None else range(n):
            for j in range(n):
                out[k, i, j] = nx.maximum_flow_value(graph, (layer, i), (0, j))
    return out


@contextlib.contextmanager
def one_thread():
    """Run the flow kernel on a single thread, for a like-for-like comparison with igraph."""
    flow_module = sys.modules["attn_widget.methods.flow"]  # the module, not the function of that name
    saved = flow_module._workers
    flow_module._workers = lambda: 1
    try:
        yield
    finally:
        flow_module._workers = saved


def table(title: str, header: list[str], rows: list[list[str]]) -> None:
    print(f"\n### {title}\n")
    print("| " + " | ".join(header) + " |")
    print("|" + "|".join("---" for _ in header) + "|")
    for row in rows:
        print("| " + " | ".join(row) + " |")


def compare_all_layers(name: str, att: torch.Tensor, repeat: int, with_networkx: bool) -> None:
    layers = list(range(1, att.shape[0] + 1))
    t_ours, f_ours = best_of(repeat, lambda: ours(att))
    results = [[f"attn_widget (exact, {_workers()} threads)", f"{t_ours:.3f}", "1.0x", "reference"]]
    with one_thread():
        t_one, f_one = best_of(repeat, lambda: ours(att))
    results.append(
        ["attn_widget, 1 thread", f"{t_one:.3f}", f"{t_one / t_ours:.1f}x", f"{np.abs(f_one - f_ours).max():.1e}"]
    )
    for label, model_graph in [("igraph, layer graph", False), ("igraph, model graph", True)]:
        t, f = best_of(1, lambda mg=model_graph: igraph_flow(att, layers, mg))
        results.append([label, f"{t:.3f}", f"{t / t_ours:.1f}x", f"{np.abs(f - f_ours).max():.1e}"])
    if with_networkx:
        t, f = best_of(1, lambda: networkx_flow(att, layers))
        results.append(["networkx (definition)", f"{t:.3f}", f"{t / t_ours:.1f}x", f"{np.abs(f - f_ours).max():.1e}"])
    L, n = att.shape[0], att.shape[1]
    table(
        f"{name}: {L} layers, {n} tokens, all layers ({L * n * n} pairs)",
        ["solver", "seconds", "time / ours", "max abs difference"],
        results,
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    print(f"# attention flow benchmark\n\n{machine_line()}")
    methods.flow(random_attention(3, 4))  # compile (or load) the kernel outside the timings

    compare_all_layers("random encoder attention", random_attention(12, 32), args.repeat, with_networkx=False)
    if args.quick:
        return
    compare_all_layers("random decoder attention", random_attention(12, 32, causal=True), args.repeat, False)
    compare_all_layers("MiniLM (pretrained) attention", minilm_attention(32), args.repeat, with_networkx=False)
    compare_all_layers("random encoder attention", random_attention(6, 8), args.repeat, with_networkx=True)

    rows = []
    for n in (64, 128):
        att = random_attention(12, n, seed=n)
        t, _ = best_of(1, lambda a=att: ours(a))
        t_ig, _ = best_of(1, lambda a=att: igraph_flow(a, [12], False, rows=[0, 1]))
        estimate = t_ig / 2 * n * sum(range(1, 13)) / 12  # rows scale linearly; pair cost roughly with depth
        rows.append(
            [f"12 × {n}", f"{12 * n * n:,}", f"{t:.1f}", f"~{estimate:.0f} (extrapolated from 2 rows of layer 12)"]
        )
    table(
        "larger inputs, all layers (random encoder attention)",
        ["layers × tokens", "pairs", "attn_widget s", "igraph, layer graph s"],
        rows,
    )

    rows = []
    for n in (256, 512):
        att = random_attention(12, n, seed=n)
        t, _ = best_of(1, lambda a=att: ours_rows(a, 12, [0]))
        t_ig, _ = best_of(1, lambda a=att: igraph_flow(a, [12], False, rows=[0]))
        rows.append([f"12 × {n}", f"{n}", f"{t:.1f}", f"{t_ig:.1f}", f"{t_ig / t:.1f}x"])
    table(
        "one row: flow from one token after layer 12 to every input token",
        ["layers × tokens", "pairs", "attn_widget s", "igraph, layer graph s", "time / ours"],
        rows,
    )


if __name__ == "__main__":
    main()
