"""Layer-by-layer products, the newest layer on the left."""

from __future__ import annotations

import torch


def cumulative_products(mats: torch.Tensor) -> torch.Tensor:
    """P[0] = M[0], P[l] = M[l] @ P[l-1] for a stack ``(L, n, n)``; returns ``(L, n, n)``."""
    out = torch.empty_like(mats)
    out[0] = mats[0]
    for layer in range(1, mats.shape[0]):
        out[layer] = mats[layer] @ out[layer - 1]
    return out
