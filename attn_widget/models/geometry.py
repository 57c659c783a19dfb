"""Head counts and widths of one model, read off the tensors it produced."""

from __future__ import annotations

from dataclasses import dataclass

import torch


@dataclass(frozen=True)
class HeadGeometry:
    """Query heads H, key/value heads H_kv, head width d_h and model width d."""

    n_heads: int
    n_kv_heads: int
    head_dim: int
    hidden_size: int

    @property
    def group_size(self) -> int:
        """Query heads per key/value group (1 unless GQA/MQA)."""
        return self.n_heads // self.n_kv_heads

    def kv_group(self) -> torch.Tensor:
        """``(H,)`` long: the KV group g(h) = h // (H / H_kv) of every query head (HF ``repeat_kv``)."""
        return torch.arange(self.n_heads) // self.group_size
