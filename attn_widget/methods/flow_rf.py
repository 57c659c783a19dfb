"""Flow, receptive-field normalised (RF-B on attention flow, docs/methods.md §4): decoders only.

The maths: ``receptive_field.baseline_ratio`` of the flow and the flow of ``null_attention``.
"""

from __future__ import annotations

from .flow import flow_compare_rows, register_flow
from .receptive_field import RF_NOTE
from .registry import Comparison, decoders_only


def _done(analysis) -> list[int]:
    """Layers with both the flow and its content-free baseline computed."""
    return sorted(set(analysis.flow_layers_done("attention")) & set(analysis.flow_layers_done("baseline")))


register_flow(
    "flow_rf",
    "Flow, receptive-field normalised",
    "Attention flow." + RF_NOTE,
    lambda analysis, layers, progress: analysis.flow(layers=layers, receptive_field="rf-b", progress=progress),
    explain=(
        "Attention flow corrected for position: RF-B (receptive-field baseline) divides by the flow of content-"
        "free attention (every visible key equally weighted) with the same causal mask, so that early tokens get "
        "no weight just for being visible to everyone. An edge means: flow above what position alone gives; the "
        "colour goes from pale (little) to dark (the most; the legend gives the scale). Definition: "
        "rownormalise(F ⊘ F₀), with F the attention flow, F₀ the flow of uniform attention."
    ),
    done=_done,
    graph="attention_step",  # the capacities; the normalisation comes after the max flows
    applies=decoders_only,
    compare=Comparison(name="flow (RF-B)", rows=flow_compare_rows("rf-b")),
    row=flow_compare_rows("rf-b"),
    row_instant=(1, 2),
    group="Through the layers",
    hint="Flow above what position alone gives: for decoders, where early tokens are seen by all.",
    trust=(
        "Our reading of Abnar & Zuidema's advice for decoders (RF-B), not a published definition: a high value means "
        "more than a uniform reader would give. Compare it with plain flow before drawing conclusions."
    ),
)
