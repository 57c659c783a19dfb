"""Raw attention: each head's weights, their mean and their max (docs/methods.md §1)."""

from __future__ import annotations

import torch

from .registry import register


def raw_stack(analysis, _settings) -> torch.Tensor:
    """``(L, H + 2, n, n)``: the captured heads, then the head mean Ā (rows re-normalised), then the max."""
    heads = analysis.attentions
    return torch.cat([heads, analysis.raw().unsqueeze(1).to(heads.dtype), analysis.raw("max").unsqueeze(1)], dim=1)


register(
    "raw",
    "Raw attention",
    "Attention weights of one layer: each token on the right draws on the tokens on the left.",
    raw_stack,
    per_head=True,
)
