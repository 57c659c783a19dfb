"""Rollout, receptive-field normalised (RF-B, docs/methods.md §4): decoders only.

The maths: ``receptive_field.baseline_ratio`` of rollout and the rollout of ``null_attention``.
"""

from __future__ import annotations

from .receptive_field import RF_NOTE
from .registry import Comparison, decoders_only, register

register(
    "rollout_rf",
    "Rollout, receptive-field normalised",
    "Attention rollout." + RF_NOTE,
    lambda analysis, _settings: analysis.rollout(receptive_field="rf-b"),
    explain=(
        "Attention rollout corrected for position: in a decoder the first tokens are seen by every later token "
        "and collect weight for that reason alone. RF-B (receptive-field baseline) divides by the rollout of "
        "content-free attention (every visible key equally weighted) with the same causal mask. An edge means: "
        "how much more than position alone would give the input token reaches the right token; the colour goes "
        "from pale (little) to dark (the most; the legend gives the scale). Definition: rownormalise(R ⊘ R₀), "
        "with R the rollout, R₀ the rollout of uniform attention, ⊘ division entry by entry."
    ),
    cumulative=True,
    graph="attention_step",  # the normalisation comes after the product of these steps
    applies=decoders_only,
    compare=Comparison(name="rollout (RF-B)"),
    group="Through the layers",
    hint="Rollout above what position alone gives: for decoders, where early tokens are seen by all.",
    trust=(
        "Our reading of Abnar & Zuidema's advice for decoders (RF-B), not a published definition: a high value means "
        "more than a uniform reader would give. Compare it with plain rollout before drawing conclusions."
    ),
)
