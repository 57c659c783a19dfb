"""Attention flow: docs/methods.md §3.6, against a brute-force networkx oracle."""

from __future__ import annotations

import networkx as nx
import numpy as np
import pytest
import torch
from test_methods_graph import random_attention

from attn_widget import methods
from attn_widget.methods.flow import FlowSolver


def oracle_flow(att: torch.Tensor, residual: float = 0.5) -> np.ndarray:
    """The definition, written independently: one networkx max flow per (layer, i, j),
    edges (m, a) -> (m - 1, b) with capacity 0.5·A + 0.5·I, rows then normalised."""
    layers, n, _ = att.shape
    a_hat = (1 - residual) * (att / att.sum(-1, keepdim=True)) + residual * torch.eye(n, dtype=att.dtype)
    raw = np.zeros((layers, n, n))
    for top in range(1, layers + 1):
        graph = nx.DiGraph()
        for m in range(1, top + 1):
            for a in range(n):
                for b in range(n):
                    if a_hat[m - 1, a, b] > 0:
                        graph.add_edge((m, a), (m - 1, b), capacity=float(a_hat[m - 1, a, b]))
        for i in range(n):
            for j in range(n):
                if graph.has_node((0, j)) and nx.has_path(graph, (top, i), (0, j)):
                    raw[top - 1, i, j] = nx.maximum_flow_value(graph, (top, i), (0, j))
    return raw


def sliding_window_attention(layers: int, n: int, window: int, seed: int) -> torch.Tensor:
    g = torch.Generator().manual_seed(seed)
    mask = methods.admissible_keys(n, causal=True, window=window)
    logits = torch.randn(layers, n, n, generator=g, dtype=torch.float64) * 2
    return logits.masked_fill(~mask, float("-inf")).softmax(-1)


CASES = {
    "encoder 3x5": random_attention(3, 5, seed=1),
    "encoder 5x7": random_attention(5, 7, seed=2),
    "decoder 6x8": random_attention(6, 8, causal=True, seed=3),
    "peaked encoder 4x6": random_attention(4, 6, seed=4) ** 4,
    "sliding window 5x9": sliding_window_attention(5, 9, window=3, seed=5),
}


@pytest.mark.parametrize("name", list(CASES))
def test_flow_equals_the_oracle(name):
    att = CASES[name]
    raw = oracle_flow(att)
    ours = methods.flow(att, normalize=False)
    assert np.abs(ours.numpy() - raw).max() < 1e-9
    normalised = raw / np.where(raw.sum(-1, keepdims=True) == 0, 1, raw.sum(-1, keepdims=True))
    assert np.abs(methods.flow(att).numpy() - normalised).max() < 1e-9


def test_layer_one_is_the_residual_augmented_attention():
    att = random_attention(4, 10, seed=6)
    assert torch.allclose(methods.flow(att, layers=[1])[0], methods.residual_augment(att)[0], atol=1e-15)


@pytest.mark.parametrize("causal", [False, True])
def test_rollout_and_sink_inflow_bound_the_raw_flow(causal):
    att = random_attention(7, 12, causal=causal, seed=7)
    raw = methods.flow(att, normalize=False)
    rolled = methods.rollout(att)
    a_hat = methods.residual_augment(att)
    upper = torch.clamp(a_hat[0].sum(0), max=1.0)
    assert (rolled <= raw + 1e-12).all()
    assert (raw <= upper + 1e-12).all()
    assert raw.sum(-1).max() > 1.0  # why Abnar & Zuidema normalise


def test_decoder_flow_is_lower_triangular_and_rows_sum_to_one():
    flow = methods.flow(random_attention(6, 10, causal=True, seed=8))
    assert torch.all(flow.triu(diagonal=1) == 0)
    assert torch.allclose(flow.sum(-1), torch.ones(6, 10, dtype=torch.float64), atol=1e-12)


def test_reversal_invariance_on_arbitrary_capacities():
    """Max flow from s to t equals max flow from t to s with every edge reversed; also
    exercises the kernel on capacities that are not row-stochastic."""
    g = torch.Generator().manual_seed(9)
    cap = torch.rand(5, 7, 7, generator=g, dtype=torch.float64) * (torch.rand(5, 7, 7, generator=g) > 0.3)
    forward = FlowSolver(cap).compute([5], normalize=False)[0]
    reverse = FlowSolver(cap.flip(0).transpose(-1, -2)).compute([5], normalize=False)[0]
    assert torch.allclose(forward, reverse.T, atol=1e-12)


def test_layers_selects_and_orders():
    att = random_attention(5, 6, seed=10)
    full = methods.flow(att)
    picked = methods.flow(att, layers=[4, 2])
    assert torch.allclose(picked, full[[3, 1]], atol=1e-15)
    with pytest.raises(ValueError, match=r"whole layer numbers 1\.\.5; got 0, 6\."):
        methods.flow(att, layers=[0, 6])


def test_progress_is_reported_and_an_interrupt_leaves_no_state():
    att = random_attention(4, 6, seed=11)
    seen = []
    reference = methods.flow(att, progress=lambda done, total: seen.append((done, total)))
    assert seen[-1] == (12, 12) and seen == sorted(seen)  # rows of layers 3 and 4

    def interrupt(done, total):
        if done == 3:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        methods.flow(att, progress=interrupt)
    assert torch.equal(methods.flow(att), reference)


def test_an_interrupt_cancels_the_rows_not_yet_started():
    solver = FlowSolver(methods.residual_augment(random_attention(4, 60, seed=3)))
    kernel, calls = solver._kernel, []

    class Counting:  # the compiled kernel, counting the rows it is asked for
        def row_max_flow(self, *args):
            calls.append(args[4])
            return kernel.row_max_flow(*args)

    solver._kernel = Counting()

    def interrupt(done):
        if done == 3:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        solver.layer(4, interrupt)
    assert 3 <= len(calls) < 20, f"{len(calls)} of 60 rows ran after the interrupt at row 3"


def test_residual_weight():
    att = random_attention(3, 5, seed=12)
    assert (
        np.abs(
            methods.flow(att, residual=0.3).numpy()
            - oracle_flow(att, residual=0.3) / oracle_flow(att, residual=0.3).sum(-1, keepdims=True)
        ).max()
        < 1e-9
    )
