"""Gradient × input per token (docs/methods.md §6.2)."""

from __future__ import annotations

import torch

from .registry import register_attribution
from .saliency import saliency


def grad_times_input(grad: torch.Tensor, embeds: torch.Tensor, reduce: str = "sum") -> torch.Tensor:
    """Gradient × input per token ``(n,)``: signed sum over the hidden dimension (default), "l2" or "abs-sum"."""
    if reduce not in ("sum", "l2", "abs-sum"):
        raise ValueError(f'reduce must be "sum", "l2" or "abs-sum"; got {reduce!r}.')
    product = grad * embeds
    if reduce == "sum":
        return product.sum(-1)
    return saliency(product, reduce)


def _scores(analysis, target, **options) -> torch.Tensor:
    g = analysis.gradients(target)
    return grad_times_input(g.embed_grad, g.embeds, **options)


register_attribution(
    "grad_x_input",
    "gradient × input",
    "The gradient with respect to each word embedding times the embedding, summed over its dimensions.",
    _scores,
    signed=True,
    hint="Gradient times embedding: a signed first-order estimate of each token's contribution.",
    trust="Cheap and signed, but a straight-line estimate: noisy on deep models.",
)
