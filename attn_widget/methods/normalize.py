"""Row normalisation rn(M) of docs/methods.md §0.1."""

from __future__ import annotations

import torch


def row_normalize(m: torch.Tensor) -> torch.Tensor:
    """Divide each row by its sum; rows that sum to zero stay zero (never NaN).

    m: ``(..., n, n)``. Returns a tensor of the same shape and dtype.
    """
    sums = m.sum(dim=-1, keepdim=True)
    safe = torch.where(sums == 0, torch.ones_like(sums), sums)
    return m / safe


def zero_rows(m: torch.Tensor) -> torch.Tensor:
    """Boolean ``(..., n)``: which rows of ``m`` sum to exactly zero (reported, not hidden)."""
    return m.sum(dim=-1) == 0
