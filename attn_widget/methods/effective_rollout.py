"""Effective rollout (E1, docs/methods.md §5.3): rollout on clipped, re-normalised effective attention.

The maths: ``effective.effective_mixing`` then ``rollout.rollout``.
"""

from __future__ import annotations

from .registry import Comparison, needs_values, register, register_graph
from .rollout import residual_augment

# What effective rollout multiplies and effective flow takes as capacities: the edges of their whole-model view.
register_graph(
    "effective_step",
    "Effective attention step 0.5·E + 0.5·I",
    "Each layer's step of effective rollout and the capacities of effective flow: half E, the head-averaged "
    "effective attention with negative entries set to 0 and rows re-normalised (E1), half the identity I (the "
    "residual connection).",
    lambda analysis: analysis.effective_mixing("clip"),
    residual_augment,
    applies=needs_values,
)

register(
    "effective_rollout",
    "Effective rollout",
    "Rollout on effective attention: head-averaged, negative entries clipped, rows re-normalised (E1), "
    "then 0.5·Ā + 0.5·I multiplied through the layers. Clipping gives up exact output preservation.",
    lambda analysis, _settings: analysis.effective_rollout(receptive_field="none"),
    explain=(
        "Attention rollout built on effective attention (attention without the part that changes nothing in the "
        "output). Negative entries are set to 0 and rows re-normalised (variant E1 of docs/methods.md), then "
        "multiplied through the layers like rollout. An edge means: that share of the right token traces back to "
        "the input token; the colour goes from pale (little) to dark (the most; the legend gives the scale). "
        "Definition: R_l = (0.5·E_l + 0.5·I) · … · (0.5·E_1 + 0.5·I), with E = rownormalise(max(Ā_eff, 0))."
    ),
    cumulative=True,
    graph="effective_step",
    applies=needs_values,
    # Where no row sees more keys than the head dimension it equals rollout: nothing to compare.
    compare=Comparison(name="effective rollout", applies=lambda analysis: not analysis.effective_is_raw),
    group="Effective attention",
    hint="Rollout of effective attention, negatives set to 0 and rows re-normalised.",
    trust=(
        "Clipping negatives gives up the exactness of effective attention; read it as rollout's assumptions applied "
        "to effective attention."
    ),
)
