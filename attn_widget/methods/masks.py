"""Admissible key sets K_i (docs/methods.md §0.1) as boolean masks."""

from __future__ import annotations

import torch


def admissible_keys(n: int, causal: bool, window: int | None = None, chunk: int | None = None) -> torch.Tensor:
    """``(n, n)`` bool: ``mask[i, j]`` is True when query i may attend to key j.

    Encoder: every key. Decoder: j <= i. A sliding window w keeps i - w < j in a decoder
    and |i - j| <= w in an encoder (transformers' two window rules). A chunk c keeps keys
    in the query's own chunk of c positions (Llama 4).
    """
    i = torch.arange(n).unsqueeze(1)
    j = torch.arange(n).unsqueeze(0)
    mask = torch.ones(n, n, dtype=torch.bool)
    if causal:
        mask &= j <= i
    if window is not None:
        mask &= (j > i - window) if causal else ((i - j).abs() <= window)
    if chunk is not None:
        mask &= (i // chunk) == (j // chunk)
    return mask
