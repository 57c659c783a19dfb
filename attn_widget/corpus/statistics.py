"""Per-head attention statistics of each text of a padded batch, over its real tokens only.

Every statistic is a mean over a text's query rows (its real tokens) of one number per row, so
a text gets one value per (layer, head). With right padding, a text's real tokens are positions
``0..n-1``; pad keys carry exactly zero weight for real queries (the attention mask for
encoders, the causal mask for decoders), and pad query rows are left out of every mean. The
result for a text is therefore the same whether it is analysed alone or in a padded batch.

    entropy          −Σ_j a_ij log a_ij (nats): how spread a query's attention is
    first_token      a_i0: mass on the first token ([CLS], <s>, or the first word of a decoder)
    special_tokens   Σ_{j special} a_ij: mass on [CLS], [SEP], <s>, ...
    previous_token   a_i,i−1, over queries i ≥ 1 (NaN for a one-token text)
    self             a_ii: mass a token keeps on itself
    same_token       Σ_{j: id_j = id_i} a_ij: mass on every occurrence of the query's own token
    distance         Σ_j a_ij |i − j|: mean attention distance in tokens
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import torch


@dataclass(frozen=True)
class Rows:
    """What a statistic may look at for one layer of a padded batch (``B`` texts, ``H`` heads, ``N`` padded length)."""

    attention: torch.Tensor  # (B, H, N, N) float32 or float64, row = query
    real: torch.Tensor  # (B, N) bool: real (not pad) tokens
    special: torch.Tensor  # (B, N) bool: special tokens
    ids: torch.Tensor  # (B, N) long: token ids
    offsets: torch.Tensor  # (N, N) |i − j|, in the attention's dtype


def _entropy(rows: Rows) -> torch.Tensor:
    return -torch.special.xlogy(rows.attention, rows.attention).sum(-1)


def _first(rows: Rows) -> torch.Tensor:
    return rows.attention[..., 0]


def _special(rows: Rows) -> torch.Tensor:
    return (rows.attention @ rows.special[:, None, :, None].to(rows.attention.dtype))[..., 0]


def _previous(rows: Rows) -> torch.Tensor:
    previous = rows.attention.diagonal(offset=-1, dim1=-2, dim2=-1)  # (B, H, N - 1): a[i, i - 1] for i >= 1
    return torch.nn.functional.pad(previous, (1, 0), value=torch.nan)  # query 0 has no previous token


def _self(rows: Rows) -> torch.Tensor:
    return rows.attention.diagonal(dim1=-2, dim2=-1)


def _same(rows: Rows) -> torch.Tensor:
    same = (rows.ids[:, :, None] == rows.ids[:, None, :]).to(rows.attention.dtype)  # (B, N, N)
    return (rows.attention * same[:, None]).sum(-1)


def _distance(rows: Rows) -> torch.Tensor:
    return (rows.attention * rows.offsets).sum(-1)


# name → (one value per query row (B, H, N), NaN where undefined; description). Declared once: the
# result tables, the figure and the docs read this table.
STATISTICS: dict[str, tuple[Callable[[Rows], torch.Tensor], str]] = {
    "entropy": (_entropy, "attention entropy in nats, mean over query tokens"),
    "first_token": (_first, "attention mass on the first token"),
    "special_tokens": (_special, "attention mass on special tokens ([CLS], [SEP], <s>, ...)"),
    "previous_token": (_previous, "attention mass on the previous token"),
    "self": (_self, "attention mass a token keeps on itself"),
    "same_token": (_same, "attention mass on occurrences of the query's own token"),
    "distance": (_distance, "mean attention distance in tokens"),
}


def describe(statistic: str) -> str:
    """What a column of ``CorpusResult.heads`` measures, in words: a statistic's, or head importance's."""
    return STATISTICS[statistic][1] if statistic in STATISTICS else "head importance |∂y/∂ξ_h|"


def check_names(names) -> tuple[str, ...]:
    """The statistic names asked for, in table order; a clear error for unknown ones."""
    names = tuple(STATISTICS) if names is None else (names,) if isinstance(names, str) else tuple(names)
    unknown = [name for name in names if name not in STATISTICS]
    if unknown:
        raise ValueError(f"Unknown statistic {unknown[0]!r}; choose from {', '.join(STATISTICS)}.")
    return tuple(name for name in STATISTICS if name in names)


def batch_statistics(
    attentions: tuple[torch.Tensor, ...] | list[torch.Tensor],
    real: torch.Tensor,
    special: torch.Tensor,
    ids: torch.Tensor,
    names: tuple[str, ...],
) -> dict[str, torch.Tensor]:
    """name → ``(B, L, H)`` float64 on the CPU: each statistic's mean over each text's real query rows.

    attentions: L tensors ``(B, H, N, N)`` (what the model returned, padded on the right);
    real, special: ``(B, N)`` bool; ids: ``(B, N)`` long. Per-row values are computed in the
    attention's own precision (float32 for half-precision models): a float32 model's attention in a
    padded batch already differs from the text alone by ~1e-7, and float64 copies would cost a
    fifth of the forward pass. The means over rows are taken in float64.
    """
    work = attentions[0].dtype if attentions[0].dtype in (torch.float32, torch.float64) else torch.float32
    device = attentions[0].device
    n = attentions[0].shape[-1]
    positions = torch.arange(n, device=device, dtype=work)
    offsets = (positions[:, None] - positions[None, :]).abs()
    real, special, ids = real.to(device), special.to(device), ids.to(device)
    queries = real[:, None, :]  # (B, 1, N)
    per_layer: dict[str, list[torch.Tensor]] = {name: [] for name in names}
    for layer_attention in attentions:
        rows = Rows(layer_attention.detach().to(work), real, special, ids, offsets)
        for name in names:
            values = STATISTICS[name][0](rows).to(torch.float64)  # (B, H, N); pad query rows are left out below
            defined = queries & ~values.isnan()
            total = torch.where(defined, values, 0.0).sum(-1)
            per_layer[name].append(total / defined.sum(-1))  # 0/0 = NaN where no row is defined
    return {name: torch.stack(values, 1).cpu() for name, values in per_layer.items()}
