"""What the context-mixing methods share (docs/methods.md §7.0, §7.1): the per-head transformed vectors
f^h(x_j), a layer norm frozen at its inputs' scales, and Gram matrices for norms of sums.

Orientation everywhere: row i = receiving token, column j = contributing token. All results
are float64.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch

from ._threads import torch_threads


def transformed_vectors(
    values: torch.Tensor, out_weights: torch.Tensor, group: torch.Tensor | None = None
) -> torch.Tensor:
    """f^h(x_j) = v^{g(h)}_j W_O^h, value bias included, b_O excluded (Kobayashi et al. 2020).

    values: ``(H_kv, n, d_h)`` value vectors (bias included); out_weights: ``(H, d_h, d)`` the
    output projection's slice per query head; group: ``(H,)`` long, the key/value group of every
    query head (default: h // (H / H_kv), HF ``repeat_kv``). Returns ``(H, n, d)`` float64.
    """
    n_heads = out_weights.shape[0]
    if group is None:
        group = torch.arange(n_heads) // (n_heads // values.shape[0])
    v = values.to(torch.float64)[group]
    return v @ out_weights.to(torch.float64)


@dataclass(frozen=True)
class LinearNorm:
    """A layer norm linearised at the inputs it actually received (docs/methods.md §7.0):

    L_i(u) = gain ⊙ (u − center·mean(u)) / scale_i, and the norm's output is L_i(z_i) + bias.

    gain: ``(d,)`` float64 (γ, or 1 + γ for Gemma-style norms); scale: ``(n,)`` float64 σ_i of
    every token's own input (sqrt(Var(z_i) + ε) for LayerNorm, sqrt(mean(z_i²) + ε) for RMSNorm);
    center: True for LayerNorm (mean subtraction), False for RMSNorm; bias: ``(d,)`` float64 β
    (zeros when the norm has none).
    """

    gain: torch.Tensor
    scale: torch.Tensor
    center: bool
    bias: torch.Tensor

    @staticmethod
    def identity(n: int, d: int) -> LinearNorm:
        """L_i(u) = u: what a stream with no norm on it sees."""
        ones = torch.ones(d, dtype=torch.float64)
        return LinearNorm(ones, torch.ones(n, dtype=torch.float64), False, torch.zeros(d, dtype=torch.float64))

    def apply(self, u: torch.Tensor, rows: slice | torch.Tensor | None = None) -> torch.Tensor:
        """L_i(u) for ``u`` of shape ``(c, ..., d)``, the first axis being the receiving tokens
        ``rows`` (default: all n). Returns float64 of the same shape (bias not added)."""
        u = u.to(torch.float64)
        if self.center:
            u = u - u.mean(-1, keepdim=True)
        scale = self.scale if rows is None else self.scale[rows]
        return u * self.gain / scale.reshape(-1, *([1] * (u.dim() - 1)))

    def unscaled(self, u: torch.Tensor) -> torch.Tensor:
        """gain ⊙ (u − center·mean(u)) for any ``(..., d)``: L_i without the division by σ_i."""
        u = u.to(torch.float64)
        if self.center:
            u = u - u.mean(-1, keepdim=True)
        return u * self.gain

    def map(self) -> torch.Tensor:
        """``(d, d)`` float64 M with L_i(u) = (u @ M) / scale_i (M = C·diag(gain), C the centring)."""
        d = self.gain.shape[0]
        eye = torch.eye(d, dtype=torch.float64)
        centring = eye - 1.0 / d if self.center else eye
        return centring * self.gain  # columns scaled: (u C) ⊙ gain


def head_gram(vectors: torch.Tensor, transform=None) -> torch.Tensor:
    """Per token j, the Gram matrix G_j[p, q] = <M(P_p(j)), M(P_q(j))> of its vectors.

    vectors: ``(P, n, d)`` (P vectors per token, e.g. the H transformed vectors and x_j);
    transform: a linear map M applied to every vector first, ``(..., d) -> (..., d)`` (default
    identity; e.g. ``LinearNorm.unscaled``). Returns ``(n, P, P)`` float64. Cost O(n P² d); the
    norm of Σ_p a_p M(P_p(j)) is then sqrt(aᵀ G_j a) (docs/methods.md §7.1).
    """
    v = vectors.to(torch.float64)
    if transform is not None:
        v = transform(v)
    v = v.transpose(0, 1)  # (n, P, d)
    return v @ v.transpose(1, 2)


def weighted_norms(coefficients: torch.Tensor, gram: torch.Tensor, residual: bool = False) -> torch.Tensor:
    """N_ij = sqrt(a_ijᵀ G_j a_ij) for coefficients ``(P, n, n)`` (a_ij[p] = coefficients[p, i, j])
    and Gram matrices ``(n, P, P)``; with ``residual``, one more coefficient δ_ij is appended (the
    Gram matrices are then ``(n, P + 1, P + 1)``, the last vector being x_j). Returns ``(n, n)``
    float64 (rounding below zero clipped). A compiled pass (``quadratic_forms``) in float64, the
    coefficients read in their own dtype (float32 attention is exact in float64)."""
    if coefficients.dtype not in (torch.float32, torch.float64):
        coefficients = coefficients.to(torch.float64)
    # (P', P', n): G_j[p, q] contiguous over j, the rows' inner loop
    g = gram.to(torch.float64).permute(1, 2, 0).contiguous()
    with torch_threads():
        from ._norm_kernel import quadratic_forms  # compiled on first use; numba stays out of `import attn_widget`

        return torch.from_numpy(quadratic_forms(coefficients.contiguous().numpy(), g.numpy(), residual))
