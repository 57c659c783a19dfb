"""One row of attention flow at every layer (methods/flow_row.py, docs/methods.md §3.3): exact against
the per-pair solver of whole layers and against networkx, and the greedy flow's settling checked."""

from __future__ import annotations

import networkx as nx
import numpy as np
import pytest
import torch
from test_methods_flow import CASES, oracle_flow, sliding_window_attention
from test_methods_graph import random_attention
from tiny_models import tiny_model

from attn_widget import analyze, methods
from attn_widget.methods import _maxflow, _maxflow_row
from attn_widget.methods._maxflow import pair_max_flow, support_bounds
from attn_widget.methods.flow import FlowSolver
from attn_widget.methods.flow_row import reversed_stack, row_flows, upper_bounds

WORDS = "the cat sat on the mat and the dog ran to the big red house very quickly"


def solver(att: torch.Tensor) -> FlowSolver:
    return FlowSolver(methods.residual_augment(att))


def networkx_graph(cap: np.ndarray, layer: int) -> nx.DiGraph:
    """The graph of layers 0..layer: an edge (m, a) -> (m - 1, b) for each non-zero ``cap[m - 1, a, b]``."""
    graph = nx.DiGraph()
    for m in range(1, layer + 1):
        for a, b in zip(*np.nonzero(cap[m - 1]), strict=True):
            graph.add_edge((m, int(a)), (m - 1, int(b)), capacity=float(cap[m - 1, a, b]))
    return graph


def networkx_row(cap: np.ndarray, layer: int, i: int) -> np.ndarray:
    """Max flows from (layer, i) to every (0, j), one networkx call each, on capacities ``(L, n, n)``."""
    graph = networkx_graph(cap, layer)
    n = cap.shape[1]
    return np.array(
        [nx.maximum_flow_value(graph, (layer, i), (0, j)) if graph.has_node((0, j)) else 0.0 for j in range(n)]
    )


@pytest.mark.parametrize("name", list(CASES))
def test_every_row_equals_networkx(name):
    att = CASES[name]
    raw = oracle_flow(att)
    flows = solver(att)
    layers = list(range(1, att.shape[0] + 1))
    for i in range(att.shape[1]):
        rows, _ = row_flows(flows, i, layers)
        assert np.abs(rows - raw[:, i]).max() < 1e-12, i


@pytest.mark.parametrize(
    "att",
    [
        random_attention(6, 24, seed=7),
        random_attention(6, 24, causal=True, seed=8),
        random_attention(5, 20, seed=9) ** 3,  # peaked
        sliding_window_attention(5, 20, window=4, seed=10),
        random_attention(6, 40, causal=True, seed=11) ** 2,  # longer: many dead ends for the greedy flow to skip
    ],
    ids=["encoder", "decoder", "peaked", "sliding window", "longer decoder"],
)
def test_every_row_equals_the_whole_layer_solver(att):
    flows = solver(att)
    layers = [3, 5, att.shape[0]]
    whole = np.stack([flows.layer(layer) for layer in layers])
    for i in range(att.shape[1]):
        rows, _ = row_flows(flows, i, layers, workers=2)
        assert np.abs(rows - whole[:, i]).max() < 1e-12, i


def test_greedy_flow_settles_sinks_where_the_bounds_meet_and_push_relabel_does_the_rest():
    att = random_attention(6, 12, seed=2)
    flows = solver(att)
    sinks = np.arange(12)

    def kernel(layer, i):
        upper = upper_bounds(flows.cap, layer, i)
        rev = reversed_stack(flows, layer)
        return _maxflow_row.sinks_max_flow(flows.cap, flows.support, *rev, layer, i, sinks, upper)

    # After layer 6 every sink takes all it can (its in-capacity, or the source's 1) and the greedy flow gets there.
    values, settled = kernel(6, 0)
    assert settled.all()
    assert np.allclose(values, np.minimum(flows.cap[0].sum(axis=0), 1.0), rtol=0, atol=1e-14)
    assert np.abs(values - networkx_row(flows.cap, 6, 0)).max() < 1e-12
    # Row 2 after layer 3: the greedy flow stays below every bound; push-relabel finds the max flows.
    values, settled = kernel(3, 2)
    assert not settled.any()
    assert np.abs(values - networkx_row(flows.cap, 3, 2)).max() < 1e-12
    assert (values < upper_bounds(flows.cap, 3, 2) - 1e-6).any()  # the bound alone would be wrong


def test_greedy_flow_stops_where_it_rarely_settles_and_the_values_stay_exact():
    """After its first 16 sinks the greedy flow goes on only where it settled a quarter of them (it costs about a
    quarter of a push-relabel); the sinks after that run push-relabel alone, with the same values."""
    flows = solver(random_attention(6, 40, seed=2))

    def kernel(layer, sinks):
        upper = upper_bounds(flows.cap, layer, 0)[sinks]
        return _maxflow_row.sinks_max_flow(
            flows.cap, flows.support, *reversed_stack(flows, layer), layer, 0, sinks, upper
        )

    values, settled = kernel(4, np.arange(40))
    assert settled[:16].sum() < 4 and not settled[16:].any()
    assert kernel(4, np.arange(16, 40))[1].any(), "run alone, the greedy flow settles some of the later sinks"
    assert np.abs(values - networkx_row(flows.cap, 4, 0)).max() < 1e-12
    assert kernel(6, np.arange(40))[1].all(), "where it settles, it goes on"


@pytest.mark.parametrize("listed", [10_000, 3], ids=["edges listed", "list runs out"])
def test_greedy_flow_is_a_feasible_flow_and_leaves_the_flows_zero(listed):
    """``_greedy`` (which goes on below the edge a push filled, keeping each level's room) against the definition
    of a flow: within capacity, conserved at every node, its value what leaves the source and what enters the
    sink, at most networkx's max flow; then ``_unflow`` clears it, from the list of used edges or (when that list
    ran out) row by row."""
    n, layer = 9, 5
    cap = solver(random_attention(layer, n, seed=8) ** 3).cap
    flow, touched = np.zeros((layer, n, n)), np.zeros(listed, np.int64)
    lo, hi = np.zeros(layer + 1, np.int64), np.full(layer + 1, n - 1)
    cur, parent = np.zeros((layer + 1, n), np.int64), np.zeros((layer + 1, n + 1), np.int64)
    room, path = np.zeros(layer + 1), np.zeros(layer + 1, np.int64)
    for i in (0, 4):
        best = networkx_row(cap, layer, i)
        for j in range(n):
            sink_res, source_flow = cap[0, :, j].copy(), np.zeros(n)
            args = (sink_res, layer, i, j, lo, hi, np.inf, cur, parent, room, path, touched)
            total = _maxflow_row._greedy(cap, flow, source_flow, *args)
            into = [source_flow, *(flow[m].sum(axis=0) for m in range(layer - 1, 1, -1))]  # into layers l-1 .. 1
            out = [flow[m].sum(axis=1) for m in range(layer - 1, 1, -1)] + [cap[0, :, j] - sink_res]
            assert all(np.abs(a - b).max() < 1e-14 for a, b in zip(into, out, strict=True)), (i, j)
            assert (flow[2:] <= cap[1 : layer - 1] + 0.0).all() and (flow >= 0).all()
            assert (source_flow <= cap[layer - 1, i]).all() and (sink_res >= 0).all()
            assert abs(total - source_flow.sum()) < 1e-14 and total <= best[j] + 1e-12
            assert (touched[0] == listed - 1) == (listed == 3)  # the short list runs out, the long one does not
            _maxflow_row._unflow(flow, touched, layer, lo, hi)
            assert not flow.any()


@pytest.mark.parametrize("bit_heights", [64, 2, 0], ids=["bitsets", "some-bitsets", "no-bitsets"])
@pytest.mark.parametrize("causal", [False, True], ids=["encoder", "decoder"])
def test_push_relabel_alone_equals_networkx_pair_after_pair(causal, bit_heights):
    """Every pair through ``pair_max_flow`` with no stopping bound, forward and on the reversed graph, one pair
    after another on the same scratch arrays (as ``sinks_max_flow`` runs them): flow pushed back up an edge
    must leave that node's up-arc list, and nothing may carry over to the next pair. With fewer heights in
    bitsets, scans find the nodes above them by reading the heights (the kernel's path for high nodes)."""
    n = 10
    flows = solver(random_attention(5, n, causal=causal, seed=21) ** 2)
    scratch = np.zeros((6, n, n)), np.zeros((6, 5 * n + 2), np.int64)
    for layer in (3, 4, 5):
        rev = reversed_stack(flows, layer)
        for i in range(n):
            expected = networkx_row(flows.cap, layer, i)
            forward = [
                pair_max_flow(flows.cap, flows.support, layer, i, j, np.inf, *scratch, bit_heights) for j in range(n)
            ]
            backward = [pair_max_flow(*rev, layer, j, i, np.inf, *scratch, bit_heights) for j in range(n)]
            assert np.abs(np.array(forward) - expected).max() < 1e-12, (layer, i)
            assert np.abs(np.array(backward) - expected).max() < 1e-12, (layer, i)
            assert not scratch[0].any()  # the flows are left zero


def test_push_relabel_height_bitsets_span_several_words():
    """80 tokens: a layer's bitset of the nodes at one height takes two machine words. Values equal those of
    scans that read every height instead of the bitsets, and networkx's for a few pairs (it takes about half
    a second a pair at this size)."""
    n = 80
    flows = solver(random_attention(4, n, seed=22) ** 3)
    scratch = np.zeros((5, n, n)), np.zeros((6, 4 * n + 2), np.int64)
    graph = networkx_graph(flows.cap, 4)
    for layer in (3, 4):
        for i in range(0, n, 9):
            bitsets = [pair_max_flow(flows.cap, flows.support, layer, i, j, np.inf, *scratch) for j in range(n)]
            reads = [pair_max_flow(flows.cap, flows.support, layer, i, j, np.inf, *scratch, 0) for j in range(n)]
            assert np.abs(np.array(bitsets) - np.array(reads)).max() < 1e-12, (layer, i)
            if i in (9, 72):
                for j in (3, 66):
                    expected = nx.maximum_flow_value(graph, (layer, i), (0, j))
                    assert abs(bitsets[j] - expected) < 1e-12, (layer, i, j)


@pytest.mark.parametrize("lowest_bit", ["_lowest_bit_cttz", "_lowest_bit_portable"])
def test_the_lowest_set_bit_of_a_word_is_found_by_both_ways(lowest_bit):
    """The bitsets find a node by its word's lowest set bit: LLVM's cttz where numba has it, else De Bruijn's
    multiply-and-look-up. Both against Python's integers, on every single bit and on random words."""
    if lowest_bit == "_lowest_bit_cttz" and _maxflow._cttz is None:
        pytest.skip("this numba has no cttz where it used to be; the kernels use De Bruijn's way")
    found = getattr(_maxflow, lowest_bit)  # compiled on the first call
    rng = np.random.default_rng(5)
    words = [1 << i for i in range(64)] + [int(w) | 1 << 63 - i % 64 for i, w in enumerate(rng.integers(0, 2**63, 500))]
    assert [found(np.uint64(w)) for w in words] == [(w & -w).bit_length() - 1 for w in words]


def test_support_bounds_are_the_first_and_last_non_zero_entries():
    rng = np.random.default_rng(3)
    n = 9
    cap = rng.random((3, n, n)) * (rng.random((3, n, n)) < 0.3)
    cap[1, 4] = 0.0  # a row and a column with no edge
    cap[2, :, 7] = 0.0
    got = support_bounds(cap)
    for m in range(3):
        for a in range(n):
            cols, rows = np.flatnonzero(cap[m, a]), np.flatnonzero(cap[m, :, a])
            first_col, last_col = (cols[0], cols[-1]) if len(cols) else (n, -1)
            first_row, last_row = (rows[0], rows[-1]) if len(rows) else (n, -1)
            assert tuple(got[:, m, a]) == (first_col, last_col, first_row, last_row), (m, a)


def test_upper_bounds_hold_and_are_the_closed_form_at_layer_two():
    for att in CASES.values():
        raw = oracle_flow(att)
        cap = methods.residual_augment(att).numpy()
        for layer in range(2, att.shape[0] + 1):
            for i in range(att.shape[1]):
                bound = upper_bounds(cap, layer, i)
                assert (bound >= raw[layer - 1, i] - 1e-12).all()
                if layer == 2:
                    assert np.abs(bound - raw[1, i]).max() < 1e-12


@pytest.mark.parametrize(("family", "layers_key"), [("gpt2", "n_layer"), ("bert", "num_hidden_layers")])
def test_analysis_rows_equal_rows_of_the_whole_flow_on_random_models(family, layers_key, tokenizer):
    """Decoders with receptive-field normalisation (RF-B, whose baseline flow also goes row by row) and encoders."""
    analysis = analyze(tiny_model(family, **{layers_key: 5}), WORDS, tokenizer)
    variants = ["rf-b", "none"] if analysis.causal else ["none"]
    n = analysis.capture.n_tokens
    for variant in variants:
        whole = analysis.flow(receptive_field=variant, progress=False)
        for t in range(n):
            row = analysis.flow_rows(t, receptive_field=variant)
            assert torch.allclose(row, whole[:, t], rtol=0, atol=1e-12), (variant, t)
        # Some layers, in any order (what the widget asks for layer by layer), then all from what is kept.
        fresh = analyze(tiny_model(family, **{layers_key: 5}), WORDS, tokenizer)
        assert torch.allclose(fresh.flow_rows(2, receptive_field=variant, layers=[4, 1]), whole[[3, 0], 2], atol=1e-12)
        assert torch.allclose(fresh.flow_rows(2, receptive_field=variant), whole[:, 2], rtol=0, atol=1e-12)


@pytest.mark.model
def test_minilm_rows_equal_the_whole_layer_solver(minilm):
    model, tokenizer = minilm
    text = "Attention flow asks how much can move from each word to each other word through every layer at once."
    analysis = analyze(model, text, tokenizer)
    flows = solver(analysis.raw().double())
    layers = [3, 4, 6]
    whole = np.stack([flows.layer(layer) for layer in layers])
    settled = 0
    for i in range(flows.n):
        rows, count = row_flows(flows, i, layers)
        settled += count
        assert np.abs(rows - whole[:, i]).max() < 1e-12, i
    assert settled > 0  # the greedy flow did settle sinks on real attention


def test_rows_report_progress_and_refuse_a_bad_position(tokenizer):
    analysis = analyze(tiny_model("bert", num_hidden_layers=4), WORDS, tokenizer)
    reports = []
    analysis.flow_rows(2, progress=lambda done, total: reports.append((done, total)))
    assert reports and reports[-1][0] == reports[-1][1]
    n = analysis.capture.n_tokens
    for bad in (n, -1, 1.0, True):
        with pytest.raises(ValueError, match=rf"position must be a token index 0\.\.{n - 1}"):
            analysis.flow_rows(bad)
    with pytest.raises(ValueError, match=r"layers must be whole layer numbers 1\.\.4; got 5"):
        analysis.flow_rows(2, layers=[5])
