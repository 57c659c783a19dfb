"""GlobEnc (Modarressi, Fayyaz, Yaghoobzadeh & Pilehvar, NAACL 2022): the whole encoder block
except the feed-forward network.

N_ij = ‖L2_i(L1_i(Σ_h A^h_ij f^h(x_j) + δ_ij x_j))‖₂, L1 and L2 the block's two layer norms, each
linearised with token i's own scale at the input it actually received (LN2's input includes the
FFN's output; the FFN itself is skipped). Their released code (``BertLayer.forward`` in
``src/modeling/modeling_bert.py`` of mohsenfayyaz/GlobEnc) computes the same vectors; its demo
rolls the norms out unnormalised, while attn_widget row-normalises every layer first (our choice:
every mixing map here is row-stochastic), then rolls out with no added identity (the residual is
inside).

Pre-LN and parallel blocks: both norms sit on branch inputs, and skipping the feed-forward branch
leaves the stream x + attention with no norm on it, so GlobEnc equals ``norm_residual`` there.
"""

from __future__ import annotations

import torch

from ..models.blocks import POST_LN
from .decomposition import LinearNorm
from .norm_residual import norms_through
from .normalize import row_normalize
from .registry import register_mixing


def globenc_layer(
    att: torch.Tensor,
    transformed: torch.Tensor,
    x: torch.Tensor,
    norm1: LinearNorm | None = None,
    norm2: LinearNorm | None = None,
) -> torch.Tensor:
    """``(n, n)`` float64 N_ij = ‖L2_i(L1_i(Σ_h A^h_ij f^h(x_j) + δ_ij x_j))‖ (unnormalised).

    att: ``(H, n, n)``; transformed: ``(H, n, d)``; x: ``(n, d)`` the block input; norm1, norm2:
    the linearised first and second norms (None: pre-LN, no norm on the stream).
    """
    through, scale = _through(x.shape[0], norm1, norm2)
    return norms_through(att, through(transformed), through(x), scale)


def _through(n: int, norm1: LinearNorm | None, norm2: LinearNorm | None):
    """The fixed part of L2 ∘ L1 (``(..., d) -> (..., d)``) and the ``(n,)`` product of their scales."""
    norms = [norm for norm in (norm1, norm2) if norm is not None]
    scale = torch.ones(n, dtype=torch.float64)
    for norm in norms:
        scale = scale * norm.scale

    def through(v: torch.Tensor) -> torch.Tensor:
        v = v.to(torch.float64)
        for norm in norms:
            v = norm.unscaled(v)
        return v

    return through, scale


def globenc_map(att, transformed, x, norm1=None, norm2=None) -> torch.Tensor:
    """``(n, n)`` float64 rn(N) of ``globenc_layer``: rows sum to 1."""
    return row_normalize(globenc_layer(att, transformed, x, norm1, norm2))


def _maps(mixing) -> torch.Tensor:
    """``(L, n, n)`` for every layer of a mixing part (``parts/mixing.py``)."""
    layers = mixing.structure().layers
    maps = []
    for l in mixing.layers:
        x = layers[l].x
        through, scale = _through(x.shape[0], layers[l].linear1, layers[l].linear2)
        f = mixing.transformed(l, through)  # the norms' maps folded into W_O
        maps.append(row_normalize(norms_through(mixing.capture.heads[l], f, through(x), scale)))
    return torch.stack(maps)


def _note(analysis) -> str:
    """Say so where GlobEnc is norm_residual: blocks whose norms sit on the branch inputs."""
    kinds = analysis.mixing_part.block_kinds()
    if kinds and all(kind != POST_LN for kind in kinds):
        return "In this pre-LN model the layer norms sit on the branch inputs: GlobEnc equals norm + residual + LN."
    return ""


register_mixing(
    "globenc",
    "GlobEnc",
    "Modarressi et al. (2022): the norm of each token's share of the whole encoder block's output (attention, "
    "residual and both layer norms; the feed-forward network skipped), rows normalised.",
    _maps,
    explain=(
        "GlobEnc (global encoder attribution) extends the norm-based view over the whole encoder block: "
        "attention, residual and both layer norms (the feed-forward network is skipped). An edge means: that "
        "share of the right token's block output comes from the left token; the colour goes from pale (little) to"
        " dark (the most; the legend gives the scale). Definition: M[i, j] = ‖LN2_i(LN1_i(Σ_h A^h[i, j]·f^h(x_j) "
        "+ 1[i = j]·x_i) + …)‖, rows normalised."
    ),
    note=_note,
    hint="Each token's share of the whole encoder block's output, residual and both norms included.",
    trust=(
        "Covers the block except the feed-forward network's own mixing; Modarressi et al. (2022) found it closer to "
        "gradient and blank-out scores than attention."
    ),
)
