"""Attention as a graph, docs/methods.md §1.

Convention: information flows from key j at layer l-1 to query i at layer l, so the
adjacency matrix of a layer is the transpose of its attention matrix, Adj = Aᵀ.
"""

from __future__ import annotations

import torch

from ._checks import check_layer_stack
from .chain import cumulative_products
from .registry import register


def adjacency(att: torch.Tensor) -> torch.Tensor:
    """Adj[..., j, i] = A[..., i, j]: edges point from source token j to receiving token i.

    att: ``(..., n, n)``. Returns the transposed view, same shape.
    """
    return att.transpose(-1, -2)


def in_degree(att: torch.Tensor) -> torch.Tensor:
    """Weighted in-degree of each receiving node: the row sums of A. ``(..., n, n) -> (..., n)``.

    For softmax attention every entry is 1; for a binarised graph it is the number of
    keys a query may see (i + 1 in a decoder).
    """
    return att.sum(dim=-1)


def out_degree(att: torch.Tensor) -> torch.Tensor:
    """Weighted out-degree of each source node: the column sums of A ("attention received").

    ``(..., n, n) -> (..., n)``. For a binarised decoder graph, key j has n - j out-edges.
    """
    return att.sum(dim=-2)


def binarize(att: torch.Tensor, threshold: float = 0.0) -> torch.Tensor:
    """B = 1[A > threshold]. With threshold 0, softmax attention binarises to its mask."""
    return att > threshold


def path_counts(binary: torch.Tensor) -> torch.Tensor:
    """Number of paths from each input token to each node after every layer.

    binary: ``(L, n, n)`` 0/1 matrices in attention orientation (row = receiver).
    Returns ``(L, n, n)`` float64 where ``P[k][i, j]`` counts the paths from input token j
    (layer 0) to token i after layer ``k + 1``: ``P[k] = B_{k+1} ··· B_1``.

    Counts are exact integers up to 2**53 and rounded beyond (they grow like
    C(i - j + k, k) in a decoder). Weighted products have no such counting meaning.
    """
    check_layer_stack(binary.to(torch.float64), "binary")
    if ((binary != 0) & (binary != 1)).any():
        raise ValueError("path_counts needs a 0/1 matrix; binarize weighted attention first.")
    return cumulative_products(binary.to(torch.float64))


register(
    "binarised",
    "Binarised attention graph (0/1)",
    "The 0/1 matrix 1[Ā > threshold] of each layer (threshold set in the view): an edge where the head-averaged "
    "attention exceeds the threshold. The graph whose paths the path counts count.",
    lambda analysis, settings: analysis.binarised(threshold=settings.binarize_threshold),
    explain=(
        "An edge from a token on the left to a token on the right means: the right token pays more than the "
        "threshold (the box “Edge if weight >”) of its attention, averaged over the heads, to the left token. "
        "Every edge "
        "has weight 1, so every edge has the same colour; no edge means at most the threshold. "
        "Definition: B = 1[Ā > threshold], with Ā the head-averaged attention of the layer and 1[·] equal to "
        "1 where the condition holds, else 0."
    ),
    settings=("binarize_threshold",),
    integer=True,
    compare=None,
    group="Attention as a graph",
    hint="Attention as a 0/1 graph: an edge wherever the head-mean weight exceeds the threshold.",
    trust=(
        "A teaching picture: it changes with the threshold you choose and forgets how strong each edge was. Read "
        "degrees and paths from it, not which token matters most."
    ),
)

register(
    "paths",
    "Path counts (binarised graph)",
    "Products of the 0/1 matrices 1[Ā > threshold] (threshold set in the view): how many paths lead from "
    "each input token to each token after this layer. Only binary matrices count paths; products of "
    "weighted attention matrices have no such meaning.",
    lambda analysis, settings: analysis.path_counts(threshold=settings.binarize_threshold),
    explain=(
        "Keep only the attention edges above the threshold (the box “Edge if weight >”) and forget their "
        "weights. An edge "
        "from an input token on the left to a token on the right after this layer means: at least one path of "
        "such edges, one per layer, leads from the input to it; the number (a whole number) is how many "
        "paths there are, and the colour grows with it. The whole-model view draws the 0/1 graph being counted. "
        "Definition: P_l = B_l · B_(l−1) · … · B_1, with B_k = 1[Ā_k > threshold] the binarised head-averaged "
        "attention of layer k."
    ),
    cumulative=True,
    graph="binarised",
    settings=("binarize_threshold",),
    integer=True,
    compare=None,
    group="Attention as a graph",
    hint="How many paths of 0/1 edges lead from each input token to each token after this layer.",
    trust=(
        "Counts say which connections exist through the layers, not how much information moves along them; they grow "
        "with depth and with a lower threshold."
    ),
)
