"""The context-mixing maths on hand-built tensors (docs/methods.md §7.1, §7.2, §7.5, §7.6, §7.8): closed forms, the Gram
trick against the definition, ALTI's exact reconstruction, chunking, causality, rollouts."""

from __future__ import annotations

import pytest
import torch

from attn_widget.methods import alti, alti_logit, globenc, norm, norm_residual
from attn_widget.methods.decomposition import LinearNorm, transformed_vectors
from attn_widget.methods.normalize import row_normalize

H, N, D = 3, 7, 10


def attention(causal: bool = False, seed: int = 0) -> torch.Tensor:
    g = torch.Generator().manual_seed(seed)
    scores = torch.randn(H, N, N, generator=g, dtype=torch.float64)
    if causal:
        scores = scores.masked_fill(torch.ones(N, N, dtype=torch.bool).triu(1), float("-inf"))
    return scores.softmax(-1)


def randn(*shape, seed: int = 1) -> torch.Tensor:
    return torch.randn(*shape, generator=torch.Generator().manual_seed(seed), dtype=torch.float64)


def layer_norm(z: torch.Tensor, gamma: torch.Tensor, beta: torch.Tensor, eps: float = 1e-5):
    """The true LayerNorm and its linearisation at z (σ_i = sqrt(Var(z_i) + ε))."""
    out = torch.nn.functional.layer_norm(z, (z.shape[-1],), gamma, beta, eps)
    scale = (z.var(-1, unbiased=False) + eps).sqrt()
    return out, LinearNorm(gamma, scale, True, beta)


def pieces_by_definition(att, f, x, norm_: LinearNorm | None) -> torch.Tensor:
    """(n, n, d) T_i(x_j) = L_i(Σ_h A^h_ij f^h(x_j) + δ_ij x_j), written out loop by loop."""
    n = att.shape[-1]
    out = torch.zeros(n, n, x.shape[-1], dtype=torch.float64)
    for i in range(n):
        for j in range(n):
            v = sum(att[h, i, j] * f[h, j] for h in range(att.shape[0])) + (x[j] if i == j else 0)
            if norm_ is not None:
                v = norm_.gain * (v - v.mean()) / norm_.scale[i]
            out[i, j] = v
    return out


def test_transformed_vectors_use_the_kv_group_of_every_head():
    values, weights = randn(2, N, 4), randn(4, 4, D, seed=2)
    f = transformed_vectors(values, weights)  # GQA: heads 0, 1 -> group 0; heads 2, 3 -> group 1
    assert torch.allclose(f[3], values[1] @ weights[3]) and torch.allclose(f[1], values[0] @ weights[1])


def test_norm_closed_form_orthogonal_heads_of_equal_norm():
    """f^h(x_j) = c·e_h for every j: N_ij = c·sqrt(Σ_h (A^h_ij)²)."""
    att, c = attention(), 2.5
    f = torch.zeros(H, N, D, dtype=torch.float64)
    for h in range(H):
        f[h, :, h] = c
    expected = c * att.pow(2).sum(0).sqrt()
    assert torch.allclose(norm.norm_layer(att, f), expected, atol=1e-12)


def test_norm_with_identity_value_and_output_weights_is_attention_times_token_norm():
    att, x = attention()[:1], randn(N, D)
    f = transformed_vectors(x[None], torch.eye(D, dtype=torch.float64)[None])  # one head, W_V = W_O = I
    assert torch.allclose(norm.norm_layer(att, f), att[0] * x.norm(dim=-1), atol=1e-12)


@pytest.mark.parametrize("causal", [False, True])
def test_gram_trick_equals_the_definition(causal):
    att, f, x = attention(causal), randn(H, N, D), randn(N, D, seed=3)
    assert torch.allclose(norm.norm_layer(att, f), norm.norm_brute_force(att, f), atol=1e-12)
    _, ln1 = layer_norm(x + randn(N, D, seed=4), 1 + randn(D, seed=5), randn(D, seed=6))
    _, ln2 = layer_norm(randn(N, D, seed=7), 1 + randn(D, seed=8), randn(D, seed=9))
    for ln in (None, ln1):
        expected = pieces_by_definition(att, f, x, ln).norm(dim=-1)
        assert torch.allclose(norm_residual.norm_residual_layer(att, f, x, ln), expected, atol=1e-10)
    # GlobEnc: LN2's linear part applied to LN1's pieces
    t1 = pieces_by_definition(att, f, x, ln1)
    expected = (ln2.gain * (t1 - t1.mean(-1, keepdim=True)) / ln2.scale[:, None, None]).norm(dim=-1)
    assert torch.allclose(globenc.globenc_layer(att, f, x, ln1, ln2), expected, atol=1e-10)
    assert torch.allclose(globenc.globenc_layer(att, f, x), norm_residual.norm_residual_layer(att, f, x), atol=1e-12)


def test_alti_reconstructs_the_layer_norm_output_exactly():
    """Post-LN: Σ_j T_i(x_j) + L_i(b_O) + β = LN(x + Σ_h A f + b_O) with the true LN formula."""
    att, f, x, b_o = attention(), randn(H, N, D), randn(N, D, seed=3), randn(D, seed=4)
    z = x + torch.einsum("hij,hjd->id", att, f) + b_o
    y, ln = layer_norm(z, 1 + randn(D, seed=5), randn(D, seed=6))
    t = alti.pieces(att, f, x, ln)
    assert torch.allclose(t, pieces_by_definition(att, f, x, ln), atol=1e-12)
    assert torch.allclose(t.sum(1) + ln.apply(b_o.expand(N, D)) + ln.bias, y, atol=1e-12)
    c = alti.contributions(att, f, x, y, ln)
    expected = (y.abs().sum(-1)[:, None] - (y[:, None] - t).abs().sum(-1)).clamp_min(0)
    assert torch.allclose(c, expected, atol=1e-12)


@pytest.mark.parametrize("causal", [False, True])
def test_alti_kernel_equals_the_chunked_pieces_and_rows_are_distributions(causal):
    att, f, x = attention(causal), randn(H, N, D), randn(N, D, seed=3)
    y = x + torch.einsum("hij,hjd->id", att, f) + 0.1 * randn(D, seed=4)  # pre-LN stream
    _, ln = layer_norm(y, 1 + randn(D, seed=5), randn(D, seed=6))
    for norm_ in (None, ln):
        kernel = alti.contributions(att, f, x, y, norm_)
        for chunk in (1, D * N + 1, 3 * N * D, alti.CHUNK_ELEMENTS):
            assert torch.allclose(alti.contributions_by_chunks(att, f, x, y, norm_, chunk), kernel, atol=1e-12, rtol=0)
    whole = alti.alti_map(att, f, x, y)
    assert (whole >= 0).all() and torch.allclose(whole.sum(-1), torch.ones(N, dtype=torch.float64))
    if causal:
        assert (whole.triu(1) == 0).all()


@pytest.mark.parametrize("causal", [False, True])
def test_every_map_is_row_stochastic_and_causal_maps_lower_triangular(causal):
    att, f, x = attention(causal), randn(H, N, D), randn(N, D, seed=3)
    _, ln = layer_norm(randn(N, D, seed=4), 1 + randn(D, seed=5), randn(D, seed=6))
    for m in (
        norm.norm_map(att, f),
        norm_residual.norm_residual_map(att, f, x, ln),
        globenc.globenc_map(att, f, x, ln, ln),
    ):
        assert m.dtype == torch.float64 and (m >= 0).all()
        assert torch.allclose(m.sum(-1), torch.ones(N, dtype=torch.float64), atol=1e-12)
        assert not causal or (m.triu(1) == 0).all()


def test_alti_logit_tracks_each_layer_through_the_rollout_below():
    layers, t = 3, 4
    logits = randn(layers, N)
    logits[:, t + 1 :] = 0  # a causal model's Δ at position t
    maps = torch.stack([row_normalize(attention(True, seed=s).mean(0)) for s in range(layers)])
    rollout = torch.stack([maps[0], maps[1] @ maps[0], maps[2] @ maps[1] @ maps[0]])
    expected = logits[0] + logits[1] @ rollout[0] + logits[2] @ rollout[1]
    score = alti_logit.alti_logit(logits, rollout)
    assert torch.allclose(score, expected, atol=1e-12)
    assert torch.isclose(score.sum(), logits.sum(), atol=1e-12)  # the rollout rows sum to 1
    assert (score[t + 1 :] == 0).all()


def test_attention_logits_are_the_heads_projected_on_the_direction():
    att, f, u = attention(True), randn(H, N, D), randn(D, seed=9)
    got = alti_logit.attention_logits(att, f, u, 5)
    expected = torch.stack([sum(att[h, 5, j] * (f[h, j] @ u) for h in range(H)) for j in range(N)])
    assert torch.allclose(got, expected, atol=1e-12) and (got[6:] == 0).all()
