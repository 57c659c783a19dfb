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
    done=lambda analysis: analysis.flow_layers_done("effective-clip"),
    applies=needs_values,
    compare=None,
    group="Effective attention",
)
