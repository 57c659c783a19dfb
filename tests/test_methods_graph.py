"""Attention as a graph: docs/methods.md §1.5."""

from __future__ import annotations

import itertools
from math import comb

import pytest
import torch

from attn_widget import methods


def random_attention(layers: int, n: int, causal: bool = False, seed: int = 0) -> torch.Tensor:
    """Random row-stochastic ``(L, n, n)`` attention (lower-triangular when causal), float64."""
    g = torch.Generator().manual_seed(seed)
    logits = torch.randn(layers, n, n, generator=g, dtype=torch.float64) * 2
    if causal:
        logits = logits.masked_fill(~torch.ones(n, n, dtype=torch.bool).tril(), float("-inf"))
    return logits.softmax(-1)


def test_adjacency_is_the_transpose_and_degrees_are_row_and_column_sums():
    att = random_attention(2, 5)
    adj = methods.adjacency(att)
    assert torch.equal(adj, att.transpose(-1, -2))
    # In-degree of a receiving node = column sum of Adj = row sum of A = 1 for softmax.
    assert torch.allclose(methods.in_degree(att), adj.sum(-2))
    assert torch.allclose(methods.in_degree(att), torch.ones(2, 5, dtype=torch.float64), atol=1e-12)
    assert torch.allclose(methods.out_degree(att), adj.sum(-1))


def test_total_out_degree_equals_number_of_tokens():
    att = random_attention(3, 7, causal=True)
    assert torch.allclose(methods.out_degree(att).sum(-1), torch.full((3,), 7.0, dtype=torch.float64), atol=1e-12)


def test_binarised_causal_degrees():
    binary = methods.binarize(random_attention(1, 6, causal=True))[0].to(torch.float64)
    assert methods.in_degree(binary).tolist() == [i + 1 for i in range(6)]
    assert methods.out_degree(binary).tolist() == [6 - j for j in range(6)]


@pytest.mark.parametrize("k", [1, 2, 3, 5])
def test_causal_path_counts_match_binomial_closed_form(k):
    n = 8
    binary = torch.ones(k, n, n, dtype=torch.bool).tril()
    counts = methods.path_counts(binary)[-1]
    for i in range(n):
        for j in range(n):
            expected = comb(i - j + k - 1, k - 1) if j <= i else 0
            assert counts[i, j].item() == expected


def test_full_mask_path_counts_are_n_to_the_k_minus_1():
    n, k = 5, 4
    counts = methods.path_counts(torch.ones(k, n, n, dtype=torch.bool))
    for layer in range(k):
        assert torch.all(counts[layer] == n**layer)


def _enumerate_paths(mats: torch.Tensor, i: int, j: int) -> float:
    """Brute force: sum over every layered path j -> ... -> i of the product of edge weights."""
    layers, n, _ = mats.shape
    total = 0.0
    for middle in itertools.product(range(n), repeat=layers - 1):
        nodes = (j, *middle, i)  # node at layer 0, 1, ..., L
        weight = 1.0
        for layer in range(layers):
            weight *= mats[layer, nodes[layer + 1], nodes[layer]].item()
        total += weight
    return total


@pytest.mark.parametrize("causal", [False, True])
def test_brute_force_paths_match_matrix_products(causal):
    att = random_attention(3, 4, causal=causal, seed=3)
    binary = methods.binarize(att, 0.2)
    counts = methods.path_counts(binary)[-1]
    weighted = att[2] @ att[1] @ att[0]
    for i in range(4):
        for j in range(4):
            assert counts[i, j].item() == _enumerate_paths(binary.to(torch.float64), i, j)
            assert weighted[i, j].item() == pytest.approx(_enumerate_paths(att, i, j), abs=1e-14)


def test_permutation_equivariance_of_adjacency():
    att = random_attention(1, 6)[0]
    perm = torch.randperm(6, generator=torch.Generator().manual_seed(1))
    p = torch.eye(6, dtype=torch.float64)[perm]
    assert torch.allclose(methods.adjacency(p @ att @ p.T), p @ methods.adjacency(att) @ p.T)


def test_path_counts_rejects_weighted_input():
    with pytest.raises(ValueError, match="binarize"):
        methods.path_counts(random_attention(2, 3))
