"""Decoder receptive-field normalisation, docs/methods.md §4 (our interpretation).

In a decoder, token i sees only tokens 0..i, so rollout and flow drift towards the
first tokens whatever the content (there are combinatorially more paths from them).
RF-B divides each result by the same quantity computed on content-free attention with
the same receptive fields (uniform over each query's admissible keys), then
re-normalises every row over the inputs it can reach:

    R̃[l] = rn_K(R[l] ⊘ R0[l]),   R0 = rollout of the null attention U.

Content-free attention therefore maps to uniform rows. Alternatives kept for
comparison: RF-D (the signed difference R - R0), sink-drop (remove one column), the
public snippet's pre-scaling (equal to a position-dependent residual weight), and, for
single-layer displays and column aggregates only, the query lift r_i·A and the
received attention per eligible query.
"""

from __future__ import annotations

import torch

from .chain import cumulative_products
from .normalize import row_normalize


def null_attention(masks: torch.Tensor) -> torch.Tensor:
    """Content-free attention ``(L, n, n)`` float64: uniform over each query's admissible keys.

    masks: ``(L, n, n)`` bool, ``masks[l, i, j]`` when query i may see key j in layer l + 1.
    """
    m = masks.to(torch.float64)
    return row_normalize(m)


def baseline_ratio(values: torch.Tensor, baseline: torch.Tensor) -> torch.Tensor:
    """RF-B: ``rn(values ⊘ baseline)`` on the entries the baseline reaches (> 0), 0 elsewhere.

    values, baseline: ``(L, n, n)`` non-negative (rollout or flow, and the same method on
    ``null_attention``). Returns ``(L, n, n)`` float64 with rows summing to 1 (or 0 when a
    row reaches nothing). Never NaN: division happens only where the baseline is positive.
    """
    values = values.to(torch.float64)
    baseline = baseline.to(torch.float64)
    reachable = baseline > 0
    ratio = torch.zeros_like(values)
    ratio[reachable] = values[reachable] / baseline[reachable]
    return row_normalize(ratio)


def baseline_difference(values: torch.Tensor, baseline: torch.Tensor) -> torch.Tensor:
    """RF-D: the signed excess over chance, ``values - baseline``; rows sum to 0 for stochastic inputs."""
    return values.to(torch.float64) - baseline.to(torch.float64)


def drop_sink(values: torch.Tensor, column: int = 0) -> torch.Tensor:
    """Sink-drop: zero one column (the BOS or attention-sink token) and re-normalise rows."""
    out = values.to(torch.float64).clone()
    out[..., column] = 0
    return row_normalize(out)


def query_lift(att: torch.Tensor, masks: torch.Tensor) -> torch.Tensor:
    """RF-Q, single-layer displays only: ``r_i · A[i, j]``, attention relative to uniform (1 = chance).

    att, masks: ``(L, n, n)``. Row-normalising the result gives back A, so this is not a
    rollout option.
    """
    return att.to(torch.float64) * masks.sum(-1, keepdim=True).to(torch.float64)


def received_per_query(att: torch.Tensor, masks: torch.Tensor) -> torch.Tensor:
    """RF-K, column aggregates only: attention received by key j per query that may see it.

    ``(L, n, n) -> (L, n)``: ``sum_i A[i, j] / #{i : j in K_i}``.
    """
    eligible = masks.sum(-2).to(torch.float64)
    received = att.to(torch.float64).sum(-2)
    return torch.where(eligible > 0, received / eligible.clamp(min=1), torch.zeros_like(received))


def prescaled_residual_rollout(att: torch.Tensor) -> torch.Tensor:
    """The public snippet's variant (comparison only): divide row i by i + 1, add I, re-normalise,
    then roll out. Equal to a residual weight (i + 1) / (i + 2) for position i. ``(L, n, n)``."""
    n = att.shape[-1]
    scale = 1.0 / torch.arange(1, n + 1, dtype=torch.float64).unsqueeze(-1)
    eye = torch.eye(n, dtype=torch.float64)
    a_hat = row_normalize(row_normalize(att.to(torch.float64)) * scale + eye)
    return cumulative_products(a_hat)


RF_NOTE = (
    " Receptive-field normalised (RF-B, our interpretation of Abnar & Zuidema's advice): divided by the same "
    "quantity on content-free attention with the same causal mask, so that position alone gives uniform rows."
)
