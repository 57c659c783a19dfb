"""Attention rollout: docs/methods.md §2.6."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
import torch
from test_methods_graph import random_attention

from attn_widget import methods


def abnar_joint_attention(att: np.ndarray) -> np.ndarray:
    """Independent oracle: our re-implementation of the released ``compute_joint_attention``
    (samiraabnar/attention_flow, add_residual=True): add I, re-normalise rows, then
    multiply each layer onto the running product from the left."""
    residual = att + np.eye(att.shape[1])[None]
    aug = residual / residual.sum(axis=-1, keepdims=True)
    joint = np.zeros_like(aug)
    joint[0] = aug[0]
    for i in range(1, len(aug)):
        joint[i] = aug[i].dot(joint[i - 1])
    return joint


@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("layers,n", [(1, 4), (4, 9), (12, 32)])
def test_rollout_equals_definition(layers, n, causal):
    att = random_attention(layers, n, causal=causal, seed=layers * n)
    rolled = methods.rollout(att)
    expected = torch.empty_like(att)
    product = torch.eye(n, dtype=torch.float64)
    for layer in range(layers):
        product = (0.5 * att[layer] + 0.5 * torch.eye(n, dtype=torch.float64)) @ product
        expected[layer] = product
    assert rolled.dtype == torch.float64
    assert (rolled - expected).abs().max() < 1e-12
    assert np.abs(rolled.numpy() - abnar_joint_attention(att.numpy())).max() < 1e-12


def test_rows_are_stochastic_and_non_negative():
    rolled = methods.rollout(random_attention(6, 10, seed=5))
    assert (rolled >= 0).all()
    assert torch.allclose(rolled.sum(-1), torch.ones(6, 10, dtype=torch.float64), atol=1e-10)


def test_brute_force_path_sum():
    att = random_attention(3, 4, seed=8)
    a_hat = methods.residual_augment(att)
    rolled = methods.rollout(att)[-1]
    for i, j in itertools.product(range(4), repeat=2):
        total = 0.0
        for middle in itertools.product(range(4), repeat=2):
            nodes = (j, *middle, i)
            total += float(np.prod([a_hat[m, nodes[m + 1], nodes[m]].item() for m in range(3)]))
        assert rolled[i, j].item() == pytest.approx(total, abs=1e-14)


def test_causal_rollout_is_exactly_lower_triangular():
    rolled = methods.rollout(random_attention(5, 8, causal=True))
    assert torch.all(rolled.triu(diagonal=1) == 0)


def test_special_cases():
    att = random_attention(1, 5)
    assert torch.allclose(methods.rollout(att)[0], 0.5 * att[0] + 0.5 * torch.eye(5, dtype=torch.float64))
    eye = torch.eye(5, dtype=torch.float64).expand(3, 5, 5)
    assert torch.allclose(methods.rollout(eye), eye)
    assert torch.allclose(methods.rollout(random_attention(3, 5), residual=1.0), eye)


@pytest.mark.parametrize("alpha", [0.5, 0.3])
def test_uniform_attention_closed_form(alpha):
    layers, n = 6, 7
    uniform = torch.full((layers, n, n), 1.0 / n, dtype=torch.float64)
    rolled = methods.rollout(uniform, residual=alpha)
    for layer in range(layers):
        power = alpha ** (layer + 1)
        expected = power * torch.eye(n, dtype=torch.float64) + (1 - power) / n
        assert torch.allclose(rolled[layer], expected, atol=1e-14)


def test_rows_are_renormalised_before_the_residual():
    att = random_attention(2, 4) * 3.0  # rows sum to 3: the residual share must still be alpha
    assert torch.allclose(methods.rollout(att), methods.rollout(att / 3.0), atol=1e-14)


def test_permutation_equivariance():
    att = random_attention(4, 6, seed=2)
    perm = torch.randperm(6, generator=torch.Generator().manual_seed(4))
    p = torch.eye(6, dtype=torch.float64)[perm]
    assert torch.allclose(methods.rollout(p @ att @ p.T), p @ methods.rollout(att) @ p.T, atol=1e-13)


@pytest.mark.parametrize(
    "bad,message",
    [
        (torch.rand(2, 3, 4, 4), "shape \\(layers, n, n\\)"),
        (torch.rand(2, 3, 4), "square"),
        (-torch.rand(2, 3, 3), "negative"),
        (torch.full((1, 2, 2), float("nan")), "NaN"),
    ],
)
def test_bad_input_is_explained(bad, message):
    with pytest.raises(ValueError, match=message):
        methods.rollout(bad)


def test_residual_out_of_range():
    with pytest.raises(ValueError, match="residual must lie in"):
        methods.rollout(random_attention(1, 3), residual=1.5)
