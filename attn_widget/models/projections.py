"""Per-head slices of an output projection (docs/methods.md §0.3)."""

from __future__ import annotations

import torch
from torch import nn


def output_slices(module: nn.Module, n_heads: int, head_dim: int) -> tuple[torch.Tensor, torch.Tensor] | None:
    """``W_O`` ``(H, d_h, d)`` and ``b_O`` ``(d,)`` such that the output is Σ_h ctx_h W_O[h] + b_O.

    ``nn.Linear`` stores ``(out, in)`` = ``(d, H·d_h)`` and computes x Wᵀ + b; transformers'
    ``Conv1D`` (GPT-2) stores ``(in, out)`` and computes x W + b. None for any other kind
    of module (the capture then reports value-based methods as unavailable).
    """
    weight = getattr(module, "weight", None)
    if not isinstance(weight, torch.Tensor) or weight.dim() != 2:
        return None
    weight = weight.detach()
    if isinstance(module, nn.Linear):
        if weight.shape[1] != n_heads * head_dim:
            return None
        slices = weight.reshape(weight.shape[0], n_heads, head_dim).permute(1, 2, 0)
    elif type(module).__name__ == "Conv1D":
        if weight.shape[0] != n_heads * head_dim:
            return None
        slices = weight.reshape(n_heads, head_dim, weight.shape[1])
    else:
        return None
    bias = getattr(module, "bias", None)
    bias = torch.zeros(slices.shape[-1], dtype=weight.dtype, device=weight.device) if bias is None else bias.detach()
    return slices, bias
