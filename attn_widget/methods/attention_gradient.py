"""Attention × gradient (docs/methods.md §6.3): the first-order effect of each attention weight."""

from __future__ import annotations

import torch

from .registry import register_attribution, row_at


def attention_gradient(att: torch.Tensor, grad: torch.Tensor, mode: str = "signed") -> torch.Tensor:
    """Attention × gradient per layer: ``G = mean_h A ⊙ ∂y/∂A``, ``(L, H, n, n) → (L, n, n)``.

    The first-order change of y when every weight is scaled by (1 + ε) without
    re-normalisation. mode: "signed" (default), "positive" (max(·, 0) after the product) or "abs".
    """
    product = att.to(torch.float64) * grad.to(torch.float64)
    if mode == "positive":
        product = product.clamp(min=0)
    elif mode == "abs":
        product = product.abs()
    elif mode != "signed":
        raise ValueError(f'mode must be "signed", "positive" or "abs"; got {mode!r}.')
    return product.mean(1)


register_attribution(
    "attention_gradient",
    "attention × gradient",
    "Row t (the target position) of the last layer's head-averaged A ⊙ ∂y/∂A.",
    lambda analysis, target, **options: row_at(analysis.attention_gradient(target, **options)[-1], target.position),
    signed=True,
    hint="The last layer's attention times its gradient: the attention edges the target uses.",
    trust="Sees the last layer only; gradients are local.",
)
