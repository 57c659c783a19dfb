"""Effective flow: attention flow with clipped, re-normalised effective attention (E1) as capacities.

The maths: ``effective.effective_mixing`` then ``flow.FlowSolver``.
"""

from __future__ import annotations

from .flow import register_flow
from .registry import needs_values

register_flow(
    "effective_flow",
    "Effective flow",
    "Attention flow with the clipped, re-normalised effective attention (E1) as capacities.",
    lambda analysis, layers, progress: analysis.effective_flow(
        layers=layers, receptive_field="none", progress=progress
    ),
    explain=(
        "Attention flow with effective attention (attention without the part that changes nothing in the output; "
        "negatives set to 0, rows re-normalised: variant E1) as pipe widths. An edge means: the largest amount "
        "that can flow from the input token to the right token, as a share of its row; the colour goes from pale "
        "(little) to dark (the most; the legend gives the scale). Definition: maxflow with capacities 0.5·E + "
        "0.5·I, E = rownormalise(max(Ā_eff, 0)), rows normalised."
    ),
    done=lambda analysis: analysis.flow_layers_done("effective-clip"),
    graph="effective_step",  # the capacities
    applies=needs_values,
    compare=None,
    group="Effective attention",
    hint="Flow with effective attention (negatives set to 0, rows re-normalised) as pipe widths.",
    trust=(
        "Clipping negatives gives up the exactness of effective attention; read it as flow's assumptions applied to "
        "effective attention."
    ),
)
