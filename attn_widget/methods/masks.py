"""Admissible key sets K_i (methods.md section 0.1) as boolean masks."""

from __future__ import annotations

import torch


def admissible_keys(n: int, causal: bool, window: int | None = None) -> torch.Tensor:
    """``(n, n)`` bool: ``mask[i, j]`` is True when query i may attend to key j.

    Encoder: every key. Decoder: j <= i. Sliding window w (decoder): i - w < j <= i.
    """
    i = torch.arange(n).unsqueeze(1)
    j = torch.arange(n).unsqueeze(0)
    mask = torch.ones(n, n, dtype=torch.bool)
    if causal:
        mask &= j <= i
    if window is not None:
        mask &= j > i - window
    return mask
