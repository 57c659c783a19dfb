"""Attention flow through cross-attention (attn_widget/methods/encoder_decoder_flow.py, docs/methods.md §2.7):
the max flow on the joint layered graph equals networkx's on a graph built here from the definition,
node by node; rows are distributions; the decoder's causality holds; flow bounds rollout from above."""

from __future__ import annotations

import networkx as nx
import pytest
import torch

from attn_widget.methods.encoder_decoder_flow import encoder_decoder_flow, joint_layers
from attn_widget.seq2seq import encoder_decoder_rollout


def random_stack(layers, rows, cols, seed, causal=False):
    g = torch.Generator().manual_seed(seed)
    logits = torch.randn(layers, rows, cols, generator=g, dtype=torch.float64) * 2
    if causal:
        logits = logits.masked_fill(~torch.ones(rows, cols, dtype=torch.bool).tril(), float("-inf"))
    return logits.softmax(-1)


def attentions(le, ld, ns, nt, seed=0):
    return (
        random_stack(le, ns, ns, seed),
        random_stack(ld, nt, nt, seed + 1, causal=True),
        random_stack(ld, nt, ns, seed + 2),
    )


def reference_flow(enc, dec, cross, alpha):
    """Unnormalised max flows ``(Ld, nt, ns + nt)`` by networkx on the graph written out from the definition:
    nodes ("s", m, j) and ("t", m, u) for m = 0 .. Le + Ld, edges pointing down one layer."""
    le, ns, ld, nt = enc.shape[0], enc.shape[-1], dec.shape[0], dec.shape[-1]
    graph = nx.DiGraph()

    def edge(upper, lower, capacity):
        if capacity > 0:
            graph.add_edge(upper, lower, capacity=float(capacity))

    for m in range(1, le + 1):  # encoder layer m: source tokens mix, target tokens wait
        a = enc[m - 1] / enc[m - 1].sum(-1, keepdim=True)
        for i in range(ns):
            for j in range(ns):
                edge(("s", m, i), ("s", m - 1, j), (1 - alpha) * a[i, j] + alpha * (i == j))
        for u in range(nt):
            edge(("t", m, u), ("t", m - 1, u), 1.0)
    for layer in range(1, ld + 1):  # decoder layer: self-attention then cross-attention, source nodes pass
        m = le + layer
        s = (1 - alpha) * dec[layer - 1] / dec[layer - 1].sum(-1, keepdim=True) + alpha * torch.eye(
            nt, dtype=torch.float64
        )
        c = cross[layer - 1] / cross[layer - 1].sum(-1, keepdim=True)
        for i in range(ns):
            edge(("s", m, i), ("s", m - 1, i), 1.0)
        for t in range(nt):
            for j in range(ns):
                edge(("t", m, t), ("s", m - 1, j), (1 - alpha) * c[t, j])
            for u in range(nt):
                edge(("t", m, t), ("t", m - 1, u), alpha * s[t, u])
    out = torch.zeros(ld, nt, ns + nt, dtype=torch.float64)
    for layer in range(1, ld + 1):
        for t in range(nt):
            top = ("t", le + layer, t)
            for j in range(ns + nt):
                bottom = ("s", 0, j) if j < ns else ("t", 0, j - ns)
                if graph.has_node(bottom) and nx.has_path(graph, top, bottom):
                    out[layer - 1, t, j] = nx.maximum_flow_value(graph, top, bottom)
    return out


@pytest.mark.parametrize(("le", "ld", "alpha"), [(2, 2, 0.5), (1, 1, 0.5), (2, 2, 0.3), (1, 3, 0.5)])
def test_equals_networkx_on_the_joint_graph(le, ld, alpha):
    enc, dec, cross = attentions(le, ld, ns=3, nt=3, seed=le * 10 + ld)
    expected = reference_flow(enc, dec, cross, alpha)
    raw = encoder_decoder_flow(enc, dec, cross, alpha, normalize=False)
    assert raw.dtype == torch.float64 and raw.shape == (ld, 3, 6)
    assert torch.allclose(raw, expected, atol=1e-9, rtol=0)
    flow = encoder_decoder_flow(enc, dec, cross, alpha)
    assert torch.allclose(flow, expected / expected.sum(-1, keepdim=True), atol=1e-9, rtol=0)


def test_rows_are_causal_distributions_above_rollout():
    enc, dec, cross = attentions(3, 3, ns=7, nt=5, seed=3)
    calls = []
    flow = encoder_decoder_flow(enc, dec, cross, progress=lambda done, total: calls.append((done, total)))
    ns = 7
    assert calls[-1] == (15, 15) and [done for done, _ in calls] == list(range(1, 16))
    assert torch.allclose(flow.sum(-1), torch.ones(3, 5, dtype=torch.float64), atol=1e-12)
    assert (flow >= 0).all()
    assert (flow[..., ns:].triu(diagonal=1) == 0).all()  # no flow from target tokens after t
    # Before normalisation, flow bounds rollout (the joint product's target rows) from above (§3.6 item 2).
    raw = encoder_decoder_flow(enc, dec, cross, normalize=False)
    rollout = encoder_decoder_rollout(enc, dec, cross)
    assert (raw >= rollout - 1e-12).all()


def test_joint_layers_reproduce_the_rollout():
    enc, dec, cross = attentions(2, 3, ns=4, nt=3, seed=5)
    joint = joint_layers(enc, dec, cross, 0.4)
    assert torch.allclose(joint.sum(-1), torch.ones(5, 7, dtype=torch.float64), atol=1e-12)
    product = joint[0]
    decoder_rows = []
    for m in range(1, 5):
        product = joint[m] @ product
        if m >= 2:
            decoder_rows.append(product[4:])
    assert torch.allclose(torch.stack(decoder_rows), encoder_decoder_rollout(enc, dec, cross, 0.4), atol=1e-14)


def test_bad_shapes_are_refused():
    enc, dec, cross = attentions(2, 2, ns=3, nt=3)
    with pytest.raises(ValueError, match="cross must be"):
        encoder_decoder_flow(enc, dec, cross[:, :, :2])
    with pytest.raises(ValueError, match="same Ld"):
        encoder_decoder_flow(enc, dec, cross[:1])


def test_chosen_layers_are_those_of_all_layers():
    enc, dec, cross = attentions(2, 3, ns=4, nt=3, seed=7)
    full = encoder_decoder_flow(enc, dec, cross)
    assert torch.equal(encoder_decoder_flow(enc, dec, cross, layers=[3, 1]), full[[2, 0]])
    with pytest.raises(ValueError, match="layer numbers 1..3"):
        encoder_decoder_flow(enc, dec, cross, layers=[4])
