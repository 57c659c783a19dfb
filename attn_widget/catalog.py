"""The methods the widget can show, and the tensors each one sends to the front end.

Adding a method to the widget means adding one ``ViewMethod`` here.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import torch

from .analysis import Analysis


@dataclass(frozen=True)
class ViewMethod:
    id: str
    label: str
    per_head: bool  # data is (L, H + 2, n, n): each head, then mean, then max
    cumulative: bool  # sources are the input tokens (layer 0), not the previous layer
    description: str
    stack: Callable[[Analysis], torch.Tensor]  # (L, n, n), or (L, H + 2, n, n) when per_head

    def meta(self) -> dict:
        """What the front end needs to label and index the data (JSON-safe)."""
        return {
            "id": self.id,
            "label": self.label,
            "per_head": self.per_head,
            "cumulative": self.cumulative,
            "description": self.description,
        }


def _raw_stack(analysis: Analysis) -> torch.Tensor:
    heads = analysis.attentions
    return torch.cat([heads, analysis.raw().unsqueeze(1).to(heads.dtype), analysis.raw("max").unsqueeze(1)], dim=1)


VIEW_METHODS: tuple[ViewMethod, ...] = (
    ViewMethod(
        id="raw",
        label="Raw attention",
        per_head=True,
        cumulative=False,
        description="Attention weights of one layer: each token on the right draws on the tokens on the left.",
        stack=_raw_stack,
    ),
    ViewMethod(
        id="rollout",
        label="Attention rollout",
        per_head=False,
        cumulative=True,
        description=(
            "Abnar & Zuidema (2020): 0.5·A + 0.5·I multiplied through the layers. How much of each input "
            "token reaches each position after this layer (heads averaged)."
        ),
        stack=lambda analysis: analysis.rollout(),
    ),
)


def view_method(method_id: str) -> ViewMethod:
    for method in VIEW_METHODS:
        if method.id == method_id:
            return method
    raise KeyError(method_id)
