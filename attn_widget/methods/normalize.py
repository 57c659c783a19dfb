"""Row normalisation rn(M) of docs/methods.md §0.1."""

from __future__ import annotations

import torch


def row_normalize(m: torch.Tensor) -> torch.Tensor:
    """Divide each row by its sum; rows that sum to zero stay zero (never NaN).

    m: ``(..., n, n)``. Returns a tensor of the same shape and dtype.
    """
    return m / _safe_row_sums(m)


def row_normalize_(m: torch.Tensor) -> torch.Tensor:
    """``row_normalize`` in place (``m`` floating point); returns ``m``."""
    return m.div_(_safe_row_sums(m))


def _safe_row_sums(m: torch.Tensor) -> torch.Tensor:
    """``(..., n, 1)`` row sums, 1 where a row sums to zero (so it stays zero)."""
    sums = m.sum(dim=-1, keepdim=True)
    return torch.where(sums == 0, torch.ones_like(sums), sums)


def zero_rows(m: torch.Tensor) -> torch.Tensor:
    """Boolean ``(..., n)``: which rows of ``m`` sum to exactly zero (reported, not hidden)."""
    return m.sum(dim=-1) == 0
