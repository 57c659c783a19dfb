"""Gradient-based attributions from gradients already computed (methods.md section 6).

Pure tensor functions; ``attn_widget.gradients`` runs the model to get the gradients.
Shapes: n tokens, d embedding width, L layers, H heads.
"""

from __future__ import annotations

import numpy as np
import torch

from .chain import cumulative_products


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


def grad_times_input(grad: torch.Tensor, embeds: torch.Tensor, reduce: str = "sum") -> torch.Tensor:
    """Gradient × input per token ``(n,)``: signed sum over the hidden dimension (default), "l2" or "abs-sum"."""
    product = grad * embeds
    if reduce == "sum":
        return product.sum(-1)
    return saliency(product, "l2" if reduce == "l2" else "abs-sum")


def gauss_legendre(steps: int) -> tuple[torch.Tensor, torch.Tensor]:
    """Nodes and weights of Gauss–Legendre quadrature on [0, 1], ``(steps,)`` each, float64."""
    nodes, weights = np.polynomial.legendre.leggauss(steps)
    return torch.from_numpy((nodes + 1) / 2), torch.from_numpy(weights / 2)


def attention_gradient(att: torch.Tensor, grad: torch.Tensor, mode: str = "signed") -> torch.Tensor:
    """Attention × gradient per layer: ``G = mean_h A ⊙ ∂y/∂A``, ``(L, H, n, n) → (L, n, n)``.

    The first-order change of y when every weight is scaled by (1 + ε) without
    re-normalisation. mode: "signed" (default), "positive" (max(·, 0) after the product) or "abs".
    """
    product = att.to(torch.float64) * grad.to(torch.float64)
    if mode == "positive":
        product = product.clamp(min=0)
    elif mode == "abs":
        product = product.abs()
    elif mode != "signed":
        raise ValueError(f'mode must be "signed", "positive" or "abs"; got {mode!r}.')
    return product.mean(1)


def gradient_rollout(att: torch.Tensor, grad: torch.Tensor) -> torch.Tensor:
    """Gradient-weighted rollout (Chefer, Gur & Wolf 2021): ``R[l] = (I + Ā_l) R[l-1]``, ``R[0] = I``,

    with ``Ā_l = mean_h (∇A ⊙ A)⁺`` (positive part before the head mean, as in their code).
    att, grad: ``(L, H, n, n)``. Returns ``(L, n, n)``, not normalised (its scale is arbitrary).
    """
    mixing = (att.to(torch.float64) * grad.to(torch.float64)).clamp(min=0).mean(1)
    eye = torch.eye(att.shape[-1], dtype=torch.float64)
    return cumulative_products(eye + mixing)
