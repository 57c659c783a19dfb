"""Which keys each layer may see beyond the causal mask, read from the config.

What the config says is checked against the zeros the model actually returned
(``verify.check_masks``), so a window this module does not know about is refused, not drawn.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch

from ..methods.masks import admissible_keys


@dataclass(frozen=True)
class LayerPattern:
    """One layer's restriction: a sliding window, a chunk, or neither (full attention)."""

    window: int | None = None
    chunk: int | None = None

    def mask(self, n: int, causal: bool) -> torch.Tensor:
        """``(n, n)`` bool admissible keys."""
        return admissible_keys(n, causal, self.window, self.chunk)

    def __str__(self) -> str:
        if self.window is not None:
            return f"sliding window {self.window}"
        return f"chunks of {self.chunk}" if self.chunk is not None else "full"


def _int(value) -> int | None:
    return int(value) if isinstance(value, int) and not isinstance(value, bool) and value > 0 else None


def layer_patterns(config, n_layers: int) -> list[LayerPattern]:
    """Per layer, the window or chunk the model applies, from the fields transformers uses.

    ``layer_types`` ("sliding_attention", "chunked_attention", ...) with ``sliding_window``
    or ``attention_chunk_size``; a ``sliding_window`` without layer types applies to every
    layer (Mistral); GPT-Neo's ``attention_layers`` ("local") with ``window_size``.
    """
    window = _int(getattr(config, "sliding_window", None))
    chunk = _int(getattr(config, "attention_chunk_size", None))
    types = getattr(config, "layer_types", None)
    if types is None and getattr(config, "attention_layers", None) is not None:  # GPT-Neo
        window = _int(getattr(config, "window_size", None))
        types = ["sliding_attention" if t == "local" else "full_attention" for t in config.attention_layers]
    if types is None:
        return [LayerPattern(window=window)] * n_layers
    patterns = {"sliding_attention": LayerPattern(window=window), "chunked_attention": LayerPattern(chunk=chunk)}
    found = [patterns.get(kind, LayerPattern()) for kind in list(types)[:n_layers]]
    return found + [LayerPattern()] * (n_layers - len(found))
