"""What every part of an ``Analysis`` shares: a cache, and the receptive-field variants."""

from __future__ import annotations

from collections.abc import Callable, Hashable
from typing import Any, TypeVar

import torch

from .. import methods

RECEPTIVE_FIELD = ("none", "rf-b", "rf-d", "auto")  # "none", the default, first
T = TypeVar("T")


class Part:
    """A family of quantities of one analysis, computed on first use and cached here."""

    def __init__(self, analysis):
        self.analysis = analysis
        self.cache: dict[Hashable, Any] = {}  # tensors, and the gradient part's result records

    @property
    def capture(self):
        return self.analysis.capture

    def cached(self, key: Hashable, compute: Callable[[], T]) -> T:
        if key not in self.cache:
            self.cache[key] = compute()
        return self.cache[key]

    def variant(self, receptive_field: str) -> str:
        """``"none"``, ``"rf-b"`` or ``"rf-d"``: ``"auto"`` (never the default) is RF-B for decoders, else none."""
        if receptive_field not in RECEPTIVE_FIELD:
            raise ValueError(f"receptive_field must be one of {RECEPTIVE_FIELD}; got {receptive_field!r}.")
        if receptive_field == "auto":
            return "rf-b" if self.capture.causal else "none"
        return receptive_field


def normalise(variant: str, values: torch.Tensor, baseline: torch.Tensor) -> torch.Tensor:
    """RF-B (ratio to the content-free baseline, rows re-normalised) or RF-D (difference)."""
    if variant == "rf-b":
        return methods.baseline_ratio(values, baseline)
    return methods.baseline_difference(values, baseline)
