"""Decoder receptive-field normalisation: docs/methods.md §4.4."""

from __future__ import annotations

import pytest
import torch
from test_methods_flow import sliding_window_attention
from test_methods_graph import random_attention

from attn_widget import methods


def causal_masks(layers: int, n: int) -> torch.Tensor:
    return methods.admissible_keys(n, causal=True).expand(layers, n, n).clone()


def test_content_free_attention_maps_to_uniform_rows():
    masks = causal_masks(5, 8)
    uniform = methods.null_attention(masks)
    baseline = methods.rollout(uniform)
    expected = torch.tril(torch.ones(8, 8, dtype=torch.float64)) / torch.arange(1, 9, dtype=torch.float64)[:, None]
    # Raw rollout is dominated by position: 5 layers already put most of the last row on token 0...
    assert baseline[-1, -1, 0] > 0.25 and baseline[-1, -1, 0] > 3 * baseline[-1, -1, 4]
    # ...which RF-B removes: rows become uniform over the receptive field.
    normalised = methods.baseline_ratio(methods.rollout(uniform), baseline)
    for layer in range(5):
        assert torch.allclose(normalised[layer], expected, atol=1e-12)
    flow_baseline = methods.flow(uniform, normalize=False)
    assert torch.allclose(methods.baseline_ratio(flow_baseline, flow_baseline)[-1], expected, atol=1e-12)


def test_measured_first_token_bias_of_uniform_causal_rollout():
    """docs/methods.md §4.1: n = 8, alpha = 0.5: 0.56 on itself at L = 1, 0.24 and 0.87 on token 0 at L = 3, 12."""
    rolled = methods.rollout(methods.null_attention(causal_masks(12, 8)))
    assert rolled[0, -1, -1].item() == pytest.approx(0.5625, abs=1e-4)
    assert rolled[2, -1, 0].item() == pytest.approx(0.24, abs=0.01)
    assert rolled[11, -1, 0].item() == pytest.approx(0.87, abs=0.01)


def test_single_layer_without_residual_is_a_no_op():
    att = random_attention(1, 7, causal=True, seed=1)
    baseline = methods.rollout(methods.null_attention(causal_masks(1, 7)), residual=0.0)
    assert torch.allclose(methods.baseline_ratio(methods.rollout(att, residual=0.0), baseline), att, atol=1e-12)


@pytest.mark.parametrize("alpha", [0.5, 0.2])
def test_baseline_closed_forms(alpha):
    n = 6
    one_layer = methods.rollout(methods.null_attention(causal_masks(1, n)), residual=alpha)[0]
    i = torch.arange(n, dtype=torch.float64)[:, None]
    expected = torch.tril(torch.ones(n, n, dtype=torch.float64)) * (1 - alpha) / (i + 1) + alpha * torch.eye(n)
    assert torch.allclose(one_layer, expected, atol=1e-14)
    full = methods.rollout(methods.null_attention(torch.ones(4, n, n, dtype=torch.bool)), residual=alpha)[-1]
    assert torch.allclose(full, alpha**4 * torch.eye(n, dtype=torch.float64) + (1 - alpha**4) / n, atol=1e-14)


@pytest.mark.parametrize("method", ["rollout", "flow"])
def test_normalised_decoder_results_are_lower_triangular_and_stochastic(method):
    att = random_attention(6, 9, causal=True, seed=2)
    compute = methods.rollout if method == "rollout" else (lambda a: methods.flow(a, normalize=False))
    normalised = methods.baseline_ratio(compute(att), compute(methods.null_attention(causal_masks(6, 9))))
    assert not torch.isnan(normalised).any()
    assert torch.all(normalised.triu(diagonal=1) == 0)
    assert torch.allclose(normalised.sum(-1), torch.ones(6, 9, dtype=torch.float64), atol=1e-12)


def test_sliding_window_baseline_uses_the_window():
    n, window, layers = 10, 3, 4
    masks = methods.admissible_keys(n, causal=True, window=window).expand(layers, n, n)
    uniform = methods.null_attention(masks)
    baseline = methods.rollout(uniform)
    assert torch.all(baseline[0][~masks[0]] == 0)
    normalised = methods.baseline_ratio(methods.rollout(uniform), baseline)
    reachable = baseline > 0
    counts = reachable.sum(-1, keepdim=True).to(torch.float64)
    assert torch.allclose(normalised, reachable / counts, atol=1e-12)
    # Real windowed attention: normalised rows live exactly on the reachable set.
    att = sliding_window_attention(layers, n, window, seed=3)
    real = methods.baseline_ratio(methods.rollout(att), baseline)
    assert torch.all(real[~reachable] == 0) and torch.allclose(real.sum(-1), torch.ones(layers, n, dtype=torch.float64))


def test_prescaled_snippet_equals_a_position_dependent_residual():
    att = random_attention(3, 6, causal=True, seed=4)
    n = 6
    weight = (torch.arange(n, dtype=torch.float64) + 1) / (torch.arange(n, dtype=torch.float64) + 2)
    a_hat = (1 - weight)[:, None] * att + weight[:, None] * torch.eye(n, dtype=torch.float64)
    expected = a_hat[2] @ a_hat[1] @ a_hat[0]
    assert torch.allclose(methods.prescaled_residual_rollout(att)[-1], expected, atol=1e-14)


def test_difference_sink_drop_and_column_aggregates():
    att = random_attention(3, 6, causal=True, seed=5)
    masks = causal_masks(3, 6)
    difference = methods.baseline_difference(methods.rollout(att), methods.rollout(methods.null_attention(masks)))
    assert torch.allclose(difference.sum(-1), torch.zeros(3, 6, dtype=torch.float64), atol=1e-12)
    dropped = methods.drop_sink(methods.rollout(att))
    assert torch.all(dropped[..., 0] == 0)
    assert torch.allclose(dropped[:, 1:].sum(-1), torch.ones(3, 5, dtype=torch.float64))
    uniform = methods.null_attention(masks)
    received = methods.received_per_query(uniform, masks)[0]
    expected = [sum(1 / (i + 1) for i in range(j, 6)) / (6 - j) for j in range(6)]
    assert torch.allclose(received, torch.tensor(expected, dtype=torch.float64))
    lifted = methods.query_lift(uniform, masks)
    assert torch.allclose(lifted[masks], torch.ones(int(masks.sum()), dtype=torch.float64))
