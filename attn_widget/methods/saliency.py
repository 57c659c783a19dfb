"""Saliency: the norm of the gradient w.r.t. each word embedding (docs/methods.md §6.2)."""

from __future__ import annotations

import torch

from .registry import register_attribution


def saliency(grad: torch.Tensor, norm: str = "l2") -> torch.Tensor:
    """Per-token saliency from the gradient w.r.t. the word embeddings ``(n, d)`` → ``(n,)``.

    norm: "l2" (default), "l1", or "abs-sum" (|Σ_k g_jk|, Abnar & Zuidema's reproduction option).
    """
    if norm == "l2":
        return grad.norm(dim=-1)
    if norm == "l1":
        return grad.abs().sum(-1)
    if norm == "abs-sum":
        return grad.sum(-1).abs()
    raise ValueError(f'norm must be "l2", "l1" or "abs-sum"; got {norm!r}.')


register_attribution(
    "saliency",
    "saliency (‖∂y/∂e‖)",
    "The L2 norm of the gradient of the target with respect to each token's word embedding.",
    lambda analysis, target, **options: saliency(analysis.gradients(target).embed_grad, **options),
    hint="How sensitive the target is to each token's embedding (the size of the gradient).",
    trust="Unsigned and local: a token that matters can still have a small gradient where the model saturates.",
)
