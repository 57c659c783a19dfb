"""Raw attention and what is built on it alone: rollout, path counts, null attention."""

from __future__ import annotations

import torch

from .. import methods
from ..methods.heads import HeadChoice
from .base import Part, normalise


class AttentionPart(Part):
    """Quantities of the captured attention probabilities ``(L, H, n, n)``."""

    def raw(self, head: HeadChoice = None) -> torch.Tensor:
        """``(L, n, n)`` raw attention of one head, or the head mean (default) or max."""
        key = ("raw", "mean" if head is None else head)
        return self.cached(key, lambda: self.capture.heads.reduced(head))

    def rollout(self, residual: float = 0.5, receptive_field: str = "none") -> torch.Tensor:
        """``(L, n, n)`` float64 rollout, optionally receptive-field normalised."""
        variant = self.variant(receptive_field)
        plain = self.cached(("rollout", float(residual)), lambda: methods.rollout(self.raw(), residual))
        if variant == "none":
            return plain
        return self.cached(
            ("rollout", float(residual), variant), lambda: normalise(variant, plain, self.rollout_baseline(residual))
        )

    def rollout_baseline(self, residual: float) -> torch.Tensor:
        """``(L, n, n)`` rollout of the content-free attention: the RF-B/RF-D baseline R0."""
        return self.cached(
            ("rollout-baseline", float(residual)), lambda: methods.rollout(self.null_attention(), residual)
        )

    def null_attention(self) -> torch.Tensor:
        """``(L, n, n)`` content-free attention with this input's masks."""
        return self.cached(("null",), lambda: methods.null_attention(self.capture.masks))

    def binarised(self, threshold: float = 0.0, head: HeadChoice = None) -> torch.Tensor:
        """``(L, n, n)`` float64 0/1 graph ``1[A > threshold]`` of the head mean (default), max or one head."""
        key = ("binarised", float(threshold), "mean" if head is None else head)
        return self.cached(key, lambda: methods.binarize(self.raw(head), threshold).to(torch.float64))

    def path_counts(self, threshold: float = 0.0, head: HeadChoice = None) -> torch.Tensor:
        """``(L, n, n)`` number of paths in the binarised graph ``A > threshold``."""
        key = ("path_counts", float(threshold), "mean" if head is None else head)
        return self.cached(key, lambda: methods.path_counts(self.binarised(threshold, head)))
