"""Effective attention (Brunner et al. 2020) and the mixing, rollout built on it."""

from __future__ import annotations

import torch

from .. import methods
from ..quiet import remark
from .base import Part, normalise


def effective_of_record(record, sum_preserving: bool, dtype: torch.dtype) -> torch.Tensor:
    """``(L, H, nq, nk)`` effective attention of a capture record with verified values
    (``methods.effective_attention`` layer by layer, in ``dtype``)."""
    values, out_weights, _ = record.require_values()
    eps = float(torch.finfo(record.values_dtype).eps)
    group = record.geometry.kv_group()
    result = torch.empty(record.heads.shape, dtype=dtype)

    def one_layer(layer: int, heads: torch.Tensor) -> None:
        methods.effective_attention(
            heads,
            values[layer],
            record.masks[layer],
            group=group,
            out_weights=out_weights[layer],
            sum_preserving=sum_preserving,
            eps=eps,
            out=result[layer],
        )

    record.heads.visit(one_layer)  # a long input's heads in one pass, a layer at a time
    return result


class EffectivePart(Part):
    """Quantities that need the captured value vectors."""

    def effective(self, sum_preserving: bool = False) -> torch.Tensor:
        """``(L, H, n, n)`` signed effective attention; warns when it equals raw attention."""
        key = ("effective", sum_preserving)
        if key not in self.cache:
            self.cache[key] = self._compute(sum_preserving)
        return self.cache[key]

    def _compute(self, sum_preserving: bool) -> torch.Tensor:
        record = self.capture
        record.require_values()  # refuses with the reason when the values are missing
        if record.n_tokens <= record.geometry.head_dim + int(sum_preserving):
            remark(
                f"{record.n_tokens} tokens do not exceed the head dimension "
                f"({record.geometry.head_dim}): effective attention equals raw attention here.",
                stacklevel=4,
            )
        dtype = torch.float64 if record.heads.dtype == torch.float64 else torch.float32
        return effective_of_record(record, sum_preserving, dtype)

    @property
    def is_raw(self) -> bool:
        """No row sees more keys than the head dimension: effective attention equals raw attention."""
        return self.capture.n_tokens <= self.capture.geometry.head_dim

    def removed(self) -> torch.Tensor:
        """``(L, H, n)``: per row, ``Σ_j |A - A_eff|``."""

        def removed() -> torch.Tensor:
            effective, out = self.effective(), torch.empty(self.capture.heads.shape[:-1], dtype=torch.float64)
            self.capture.heads.visit(
                lambda layer, heads: out.__setitem__(layer, methods.removed_mass(heads, effective[layer]))
            )
            return out

        return self.cached(("removed",), removed)

    def mixing(self, variant: str = "clip") -> torch.Tensor:
        """``(L, n, n)`` row-stochastic mixing from head-averaged effective attention (E1 "clip" or E3 "abs")."""
        return self.cached(
            ("mixing", variant),
            lambda: methods.effective_mixing(self.effective().mean(1), self.analysis.raw(), variant),
        )

    def rollout(self, variant: str = "clip", residual: float = 0.5, receptive_field: str = "none") -> torch.Tensor:
        """``(L, n, n)`` rollout on effective attention: "clip" (E1), "abs" (E3) or "signed" (E2)."""
        if variant == "signed":
            return self.cached(
                ("rollout", "signed", float(residual)),
                lambda: methods.signed_rollout(self.effective(sum_preserving=True).mean(1), residual),
            )
        variant_rf = self.variant(receptive_field)
        plain = self.cached(
            ("rollout", variant, float(residual)), lambda: methods.rollout(self.mixing(variant), residual)
        )
        if variant_rf == "none":
            return plain
        return normalise(variant_rf, plain, self.analysis.attention_part.rollout_baseline(residual))
