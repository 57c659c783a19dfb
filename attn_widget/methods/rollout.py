"""Attention rollout (Abnar & Zuidema 2020), docs/methods.md §2.

Orientation: row i = receiving (query) position, column j = source (key) position.
The newest layer multiplies on the left: R[l] = Â_{l+1} · R[l-1].
"""

from __future__ import annotations

import torch

from ._checks import check_layer_stack, check_residual
from .chain import cumulative_products
from .normalize import row_normalize_
from .raw import read_layers
from .registry import register, register_graph


def residual_augment(att: torch.Tensor, residual: float = 0.5) -> torch.Tensor:
    """Â = (1 - α)·rn(A) + α·I, the residual-augmented attention of each layer.

    att: ``(L, n, n)`` head-aggregated attention (any non-negative weights; rows are
    re-normalised first so that the residual share is exactly α).
    Returns ``(L, n, n)`` float64.
    """
    check_layer_stack(att)
    alpha = check_residual(residual)
    # In place on one float64 copy: a long input's stack is 6 x 512 x 512, built again for each flow solver.
    a = row_normalize_(att.to(torch.float64, copy=True))
    a.mul_(1.0 - alpha)
    a.diagonal(dim1=-2, dim2=-1).add_(alpha)
    return a


def rollout(att: torch.Tensor, residual: float = 0.5) -> torch.Tensor:
    """Rollout up to every layer.

    att: ``(L, n, n)`` head-averaged attention, ``att[l]`` being layer ``l + 1``.
    Returns ``(L, n, n)`` float64 with ``R[0] = Â_1`` and ``R[l] = Â_{l+1} @ R[l-1]``:
    row i of ``R[l]`` is how much of each input token's identity reaches position i
    after layer ``l + 1``. Every row sums to 1.
    """
    return cumulative_products(residual_augment(att, residual))


def head_means(analysis) -> torch.Tensor:
    """``(L, n, n)``: the head mean Ā of every layer read so far, as the capture keeps it (no copy); where a long
    input keeps it as its rows' tops only, every layer's read again at once, as rollout and flow read it."""
    mean = analysis.capture.heads.reductions()[0]
    return mean if isinstance(mean, torch.Tensor) else analysis.raw()


# What rollout multiplies and flow takes as capacities, plain and receptive-field normalised (whose
# normalisation comes after the product): the edges of their whole-model view, of the layers read so far.
register_graph(
    "attention_step",
    "Attention step 0.5·Ā + 0.5·I",
    "Each layer's step of rollout and the capacities of flow: half the head-averaged attention Ā (rows "
    "re-normalised), half the identity I (the residual connection).",
    head_means,
    residual_augment,
    present=read_layers,
)

register(
    "rollout",
    "Attention rollout",
    "Abnar & Zuidema (2020): 0.5·A + 0.5·I multiplied through the layers. How much of each input "
    "token reaches each position after this layer (heads averaged).",
    lambda analysis, _settings: analysis.rollout(receptive_field="none"),
    explain=(
        "Follows attention through all layers up to this one, counting the residual connection as half of each "
        "step. An edge from an input token on the left to a token on the right after this layer means: that share"
        " of the right token traces back to the input token; the colour goes from pale (little) to dark (the "
        "most; the legend gives the scale). Definition: R_l = (0.5·Ā_l + 0.5·I) · … · (0.5·Ā_1 + 0.5·I), with Ā "
        "the head-averaged attention and I the identity."
    ),
    cumulative=True,
    graph="attention_step",
    group="Through the layers",
    hint="How much of each input token reaches each token after this layer, layers multiplied together.",
    trust=(
        "Assumes each layer mixes tokens linearly with the residual as exactly half, and ignores value vectors and "
        "feed-forward blocks. In a decoder it favours the first tokens (see the receptive-field normalised variant). "
        "Check it on your input with compare() against gradient-based scores."
    ),
)
