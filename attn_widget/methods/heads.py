"""Reduce the heads of a layer to one matrix."""

from __future__ import annotations

from typing import Any, NamedTuple

import torch

from ..payload import HeldLayers
from .normalize import row_normalize_

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
        return row_normalize_(att.mean(dim=1))  # in place: the mean is a new tensor
    if head == "max":
        return att.amax(dim=1)
    if isinstance(head, bool) or not isinstance(head, int):
        raise TypeError(f'head must be None, "mean", "max" or an int; got {head!r}.')
    if not -n_heads <= head < n_heads:
        raise IndexError(f"head {head} does not exist; the model has {n_heads} heads (0..{n_heads - 1}).")
    return att[:, head]


class PerHead(NamedTuple):
    """A per-head method's data, ``(L, H + 2, n, n)`` [each head, their mean, their max], kept as its three parts
    joined along dim 1: a long input's stack is gigabytes, and ``payload.encode`` reads the parts row by row
    (``joined`` and ``layer_of`` build the stack, or one layer of it, where a caller needs a tensor). ``heads``
    may be read a layer at a time (raw attention's ``head_store.HeadStore``: ``heads[layer]``, ``full()``)."""

    heads: Any  # (L, H, n, n): a tensor, or a HeadStore
    mean: Any  # (L, 1, n, n): a tensor, or a long input's head_store.ReducedPart
    maximum: Any  # (L, 1, n, n): likewise


def per_head(heads: torch.Tensor) -> PerHead:
    """``(L, H, n, n)`` → its ``PerHead``: the mean taken in float64 a layer at a time (never a float64 copy of
    every head), the max (exact in any dtype) in float64."""
    mean = torch.stack([layer.to(torch.float64).mean(0, keepdim=True) for layer in heads])
    return PerHead(heads, mean, heads.amax(1, keepdim=True).to(torch.float64))


def joined(data: torch.Tensor | PerHead | HeldLayers) -> torch.Tensor:
    """A method's data as one tensor (a ``PerHead`` joined, in the dtype its parts promote to; a deferred method's
    ``HeldLayers`` made whole)."""
    if isinstance(data, HeldLayers):
        return torch.stack([data[layer] for layer in range(data.shape[0])])
    if not isinstance(data, PerHead):
        return data
    return torch.cat([part if isinstance(part, torch.Tensor) else part.full() for part in data], dim=1)


def layer_of(data: torch.Tensor | PerHead | HeldLayers, index: int) -> torch.Tensor:
    """Layer ``index`` (0-based) of a method's data: ``(H + 2, n, n)`` for a ``PerHead``, else ``data[index]``."""
    return torch.cat([part[index] for part in data]) if isinstance(data, PerHead) else data[index]


def per_head_stack(heads: torch.Tensor) -> torch.Tensor:
    """``(L, H, n, n)`` → ``(L, H + 2, n, n)`` float64: each head, their mean, their max."""
    return joined(per_head(heads.to(torch.float64)))
