"""Architecture adapters, chosen by ``config.model_type``. Methods never ask what model they run on."""

from __future__ import annotations

from .base import Adapter, HeadGeometry, sliding_windows
from .bert import BERT_LIKE, DISTILBERT
from .gpt2 import GPT2
from .llama import LLAMA_LIKE

ADAPTERS: tuple[Adapter, ...] = (BERT_LIKE, DISTILBERT, GPT2, LLAMA_LIKE)


def adapter_for(config) -> Adapter | None:
    """The adapter for a model's config, or ``None`` when its family is not supported."""
    model_type = getattr(config, "model_type", None)
    for adapter in ADAPTERS:
        if model_type in adapter.model_types:
            return adapter
    return None


def supported_families() -> str:
    """Human-readable list for error messages."""
    return "; ".join(f"{a.family} ({', '.join(a.model_types)})" for a in ADAPTERS)


__all__ = ["ADAPTERS", "Adapter", "HeadGeometry", "adapter_for", "sliding_windows", "supported_families"]
