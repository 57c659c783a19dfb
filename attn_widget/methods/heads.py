"""Reduce the heads of a layer to one matrix."""

from __future__ import annotations

import torch

from .normalize import row_normalize

HeadChoice = int | str | None


def aggregate_heads(att: torch.Tensor, head: HeadChoice = None) -> torch.Tensor:
    """``(L, H, n, n)`` → ``(L, n, n)``.

    head: ``None`` or ``"mean"`` for the head average Ā (rows re-normalised, docs/methods.md §1.4),
    ``"max"`` for the entry-wise maximum over heads (not row-stochastic), or an int for
    one head (negative ints count from the end, as in Python).
    """
    if att.dim() != 4:
        raise ValueError(f"attentions must have shape (layers, heads, n, n); got {tuple(att.shape)}.")
    n_heads = att.shape[1]
    if head is None or head == "mean":
        return row_normalize(att.mean(dim=1))
    if head == "max":
        return att.amax(dim=1)
    if isinstance(head, bool) or not isinstance(head, int):
        raise TypeError(f'head must be None, "mean", "max" or an int; got {head!r}.')
    if not -n_heads <= head < n_heads:
        raise IndexError(f"head {head} does not exist; the model has {n_heads} heads (0..{n_heads - 1}).")
    return att[:, head]


def per_head_stack(heads: torch.Tensor) -> torch.Tensor:
    """``(L, H, n, n)`` → ``(L, H + 2, n, n)`` float64: each head, their mean, their max."""
    heads = heads.to(torch.float64)
    return torch.cat([heads, heads.mean(1, keepdim=True), heads.amax(1, keepdim=True)], dim=1)
