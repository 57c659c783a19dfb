"""Integrated gradients on the word embeddings, Gauss–Legendre quadrature (docs/methods.md §6.2).

``attn_widget.gradients.GradientRunner.integrated_gradients`` runs the model on the path.
"""

from __future__ import annotations

import numpy as np
import torch

from .registry import register_attribution


def gauss_legendre(steps: int) -> tuple[torch.Tensor, torch.Tensor]:
    """Nodes and weights of Gauss–Legendre quadrature on [0, 1], ``(steps,)`` each, float64."""
    nodes, weights = np.polynomial.legendre.leggauss(steps)
    return torch.from_numpy((nodes + 1) / 2), torch.from_numpy(weights / 2)


register_attribution(
    "integrated_gradients",
    "integrated gradients",
    "Sundararajan et al. (2017): gradients integrated from a [MASK] baseline to each embedding, times the "
    "difference, summed over its dimensions; steps doubled until the completeness error is below 5%.",
    lambda analysis, target, **options: analysis.integrated_gradients(target, **options).attributions.sum(-1),
    signed=True,
    progress=True,
    # Cached with the scores: the same call, without a progress bar.
    warning=lambda analysis, target: analysis.integrated_gradients(target, progress=False).shortfall,
    hint="Gradients summed from a [MASK] baseline to each token: signed shares of the target's change.",
    trust=(
        "The scores add up to the target's change from the baseline (the widget checks it to 5%); the baseline is a "
        "choice that shapes the answer."
    ),
)
