"""Attention + residual + layer norm (Kobayashi, Kuribayashi, Yokoi & Inui, EMNLP 2021,
"Incorporating Residual and Normalization Layers into Analysis of Masked Language Models").

N_ij = ‖L_i(Σ_h A^h_ij f^h(x_j) + δ_ij x_j)‖₂, L_i the block's first layer norm linearised with
token i's own scale (docs/methods.md §7.0). Computed with the Gram trick over the H + 1 vectors
(f^1(x_j) .. f^H(x_j), x_j) under the fixed map of L (the scale σ_i only divides row i).

Post-LN blocks (BERT): L is the layer norm after the residual sum, LN1(x + attention).
Pre-LN blocks (GPT-2, Llama) and parallel blocks (GPT-J, Falcon): the norms sit on the branch
inputs, and the stream after attention is x + attention output with no norm on it, so L is the
identity and N_ij = ‖Σ_h A^h_ij f^h(x_j) + δ_ij x_j‖ (f computed from the normalised input, as
the model does). The residual is inside the map: rolled out with no added identity.
"""

from __future__ import annotations

import torch

from .decomposition import LinearNorm, head_gram, weighted_norms
from .normalize import row_normalize
from .registry import register_mixing


def norm_residual_layer(
    att: torch.Tensor, transformed: torch.Tensor, x: torch.Tensor, norm: LinearNorm | None = None
) -> torch.Tensor:
    """``(n, n)`` float64 N_ij = ‖L_i(Σ_h A^h_ij f^h(x_j) + δ_ij x_j)‖ (unnormalised).

    att: ``(H, n, n)``; transformed: ``(H, n, d)`` f^h(x_j); x: ``(n, d)`` the block's input
    (the residual); norm: the linearised norm on the stream (None: pre-LN, no norm).
    """
    if norm is None:
        return norms_through(att, transformed, x)
    return norms_through(att, norm.unscaled(transformed), norm.unscaled(x), norm.scale)


def norms_through(
    att: torch.Tensor, f: torch.Tensor, x: torch.Tensor, scale: torch.Tensor | None = None
) -> torch.Tensor:
    """``(n, n)`` float64 ‖Σ_h A^h_ij f^h_j + δ_ij x_j‖ / scale_i for vectors already through the
    norms' fixed maps: f ``(H, n, d)``, x ``(n, d)``, scale ``(n,)`` (None: 1)."""
    norms = weighted_norms(att, head_gram(torch.cat([f.to(torch.float64), x.to(torch.float64)[None]])), residual=True)
    return norms if scale is None else norms / scale[:, None]


def norm_residual_map(att, transformed, x, norm: LinearNorm | None = None) -> torch.Tensor:
    """``(n, n)`` float64 rn(N) of ``norm_residual_layer``: rows sum to 1."""
    return row_normalize(norm_residual_layer(att, transformed, x, norm))


def _maps(mixing) -> torch.Tensor:
    """``(L, n, n)`` for every layer of a mixing part (``parts/mixing.py``)."""
    layers = mixing.structure().layers
    maps = []
    for l in mixing.layers:
        att, x, norm = mixing.capture.heads[l], layers[l].x, layers[l].linear1
        if norm is None:
            maps.append(row_normalize(norms_through(att, mixing.transformed(l), x)))
        else:  # the norm's map folded into W_O: no pass over the (H, n, d) vectors
            f = mixing.transformed(l, norm.unscaled)
            maps.append(row_normalize(norms_through(att, f, norm.unscaled(x), norm.scale)))
    return torch.stack(maps)


register_mixing(
    "norm_residual",
    "Norm: attention + residual + LN",
    "Kobayashi et al. (2021): the norm of each token's share of the attention block's output with the residual "
    "connection and the first layer norm (linearised at the receiving token's own scale), rows normalised. "
    "The residual keeps much of each token in place.",
    _maps,
    explain=(
        "Like norm-based attention, but also counts the residual connection (each token keeps itself) and the "
        "layer norm (LN) after it. An edge means: that share of the right token's output of the attention block "
        "comes from the left token; the diagonal is usually large; the colour goes from pale (little) to dark "
        "(the most; the legend gives the scale). Definition: M[i, j] = ‖LN_i(Σ_h A^h[i, j]·f^h(x_j) + 1[i = "
        "j]·x_i)‖, rows normalised, LN linearised at token i."
    ),
    hint="Each token's share of the attention block's output, residual and layer norm included.",
    trust=(
        "Adds the residual and the layer norm (Kobayashi et al. 2021) but leaves out the feed-forward block; tokens "
        "mostly keep themselves, which is what the model does."
    ),
)
