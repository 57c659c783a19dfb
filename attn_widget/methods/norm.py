"""Norm-based attention (Kobayashi, Kuribayashi, Yokoi & Inui, EMNLP 2020), docs/methods.md §7.1.

N_ij = ‖Σ_h A^h_ij f^h(x_j)‖₂ with f^h(x) = (x W_V^h + b_V^h) W_O^h (b_O excluded), computed
with the Gram trick: N_ij = sqrt(a_ijᵀ G_j a_ij), a_ij = (A^h_ij)_h, G_j[h, h'] = <f^h(x_j), f^h'(x_j)>,
in O(n H² d + n² H²) time and O(n² H) memory instead of the O(n² H d) of the vectors themselves.
The map holds no residual, so it is rolled out like attention: 0.5·rn(N) + 0.5·I multiplied through.
"""

from __future__ import annotations

import torch

from .decomposition import head_gram, weighted_norms
from .normalize import row_normalize
from .registry import register_mixing


def norm_layer(att: torch.Tensor, transformed: torch.Tensor) -> torch.Tensor:
    """``(n, n)`` float64 N_ij = ‖Σ_h A^h_ij f^h(x_j)‖ (unnormalised).

    att: ``(H, n, n)`` attention, row = receiver; transformed: ``(H, n, d)`` f^h(x_j)
    (``decomposition.transformed_vectors``).
    """
    return weighted_norms(att, head_gram(transformed))


def norm_brute_force(att: torch.Tensor, transformed: torch.Tensor) -> torch.Tensor:
    """The definition, materialising every Σ_h A^h_ij f^h(x_j): ``(n, n)``; O(n² d) memory, for tests."""
    vectors = torch.einsum("hij,hjd->ijd", att.to(torch.float64), transformed.to(torch.float64))
    return vectors.norm(dim=-1)


def norm_map(att: torch.Tensor, transformed: torch.Tensor) -> torch.Tensor:
    """``(n, n)`` float64 rn(N): rows sum to 1 (a zero row stays zero)."""
    return row_normalize(norm_layer(att, transformed))


def _maps(mixing) -> torch.Tensor:
    """``(L, n, n)`` for every layer of a mixing part (``parts/mixing.py``)."""
    return torch.stack([norm_map(mixing.capture.heads[l], mixing.transformed(l)) for l in mixing.layers])


register_mixing(
    "norm",
    "Norm-based attention",
    "Kobayashi et al. (2020): ‖Σ_h A^h_ij f^h(x_j)‖, the size of what token j's value vectors actually add to "
    "token i through the heads and the output projection, rows normalised. Accounts for values; no residual.",
    _maps,
    explain=(
        "Weighs attention by the size of what is actually passed: a large weight on a token with a tiny value "
        "vector moves little. An edge means: that share of what this layer's attention adds to the right token "
        "comes from the left token; the colour goes from pale (little) to dark (the most; the legend gives the "
        "scale). Definition: M[i, j] = ‖Σ_h A^h[i, j] · f^h(x_j)‖, rows normalised, with f^h(x) = x·W_V^h·W_O^h "
        "the head's value and output projection."
    ),
    rollout="identity",
    needs="values",
    hint="Attention weighted by how much each token's value vector actually adds.",
    trust=(
        "Accounts for value vectors (Kobayashi et al. 2020) but not the residual, layer norm or feed-forward block: a"
        " better guide than raw weights to what a layer's heads add."
    ),
)
