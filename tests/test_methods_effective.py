"""Effective attention: docs/methods.md §5.6, on synthetic matrices."""

from __future__ import annotations

import pytest
import torch

from attn_widget import methods
from attn_widget.methods import admissible_keys
from attn_widget.methods.effective import effective_attention, effective_mixing, removed_mass, signed_rollout

G = torch.Generator()


@pytest.fixture(autouse=True)
def _same_numbers_in_any_order():
    """Each test draws the same inputs whether it runs alone or after the others."""
    G.manual_seed(0)


def rand(*shape) -> torch.Tensor:
    return torch.randn(*shape, generator=G, dtype=torch.float64)


def softmax_rows(n: int, heads: int = 1, causal: bool = False) -> torch.Tensor:
    logits = rand(heads, n, n) * 2
    if causal:
        logits = logits.masked_fill(~torch.ones(n, n, dtype=torch.bool).tril(), float("-inf"))
    return logits.softmax(-1)


FULL = lambda n: admissible_keys(n, causal=False)  # noqa: E731
CAUSAL = lambda n: admissible_keys(n, causal=True)  # noqa: E731
EPS64 = float(torch.finfo(torch.float64).eps)


def test_output_is_preserved_and_attention_changes_when_n_exceeds_head_dim():
    att, v = softmax_rows(12), rand(1, 12, 4)
    eff = effective_attention(att, v, FULL(12), eps=EPS64)
    assert torch.allclose(eff[0] @ v[0], att[0] @ v[0], atol=1e-12)
    assert (eff - att).abs().max() > 0.05
    assert (eff < 0).any()  # rows need not stay non-negative


def test_left_null_space_is_removed_and_projection_is_idempotent():
    att, v = softmax_rows(10), rand(1, 10, 3)
    eff = effective_attention(att, v, FULL(10), eps=EPS64)
    u, _, _ = torch.linalg.svd(v[0], full_matrices=True)
    null = u[:, 3:]  # orthonormal basis of the left null space of V
    assert torch.allclose(eff[0] @ null, torch.zeros(1, 7, dtype=torch.float64).expand(10, 7), atol=1e-12)
    assert torch.allclose(effective_attention(eff, v, FULL(10), eps=EPS64), eff, atol=1e-12)


def test_brute_force_minimum_norm_solution():
    att, v, w = softmax_rows(9, heads=2), rand(2, 9, 3), rand(2, 3, 8)
    eff = effective_attention(att, v, FULL(9), out_weights=w, eps=EPS64)
    for h in range(2):
        t = v[h] @ w[h]
        assert torch.allclose(eff[h], (att[h] @ t) @ torch.linalg.pinv(t), atol=1e-10)


def test_short_inputs_are_unchanged_exactly():
    att, v = softmax_rows(4), rand(1, 4, 4)
    assert torch.equal(effective_attention(att, v, FULL(4)), att)
    att5 = softmax_rows(5)
    v5 = rand(1, 5, 4)
    assert torch.equal(effective_attention(att5, v5, FULL(5), sum_preserving=True), att5)  # n <= d_h + 1
    assert not torch.equal(effective_attention(att5, v5, FULL(5)), att5)


def test_sum_preserving_variant_keeps_row_sums_and_output():
    att, v = softmax_rows(11), rand(1, 11, 3)
    eff = effective_attention(att, v, FULL(11), sum_preserving=True, eps=EPS64)
    assert torch.allclose(eff.sum(-1), torch.ones(1, 11, dtype=torch.float64), atol=1e-12)
    assert torch.allclose(eff[0] @ v[0], att[0] @ v[0], atol=1e-12)
    plain = effective_attention(att, v, FULL(11), eps=EPS64)
    assert not torch.allclose(plain.sum(-1), torch.ones(1, 11, dtype=torch.float64), atol=1e-3)


def test_value_path_equals_full_t_path_for_full_rank_output_projection():
    att, v, w = softmax_rows(10, heads=2), rand(2, 10, 3), rand(2, 3, 7)
    assert torch.allclose(
        effective_attention(att, v, FULL(10), out_weights=w, eps=EPS64),
        effective_attention(att, v, FULL(10), eps=EPS64),
        atol=1e-10,
    )


def test_rank_deficient_output_projection_uses_its_column_space():
    att, v = softmax_rows(10), rand(1, 10, 3)
    w = rand(1, 3, 1) @ rand(1, 1, 7)  # rank 1: only one direction of V reaches the output
    eff = effective_attention(att, v, FULL(10), out_weights=w, eps=EPS64)
    t = v[0] @ w[0]
    assert torch.allclose(eff[0] @ t, att[0] @ t, atol=1e-10)
    assert torch.allclose(eff[0], (att[0] @ t) @ torch.linalg.pinv(t), atol=1e-10)
    assert not torch.allclose(eff, effective_attention(att, v, FULL(10), eps=EPS64), atol=1e-3)


def test_duplicate_value_vectors_average_their_columns():
    v = rand(1, 5, 4)
    v[0, 4] = v[0, 1]  # tokens 1 and 4 have identical values (RoPE models: repeated tokens at layer 0)
    att = softmax_rows(5)
    eff = effective_attention(att, v, FULL(5), eps=EPS64)
    average = (att[0, :, 1] + att[0, :, 4]) / 2
    assert torch.allclose(eff[0, :, 1], average, atol=1e-12) and torch.allclose(eff[0, :, 4], average, atol=1e-12)
    others = [0, 2, 3]
    assert torch.allclose(eff[0][:, others], att[0][:, others], atol=1e-12)


def prefix_brute_force(a: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
    """Row i projected onto col(V[:i+1]) by an explicit SVD per row."""
    out = torch.zeros_like(a)
    for i in range(a.shape[0]):
        vk = v[: i + 1]
        u, s, _ = torch.linalg.svd(vk, full_matrices=False)
        rank = int((s > s[0] * max(i + 1, v.shape[1]) * EPS64).sum())
        out[i, : i + 1] = a[i, : i + 1] @ u[:, :rank] @ u[:, :rank].T
    return out


def test_decoder_prefix_form():
    n, d = 14, 4
    att, v = softmax_rows(n, causal=True), rand(1, n, d)
    eff = effective_attention(att, v, CAUSAL(n), eps=EPS64)
    assert torch.all(eff[0].triu(diagonal=1) == 0)
    assert torch.equal(eff[0, :d], att[0, :d])  # rows with i + 1 <= d_h are unchanged
    for i in range(n):  # output preserved row by row
        assert torch.allclose(eff[0, i] @ v[0], att[0, i] @ v[0], atol=1e-12)
    assert torch.allclose(eff[0], prefix_brute_force(att[0], v[0]), atol=1e-9)  # Gram form = SVD form
    # The global (encoder) formula would put mass on future tokens: why the prefix form is mandatory.
    global_form = effective_attention(att, v, FULL(n), eps=EPS64)
    assert global_form[0].triu(diagonal=1).abs().sum() > 0.1


def test_decoder_rows_seeing_few_keys_with_dependent_values_are_projected():
    """A row that sees at most d_h keys is left unchanged only when their value vectors are independent: with a
    repeated value among them (RoPE models' repeated tokens at layer 0), the rank test must send it to the SVD."""
    n, d = 10, 4
    att, v = softmax_rows(n, causal=True), rand(1, n, d)
    v[0, 2] = v[0, 0]
    eff = effective_attention(att, v, CAUSAL(n), eps=EPS64)
    assert torch.equal(eff[0, :2], att[0, :2])  # independent values: exactly unchanged
    assert (eff[0, 2] - att[0, 2]).abs().max() > 1e-3 and (eff[0, 3] - att[0, 3]).abs().max() > 1e-3
    assert torch.allclose(eff[0], prefix_brute_force(att[0], v[0]), atol=1e-9)
    for i in range(n):
        assert torch.allclose(eff[0, i] @ v[0], att[0, i] @ v[0], atol=1e-12)


def test_sliding_window_rows_stay_in_their_window():
    n, w = 12, 5
    mask = admissible_keys(n, causal=True, window=w)
    att = softmax_rows(n).masked_fill(~mask, 0)
    att = att / att.sum(-1, keepdim=True)
    v = rand(1, n, 3)
    eff = effective_attention(att, v, mask, eps=EPS64)
    assert torch.all(eff[0][~mask] == 0)
    assert torch.allclose(eff[0] @ v[0], att[0] @ v[0], atol=1e-12)


def test_gqa_heads_share_their_group_projector():
    att, v = softmax_rows(10, heads=4), rand(2, 10, 3)
    group = torch.tensor([0, 0, 1, 1])
    grouped = effective_attention(att, v, FULL(10), group=group, eps=EPS64)
    per_head = effective_attention(att, v[group], FULL(10), eps=EPS64)
    assert torch.allclose(grouped, per_head, atol=1e-12)


def test_effective_rollout_variants():
    n, d = 5, 8
    att, v = softmax_rows(n, heads=2), rand(2, n, d)
    eff = effective_attention(att, v, FULL(n))
    mean_eff, mean = eff.mean(0, keepdim=True), att.mean(0, keepdim=True)
    # n <= d_h: effective attention is the attention, so E1 rollout is the rollout.
    assert torch.allclose(methods.rollout(effective_mixing(mean_eff, mean)), methods.rollout(mean), atol=1e-14)
    n = 9
    att, v = softmax_rows(n, heads=2), rand(2, n, 2)
    eff = effective_attention(att, v, FULL(n), eps=EPS64)
    mixing = effective_mixing(eff.mean(0, keepdim=True), att.mean(0, keepdim=True))
    assert (mixing >= 0).all() and torch.allclose(mixing.sum(-1), torch.ones(1, n, dtype=torch.float64))
    summed = effective_attention(att, v, FULL(n), sum_preserving=True, eps=EPS64).mean(0, keepdim=True)
    signed = signed_rollout(torch.cat([summed, summed]))
    assert torch.allclose(signed.sum(-1), torch.ones(2, n, dtype=torch.float64), atol=1e-12)
    assert removed_mass(att, eff).shape == (2, n)
    with pytest.raises(ValueError, match="variant"):
        effective_mixing(mean_eff, mean, variant="relu")
