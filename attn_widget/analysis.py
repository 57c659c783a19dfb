"""``Analysis``: the one API that the widget, exports and plots use.

Each method is computed on first use and cached; the capture is never modified.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable

import torch

from . import methods
from .capture import Capture, capture
from .methods.heads import HeadChoice


class Analysis:
    """Attention-flow quantities of one text through one model.

    Layer ``l`` of every ``(L, n, n)`` result is index ``l - 1`` (layer 0 is the input).
    """

    def __init__(self, record: Capture):
        self.capture = record
        self._cache: dict[Hashable, torch.Tensor] = {}

    # Facts about the input -------------------------------------------------
    @property
    def tokens(self) -> list[str]:
        """Display text of each of the n tokens."""
        return list(self.capture.tokens)

    @property
    def attentions(self) -> torch.Tensor:
        """``(L, H, n, n)`` attention probabilities, row = query, column = key."""
        return self.capture.attentions

    @property
    def causal(self) -> bool:
        return self.capture.causal

    @property
    def n_layers(self) -> int:
        return self.capture.n_layers

    @property
    def n_heads(self) -> int:
        return self.capture.n_heads

    # Methods -----------------------------------------------------------------
    def raw(self, head: HeadChoice = None) -> torch.Tensor:
        """``(L, n, n)`` raw attention of one head, or the head mean (default) or max."""
        key = ("raw", "mean" if head is None else head)
        return self._cached(key, lambda: methods.aggregate_heads(self.attentions, head))

    def rollout(self, residual: float = 0.5) -> torch.Tensor:
        """``(L, n, n)`` float64 rollout to every layer (methods.md section 2)."""
        return self._cached(("rollout", float(residual)), lambda: methods.rollout(self.raw(), residual))

    def path_counts(self, threshold: float = 0.0, head: HeadChoice = None) -> torch.Tensor:
        """``(L, n, n)`` number of paths in the binarised graph ``A > threshold`` (methods.md 1.2)."""
        key = ("path_counts", float(threshold), "mean" if head is None else head)
        return self._cached(key, lambda: methods.path_counts(methods.binarize(self.raw(head), threshold)))

    def _cached(self, key: Hashable, compute: Callable[[], torch.Tensor]) -> torch.Tensor:
        if key not in self._cache:
            self._cache[key] = compute()
        return self._cache[key]

    def __repr__(self) -> str:
        kind = "decoder" if self.causal else "encoder"
        return (
            f"<Analysis {self.capture.model_name!r} ({kind}): {self.capture.n_tokens} tokens, "
            f"{self.n_layers} layers, {self.n_heads} heads>"
        )


def analyze(model, text: str, tokenizer=None) -> Analysis:
    """Run ``model`` on ``text`` once and return a lazily computed ``Analysis``.

    model: a PyTorch Hugging Face transformers model (left exactly as it was found).
    tokenizer: optional; loaded from the model's local path when omitted.
    """
    return Analysis(capture(model, text, tokenizer))
