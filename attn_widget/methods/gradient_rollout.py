"""Gradient-weighted rollout (Chefer, Gur & Wolf 2021), docs/methods.md §6.4."""

from __future__ import annotations

import torch

from .chain import cumulative_products
from .registry import register_attribution, row_at


def gradient_rollout(att: torch.Tensor, grad: torch.Tensor) -> torch.Tensor:
    """Gradient-weighted rollout (Chefer, Gur & Wolf 2021): ``R[l] = (I + Ā_l) R[l-1]``, ``R[0] = I``,

    with ``Ā_l = mean_h (∇A ⊙ A)⁺`` (positive part before the head mean, as in their code).
    att, grad: ``(L, H, n, n)``. Returns ``(L, n, n)``, not normalised (its scale is arbitrary).
    """
    mixing = (att.to(torch.float64) * grad.to(torch.float64)).clamp(min=0).mean(1)
    eye = torch.eye(att.shape[-1], dtype=torch.float64)
    return cumulative_products(eye + mixing)


def _scores(analysis, target) -> torch.Tensor:
    """``(n,)``: row t of the last layer's R without its identity part (our default, section 6.4)."""
    relevance = analysis.gradient_rollout(target)[-1] - torch.eye(analysis.capture.n_tokens, dtype=torch.float64)
    return row_at(relevance, target.position)


register_attribution(
    "gradient_rollout",
    "gradient-weighted rollout",
    "Chefer et al. (2021): rollout of the positive part of A ⊙ ∂y/∂A; row t of the last layer, minus the identity.",
    _scores,
    hint="Rollout of the attention edges that raise the target (positive attention × gradient).",
    trust="Keeps only positive gradient-weighted attention (Chefer et al. 2021); shares rollout's assumptions.",
)
