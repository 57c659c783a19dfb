"""GPT-2: fused QKV projection stored as a Conv1D with weight ``(in, out)``, y = x W + b."""

from __future__ import annotations

from dataclasses import dataclass

import torch
from torch import nn

from .base import Adapter, HeadGeometry, _bias


@dataclass(frozen=True)
class GPT2Adapter(Adapter):
    def split_values(self, projected: torch.Tensor, geo: HeadGeometry) -> torch.Tensor:
        """``c_attn`` output ``(n, 3d)`` = [Q | K | V]; the value block is columns ``2d:3d``."""
        d = geo.hidden_size
        return super().split_values(projected[:, 2 * d : 3 * d], geo)

    def output_slices(self, module: nn.Module, geo: HeadGeometry) -> tuple[torch.Tensor, torch.Tensor]:
        """``c_proj`` weight is ``(d, d)`` in (in, out) order: head h owns rows ``h·d_h:(h+1)·d_h``, no transpose."""
        weight = module.weight.detach()
        w = weight.reshape(geo.n_heads, geo.head_dim, geo.hidden_size)
        return w, _bias(module, geo.hidden_size, weight)


GPT2 = GPT2Adapter(
    family="GPT-2",
    model_types=("gpt2",),
    layers="h",
    value="attn.c_attn",
    output="attn.c_proj",
    always_causal=True,
)
