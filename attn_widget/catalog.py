"""The methods the widget can show, and the tensors each one sends to the front end.

Adding a method to the widget means adding one ``ViewMethod`` here.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import torch

from . import methods
from .analysis import Analysis

# Flow needs one max-flow problem per (layer, token, input token). Up to this many
# tokens it is computed with the widget (about a second for 12 layers on two cores,
# benchmarks/RESULTS.md); beyond, each layer is computed when the view asks for it.
FLOW_UPFRONT_MAX_TOKENS = 40
DEFAULT_BINARIZE_THRESHOLD = 0.05


@dataclass(frozen=True)
class ViewSettings:
    """The widget's settings that change what a method computes (not just how it is drawn)."""

    binarize_threshold: float = DEFAULT_BINARIZE_THRESHOLD  # path counts: an edge exists where Ā > this


@dataclass(frozen=True)
class ViewMethod:
    id: str
    label: str
    per_head: bool  # data is (L, H + 2, n, n): each head, then mean, then max
    cumulative: bool  # sources are the input tokens (layer 0), not the previous layer
    description: str
    # (analysis, settings) -> (L, n, n), or (L, H + 2, n, n) when per_head
    stack: Callable[[Analysis, ViewSettings], torch.Tensor]
    applies: Callable[[Analysis], bool] = lambda analysis: True
    # For methods computed layer by layer on request: (analysis, layers, progress) -> (len, n, n).
    layers: Callable[..., torch.Tensor] | None = None
    # Layers already computed, for methods with ``layers``.
    done: Callable[[Analysis], list[int]] | None = None
    # A per-row quantity shown with the method: (analysis) -> (L, S, n), and its label.
    row_values: Callable[[Analysis], torch.Tensor] | None = None
    row_label: str = ""
    # A remark about this input shown with the method (e.g. "nothing changes here").
    note: Callable[[Analysis], str] = lambda analysis: ""

    def deferred(self, analysis: Analysis) -> bool:
        """Whether to compute this method layer by layer when asked rather than up front."""
        return self.layers is not None and analysis.capture.n_tokens > FLOW_UPFRONT_MAX_TOKENS

    def values(self, analysis: Analysis, settings: ViewSettings) -> tuple[torch.Tensor, list[int]]:
        """The data to show and the layer numbers it holds; a deferred method's missing layers are zero."""
        if not self.deferred(analysis):
            return self.stack(analysis, settings), list(range(1, analysis.n_layers + 1))
        done = self.done(analysis)
        n = analysis.capture.n_tokens
        data = torch.zeros(analysis.n_layers, n, n, dtype=torch.float64)
        if done:
            data[[layer - 1 for layer in done]] = self.layers(analysis, done, False)
        return data, done

    def meta(self, analysis: Analysis) -> dict:
        """What the front end needs to label and index the data (JSON-safe)."""
        return {
            "note": self.note(analysis),
            "id": self.id,
            "label": self.label,
            "per_head": self.per_head,
            "cumulative": self.cumulative,
            "description": self.description,
            "row_label": self.row_label,
        }


def _per_head_stack(heads: torch.Tensor) -> torch.Tensor:
    """``(L, H, n, n)`` → ``(L, H + 2, n, n)``: each head, their mean, their max."""
    heads = heads.to(torch.float64)
    return torch.cat([heads, heads.mean(1, keepdim=True), heads.amax(1, keepdim=True)], dim=1)


def _raw_stack(analysis: Analysis, _settings: ViewSettings) -> torch.Tensor:
    heads = analysis.attentions
    return torch.cat([heads, analysis.raw().unsqueeze(1).to(heads.dtype), analysis.raw("max").unsqueeze(1)], dim=1)


def _effective_removed(analysis: Analysis) -> torch.Tensor:
    """``(L, H + 2, n)``: Σ_j |A - A_eff| per row, for every head slot of the effective stack."""
    effective = analysis.effective().to(torch.float64)
    return torch.cat(
        [
            analysis.effective_removed(),
            methods.removed_mass(analysis.raw(), effective.mean(1)).unsqueeze(1),
            methods.removed_mass(analysis.raw("max"), effective.amax(1)).unsqueeze(1),
        ],
        dim=1,
    )


def _has_values(analysis: Analysis) -> bool:
    return analysis.capture.values is not None


def _effective_note(analysis: Analysis) -> str:
    n, head_dim = analysis.capture.n_tokens, analysis.capture.geometry.head_dim
    if analysis.effective_is_raw:
        return f"{n} tokens do not exceed the head dimension ({head_dim}): effective attention equals raw attention."
    if analysis.causal:
        return f"Rows of the first {head_dim} tokens see at most {head_dim} keys and are unchanged."
    return ""


def _is_decoder(analysis: Analysis) -> bool:
    return analysis.causal


_RF_NOTE = (
    " Receptive-field normalised (RF-B, our interpretation of Abnar & Zuidema's advice): divided by the same "
    "quantity on content-free attention with the same causal mask, so that position alone gives uniform rows."
)

def _flow_method(id: str, label: str, description: str, compute, done, applies=lambda analysis: True) -> ViewMethod:
    """A flow-like method: sent with the widget for short inputs, computed layer by layer on request otherwise.

    compute: (analysis, layers or None, progress) -> (len(layers), n, n).
    """
    return ViewMethod(
        id=id,
        label=label,
        per_head=False,
        cumulative=True,
        description=description,
        stack=lambda analysis, _settings: compute(analysis, None, False),
        applies=applies,
        layers=compute,
        done=done,
    )


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
        id="effective",
        label="Effective attention",
        per_head=True,
        cumulative=False,
        description=(
            "Brunner et al. (2020): each attention row without its part in the left null space of V·W_O, which "
            "changes nothing in the head's output. Signed: blue is negative. Equal to raw attention for rows that "
            "see no more keys than the head dimension."
        ),
        stack=lambda analysis, _settings: _per_head_stack(analysis.effective()),
        applies=_has_values,
        row_values=_effective_removed,
        row_label="attention removed (Σ|A − A_eff|)",
        note=_effective_note,
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
        stack=lambda analysis, _settings: analysis.rollout(receptive_field="none"),
    ),
    ViewMethod(
        id="rollout_rf",
        label="Rollout, receptive-field normalised",
        per_head=False,
        cumulative=True,
        description="Attention rollout." + _RF_NOTE,
        stack=lambda analysis, _settings: analysis.rollout(receptive_field="rf-b"),
        applies=_is_decoder,
    ),
    ViewMethod(
        id="effective_rollout",
        label="Effective rollout",
        per_head=False,
        cumulative=True,
        description=(
            "Rollout on effective attention: head-averaged, negative entries clipped, rows re-normalised (E1), "
            "then 0.5·Ā + 0.5·I multiplied through the layers. Clipping gives up exact output preservation."
        ),
        stack=lambda analysis, _settings: analysis.effective_rollout(receptive_field="none"),
        applies=_has_values,
    ),
    ViewMethod(
        id="paths",
        label="Path counts (binarised graph)",
        per_head=False,
        cumulative=True,
        description=(
            "Products of the 0/1 matrices 1[Ā > threshold] (threshold set in the view): how many paths lead from "
            "each input token to each token after this layer. Only binary matrices count paths; products of "
            "weighted attention matrices have no such meaning."
        ),
        stack=lambda analysis, settings: analysis.path_counts(threshold=settings.binarize_threshold),
    ),
    _flow_method(
        "flow",
        "Attention flow",
        "Abnar & Zuidema (2020): the maximum flow from each position after this layer to each input token, "
        "with 0.5·A + 0.5·I as capacities, normalised per row. Exact.",
        lambda analysis, layers, progress: analysis.flow(layers=layers, receptive_field="none", progress=progress),
        done=lambda analysis: analysis.flow_layers_done("attention"),
    ),
    _flow_method(
        "flow_rf",
        "Flow, receptive-field normalised",
        "Attention flow." + _RF_NOTE,
        lambda analysis, layers, progress: analysis.flow(layers=layers, receptive_field="rf-b", progress=progress),
        done=lambda analysis: sorted(
            set(analysis.flow_layers_done("attention")) & set(analysis.flow_layers_done("baseline"))
        ),
        applies=_is_decoder,
    ),
    _flow_method(
        "effective_flow",
        "Effective flow",
        "Attention flow with the clipped, re-normalised effective attention (E1) as capacities.",
        lambda analysis, layers, progress: analysis.effective_flow(
            layers=layers, receptive_field="none", progress=progress
        ),
        done=lambda analysis: analysis.flow_layers_done("effective-clip"),
        applies=_has_values,
    ),
)


def view_methods(analysis: Analysis) -> list[ViewMethod]:
    """The methods that apply to this analysis (normalised variants only for decoders)."""
    return [method for method in VIEW_METHODS if method.applies(analysis)]


def view_method(method_id: str) -> ViewMethod:
    for method in VIEW_METHODS:
        if method.id == method_id:
            return method
    raise KeyError(method_id)
