"""Raw attention: each head's weights, their mean and their max (docs/methods.md §1)."""

from __future__ import annotations

from .heads import PerHead
from .registry import Comparison, register, row_at


def raw_stack(analysis, _settings) -> PerHead:
    """``(L, H + 2, n, n)`` in parts: the captured heads (a ``HeadStore``, read a layer at a time), then the head
    mean Ā (rows re-normalised), then the max; of a long input, the layers read so far (``read_layers``: the
    others' rows are not set, and no layer is read here; a layer's heads, ``heads[layer]``, read it)."""
    heads = analysis.capture.heads
    return PerHead(heads, *heads.parts())


def read_layers(analysis) -> list[int]:
    """The layer numbers (1..L) whose attention is read so far."""
    return [layer + 1 for layer in analysis.capture.heads.reduced_layers]


register(
    "raw",
    "Raw attention",
    "Attention weights of one layer: each token on the right draws on the tokens on the left.",
    raw_stack,
    explain=(
        "An edge from a token on the left to a token on the right means: when computing its new vector in this "
        "layer, the right token takes that share of its information from the left token. Each right token's edges"
        " add up to 1; the colour goes from pale (little) to dark (the most; the legend gives the scale). The "
        "head menu shows one head, the heads' mean or their max. Definition: A = softmax(Q·Kᵀ / √d) per head, "
        "with Q, K the queries and keys and d the head dimension."
    ),
    per_head=True,
    attention_weights=True,
    present=read_layers,
    compare=Comparison(rows=lambda analysis, t: row_at(analysis.raw(), t)),  # every layer's head mean, read
    group="Attention as a graph",
    hint="How much each token (right) reads from each token (left) in this one layer.",
    trust=(
        "Trust it for where a head looks, not for what the prediction depends on: a large weight on a token whose "
        "value vector is small adds little (compare Norm-based attention), and the residual carries much of each "
        "token past the layer (Jain & Wallace 2019; Kobayashi et al. 2020)."
    ),
)
